"""``contextward demo``: the product's loop on example files shipped in the package.

Inspect a conversation, print the guidance a host's summarizer would get,
snapshot what must survive, then check the host's summary against that
snapshot and show what it silently lost.
"""

from __future__ import annotations

import io
from importlib import resources

import click

from ..core import FactsVerifier, verify_context
from ..inspect import build_guidance, inspect_stream, snapshot_of
from .inspect_io import candidates_table
from .render import report_table


def example_text(name: str) -> str:
    return resources.files("contextward.examples").joinpath(name).read_text(encoding="utf-8")


@click.command("demo")
def command() -> None:
    """Inspect a shipped conversation, guide its compaction, and check the summary."""
    conversation = example_text("conversation.json")
    result = inspect_stream(io.BytesIO(conversation.encode("utf-8")))
    click.echo("contextward demo: an agent session about OAuth login is about to be compacted.\n")
    click.echo("1. Inspection of examples/conversation.json (keep / drop / review):\n")
    click.echo(candidates_table(result))
    click.echo("\n2. Guidance handed to the host's own summarizer:\n")
    click.echo(build_guidance(result).text())
    snapshot = snapshot_of(result)
    critical = sum(item.critical for item in snapshot.items)
    click.echo(
        f"\n3. Snapshot taken before compaction: {len(snapshot.items)} kept items, "
        f"{critical} critical.\n"
    )
    click.echo("4. The host's summary (examples/summary.md) checked against the snapshot:\n")
    report = verify_context(snapshot, example_text("summary.md"), FactsVerifier())
    click.echo(report_table(snapshot, report))
    lost = [item for item in snapshot.items if item.id in report.critical_failures]
    if lost:
        click.echo("\nWhat the summary dropped, to restore verbatim:")
        for item in lost:
            click.echo(f"  [{item.kind}] {item.content}")
