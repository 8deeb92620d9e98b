"""``contextward demo``: the product's whole loop on example files shipped in the package.

A conversation is inspected, the host's summariser gets guidance, a snapshot
is taken, the host's summary (which drops one constraint, flips another and
swaps a value) is checked, and the restore block shows what goes back in.
Nothing touches the project's store.
"""

from __future__ import annotations

import io
from importlib import resources

import click

from ..brief.restore import render_restore
from ..core import LiteralVerifier, verify_context
from ..inspect import inspect_stream
from .compaction_cmds import render_loop, run_loop
from .inspect_io import candidates_table


def example_text(name: str) -> str:
    return resources.files("contextward.examples").joinpath(name).read_text(encoding="utf-8")


@click.command("demo")
def command() -> None:
    """Walk the compaction loop on a shipped conversation and its lossy summary."""
    conversation = example_text("conversation.json").encode("utf-8")
    summary = example_text("summary.md")
    click.echo("contextward demo: an agent session about OAuth login is about to be compacted.\n")
    shipped = resources.files("contextward.examples")
    click.echo(f"0. The candidates found in {shipped / 'conversation.json'}:\n")
    click.echo(candidates_table(inspect_stream(io.BytesIO(conversation))))
    click.echo("")
    taken, outcome, plan = run_loop(conversation, summary)
    click.echo(render_loop(taken, outcome, render_restore(plan)))
    literal = verify_context(taken.snapshot, summary, LiteralVerifier())
    click.echo(
        "\nFor comparison, substring matching (--verifier literal) reports "
        f"{len(literal.preserved)} preserved, {len(literal.changed)} changed, "
        f"{len(literal.lost)} lost: it cannot tell a flipped rule or a swapped value "
        "from a reworded one."
    )
    click.echo(
        "\nThe same on the shipped files: contextward compact-test "
        f"{shipped / 'conversation.json'} --summary {shipped / 'summary.md'}"
        "\nOn your own: contextward compact-test TRANSCRIPT --summary FILE"
    )
