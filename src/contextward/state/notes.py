"""The one path every note takes (CLI ``note``, MCP ``note``/``decide``, the bridge).

Owner decisions have one home, STATE.md's Decisions section, so ``contextward
note decision`` and ``contextward decide`` write the same line there. Every
other note, and every decision written through the model-facing path (agent
provenance, unverified until the owner adopts it), goes to the journal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..store import Store, record_note
from .project import StateProject
from .writer import MARKED_REJECTED, record_decision


@dataclass(frozen=True)
class Noted:
    """Where a note landed: ``home`` is "state" (STATE.md) or "journal"; ``ref`` a journal id."""

    home: Literal["state", "journal"]
    type: str
    text: str
    ref: str | None = None
    tags: tuple[str, ...] = ()
    provenance: str = "owner"
    hints: tuple[str, ...] = ()
    #: A STATE.md decision that is a rejected approach (as STATE.md reads it back).
    rejected: bool = False


def note(
    store: Store,
    type: str,
    text: str,
    *,
    tags: Sequence[str] = (),
    provenance: Literal["owner", "agent"] = "owner",
    session_id: str | None = None,
    rejected: bool = False,
    why: str | None = None,
    project: StateProject | None = None,
) -> Noted:
    if type == "decision" and provenance == "owner":
        where = project or StateProject.open(store.root)
        decision = record_decision(text, rejected=rejected, why=why, project=where)
        # A STATE.md decision line has no place for tags; say so rather than lose them
        # unnoticed (a count only: a tag is the writer's text).
        dropped = sum(1 for raw in tags for part in raw.split(",") if part.strip())
        hints = [f"a decision in STATE.md takes no tags: {dropped} left out"] if dropped else []
        if decision.rejected and not rejected:
            hints.append(MARKED_REJECTED)
        return Noted("state", type, decision.text, hints=tuple(hints), rejected=decision.rejected)
    result = record_note(store, type, text, tags=tags, provenance=provenance, session_id=session_id)
    entry = result.entry
    return Noted(
        "journal",
        entry.type,
        entry.text,
        entry.id,
        tuple(entry.tags),
        entry.provenance,
        result.hints,
    )
