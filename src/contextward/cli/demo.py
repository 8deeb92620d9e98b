"""``contextward demo``: the product's loop on example files shipped in the package."""

from __future__ import annotations

from importlib import resources

import click

from ..core import LiteralVerifier, Snapshot, verify_context
from .render import report_table


def example_text(name: str) -> str:
    return resources.files("contextward.examples").joinpath(name).read_text(encoding="utf-8")


@click.command("demo")
def command() -> None:
    """Show what a compaction summary silently lost, on a shipped example."""
    snapshot = Snapshot.from_json(example_text("snapshot.json"))
    summary = example_text("summary.md")
    click.echo("contextward demo: an agent session about OAuth login was compacted.")
    click.echo(f"The snapshot taken before compaction holds {len(snapshot.items)} items.")
    click.echo("The host's summary (examples/summary.md) is checked against it:\n")
    report = verify_context(snapshot, summary, LiteralVerifier())
    click.echo(report_table(snapshot, report))
    lost = [item for item in snapshot.items if item.id in report.critical_failures]
    if lost:
        click.echo("\nWhat the summary dropped, to restore verbatim:")
        for item in lost:
            click.echo(f"  [{item.kind}] {item.content}")
