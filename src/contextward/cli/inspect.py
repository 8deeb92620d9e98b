"""``contextward inspect``: candidate memories of a transcript with keep / drop / review."""

from __future__ import annotations

import click

from ._io import BadInput
from ._spill import JsonSpill, TableSpill
from .inspect_io import (
    ANSWER_OPTION,
    FORMAT_OPTION,
    candidates_table,
    dumps,
    load,
    load_into,
    provider_prompt,
    skipped_line,
)


@click.command("inspect")
@click.argument("file", metavar="FILE|-")
@FORMAT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the inspection as JSON.")
@click.option(
    "--prompt",
    "show_prompt",
    is_flag=True,
    help="Print what provider mode asks a model about this transcript, and stop.",
)
@ANSWER_OPTION
def command(
    file: str, fmt: str | None, as_json: bool, show_prompt: bool, answer: str | None
) -> None:
    """List a transcript's candidate memories and what the policy does with each.

    Provider mode: give a model the text of `--prompt` and its reply to `--answer`; the
    reply is untrusted (kept only where found verbatim, re-decided by the same policy).

    A transcript of any length is inspected in bounded memory. A file of 4 MB or more
    is read by a second process while this one decides (Linux, two CPUs);
    CONTEXTWARD_INSPECT_PROCESSES=1 keeps one.
    """
    if show_prompt:
        if answer is not None or as_json:
            # The question is asked before there is an answer, and it is plain text.
            raise BadInput("--prompt prints the question alone: it takes no --answer or --json")
        click.echo(provider_prompt(file, fmt))
        return
    if answer is None:
        _streamed(file, fmt, as_json)
        return
    result = load(file, fmt, answer, notice=False)
    if as_json:
        click.echo(dumps({**result.to_dict(), **result.provider_notes()}))
        skipped = skipped_line(result)
        if skipped:
            click.echo(f"contextward: {skipped}", err=True)
    else:
        click.echo(candidates_table(result))


def _streamed(file: str, fmt: str | None, as_json: bool) -> None:
    """Rules mode in bounded memory: the candidates go to a spill as they are frozen and
    are printed from it once the transcript is read (nothing before: a transcript that
    turns out unreadable is one line on stderr)."""
    with JsonSpill() if as_json else TableSpill() as spill:
        result = load_into(file, fmt, spill)
        try:
            for piece in spill.rendered(result):
                click.echo(piece, nl=False)
            click.echo()
        finally:  # said even when the reader stopped reading (``| head``)
            skipped = skipped_line(result)
            if skipped and as_json:
                click.echo(f"contextward: {skipped}", err=True)
