"""Named, append-only schema migrations of the store's own ledgers.

Owns: the ``Migration`` value and ``CORE_MIGRATIONS``. A migration, once
released, is never edited, renamed or removed: fix forward with a new one.
Other packages declare their own tuples (names prefixed with the package,
e.g. ``recall.0001_fts``) and apply them with ``Store.apply``.

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

__all__ = ["CORE_MIGRATIONS", "Migration"]
