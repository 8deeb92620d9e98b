"""The report as one self-contained HTML page: inline CSS and SVG, no script, no network.

Owns: the page's markup and style. Sections: the state (STATE.md's Current
fields), a decisions timeline, evidence runs, loop streaks and the last
compaction's check (preserved, changed, lost, restored) with bar charts.

Must never: reference an external resource (stylesheet, font, image,
script) or put text in the page without ``html.escape``; the text it gets
is already masked (``report.model``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path

from ..guard.loops import Streak, refused_after
from ..store import Store
from .chart import Bar, bar_chart
from .model import STATUSES, CompactionCheck, ProjectReport, gather

COLOURS = {
    "ok": "#2f9e44",
    "preserved": "#2f9e44",
    "changed": "#e8a317",
    "untrusted": "#e8a317",
    "lost": "#d9480f",
    "fail": "#d9480f",
    "timeout": "#862e9c",
    "unknown": "#868e96",
    "unchecked": "#868e96",
    "restored": "#1971c2",
}

STYLE = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f7f9; color: #1f2328;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
header { background: #1f2a44; color: #fff; padding: 18px 28px; }
header h1 { margin: 0; font-size: 20px; }
header p { margin: 4px 0 0; color: #c5cbe0; font-size: 13px; }
main { max-width: 1080px; margin: 0 auto; padding: 16px 20px 40px; }
section { background: #fff; border: 1px solid #dde1e6; border-radius: 8px;
  padding: 14px 18px; margin: 14px 0; }
h2 { font-size: 16px; margin: 0 0 10px; }
h2 small { color: #59636e; font-weight: normal; font-size: 13px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0 0; }
.card { border: 1px solid #dde1e6; border-radius: 6px; padding: 8px 14px; min-width: 120px; }
.card b { display: block; font-size: 22px; }
.card span { color: #59636e; font-size: 12px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid #eef0f3;
  vertical-align: top; }
th { color: #59636e; font-weight: 600; font-size: 12px; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
  background: #f1f3f5; padding: 1px 4px; border-radius: 3px; word-break: break-all; }
.tag { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px;
  color: #fff; white-space: nowrap; }
.empty { color: #59636e; font-style: italic; margin: 4px 0; }
.note { color: #59636e; font-size: 12px; }
.timeline { list-style: none; margin: 0; padding: 0 0 0 14px; border-left: 3px solid #dde1e6; }
.timeline li { position: relative; margin: 0 0 10px; padding-left: 10px; }
.timeline li::before { content: ""; position: absolute; left: -22px; top: 5px; width: 11px;
  height: 11px; border-radius: 50%; background: #1971c2; border: 2px solid #fff; }
.timeline li.rejected::before { background: #d9480f; }
.timeline li.superseded { color: #6b6b6b; text-decoration: line-through; }
.timeline li.agent::before { background: #adb5bd; }
.timeline .when { color: #59636e; font-size: 12px; }
.row { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.chart text { font: 12px system-ui, sans-serif; fill: #1f2328; }
dl.state { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.state dt { color: #59636e; font-weight: 600; }
dl.state dd { margin: 0; }
"""


def _tag(status: str, label: str | None = None) -> str:
    colour = COLOURS.get(status, "#868e96")
    text = escape(label if label is not None else status)
    return f'<span class="tag" style="background:{colour}">{text}</span>'


def _empty(text: str) -> str:
    return f'<p class="empty">{escape(text)}</p>'


def _section(title: str, body: str, *, anchor: str, aside: str = "") -> str:
    small = f" <small>{escape(aside)}</small>" if aside else ""
    return f'<section id="{anchor}"><h2>{escape(title)}{small}</h2>{body}</section>'


def _table(head: Sequence[str], rows: Iterable[Sequence[str]], numeric: frozenset[int]) -> str:
    cells = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = []
    for row in rows:
        tds = "".join(
            f'<td class="num">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        body.append(f"<tr>{tds}</tr>")
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _cards(cards: Sequence[tuple[str, str]]) -> str:
    inner = "".join(
        f"<div class=card><b>{escape(value)}</b><span>{escape(label)}</span></div>"
        for value, label in cards
    )
    return f'<div class="cards">{inner}</div>'


def _state(report: ProjectReport) -> str:
    if not report.state:
        body = _empty(
            "No current state recorded yet: `contextward checkpoint --focus …` writes STATE.md."
        )
    else:
        rows = "".join(
            f"<dt>{escape(name)}</dt><dd>{escape(value)}</dd>" for name, value in report.state
        )
        body = f'<dl class="state">{rows}</dl>'
    aside = f"updated {report.state_updated}" if report.state_updated else ""
    return _section("Current state", body, anchor="state", aside=aside)


def _decisions(report: ProjectReport) -> str:
    if not report.decisions:
        return _section(
            "Decisions", _empty("No decisions recorded yet."), anchor="decisions", aside=""
        )
    items = []
    for entry in report.decisions:
        # A superseded decision stays on the timeline, said to be replaced.
        label = entry.kind if entry.kind in ("rejected", "superseded") else "decision"
        classes = label if label != "decision" else ""
        classes += " agent" if not entry.trusted else ""
        who = "owner" if entry.trusted else "agent, unverified"
        items.append(
            f'<li class="{classes.strip()}"><div class="when">{escape(entry.when or "undated")}'
            f" · {escape(label)} · {escape(entry.source)} ({escape(who)})</div>"
            f"{escape(entry.text)}</li>"
        )
    shown = len(report.decisions)
    aside = f"newest first, {shown} of {report.decisions_total}"
    return _section(
        "Decisions", f'<ul class="timeline">{"".join(items)}</ul>', anchor="decisions", aside=aside
    )


def _evidence(report: ProjectReport) -> str:
    if not report.evidence:
        body = _empty("No command evidence recorded yet: `contextward verify -- CMD` records some.")
        return _section("Evidence runs", body, anchor="evidence")
    chart = bar_chart(
        [Bar(v, n, COLOURS.get(v, "#868e96")) for v, n in report.verdicts],
        title="evidence runs by verdict",
    )
    rows = [
        (
            escape(run.id),
            escape(run.when),
            f"<code>{escape(run.command)}</code>",
            escape(str(run.exit_code)),
            _tag(run.verdict),
            escape(f"{run.duration_ms:,}"),
        )
        for run in report.evidence
    ]
    table = _table(("id", "when", "command", "exit", "verdict", "ms"), rows, frozenset({3, 5}))
    aside = f"{len(report.evidence)} newest of {report.evidence_total}"
    body = f'<div class="row">{chart}</div>{table}'
    return _section("Evidence runs", body, anchor="evidence", aside=aside)


def _loops(report: ProjectReport) -> str:
    # loop_block_after N refuses the Nth attempt: the one after N-1 failures, or unproven
    # exits 0 of test runs. The caption counts in the words of what the streaks hold, so a
    # run that exited 0 is never called a failure.
    after = max(1, report.loop_threshold - 1)
    held = Streak(
        sum(s.counted.failed for s in report.loops),
        sum(s.counted.unproven for s in report.loops),
    )
    aside = f"a command is refused after {refused_after(after, held)}"
    if not report.loops:
        return _section(
            "Loop streaks",
            _empty("No open streaks: nothing is looping."),
            anchor="loops",
            aside=aside,
        )
    chart = bar_chart(
        [
            Bar(
                s.streak_key[:22] + ("…" if len(s.streak_key) > 22 else ""),
                s.failures,
                COLOURS["fail"] if s.blocked else COLOURS["changed"],
                f" / {s.threshold}",
            )
            for s in report.loops
        ],
        title="streaks (failed or unproven runs) against the loop brake threshold",
        maximum=float(max(report.loop_threshold, *(s.failures for s in report.loops))),
    )
    rows = [
        (
            f"<code>{escape(s.streak_key)}</code>",
            escape(str(s.counted.failed)),
            escape(str(s.counted.unproven)),
            _tag("fail", "refused") if s.blocked else _tag("changed", "allowed"),
            escape(s.last_at),
        )
        for s in report.loops
    ]
    head = ("command", "failed", "unproven", "next attempt", "last")
    table = _table(head, rows, frozenset({1, 2}))
    return _section("Loop streaks", chart + table, anchor="loops", aside=aside)


def _other_sessions(report: ProjectReport) -> str:
    """The last compaction of each other session, one row each (sessions run in parallel:
    the project's last compaction is one of theirs)."""
    if not report.other_compactions:
        return ""
    rows = [
        (
            escape(other.session or "(none named)"),
            escape(f"#{other.snapshot_seq}"),
            escape(other.taken_at),
            escape(str(other.count("lost"))) if other.checked else "not checked",
            escape(str(other.count("changed"))) if other.checked else "",
            escape(str(other.restored)),
        )
        for other in report.other_compactions
    ]
    head = ("session", "snapshot", "taken", "lost", "changed", "restored")
    more = report.other_sessions_hidden
    tail = _empty(f"+{more} more sessions compacted.") if more else ""
    title = escape("Other sessions' last compactions")
    return f"<h3>{title}</h3>" + _table(head, rows, frozenset({3, 4, 5})) + tail


def _compaction(check: CompactionCheck | None, others: str = "") -> str:
    title = "Last compaction"
    if check is None:
        return _section(
            title,
            _empty("No compaction recorded yet: the PreCompact hook takes a snapshot."),
            anchor="compaction",
        )
    statuses = (*STATUSES, "unchecked") if not check.checked else STATUSES
    counts = [(s, check.count(s)) for s in statuses]
    cards = _cards(
        [(str(n), s) for s, n in counts if n or s in ("preserved", "changed", "lost")]
        + [(str(check.restored), "restored")]
    )
    chart = bar_chart(
        [Bar(s, n, COLOURS[s]) for s, n in counts]
        + [Bar("restored", check.restored, COLOURS["restored"])],
        title="snapshot items by check status",
        maximum=float(max(1, len(check.items))),
    )
    whose = f"session {check.session}: " if check.session else ""
    if check.checked:
        aside = whose + (
            f"snapshot #{check.snapshot_seq} taken {check.taken_at}; "
            f"checked {check.checked_at}" + (f" ({check.source})" if check.source else "")
        )
    else:
        aside = whose + (
            f"snapshot #{check.snapshot_seq} taken {check.taken_at}; no check ran, so every "
            "critical item is restored"
        )
    order = {"lost": 0, "changed": 1, "unknown": 2, "unchecked": 3, "preserved": 4}
    items = sorted(check.items, key=lambda i: (order.get(i.status, 5), not i.critical))
    rows = [
        (
            _tag(item.status),
            escape(item.kind),
            "yes" if item.critical else "",
            _tag("restored") if item.restored else "",
            escape(item.content),
        )
        for item in items
    ]
    table = _table(("status", "kind", "critical", "restored", "item (verbatim)"), rows, frozenset())
    body = f'{cards}<div class="row">{chart}</div>{table}{others}'
    return _section(title, body, anchor="compaction", aside=aside)


def render_page(report: ProjectReport) -> str:
    """The whole page for ``report``."""
    name = report.project or "project"
    summary = _cards(
        [
            (str(len(report.state)), "state fields"),
            (str(report.decisions_total), "decisions"),
            (str(report.evidence_total), "evidence runs"),
            (str(sum(1 for s in report.loops if s.blocked)), "commands refused next"),
            (
                str(report.compaction.count("lost") + report.compaction.count("changed"))
                if report.compaction is not None
                else "–",
                "items lost or changed at the last compaction",
            ),
        ]
    )
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in report.notes)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>contextward report: {escape(name)}</title>",
            f"<style>{STYLE}</style></head><body>",
            f"<header><h1>contextward report: {escape(name)}</h1>",
            f"<p>generated {escape(report.generated_at)}</p></header><main>",
            notes,
            _section("Overview", summary, anchor="overview"),
            _state(report),
            _compaction(report.compaction, _other_sessions(report)),
            _decisions(report),
            _evidence(report),
            _loops(report),
            "</main></body></html>\n",
        ]
    )


def render_report(store: Store, root: Path | None) -> str:
    """The report page of the project at ``root`` from ``store``."""
    return render_page(gather(store, root))


__all__ = ["render_page", "render_report"]
