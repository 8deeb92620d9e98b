"""``contextward snapshot``: the kept candidates of a transcript as a schemaVersion 1 snapshot."""

from __future__ import annotations

import click

from ..inspect import InspectError, snapshot_of
from ..printable import counted
from ._io import BadInput, one_stdin, say
from .inspect_io import ANSWER_OPTION, FORMAT_OPTION, load, load_decisions, notices, preview


@click.command("snapshot")
@click.argument("file", metavar="FILE|-")
@FORMAT_OPTION
@ANSWER_OPTION
@click.option("--decisions", "decisions_path", metavar="F", help="Review decisions JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the snapshot JSON (for check).")
def command(
    file: str, fmt: str | None, decisions_path: str | None, as_json: bool, answer: str | None
) -> None:
    """Snapshot what must survive compaction: kept and (conservatively) unresolved candidates."""
    one_stdin(transcript=file, decisions=decisions_path, answer=answer)
    decisions = load_decisions(decisions_path)
    result = load(file, fmt, answer, notice=False, provider_notes=False)
    try:
        snapshot = snapshot_of(result, decisions)
    except InspectError as exc:
        raise BadInput(f"decisions {decisions_path}: {exc}") from None
    notices(file, result, fmt, answer)  # after the decisions are known good: one line if not
    if as_json:
        click.echo(snapshot.to_json())
        return
    say(f"{'CRITICAL':<8}  {'KIND':<11} {'ID':<24} CONTENT")
    for item in snapshot.items:
        mark = "yes" if item.critical else ""
        say(f"{mark:<8}  {item.kind:<11} {item.id:<24} {preview(item.content)}".rstrip())
    say(
        f"\n{counted(len(snapshot.items), 'item')}, {sum(i.critical for i in snapshot.items)} critical"
    )
