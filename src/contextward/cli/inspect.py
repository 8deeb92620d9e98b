"""``contextward inspect``: candidate memories of a transcript with keep / drop / review."""

from __future__ import annotations

import click

from .inspect_io import FORMAT_OPTION, candidates_table, dumps, load, skipped_line


@click.command("inspect")
@click.argument("file", metavar="FILE|-")
@FORMAT_OPTION
@click.option("--json", "as_json", is_flag=True, help="Print the inspection as JSON.")
def command(file: str, fmt: str | None, as_json: bool) -> None:
    """List a transcript's candidate memories and what the policy does with each."""
    result = load(file, fmt)
    if as_json:
        click.echo(dumps(result.to_dict()))
        skipped = skipped_line(result)
        if skipped:
            click.echo(f"contextward: {skipped}", err=True)
    else:
        click.echo(candidates_table(result))
