"""``contextward check``: verify a context (a summary) against a snapshot."""

from __future__ import annotations

import click

from ..core import (
    ContextGuardError,
    FactsVerifier,
    LiteralVerifier,
    Snapshot,
    VerificationReport,
    verify_context,
)
from ..printable import json_text
from ._io import BadInput, one_stdin, read_json, read_text, say
from .render import report_table

VERIFIERS: dict[str, type[FactsVerifier] | type[LiteralVerifier]] = {
    "facts": FactsVerifier,
    "literal": LiteralVerifier,
}


@click.command("check")
@click.option("--snapshot", "snapshot_path", required=True, metavar="SNAP", help="Snapshot JSON.")
@click.option(
    "--context", "context_path", required=True, metavar="FILE", help="Context to check, or -."
)
@click.option(
    "--verifier",
    type=click.Choice(sorted(VERIFIERS)),
    default="facts",
    show_default=True,
    help="How items are looked for in the context.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def command(snapshot_path: str, context_path: str, verifier: str, as_json: bool) -> None:
    """Check which snapshot items a context preserved. Exit 0 ok, 1 not ok, 2 bad input."""
    one_stdin(snapshot=snapshot_path, context=context_path)
    snapshot = load_snapshot(snapshot_path)
    context = read_text(context_path, what="context", lenient=True)
    report = verify_context(snapshot, context, VERIFIERS[verifier]())
    if as_json:
        click.echo(json_text(report.to_dict()))
    else:
        say(report_table(snapshot, report))
    raise SystemExit(exit_code(report))


def load_snapshot(path: str) -> Snapshot:
    data = read_json(path, what="snapshot")
    try:
        return Snapshot.from_dict(data)
    except ContextGuardError as exc:
        raise BadInput(f"snapshot {path}: {exc}") from None


def exit_code(report: VerificationReport) -> int:
    return 0 if report.ok else 1
