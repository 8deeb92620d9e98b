"""``contextward guidance``: what the host's summarizer must preserve, can discard, should weigh."""

from __future__ import annotations

import click

from ..compaction import transcript_guidance
from ..inspect import InspectError
from ._io import BadInput, one_stdin
from .inspect_io import ANSWER_OPTION, FORMAT_OPTION, dumps, load, load_decisions, notices


@click.command("guidance")
@click.argument("file", metavar="FILE|-")
@FORMAT_OPTION
@ANSWER_OPTION
@click.option("--decisions", "decisions_path", metavar="F", help="Review decisions JSON.")
@click.option("--json", "as_json", is_flag=True, help="Print the guidance as JSON.")
def command(
    file: str, fmt: str | None, decisions_path: str | None, as_json: bool, answer: str | None
) -> None:
    """Print compaction guidance for a transcript (review decisions applied by candidate id)."""
    one_stdin(transcript=file, decisions=decisions_path, answer=answer)
    decisions = load_decisions(decisions_path)
    result = load(file, fmt, answer, notice=False, provider_notes=False)
    try:
        guidance = transcript_guidance(result, decisions)
    except InspectError as exc:
        raise BadInput(f"decisions {decisions_path}: {exc}") from None
    notices(file, result, fmt, answer)  # after the decisions are known good: one line if not
    if as_json:
        click.echo(dumps({**guidance.to_dict(), **result.provider_notes()}))
    else:
        click.echo(guidance.text())
