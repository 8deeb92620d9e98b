"""``contextward guidance``: what the host's summarizer must preserve, can discard, should weigh."""

from __future__ import annotations

import click

from ..inspect import InspectError, build_guidance
from ._io import BadInput
from .inspect_io import ANSWER_OPTION, FORMAT_OPTION, dumps, load, load_decisions


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
    result = load(file, fmt, answer)
    decisions = load_decisions(decisions_path)
    try:
        guidance = build_guidance(result, decisions)
    except InspectError as exc:
        raise BadInput(f"decisions {decisions_path}: {exc}") from None
    if as_json:
        click.echo(dumps({**guidance.to_dict(), **result.provider_notes()}))
    else:
        click.echo(guidance.text())
