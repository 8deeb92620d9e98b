"""The sources recall indexes, and the registry other packages add theirs to.

Owns: ``JournalSource`` and ``EvidenceSource`` (append-only ledgers of the
store, read by ``seq`` after a watermark), ``VersionedSource`` (a whole
document such as STATE.md, re-read when its version changes), and the
registry: ``register_source(name, factory)`` where ``factory(store)`` returns
a ``RecallSource`` — how STATE.md decisions join the index without recall
importing the state package.

Must never: write to the store's ledgers; it only reads them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .analyzer import evidence_term
from .document import Document, RecallSource, SourceBatch

if TYPE_CHECKING:
    from ..store import Store

__all__ = [
    "EvidenceSource",
    "JournalSource",
    "SourceFactory",
    "VersionedSource",
    "register_source",
    "registered_sources",
    "sources_for",
    "unregister_source",
]

SourceFactory = Callable[["Store"], RecallSource]
_FACTORIES: dict[str, SourceFactory] = {}


def register_source(name: str, factory: SourceFactory) -> None:
    """Add (or replace) a source; ``factory(store)`` is called each time recall syncs."""
    _FACTORIES[name] = factory


def unregister_source(name: str) -> None:
    _FACTORIES.pop(name, None)


def registered_sources() -> tuple[str, ...]:
    return tuple(sorted(_FACTORIES))


def sources_for(store: Store) -> list[RecallSource]:
    """Every registered source, built for ``store``, in name order."""
    return [_FACTORIES[name](store) for name in sorted(_FACTORIES)]


def _after(cursor: str) -> int:
    try:
        return int(cursor) if cursor else 0
    except ValueError:
        return 0


@dataclass(frozen=True)
class JournalSource:
    """Journal rows: owner rows are ``owner``, agent rows ``agent-unverified``."""

    store: Store
    name: str = "journal"

    def fetch(self, cursor: str, *, limit: int) -> SourceBatch:
        after = _after(cursor)
        rows = self.store.query(
            "SELECT seq, created_at, type, text, tags, provenance FROM journal"
            " WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, limit),
        )
        docs = tuple(
            Document(
                seq=int(row["seq"]),
                ref=f"j-{int(row['seq'])}",
                kind=str(row["type"]),
                trust="owner" if row["provenance"] == "owner" else "agent-unverified",
                created_at=str(row["created_at"]),
                text=str(row["text"]),
                tags=tuple(str(t) for t in json.loads(row["tags"])),
            )
            for row in rows
        )
        return SourceBatch(docs, str(docs[-1].seq if docs else after), live=self._live(docs))

    def _live(self, docs: tuple[Document, ...]) -> int | None:
        # Retention prunes only while rows are appended, so a quiet ledger needs no count
        # (``RecallIndex.rebuild`` covers an explicit ``Store.prune``).
        if not docs:
            return None
        return int(self.store.query("SELECT COUNT(*) FROM journal")[0][0])

    def live_seqs(self) -> set[int]:
        return {int(row[0]) for row in self.store.query("SELECT seq FROM journal")}


@dataclass(frozen=True)
class EvidenceSource:
    """Evidence runs: the command is the text, the output digest a weaker field."""

    store: Store
    name: str = "evidence"

    def fetch(self, cursor: str, *, limit: int) -> SourceBatch:
        after = _after(cursor)
        rows = self.store.query(
            "SELECT seq, created_at, command, fingerprint, exit_code, verdict, digest"
            " FROM evidence WHERE seq > ? ORDER BY seq LIMIT ?",
            (after, limit),
        )
        docs = tuple(
            Document(
                seq=int(row["seq"]),
                ref=f"ev-{int(row['seq']):04d}",
                kind="evidence",
                trust="evidence",
                created_at=str(row["created_at"]),
                text=str(row["command"]),
                evidence_id=f"ev-{int(row['seq']):04d}",
                fingerprint=str(row["fingerprint"]),
                # The id is searchable as a word too: "ev-7" finds this run.
                extra=f"{evidence_term(int(row['seq']))} {row['digest']}",
                label=_label(str(row["verdict"]), int(row["exit_code"])),
            )
            for row in rows
        )
        return SourceBatch(docs, str(docs[-1].seq if docs else after), live=self._live(docs))

    def _live(self, docs: tuple[Document, ...]) -> int | None:
        # Retention prunes only while rows are appended, so a quiet ledger needs no count
        # (``RecallIndex.rebuild`` covers an explicit ``Store.prune``).
        if not docs:
            return None
        return int(self.store.query("SELECT COUNT(*) FROM evidence")[0][0])

    def live_seqs(self) -> set[int]:
        return {int(row[0]) for row in self.store.query("SELECT seq FROM evidence")}


def _label(verdict: str, exit_code: int) -> str:
    shown = "ok" if verdict == "ok" else verdict.upper()
    return f"{shown} exit {exit_code}"


@dataclass(frozen=True)
class VersionedSource:
    """A source whose documents change as a whole (STATE.md decisions, for example).

    ``version()`` must be cheap (mtime + size); ``documents()`` is called only
    when it changed, and its rows replace every earlier row of this source.
    """

    name: str
    version: Callable[[], str]
    documents: Callable[[], Iterable[Document]]

    def fetch(self, cursor: str, *, limit: int) -> SourceBatch:
        current = self.version()
        if current == cursor:
            return SourceBatch((), cursor)
        # Whole documents are small and bounded by their owner; ``limit`` is for ledgers.
        return SourceBatch(tuple(self.documents()), current, replace=True)

    def live_seqs(self) -> set[int]:
        return {doc.seq for doc in self.documents()}


register_source("evidence", EvidenceSource)
register_source("journal", JournalSource)
