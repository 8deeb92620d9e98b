"""``contextward export``: every retained row as JSON lines, secrets masked again.

Owns: the export format — a header object, then one object per row with
``"ledger"`` naming its ledger, then a footer with the row count and a SHA-256
of every line before it, so ``contextward import`` can tell an export that was
edited or cut short from one it may load. Text passes ``redact.mask_data`` on
the way out too, so rows stored before a masking rule existed are masked now.

Must never: write anything into the store.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

from ..printable import json_text
from ..redact import mask_data
from .contract import load_contract
from .database import Store

#: Version of the export format (the header's ``schema_version``). 2: the footer, and
#: evidence rows carry their ``streak_key``.
EXPORT_VERSION = 2
#: What the header's ``format`` says.
EXPORT_FORMAT = "contextward-export"


def export_rows(
    store: Store, *, root: Path | None = None, env: Mapping[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """Header, contract, journal, prompts, evidence, attempts, events, sessions, snapshots,
    reports."""
    yield {
        "ledger": "header",
        "format": EXPORT_FORMAT,
        "schema_version": EXPORT_VERSION,
        "store_schema_version": store.schema_version,
        "migrations": store.applied_migrations(),
    }
    for constraint in load_contract(root if root is not None else store.root, env=env).constraints:
        yield _clean(
            {
                "ledger": "contract",
                "id": constraint.id,
                "text": constraint.text,
                "layer": constraint.layer,
                "provenance": constraint.provenance,
            }
        )
    for entry in store.journal.iter_all():
        yield _clean({"ledger": "journal", **entry.to_dict()})
    for prompt in store.prompts.list(limit=store.retention.prompts)[::-1]:
        yield _clean({"ledger": "prompt", **prompt.to_dict()})
    for run in store.evidence.iter_all():
        yield _clean({"ledger": "evidence", **run.to_dict(), "streak_key": run.streak_key})
    for row in store.query("SELECT * FROM attempts ORDER BY seq"):  # the loop brake's ledger
        yield _clean({"ledger": "attempt", **dict(row)})
    for event in store.events.list(limit=store.retention.events)[::-1]:
        yield _clean(
            {
                "ledger": "event",
                "seq": event.seq,
                "created_at": event.created_at,
                "session_id": event.session_id,
                "kind": event.kind,
                "payload": event.payload,
            }
        )
    for session in store.sessions.list(limit=store.retention.sessions)[::-1]:
        yield _clean({"ledger": "session", **session.__dict__})
    for name, ledger in (
        ("inspection", store.inspections),
        ("snapshot", store.snapshots),
        ("check_report", store.check_reports),
    ):
        for record in ledger.iter_all():
            yield _clean({"ledger": name, **record.__dict__})


def export_lines(
    store: Store, *, root: Path | None = None, env: Mapping[str, str] | None = None
) -> Iterator[str]:
    """The export as it is written: one JSON text per line (newline included), ending
    with the footer that checks them."""
    digest = hashlib.sha256()
    count = 0
    for row in export_rows(store, root=root, env=env):
        line = json_text(row, indent=None) + "\n"
        digest.update(line.encode("utf-8", "surrogatepass"))
        count += 1
        yield line
    footer = {"ledger": "footer", "rows": count, "sha256": digest.hexdigest()}
    yield json_text(footer, indent=None) + "\n"


def _clean(row: dict[str, Any]) -> dict[str, Any]:
    return cast(dict[str, Any], mask_data(row))


__all__ = ["EXPORT_FORMAT", "EXPORT_VERSION", "export_lines", "export_rows"]
