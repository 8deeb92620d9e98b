"""The report as a few lines of text, for ``contextward report`` without ``--html``.

Owns: a short plain-text digest of a ``ProjectReport`` (counts and the
items the last compaction lost or changed).

Must never: print, or show text that did not pass through ``report.model`` (masked there).
"""

from __future__ import annotations

from .model import CompactionCheck, ProjectReport

#: Lost or changed items listed by name before the rest is only counted.
ITEMS_SHOWN = 5


def render_summary(report: ProjectReport) -> str:
    """Counts per section and the compaction's lost or changed items, one line each."""
    focus = dict(report.state).get("focus", "")
    lines = [
        f"state: {len(report.state)} fields" + (f" (focus: {focus})" if focus else ""),
        f"decisions: {report.decisions_total}",
        "evidence runs: "
        + (
            ", ".join(f"{n} {v}" for v, n in report.verdicts if n)
            if report.evidence_total
            else "none"
        ),
        f"loop streaks: {len(report.loops)} open, "
        f"{sum(1 for s in report.loops if s.blocked)} refused next",
    ]
    check = report.compaction
    if check is None:
        lines.append("last compaction: none recorded")
    else:
        whose = f" (session {check.session})" if check.session else ""
        lines.append(f"last compaction{whose}: {_counts(check)}")
        bad = [i for i in check.items if i.status in ("lost", "changed")]
        for item in bad[:ITEMS_SHOWN]:
            lines.append(f"  {item.status:<8} [{item.kind}] {item.content[:100]}")
        if len(bad) > ITEMS_SHOWN:
            lines.append(f"  ({len(bad) - ITEMS_SHOWN} more)")
    if report.other_compactions:
        # Sessions run in parallel: the project's last compaction is only one of theirs.
        lines.append("other sessions' last compactions:")
    for other in report.other_compactions:
        lines.append(f"  session {other.session or '(none named)'}: {_counts(other)}")
    if report.other_sessions_hidden:
        lines.append(f"  (+{report.other_sessions_hidden} more sessions compacted)")
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines)


def _counts(check: CompactionCheck) -> str:
    if check.checked:
        counts = ", ".join(
            f"{check.count(s)} {s}" for s in ("preserved", "changed", "lost", "unknown")
        )
    else:
        counts = f"{len(check.items)} items, not checked"
    return f"snapshot #{check.snapshot_seq}: {counts}; {check.restored} restored"


__all__ = ["ITEMS_SHOWN", "render_summary"]
