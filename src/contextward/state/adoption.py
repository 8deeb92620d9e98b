"""Moving owner decisions recorded in the journal (before STATE.md existed) into STATE.md.

Owns ``adopt_journal_decisions``: each owner ``decision`` row of the journal
is appended once to STATE.md's Decisions (dated as recorded), and an
``events`` row keyed by its seq remembers that it moved, so running it again
adds nothing. The journal row itself stays (ledgers are append-only).
Agent-written decisions are never adopted: they stay unverified until the
owner records them. It never deletes anything.
"""

from __future__ import annotations

from ..store import Store
from .fields import parse_stamp
from .project import StateProject
from .writer import record_decision

ADOPTED_EVENT = "state.decision_adopted"


def adopt_journal_decisions(store: Store, project: StateProject) -> int:
    """Append every not-yet-adopted owner decision of the journal to STATE.md; returns how many."""
    rows = store.query(
        "SELECT seq, created_at, text FROM journal"
        " WHERE type = 'decision' AND provenance = 'owner' ORDER BY seq"
    )
    adopted = 0
    for row in rows:
        key = f"state:adopted:{int(row['seq'])}"
        if store.query("SELECT 1 FROM events WHERE key = ?", (key,)):
            continue
        record_decision(str(row["text"]), project=project, now=parse_stamp(str(row["created_at"])))
        store.events.add(ADOPTED_EVENT, {"seq": int(row["seq"])}, key=key)
        adopted += 1
    return adopted


__all__ = ["ADOPTED_EVENT", "adopt_journal_decisions"]
