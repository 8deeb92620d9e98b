"""Human-readable renderings shared by commands (tables, not JSON)."""

from __future__ import annotations

from ..core import Snapshot, VerificationReport
from ..printable import one_line
from ..redact import mask

_PREVIEW = 56


def report_table(snapshot: Snapshot, report: VerificationReport) -> str:
    """A fixed-width table of a report: one row per item, then the verdict."""
    items = {item.id: item for item in snapshot.items}
    rows = [("STATUS", "CRIT", "KIND", "ID", "ITEM")]
    for finding in report.findings:
        item = items[finding.item_id]
        rows.append(
            (
                finding.status,
                "yes" if item.critical else "",
                item.kind,
                item.id,
                _preview(item.content),
            )
        )
    widths = [max(len(row[col]) for row in rows) for col in range(4)]
    reasons = {f.item_id: f.reason for f in report.findings if f.status != "preserved"}
    lines = []
    for row in rows:
        lines.append(
            "  ".join(cell.ljust(width) for cell, width in zip(row[:4], widths, strict=True))
            + "  "
            + row[4]
        )
        why = reasons.get(row[3])
        if why:
            lines.append(" " * (sum(widths) + 8) + f"└ {why}")
    counts = " · ".join(
        f"{status} {len(report.ids(status))}"
        for status in ("preserved", "changed", "lost", "unknown")
    )
    lines.append("")
    lines.append(f"{len(report.findings)} items: {counts}")
    failures = report.critical_failures
    lines.append(f"critical failures: {', '.join(failures) if failures else 'none'}")
    if report.issues:
        lines.append(f"verifier issues: {', '.join(sorted({i.code for i in report.issues}))}")
    lines.append("result: OK" if report.ok else "result: NOT OK")
    return "\n".join(line.rstrip() for line in lines)


def _preview(text: str) -> str:
    flat = one_line(mask(text))  # masked before the cut, which could halve a secret
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 1] + "…"
