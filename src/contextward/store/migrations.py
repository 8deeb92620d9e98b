"""Named, append-only schema migrations of the project database.

Owns: the ``Migration`` value and the database's schema: ``CORE_MIGRATIONS``
(the store's own ledgers), the state layer's and the recall index's
(``STATE_MIGRATIONS``, ``RECALL_MIGRATIONS``, named after the package that
uses the tables), and ``SCHEMA_MIGRATIONS``, all of them in the order every
opener applies them. They are declared here, not in their packages, so that
a store first opened by a hook, by ``verify`` or by ``init`` has the same
schema: the store cannot import the layers above it. A migration, once
released, is never edited, renamed or removed: fix forward with a new one.
Code outside contextward may add its own tuples (names prefixed with its
own package) and apply them with ``Store.apply``.

Must never: run SQL itself (``Store`` applies migrations, each in the same
transaction as its record).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

#: Every ledger row carries the schema version of its shape.
_V = "schema_version INTEGER NOT NULL DEFAULT 1"


@dataclass(frozen=True)
class Migration:
    """One named schema change: SQL statements, then an optional Python step."""

    name: str
    statements: tuple[str, ...] = ()
    function: Callable[[sqlite3.Connection], None] | None = field(default=None, compare=False)


CORE_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "store.0001_ledgers",
        (
            f"""CREATE TABLE journal (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                type TEXT NOT NULL
                    CHECK (type IN ('decision', 'correction', 'risk', 'note', 'lesson')),
                text TEXT NOT NULL,
                tags TEXT NOT NULL DEFAULT '[]',
                provenance TEXT NOT NULL CHECK (provenance IN ('owner', 'agent')),
                session_id TEXT,
                {_V})""",
            "CREATE INDEX journal_type ON journal (type, seq)",
            f"""CREATE TABLE prompts (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                key TEXT NOT NULL UNIQUE,
                text TEXT NOT NULL,
                {_V})""",
            f"""CREATE TABLE evidence (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                command TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                streak_key TEXT NOT NULL,
                cwd TEXT NOT NULL,
                exit_code INTEGER NOT NULL,
                duration_ms INTEGER NOT NULL,
                verdict TEXT NOT NULL CHECK (verdict IN ('ok', 'fail', 'untrusted', 'timeout')),
                reasons TEXT NOT NULL DEFAULT '[]',
                digest TEXT NOT NULL,
                output_bytes INTEGER NOT NULL,
                {_V})""",
            "CREATE INDEX evidence_fingerprint ON evidence (fingerprint, seq)",
            f"""CREATE TABLE attempts (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                streak_key TEXT NOT NULL,
                fingerprint TEXT NOT NULL,
                outcome TEXT NOT NULL CHECK (outcome IN ('success', 'fail', 'unproven', 'refused')),
                source TEXT NOT NULL,
                exit_code INTEGER,
                evidence_seq INTEGER,
                {_V})""",
            "CREATE INDEX attempts_key ON attempts (streak_key, seq)",
            f"""CREATE TABLE events (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                kind TEXT NOT NULL,
                key TEXT UNIQUE,
                payload TEXT NOT NULL DEFAULT '{{}}',
                {_V})""",
            "CREATE INDEX events_kind ON events (kind, seq)",
            f"""CREATE TABLE sessions (
                id TEXT PRIMARY KEY,
                started_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                ended_at TEXT,
                host TEXT NOT NULL DEFAULT '',
                status TEXT NOT NULL DEFAULT 'active',
                data TEXT NOT NULL DEFAULT '{{}}',
                {_V})""",
            f"""CREATE TABLE inspections (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                label TEXT NOT NULL DEFAULT '',
                data TEXT NOT NULL,
                {_V})""",
            f"""CREATE TABLE snapshots (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                label TEXT NOT NULL DEFAULT '',
                data TEXT NOT NULL,
                {_V})""",
            f"""CREATE TABLE check_reports (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                created_at TEXT NOT NULL,
                session_id TEXT,
                label TEXT NOT NULL DEFAULT '',
                data TEXT NOT NULL,
                {_V})""",
        ),
    ),
)

#: The state layer's (``state/lifecycle.py`` reads these events by session).
STATE_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "state.0001_events_by_session",
        ("CREATE INDEX IF NOT EXISTS state_events_session ON events (session_id, kind, seq)",),
    ),
)

#: The recall index (``recall/index.py``). The rank statement spells out the BM25 column
#: weights of the day it was released: ``recall.index.WEIGHTS`` (text, tags, extra, meta).
RECALL_MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        "recall.0001_index",
        (
            """CREATE TABLE recall_docs (
                id INTEGER PRIMARY KEY,
                source TEXT NOT NULL,
                seq INTEGER NOT NULL,
                ref TEXT NOT NULL,
                kind TEXT NOT NULL,
                trust TEXT NOT NULL,
                created_at TEXT NOT NULL,
                text TEXT NOT NULL,
                tags TEXT NOT NULL DEFAULT '[]',
                evidence_id TEXT,
                fingerprint TEXT,
                label TEXT NOT NULL DEFAULT '',
                schema_version INTEGER NOT NULL DEFAULT 1,
                UNIQUE (source, seq))""",
            "CREATE INDEX recall_docs_created ON recall_docs (created_at, id)",
            """CREATE VIRTUAL TABLE recall_fts USING fts5(
                body, tags, extra, meta,
                tokenize = "unicode61 remove_diacritics 0 tokenchars '_'")""",
            "INSERT INTO recall_fts (recall_fts, rank) VALUES ('rank', 'bm25(1.0, 1.5, 0.4, 0.0)')",
            """CREATE TABLE recall_sources (
                name TEXT PRIMARY KEY,
                cursor TEXT NOT NULL DEFAULT '',
                indexed INTEGER NOT NULL DEFAULT 0,
                schema_version INTEGER NOT NULL DEFAULT 1)""",
        ),
    ),
    # The analyzer changed (a plural "s" on a short stem: DBs -> db, APIs -> api), so
    # terms indexed before it no longer meet a query's. The index is derived: empty
    # it, and the next sync re-reads every source with the analyzer of today.
    Migration(
        "recall.0002_reindex_short_plurals",
        (
            "DELETE FROM recall_fts",
            "DELETE FROM recall_docs",
            "DELETE FROM recall_sources",
        ),
    ),
)

#: The whole schema, in the order it is applied; a new migration is appended at the end.
SCHEMA_MIGRATIONS: tuple[Migration, ...] = (
    *CORE_MIGRATIONS,
    *STATE_MIGRATIONS,
    *RECALL_MIGRATIONS,
)

__all__ = [
    "CORE_MIGRATIONS",
    "RECALL_MIGRATIONS",
    "SCHEMA_MIGRATIONS",
    "STATE_MIGRATIONS",
    "Migration",
]
