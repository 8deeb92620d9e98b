"""``contextward brief``: print the session brief (what a host injects before work).

``--since DIGEST`` prints nothing (exit 0) when the brief still has that
digest, so a hook injects only a changed brief. Exit 2 for an unusable store.
"""

from __future__ import annotations

import click

from ..brief import BriefCaps, render_brief
from ..printable import json_text
from ..store import Store, project_root, session_id_from_env
from ._io import say, storable_value
from ._store import config, errors, read_store


@click.command("brief")
@click.option("--since", "since", metavar="DIGEST", help="Print only if the digest changed.")
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    callback=storable_value,
    help="Session (default: $CONTEXTWARD_SESSION_ID).",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print text, digest and hidden counts as JSON."
)
def command(since: str | None, session_id: str | None, as_json: bool) -> None:
    """The bounded brief: contract, owner statements, decisions, corrections, loops, evidence."""
    cfg = config()
    caps = BriefCaps(precedents=cfg.brief_max_precedents, loop_threshold=cfg.loop_block_after)
    session = session_id or session_id_from_env()
    root = project_root()
    with read_store(cfg) as store, errors():
        if store is None:
            with Store.memory() as empty:
                brief = render_brief(empty, root=root, caps=caps, session_id=session)
        else:
            brief = render_brief(store, root=root, caps=caps, session_id=session)
    if since is not None and not brief.changed_since(since):
        say(f"brief unchanged (digest {brief.digest})", err=True)
        return
    if as_json:
        click.echo(json_text(brief.to_dict()))
    else:
        say(brief.text)
        say(f"digest: {brief.digest}")


__all__ = ["command"]
