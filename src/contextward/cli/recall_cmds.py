"""``contextward recall``: ranked search over the journal, evidence and decisions.

Exit 0 when something was found, 1 when nothing matched (or nothing is
recorded yet), 2 for a bad filter or an unusable store. Read-only for the
ledgers: it never creates ``.contextward/``; it only brings the derived
index up to date.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace

import click

from ..printable import counted, json_text
from ..recall import DEFAULT_LIMIT, MAX_LIMIT, RecallIndex, RecallQuery, RecallResult, recall
from ..state import recall_source
from ..store import Store, project_root
from ._io import say
from ._store import errors, read_store

#: Importing the state package's source registers STATE.md decisions with recall.
SOURCES = ("evidence", "journal", recall_source.SOURCE)

_TEXT = 200
_NO_STORE = "no store in this project yet: only STATE.md was searched"


@click.command("recall")
@click.argument("query", nargs=-1)
@click.option(
    "--type", "type_", metavar="T", help="decision, correction, risk, note, lesson, evidence…"
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="T",
    help="Only entries with this tag (repeatable: all).",
)
@click.option(
    "--limit",
    type=click.IntRange(1, MAX_LIMIT),
    default=DEFAULT_LIMIT,
    show_default=True,
    help="Hits to show.",
)
@click.option("--evidence-id", metavar="ID", help="One evidence run, e.g. ev-0007.")
@click.option("--cmd", metavar="FP", help="Evidence runs whose command fingerprint contains FP.")
@click.option("--rebuild", is_flag=True, help="Rebuild the index from the ledgers first.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def command(
    *,
    query: tuple[str, ...],
    type_: str | None,
    tags: tuple[str, ...],
    limit: int,
    evidence_id: str | None,
    cmd: str | None,
    rebuild: bool,
    as_json: bool,
) -> None:
    """Find journal entries and evidence runs; every hit says who stands behind it.

    Example: contextward recall auth timeout --type lesson
    """
    request = RecallQuery(" ".join(query), type_, tags, limit, evidence_id, cmd)
    with read_store() as store:
        if store is None:
            # No store yet: STATE.md's decisions are still searchable, from an index
            # built in memory (nothing is created on disk).
            with errors(), Store.memory(root=project_root()) as scratch:
                result = recall(scratch, request, index=RecallIndex(scratch))
            result = replace(result, notes=(*result.notes, _NO_STORE))
        else:
            with errors():
                index = RecallIndex(store)
                if rebuild:
                    index.rebuild()
                result = recall(store, request, index=index)
    if as_json:
        click.echo(json_text(result.to_dict()))
    else:
        say(render(result))
    sys.exit(0 if result.hits else 1)


def render(result: RecallResult) -> str:
    # A query holding quotes stays readable: "\"unbalanced", not ""unbalanced".
    query = result.to_dict()["query"]  # masked and bounded as the JSON echoes it
    shown = json.dumps(query, ensure_ascii=False) if result.query.text else "(newest)"
    lines = [f"recall {shown} · {counted(len(result.hits), 'hit')}"]
    for hit in result.hits:
        head = f"{hit.ref} · {hit.kind} · {hit.trust}"
        if hit.label:
            head += f" · {hit.label}"
        # A hand-written STATE.md decision may carry no date: no empty field then.
        lines.append(f"{head} · {hit.created_at[:10]}" if hit.created_at else head)
        text = " ".join(hit.text.split())
        lines.append("  " + (text if len(text) <= _TEXT else text[: _TEXT - 1] + "…"))
        if hit.tags:
            lines.append(f"  tags: {', '.join(hit.tags)}")
        if hit.duplicates:
            lines.append(
                f"  (+{hit.duplicates} near-duplicate{'s' if hit.duplicates > 1 else ''} folded)"
            )
    lines.extend(f"Nudge: {note}" for note in result.notes)
    if any(h.trust == "agent-unverified" for h in result.hits):
        lines.append("Nudge: agent-unverified hits are the agent's own notes, not owner authority.")
    return "\n".join(lines)


__all__ = ["command", "render"]
