"""``contextward diff | preflight | budget | orientation | intent``: guardrail read views.

Exit codes: ``diff`` 0 ok, 1 warn or hard (or a capped scan); ``preflight``
0 when every tool answered inside a worktree, else 1; ``budget`` 1 from the
warning watermark up; ``orientation`` and ``intent`` 0. Bad input, no git
worktree for ``diff`` or an unusable store: 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..guard.budget import session_budget
from ..guard.intent import owner_intent
from ..guard.orientation import orient
from ..guard.preflight import preflight
from ..guard.scope import EMPTY_TREE, ScopeReport, ScopeThresholds, audit_scope
from ..printable import one_line
from ..store import Store, project_root, session_id_from_env
from ._io import BadInput, echo_json, say, storable_value
from ._store import config, errors, read_store


@contextmanager
def _store_or_empty() -> Iterator[Store]:
    """The project store, or an empty in-memory one when nothing was recorded yet."""
    with read_store() as store:
        if store is not None:
            yield store
            return
    with Store.memory() as empty:
        yield empty


@click.command("diff")
@click.option("--baseline", metavar="REF", default=None, help="Commit to compare against (HEAD).")
@click.option("--json", "as_json", is_flag=True, help="Print the audit as JSON.")
def diff_command(baseline: str | None, as_json: bool) -> None:
    """Scope audit: changed lines and files against the baseline, as ok / warn / hard."""
    cfg = config()
    thresholds = ScopeThresholds(
        warn_lines=cfg.diff_warn_lines,
        hard_lines=cfg.diff_hard_lines,
        warn_files=cfg.diff_warn_files,
    )
    with errors():
        report = audit_scope(Path.cwd(), baseline=baseline, thresholds=thresholds)
    if as_json:
        echo_json(report.to_dict())
    else:
        say(_diff_text(report))
    sys.exit(0 if report.verdict == "ok" else 1)


def _diff_text(report: ScopeReport) -> str:
    bound = "≥" if report.lower_bound else ""
    commit = (
        "no commit yet" if report.baseline_commit == EMPTY_TREE else report.baseline_commit[:12]
    )
    lines = [
        f"diff vs {report.baseline} ({commit}):"
        f" {bound}+{report.added}/-{report.deleted} · {bound}{len(report.files)} files"
        f" · verdict {report.verdict}"
    ]
    for change in report.files[:20]:
        what = (
            "symlink"
            if change.symlink
            else "binary"
            if change.binary
            else f"+{change.added}/-{change.deleted}"
        )
        mark = " (untracked)" if change.untracked else ""
        if change.renamed_from is not None:
            mark = f" (renamed from {one_line(change.renamed_from)})"
        lines.append(f"  {what:>12}  {one_line(change.path)}{mark}")  # a name may hold a newline
    if len(report.files) > 20:
        lines.append(f"  … {len(report.files) - 20} more files")
    lines.extend(f"why: {reason}" for reason in report.reasons)
    if report.verdict != "ok":
        lines.append("Nudge: split the work or confirm the scope with the owner before going on.")
    return "\n".join(lines)


@click.command("preflight")
@click.option(
    "--tool",
    "tools",
    multiple=True,
    metavar="NAME",
    help="Check NAME (repeatable; default: config).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def preflight_command(tools: tuple[str, ...], as_json: bool) -> None:
    """Tools present and their versions, and whether this is a git worktree."""
    cfg = config()
    result = preflight(tools or cfg.preflight_tools, cwd=Path.cwd())
    if as_json:
        echo_json(result.to_dict())
    else:
        lines = [f"preflight: {result.verdict} ({result.elapsed_ms} ms)"]
        for tool in result.tools:
            lines.append(f"  {tool.status:<10}  {tool.name:<12}  {tool.version}".rstrip())
        lines.append(f"  {'ok' if result.worktree else 'missing':<10}  git worktree")
        lines.extend(f"problem: {p}" for p in result.problems)
        say("\n".join(lines))
    sys.exit(0 if result.verdict == "ok" else 1)


@click.command("budget")
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    callback=storable_value,
    help="Session (default: $CONTEXTWARD_SESSION_ID, else all).",
)
@click.option(
    "--used", "used_tokens", type=click.IntRange(min=0), help="Context tokens in use now."
)
@click.option(
    "--window", "window_tokens", type=click.IntRange(min=1), help="Context window size in tokens."
)
@click.option("--json", "as_json", is_flag=True, help="Print the budget as JSON.")
def budget_command(
    session_id: str | None, used_tokens: int | None, window_tokens: int | None, as_json: bool
) -> None:
    """Context watermark and tool-output volume for a session."""
    if (used_tokens is None) != (window_tokens is None):
        raise BadInput("--used and --window go together")
    cfg = config()
    session = session_id or session_id_from_env()
    with _store_or_empty() as store, errors():
        budget = session_budget(
            store,
            session_id=session,
            warn_pct=cfg.ctx_warn_pct,
            used_tokens=used_tokens,
            window_tokens=window_tokens,
        )
    if as_json:
        echo_json(budget.to_dict())
    else:
        ctx = "unknown" if budget.context_pct is None else f"{budget.context_pct:.0f}%"
        lines = [
            f"budget · session {budget.session_id or 'all'} · context {ctx}"
            f" ({budget.watermark}; warn at {budget.warn_pct}%)",
            f"tool output: {budget.output_chars} chars in {budget.calls} calls",
        ]
        lines.extend(f"  {t.chars:>10}  {t.tool} ({t.calls}×)" for t in budget.top_tools)
        say("\n".join(lines))
    sys.exit(1 if budget.watermark in ("warn", "high") else 0)


@click.command("orientation")
@click.option("--json", "as_json", is_flag=True, help="Print the digest as JSON.")
def orientation_command(as_json: bool) -> None:
    """A bounded digest of the repository: tree, languages, conventions files."""
    result = orient(project_root())
    if as_json:
        echo_json(result.to_dict())
    else:
        say(result.text)
        say(f"digest: {result.digest}")


@click.command("intent")
@click.option("--limit", type=click.IntRange(1, 20), default=5, show_default=True)
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    callback=storable_value,
    help="Only this session's prompts and notes.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the view as JSON.")
def intent_command(limit: int, session_id: str | None, as_json: bool) -> None:
    """What the owner wants, needs, prefers, forbids and corrected (newest first)."""
    with _store_or_empty() as store, errors():
        view = owner_intent(store, limit=limit, session_id=session_id)
    if as_json:
        echo_json(view.to_dict())
        return
    counts = " · ".join(f"{kind} {n}" for kind, n in view.counts.items() if n)
    lines = [
        f"intent: owner {view.owner} · agent {view.agent}" + (f" · {counts}" if counts else "")
    ]
    for item in view.items:
        lines.append(f"{item.kind} · {item.created_at[:19]} · {item.text} [{item.provenance}]")
    if not view.items:
        lines.append("nothing recorded yet")
    say("\n".join(lines))


commands = (budget_command, diff_command, intent_command, orientation_command, preflight_command)

__all__ = ["commands"]
