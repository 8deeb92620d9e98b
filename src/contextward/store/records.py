"""Events, sessions, and the JSON record ledgers (inspections, snapshots, check reports).

Owns: appending and reading these rows. Payloads are JSON objects whose
strings are masked (``redact.mask_data``) before they are stored. Events can
carry an idempotency ``key`` (hooks fire more than once: PostToolUse keys on
``tool_use_id``), and a second append with the same key is a no-op.

Must never: interpret payloads; the packages that write them own their shape.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..redact import mask_data
from .text import storable

if TYPE_CHECKING:
    from .database import Store

#: Environment variable naming the current session (hosts set it; CLI runs may too).
SESSION_ENV = "CONTEXTWARD_SESSION_ID"


def session_id_from_env(env: Mapping[str, str] | None = None) -> str | None:
    env = os.environ if env is None else env
    value = storable(env.get(SESSION_ENV, "").strip())  # a stray byte in the environment
    return value or None


def _dump(data: Mapping[str, Any]) -> str:
    return storable(json.dumps(mask_data(dict(data)), ensure_ascii=False, sort_keys=True))


@dataclass(frozen=True)
class Event:
    seq: int
    created_at: str
    session_id: str | None
    kind: str
    key: str | None
    payload: dict[str, Any]


@dataclass(frozen=True)
class Record:
    """One inspection, snapshot or check report."""

    seq: int
    created_at: str
    session_id: str | None
    label: str
    data: dict[str, Any]


@dataclass(frozen=True)
class Session:
    id: str
    started_at: str
    updated_at: str
    ended_at: str | None
    host: str
    status: str
    data: dict[str, Any]


class Events:
    def __init__(self, store: Store) -> None:
        self.store = store

    def add(
        self,
        kind: str,
        payload: Mapping[str, Any] | None = None,
        *,
        key: str | None = None,
        session_id: str | None = None,
    ) -> Event | None:
        """Append one event; returns None when ``key`` was already recorded."""
        created = self.store.clock()
        body = _dump(payload or {})
        with self.store.write() as conn:
            cur = conn.execute(
                "INSERT OR IGNORE INTO events (created_at, session_id, kind, key, payload)"
                " VALUES (?, ?, ?, ?, ?)",
                (created, session_id, kind, key, body),
            )
            if cur.rowcount == 0:
                return None
            seq = int(cur.lastrowid or 0)
            self.store.prune_after_insert(conn, "events", seq)
        return Event(seq, created, session_id, kind, key, json.loads(body))

    def list(
        self, *, kind: str | None = None, limit: int = 50, session_id: str | None = None
    ) -> list[Event]:
        """Newest first."""
        rows = self.store.newest("events", limit=limit, kind=kind, session_id=session_id)
        return [
            Event(
                int(r["seq"]),
                str(r["created_at"]),
                r["session_id"],
                str(r["kind"]),
                r["key"],
                json.loads(r["payload"]),
            )
            for r in rows
        ]


class RecordLedger:
    """``inspections``, ``snapshots`` or ``check_reports``: JSON documents with a label."""

    def __init__(self, store: Store, table: str) -> None:
        if table not in {"inspections", "snapshots", "check_reports"}:
            raise ValueError(f"not a record ledger: {table}")
        self.store = store
        self.table = table

    def add(
        self, data: Mapping[str, Any], *, label: str = "", session_id: str | None = None
    ) -> Record:
        created = self.store.clock()
        body = _dump(data)
        with self.store.write() as conn:
            seq = self._insert(conn, created, session_id, label, body)
        if self.table == "check_reports":
            self.store.record_changed()  # the restore block follows the latest check
        return Record(seq, created, session_id, label, json.loads(body))

    def add_once(
        self,
        data: Mapping[str, Any],
        *,
        label: str = "",
        session_id: str | None = None,
        same: tuple[str, ...] = (),
    ) -> tuple[Record, bool]:
        """``add``, unless the session's latest record holds the same data (the same
        values under the keys in ``same``, when given): then that one, and False.

        Hosts fire an event more than once (Claude Code's PreCompact two to four times
        per compaction, at once): one compaction is one snapshot. The test and the insert
        are one write transaction, so concurrent callers store it once."""
        created = self.store.clock()
        body = _dump(data)
        stored = json.loads(body)
        with self.store.write() as conn:
            row = conn.execute(
                f"SELECT * FROM {self.table} WHERE session_id IS ? ORDER BY seq DESC LIMIT 1",
                (session_id,),
            ).fetchone()
            if row is not None:
                latest = _record(row)
                keys = same or tuple(set(stored) | set(latest.data))
                if all(latest.data.get(key) == stored.get(key) for key in keys):
                    return latest, False
            seq = self._insert(conn, created, session_id, label, body)
        return Record(seq, created, session_id, label, stored), True

    def _insert(
        self, conn: sqlite3.Connection, created: str, session_id: str | None, label: str, body: str
    ) -> int:
        """Insert one record inside the caller's write; its seq (older records pruned)."""
        cur = conn.execute(
            f"INSERT INTO {self.table} (created_at, session_id, label, data) VALUES (?, ?, ?, ?)",
            (created, session_id, label, body),
        )
        seq = int(cur.lastrowid or 0)
        self.store.prune_after_insert(conn, self.table, seq)
        return seq

    def get(self, seq: int) -> Record | None:
        rows = self.store.query(f"SELECT * FROM {self.table} WHERE seq = ?", (seq,))
        return _record(rows[0]) if rows else None

    def latest(self, *, session_id: str | None = None, label: str | None = None) -> Record | None:
        found = self.list(limit=1, session_id=session_id, label=label)
        return found[0] if found else None

    def about_snapshot(self, snapshot_seq: int) -> Record | None:
        """The newest record whose data names ``snapshot_seq`` (a check report of it)."""
        # A plain substring test first (the data is dumped with sorted keys and ", "/": "
        # separators), so a long ledger is not parsed row by row; the JSON test decides.
        rows = self.store.newest(
            self.table,
            limit=1,
            extra=[
                ("instr(data, ?) > 0", f'"snapshot_seq": {int(snapshot_seq)}'),
                ("json_extract(data, '$.snapshot_seq') = ?", snapshot_seq),
            ],
        )
        return _record(rows[0]) if rows else None

    def list(
        self, *, limit: int = 20, session_id: str | None = None, label: str | None = None
    ) -> list[Record]:
        rows = self.store.newest(self.table, limit=limit, session_id=session_id, label=label)
        return [_record(row) for row in rows]

    def iter_all(self, *, batch: int = 200) -> Iterator[Record]:
        last = 0
        while True:
            rows = self.store.query(
                f"SELECT * FROM {self.table} WHERE seq > ? ORDER BY seq LIMIT ?", (last, batch)
            )
            if not rows:
                return
            for row in rows:
                yield _record(row)
            last = int(rows[-1]["seq"])


def _record(row: sqlite3.Row) -> Record:
    return Record(
        int(row["seq"]),
        str(row["created_at"]),
        row["session_id"],
        str(row["label"]),
        json.loads(row["data"]),
    )


def _session(row: sqlite3.Row) -> Session:
    return Session(
        str(row["id"]),
        str(row["started_at"]),
        str(row["updated_at"]),
        row["ended_at"],
        str(row["host"]),
        str(row["status"]),
        json.loads(row["data"]),
    )


class Sessions:
    """Host sessions: started, touched with data, ended. ``contextward.state`` drives the lifecycle."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def start(
        self, session_id: str, *, host: str = "", data: Mapping[str, Any] | None = None
    ) -> Session:
        """Create the session, or mark an existing one active again (a resume)."""
        now = self.store.clock()
        body = _dump(data or {})
        with self.store.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, started_at, updated_at, host, status, data)"
                " VALUES (?, ?, ?, ?, 'active', ?)"
                " ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at,"
                " status = 'active', ended_at = NULL,"
                " host = CASE WHEN excluded.host != '' THEN excluded.host ELSE sessions.host END",
                (session_id, now, now, host, body),
            )
            row = conn.execute(
                "SELECT rowid, * FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if int(row["rowid"]) % 64 == 0:
                # Sessions are bounded like the ledgers: keep the most recently active.
                conn.execute(
                    "DELETE FROM sessions WHERE id NOT IN "
                    "(SELECT id FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?)",
                    (self.store.retention.sessions,),
                )
        return _session(row)

    def update(self, session_id: str, data: Mapping[str, Any]) -> Session | None:
        """Merge ``data`` into the session's data (top-level keys replace)."""
        now = self.store.clock()
        with self.store.write() as conn:
            row = conn.execute("SELECT data FROM sessions WHERE id = ?", (session_id,)).fetchone()
            if row is None:
                return None
            merged = {**json.loads(row["data"]), **dict(data)}
            conn.execute(
                "UPDATE sessions SET data = ?, updated_at = ? WHERE id = ?",
                (_dump(merged), now, session_id),
            )
            row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return _session(row)

    def end(self, session_id: str, *, status: str = "ended") -> Session | None:
        now = self.store.clock()
        with self.store.write() as conn:
            conn.execute(
                "UPDATE sessions SET ended_at = ?, updated_at = ?, status = ? WHERE id = ?",
                (now, now, status, session_id),
            )
            row = conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return None if row is None else _session(row)

    def get(self, session_id: str) -> Session | None:
        rows = self.store.query("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return _session(rows[0]) if rows else None

    def list(self, *, limit: int = 20) -> list[Session]:
        rows = self.store.query(
            "SELECT * FROM sessions ORDER BY updated_at DESC LIMIT ?", (max(0, limit),)
        )
        return [_session(row) for row in rows]


__all__ = [
    "SESSION_ENV",
    "Event",
    "Events",
    "Record",
    "RecordLedger",
    "Session",
    "Sessions",
    "session_id_from_env",
]
