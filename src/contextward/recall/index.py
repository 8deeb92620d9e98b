"""The recall index: an SQLite FTS5 table derived from the store, kept in sync.

Owns: the tables of the ``recall.*`` migrations (declared with the whole
schema in ``store/migrations.py``: ``recall_docs`` holds one row per indexed
document, ``recall_fts`` its analyzed terms, ``recall_sources`` one cursor
per source), incremental sync from every registered source (watermarks on
row ids; a whole-document source is replaced when its version changes; rows
that retention removed are dropped), and ``rebuild``.

The index is derived: dropping every ``recall_*`` row and syncing again
gives the same answers. Terms come from our own analyzer, so the FTS5
tokenizer only splits on the spaces we put between terms.

Must never: write to another package's tables, or hold a write transaction
while nothing changed (a quiet sync is read-only).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..store.migrations import RECALL_MIGRATIONS
from .analyzer import analyze
from .document import Document, RecallSource
from .sources import sources_for

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["RECALL_MIGRATIONS", "RecallIndex", "SyncReport", "meta_term"]

#: Column weights for BM25: text, tags (searched as synonyms), extra (digests), meta (filters).
#: ``recall.0001_index`` stored these as the table's rank; a change needs a migration too.
WEIGHTS = (1.0, 1.5, 0.4, 0.0)


def meta_term(field: str, value: str) -> str:
    """An exact filter term (``k`` kind, ``t`` tag, ``s`` source, ``r`` trust, ``e`` evidence)."""
    return f"{field}_{value.casefold().encode('utf-8').hex()}"


@dataclass(frozen=True)
class SyncReport:
    """What one sync changed: rows added and removed, per source name."""

    added: dict[str, int]
    removed: dict[str, int]

    @property
    def changed(self) -> bool:
        return any(self.added.values()) or any(self.removed.values())


class RecallIndex:
    """The index inside ``store``; ``sources`` defaults to every registered source."""

    def __init__(
        self,
        store: Store,
        sources: Sequence[RecallSource] | None = None,
        *,
        batch: int = 2000,
    ) -> None:
        self.store = store
        store.apply(RECALL_MIGRATIONS)
        self.sources = list(sources) if sources is not None else sources_for(store)
        self.batch = batch

    # -- sync ---------------------------------------------------------------------

    def sync(self) -> SyncReport:
        """Bring the index up to date with every source; cheap when nothing changed."""
        added: dict[str, int] = {}
        removed: dict[str, int] = {}
        for source in self.sources:
            added[source.name], removed[source.name] = self._sync_source(source)
        return SyncReport(added, removed)

    def rebuild(self) -> SyncReport:
        """Drop every indexed row and cursor, then sync from scratch."""
        with self.store.write() as conn:
            conn.execute("DELETE FROM recall_fts")
            conn.execute("DELETE FROM recall_docs")
            conn.execute("DELETE FROM recall_sources")
        return self.sync()

    def count(self) -> int:
        return int(self.store.query("SELECT COUNT(*) FROM recall_docs")[0][0])

    def _state(self, name: str) -> tuple[str, int]:
        rows = self.store.query(
            "SELECT cursor, indexed FROM recall_sources WHERE name = ?", (name,)
        )
        return (str(rows[0][0]), int(rows[0][1])) if rows else ("", 0)

    def _sync_source(self, source: RecallSource) -> tuple[int, int]:
        added = removed = 0
        while True:
            cursor, indexed = self._state(source.name)
            probe = source.fetch(cursor, limit=self.batch)
            stale = probe.live is not None and probe.live < indexed + len(probe.documents)
            if not probe.documents and not stale and probe.cursor == cursor:
                return added, removed
            with self.store.write() as conn:
                # Re-read under the write lock: another process may have synced meanwhile.
                row = conn.execute(
                    "SELECT cursor FROM recall_sources WHERE name = ?", (source.name,)
                ).fetchone()
                current = str(row[0]) if row else ""
                batch = probe if current == cursor else source.fetch(current, limit=self.batch)
                if batch.replace:
                    removed += _delete(conn, source.name, None)
                for doc in batch.documents:
                    added += _insert(conn, source.name, doc)
                if stale and not batch.replace:
                    live = source.live_seqs()
                    have = {
                        int(r[0])
                        for r in conn.execute(
                            "SELECT seq FROM recall_docs WHERE source = ?", (source.name,)
                        )
                    }
                    gone = sorted(have - live)
                    removed += _delete(conn, source.name, gone)
                total = conn.execute(
                    "SELECT COUNT(*) FROM recall_docs WHERE source = ?", (source.name,)
                ).fetchone()[0]
                conn.execute(
                    "INSERT INTO recall_sources (name, cursor, indexed) VALUES (?, ?, ?)"
                    " ON CONFLICT (name) DO UPDATE SET cursor = excluded.cursor,"
                    " indexed = excluded.indexed",
                    (source.name, batch.cursor, int(total)),
                )
            if batch.replace or len(batch.documents) < self.batch:
                return added, removed


def _insert(conn: sqlite3.Connection, source: str, doc: Document) -> int:
    cur = conn.execute(
        "INSERT OR IGNORE INTO recall_docs (source, seq, ref, kind, trust, created_at, text,"
        " tags, evidence_id, fingerprint, label) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            source,
            doc.seq,
            doc.ref,
            doc.kind,
            doc.trust,
            doc.created_at,
            doc.text,
            json.dumps(list(doc.tags), ensure_ascii=False),
            doc.evidence_id,
            doc.fingerprint,
            doc.label,
        ),
    )
    if cur.rowcount == 0:
        return 0
    meta = [meta_term("k", doc.kind), meta_term("s", source), meta_term("r", doc.trust)]
    meta.extend(meta_term("t", tag) for tag in doc.tags)
    if doc.evidence_id:
        meta.append(meta_term("e", doc.evidence_id))
    conn.execute(
        "INSERT INTO recall_fts (rowid, body, tags, extra, meta) VALUES (?, ?, ?, ?, ?)",
        (
            cur.lastrowid,
            " ".join(analyze(doc.text)),
            " ".join(analyze(" ".join(doc.tags))),
            " ".join(analyze(doc.extra)),
            " ".join(meta),
        ),
    )
    return 1


def _delete(conn: sqlite3.Connection, source: str, seqs: list[int] | None) -> int:
    if seqs is None:
        ids = [
            int(r[0])
            for r in conn.execute("SELECT id FROM recall_docs WHERE source = ?", (source,))
        ]
    else:
        ids = []
        for start in range(0, len(seqs), 500):
            chunk = seqs[start : start + 500]
            marks = ",".join("?" * len(chunk))
            ids.extend(
                int(r[0])
                for r in conn.execute(
                    f"SELECT id FROM recall_docs WHERE source = ? AND seq IN ({marks})",
                    (source, *chunk),
                )
            )
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        conn.execute(f"DELETE FROM recall_fts WHERE rowid IN ({marks})", chunk)
        conn.execute(f"DELETE FROM recall_docs WHERE id IN ({marks})", chunk)
    return len(ids)
