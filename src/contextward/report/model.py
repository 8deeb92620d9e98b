"""What a project report shows, gathered from the store and STATE.md as plain values.

Owns: reading the state's Current fields, the decisions (STATE.md and the
journal), recent evidence runs, open loop streaks and the last compaction's
check into frozen values that the page and the text summary render.

Must never: write to the store or to any file, render markup, or return
unmasked text (every string that came from a person or a command passes
through ``mask`` here, so no renderer can forget it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..brief.restore import plan_of, snapshot_from
from ..errors import ContextwardError
from ..guard.loops import LoopStatus, open_loops
from ..redact import mask
from ..state import FIELDS, Decision, StateProject, read_state
from ..store import Record, Store
from ..store.config import load_config

#: How many rows of each list the report shows (older rows are counted, not listed).
#: Besides the last compaction, the last compaction of this many other sessions.
SESSIONS_SHOWN = 8
#: The sessions are found among the last this many snapshots (the report stays fast).
SCANNED = 500
DECISIONS_SHOWN = 40
EVIDENCE_SHOWN = 25
LOOPS_SHOWN = 15

VERDICTS = ("ok", "fail", "untrusted", "timeout")
STATUSES = ("preserved", "changed", "lost", "unknown")


@dataclass(frozen=True, slots=True)
class DecisionEntry:
    """One decision on the timeline: STATE.md (owner) or the journal (owner or agent)."""

    when: str
    text: str
    kind: str  # "decision" | "rejected" | "superseded"
    source: str  # "STATE.md" | "journal"
    trusted: bool


@dataclass(frozen=True, slots=True)
class EvidenceEntry:
    id: str
    when: str
    command: str
    exit_code: int
    verdict: str
    duration_ms: int


@dataclass(frozen=True, slots=True)
class CheckedItem:
    """One snapshot item of the last compaction, what the check found and whether it is restored."""

    id: str
    kind: str
    content: str
    critical: bool
    status: str  # preserved | changed | lost | unknown | unchecked
    restored: bool


@dataclass(frozen=True, slots=True)
class CompactionCheck:
    """The latest snapshot and its newest check (``checked`` False when none ran)."""

    snapshot_seq: int
    taken_at: str
    checked: bool
    checked_at: str
    source: str
    items: tuple[CheckedItem, ...]
    #: The session that compacted (masked; "" when none was named).
    session: str = ""

    def count(self, status: str) -> int:
        return sum(1 for item in self.items if item.status == status)

    @property
    def restored(self) -> int:
        return sum(1 for item in self.items if item.restored)


@dataclass(frozen=True, slots=True)
class ProjectReport:
    """Everything one report shows; empty parts render as an explicit "nothing yet"."""

    project: str
    generated_at: str
    state: tuple[tuple[str, str], ...]
    state_updated: str
    decisions: tuple[DecisionEntry, ...]
    decisions_total: int
    evidence: tuple[EvidenceEntry, ...]
    verdicts: tuple[tuple[str, int], ...]
    loops: tuple[LoopStatus, ...]
    loop_threshold: int
    compaction: CompactionCheck | None
    notes: tuple[str, ...] = ()
    #: The last compaction of each other session that compacted, newest first (at most
    #: ``SESSIONS_SHOWN``), and how many more sessions compacted.
    other_compactions: tuple[CompactionCheck, ...] = ()
    other_sessions_hidden: int = 0

    @property
    def evidence_total(self) -> int:
        return sum(n for _, n in self.verdicts)


def _clean(text: str) -> str:
    return mask(" ".join(str(text).split()))


def _state(
    root: Path | None, notes: list[str]
) -> tuple[tuple[tuple[str, str], ...], str, list[Decision]]:
    if root is None:
        return (), "", []
    try:
        view = read_state(StateProject.open(root))
    except (ContextwardError, OSError) as exc:
        code = getattr(exc, "code", type(exc).__name__)
        notes.append(f"STATE.md could not be read ({code})")
        return (), "", []
    known = [(name, _clean(view.fields[name])) for name in FIELDS if view.fields.get(name)]
    extra = [
        (name, _clean(value))
        for name, value in view.fields.items()
        if name not in FIELDS and name != "updated" and value
    ]
    return tuple(known + extra), _clean(view.updated), list(view.decisions)


def _decisions(store: Store, from_state: list[Decision]) -> tuple[tuple[DecisionEntry, ...], int]:
    entries = [
        DecisionEntry(
            d.date,
            _clean(d.text if not d.reason else f"{d.text} — {d.reason}"),
            d.kind,
            "STATE.md",
            True,
        )
        for d in from_state
    ]
    # The journal lists newest first; both lists now run oldest first.
    journal = store.journal.list(limit=DECISIONS_SHOWN * 2, type="decision")
    for row in reversed(journal):
        entries.append(
            DecisionEntry(row.created_at, _clean(row.text), "decision", "journal", row.trusted)
        )
    # Newest first. STATE.md dates a decision to the day only and appends, so on one day
    # the later line is the newer: the position in the oldest-first list breaks the tie.
    # Undated STATE.md lines keep their file order at the end.
    dated = [
        e
        for _, _, e in sorted(
            ((e.when, i, e) for i, e in enumerate(entries) if e.when),
            key=lambda t: (t[0], t[1]),
            reverse=True,
        )
    ]
    undated = [e for e in entries if not e.when]
    ordered = dated + undated
    return tuple(ordered[:DECISIONS_SHOWN]), len(ordered)


def _verdicts(store: Store) -> tuple[tuple[str, int], ...]:
    rows = store.query("SELECT verdict, COUNT(*) AS n FROM evidence GROUP BY verdict")
    counts = {str(row["verdict"]): int(row["n"]) for row in rows}
    ordered = [(v, counts.pop(v, 0)) for v in VERDICTS]
    return tuple(ordered + sorted(counts.items()))


def _compactions(store: Store) -> tuple[list[CompactionCheck], int]:
    """The last compaction of each session that compacted, newest first: the project's
    last, then up to ``SESSIONS_SHOWN`` other sessions' (sessions run in parallel, and the
    project's last compaction is one of theirs); and how many more sessions compacted."""
    rows = store.query(
        "SELECT MAX(seq) AS seq FROM (SELECT seq, session_id FROM snapshots"
        " ORDER BY seq DESC LIMIT ?) GROUP BY IFNULL(session_id, '') ORDER BY MAX(seq) DESC",
        (SCANNED,),
    )
    found = []
    for row in rows[: SESSIONS_SHOWN + 1]:
        check = _compaction(store, store.snapshots.get(int(row["seq"])))
        if check is not None:
            found.append(check)
    return found, max(0, len(rows) - SESSIONS_SHOWN - 1)


def _compaction(store: Store, record: Record | None) -> CompactionCheck | None:
    snapshot = snapshot_from(record)
    if record is None or snapshot is None:
        return None
    check = store.check_reports.about_snapshot(record.seq)
    statuses: dict[str, str] = {}
    if check is not None:
        report = check.data.get("report", {})
        findings = report.get("findings", ()) if isinstance(report, Mapping) else ()
        for finding in findings:
            if isinstance(finding, Mapping) and isinstance(finding.get("itemId"), str):
                statuses[finding["itemId"]] = str(finding.get("status", "unknown"))
    plan = plan_of(store, record)
    restored = {item.id for item in plan.items}
    items = tuple(
        CheckedItem(
            item.id,
            item.kind,
            _clean(item.content),
            item.critical,
            statuses.get(item.id, "unknown") if check is not None else "unchecked",
            item.id in restored,
        )
        for item in snapshot.items
    )
    return CompactionCheck(
        record.seq,
        record.created_at,
        check is not None,
        check.created_at if check is not None else "",
        _clean(check.label) if check is not None else "",
        items,
        _clean(record.session_id or ""),
    )


def gather(
    store: Store, root: Path | None, *, env: Mapping[str, str] | None = None
) -> ProjectReport:
    """Read everything the report shows. ``root`` names the project (its STATE.md, config)."""
    notes: list[str] = []
    state, updated, state_decisions = _state(root, notes)
    decisions, total = _decisions(store, state_decisions)
    threshold = load_config(root, env=env).loop_block_after
    evidence = tuple(
        EvidenceEntry(
            run.id,
            run.created_at,
            _clean(run.command),
            run.exit_code,
            run.verdict,
            run.duration_ms,
        )
        for run in store.evidence.list(limit=EVIDENCE_SHOWN)
    )
    compactions, hidden = _compactions(store)
    return ProjectReport(
        project=_clean(root.name) if root is not None else "",
        generated_at=store.clock(),
        state=state,
        state_updated=updated,
        decisions=decisions,
        decisions_total=total,
        evidence=evidence,
        verdicts=_verdicts(store),
        loops=tuple(
            LoopStatus(_clean(s.command), s.failures, s.threshold, s.last_at, counted=s.counted)
            for s in open_loops(store, threshold=threshold, limit=LOOPS_SHOWN)
        ),
        loop_threshold=threshold,
        compaction=compactions[0] if compactions else None,
        notes=tuple(notes),
        other_compactions=tuple(compactions[1:]),
        other_sessions_hidden=hidden,
    )


__all__ = [
    "SESSIONS_SHOWN",
    "STATUSES",
    "VERDICTS",
    "CheckedItem",
    "CompactionCheck",
    "DecisionEntry",
    "EvidenceEntry",
    "ProjectReport",
    "gather",
]
