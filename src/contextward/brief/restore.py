"""The restore block: critical items a compaction summary lost or changed, verbatim.

Derived, never stored: the items come from the latest stored check report
and the snapshot it checked. An item leaves the block only when a later
check shows it preserved. When a snapshot was taken but no check could run,
every critical item of that snapshot is restored (the conservative answer).

Must never: write to the store, or quote anything but snapshot items.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core import ContextItem, Snapshot
from ..core.errors import ContextGuardError
from ..core.item import STANDING
from ..redact import mask
from ..store import Record, Store

#: Upper bound of the rendered block; the hook adds its own text around it.
MAX_CHARS = 6000

HEADER = (
    "contextward restore: the last compaction summary lost or changed these critical "
    "items. They still hold, verbatim:"
)


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """What to restore and why: ``checked`` is False when no check of the snapshot ran."""

    items: tuple[ContextItem, ...]
    snapshot_seq: int | None
    checked: bool
    statuses: dict[str, str]

    @property
    def empty(self) -> bool:
        return not self.items


def snapshot_from(record: Record | None) -> Snapshot | None:
    """The snapshot stored in a record, or None when there is none or it is unreadable."""
    if record is None:
        return None
    try:
        return Snapshot.from_dict(record.data)
    except ContextGuardError:
        return None


def latest_check(store: Store, snapshot_seq: int) -> Record | None:
    """The newest check report stored for one snapshot, however many reports came since."""
    return store.check_reports.about_snapshot(snapshot_seq)


def plan_restore(store: Store, *, session_id: str | None = None) -> RestorePlan:
    """Restore items for the latest snapshot of ``session_id`` (of any session when None;
    a session without a snapshot of its own gets nothing, never another session's)."""
    record = store.snapshots.latest(session_id=session_id or None)
    snapshot = snapshot_from(record)
    if record is None or snapshot is None:
        return RestorePlan((), None, False, {})
    check = latest_check(store, record.seq)
    if check is None:
        critical = tuple(item for item in snapshot.items if item.critical)
        return RestorePlan(critical, record.seq, False, {i.id: "unchecked" for i in critical})
    report = check.data.get("report", {})
    failures = set(report.get("criticalFailures", ()))
    statuses = {
        f.get("itemId"): f.get("status")
        for f in report.get("findings", ())
        if isinstance(f, dict) and f.get("itemId") in failures
    }
    items = tuple(item for item in snapshot.items if item.id in failures)
    return RestorePlan(items, record.seq, True, {k: str(v) for k, v in statuses.items() if k})


def render_restore(plan: RestorePlan, *, max_chars: int = MAX_CHARS) -> str:
    """The block as injected text; empty when nothing needs restoring."""
    if plan.empty:
        return ""
    lines = [HEADER]
    if not plan.checked:
        lines[0] = (
            "contextward restore: the last compaction could not be checked, so every critical "
            "item of the snapshot taken before it is restated. They still hold, verbatim:"
        )
    used = len(lines[0])
    shown = 0
    # Goals and standing rules first (the contract's among them, which a snapshot lists
    # after the transcript's items): when the block is full, decisions give way first.
    for item in sorted(plan.items, key=lambda i: i.kind not in STANDING):
        status = plan.statuses.get(item.id, "")
        note = f" ({status})" if status in ("changed", "lost") else ""
        line = f"- [{item.kind}]{note} {' '.join(mask(item.content).split())}"
        if used + len(line) + 1 > max_chars - 120:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    hidden = len(plan.items) - shown
    if hidden:
        lines.append(f"({hidden} more not shown: run `contextward restore` to see them all)")
    return "\n".join(lines)
