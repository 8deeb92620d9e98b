"""The project store: one SQLite database in WAL mode, the system of record.

Owns: opening (and creating) ``.contextward/contextward.db``, connection
settings (WAL, busy timeout, ``synchronous=NORMAL``), short ``BEGIN
IMMEDIATE`` write transactions with a bounded retry, applying named
migrations each in the same transaction as its record, the schema version,
retention pruning, and translating every SQLite failure into a ``StoreError``
with a stable code.

Must never: hold a transaction across user code that can block (a
subprocess, a network call), print, or let ``sqlite3`` exceptions escape.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import spool
from ..errors import StoreError
from ..fsutil import atomic_write_text
from .attempts import Attempts
from .evidence import EvidenceLedger
from .journal import Journal
from .migrations import SCHEMA_MIGRATIONS, Migration
from .paths import STORE_DIR, database_path, project_root, store_dir
from .prompts import Prompts
from .records import Events, RecordLedger, Sessions
from .salt import SALT_BYTES, key_salt

#: How long one statement waits for another process's write lock (SQLite busy handler).
BUSY_TIMEOUT_MS = 10_000
#: Overall deadline for starting a write transaction, retries included.
WRITE_DEADLINE_S = 60.0
#: How long opening the store waits for a lock to move spooled prompts into the ledger
#: (busy past it, they stay spooled for the next open).
SPOOL_WAIT_S = 0.25
#: Prune a ledger when a new row's seq is a multiple of this (keeps appends cheap).
PRUNE_EVERY = 64

#: What ``.contextward/.gitignore`` says: the database and its WAL files stay local;
#: owner-authored files (config.toml, contract.md, STATE.md) are meant for git.
GITIGNORE = (
    "# Written by contextward. The database is local runtime state;\n"
    "# owner-authored files (config.toml, contract.md, STATE.md) are meant for git.\n"
    "contextward.db\n"
    "contextward.db-*\n"
    "*.tmp\n"
    "# The hook fast path's runtime files.\n"
    "record.gen\n"
    "spool-prompts.jsonl\n"
    "hook-cache/\n"
)


@dataclass(frozen=True)
class Retention:
    """How many rows each ledger keeps (newest first); lessons are never pruned."""

    journal: int = 20_000
    prompts: int = 5_000
    evidence: int = 5_000
    attempts: int = 20_000
    events: int = 50_000
    inspections: int = 500
    snapshots: int = 500
    check_reports: int = 1_000
    sessions: int = 1_000


def utc_now() -> str:
    """An ISO 8601 UTC timestamp with milliseconds, e.g. ``2026-11-30T10:48:00.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def translate(exc: sqlite3.Error) -> StoreError:
    """Map a SQLite failure to a ``StoreError`` with a stable code and a one-line message."""
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered
    ):
        return StoreError(
            f"the store database is damaged ({text}); run `contextward doctor`",
            code="store_damaged",
        )
    if "locked" in lowered or "busy" in lowered:
        return StoreError(f"the store database stayed busy ({text})", code="store_busy")
    return StoreError(f"the store database cannot be used ({text})", code="store_unavailable")


@contextlib.contextmanager
def guarded() -> Iterator[None]:
    """Turn any ``sqlite3.Error`` raised inside into a ``StoreError``."""
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc) from None


def write_gitignore(directory: Path) -> None:
    """Write ``.gitignore`` in the store folder unless the owner already has one."""
    target = directory / ".gitignore"
    if not target.exists():
        atomic_write_text(target, GITIGNORE)


class Store:
    """The store, built from an open connection (``Store.open`` makes one for a project).

    Every write is one short ``BEGIN IMMEDIATE`` transaction (``with store.write() as conn``).
    Ledgers hang off the store as properties: ``journal``, ``prompts``, ``evidence``,
    ``attempts``, ``events``, ``sessions``, ``inspections``, ``snapshots``, ``check_reports``.
    """

    def __init__(
        self,
        conn: sqlite3.Connection,
        *,
        root: Path | None = None,
        retention: Retention | None = None,
        clock: Callable[[], str] = utc_now,
        migrations: Sequence[Migration] = SCHEMA_MIGRATIONS,
        wait_s: float = WRITE_DEADLINE_S,
    ) -> None:
        conn.row_factory = sqlite3.Row
        self.conn = conn
        self.root = root
        self.retention = retention or Retention()
        self.clock = clock
        #: How long this store waits for another process's lock before failing.
        self.wait_s = wait_s
        self._key_salt: bytes | None = None
        #: How many ``write()`` blocks are open (an inner one joins the outer transaction).
        self._depth = 0
        #: What ``record_changed`` marked inside a transaction (None: every session),
        #: made known when it commits.
        self._changed: set[str | None] = set()
        with guarded():
            conn.execute(f"PRAGMA busy_timeout = {_busy_ms(wait_s)}")
            self.apply(migrations)

    # -- opening -----------------------------------------------------------------

    @classmethod
    def open(
        cls,
        root: Path | None = None,
        *,
        create: bool = True,
        retention: Retention | None = None,
        migrations: Sequence[Migration] = SCHEMA_MIGRATIONS,
        wait_s: float = WRITE_DEADLINE_S,
    ) -> Store:
        """Open the store of the project containing ``root`` (default: the current directory).

        ``create=False`` raises ``StoreError(code="store_missing")`` instead of creating it.
        ``wait_s`` bounds how long it waits for another process's lock, in all (a hook
        waits less than its host's timeout, then fails open with ``store_busy``).
        Without ``retention``, the project's configured retention applies (config layers
        read with this process's environment), so no caller prunes by other rules.
        """
        root = project_root(root)
        if retention is None:
            from .config import load_config  # config imports this module

            retention = load_config(root).retention()
        path = database_path(root)
        if not path.exists():
            if not create:
                raise StoreError(
                    f"no store yet in {STORE_DIR}/ (run `contextward init`)", code="store_missing"
                )
            directory = store_dir(root)
            try:
                directory.mkdir(parents=True, exist_ok=True)
                write_gitignore(directory)
            except OSError as exc:
                raise StoreError(
                    f"cannot create {STORE_DIR}/ ({exc.strerror or 'I/O error'})",
                    code="store_unavailable",
                ) from None
            _create_database(path)
        store = cls(
            connect(path, wait_s=wait_s),
            root=root,
            retention=retention,
            migrations=migrations,
            wait_s=wait_s,
        )
        try:
            # Spooled prompts can wait for the next open; what this one opens for cannot.
            with store.patience(SPOOL_WAIT_S):
                store.prompts.ingest_spool(store_dir(root))
        except StoreError as exc:
            if exc.code != "store_busy":
                store.close()
                raise
        except BaseException:
            store.close()
            raise
        return store

    @classmethod
    def memory(cls, *, root: Path | None = None, retention: Retention | None = None) -> Store:
        """An in-memory store (tests, dry runs; with ``root``, one reading that project's
        files, as recall does for STATE.md before the project has a store)."""
        return cls(
            sqlite3.connect(":memory:", isolation_level=None), root=root, retention=retention
        )

    def record_changed(self, session_id: str | None = None) -> None:
        """Mark that something a brief shows changed (the hook fast path watches this);
        inside a transaction, once it commits: a reader that saw the mark must find the rows.

        With ``session_id``: something only that session's prompt brief shows (its own
        loop streaks and evidence runs), so the other sessions' prompts stay on the fast
        path. Anything any other session's brief may show must pass no ``session_id``.
        """
        if self._depth:
            self._changed.add(session_id)
        elif self.root is not None:
            spool.bump_generation(str(store_dir(self.root)), session_id)

    @property
    def path(self) -> Path | None:
        return None if self.root is None else database_path(self.root)

    def key_salt(self) -> bytes:
        """The salt keying the digest a stored key keeps of a secret (``store.salt``):
        read, or made, the first time a key holds a secret; an in-memory store's own."""
        if self._key_salt is None:
            if self.root is None:
                self._key_salt = os.urandom(SALT_BYTES)
            else:
                self._key_salt = key_salt(store_dir(self.root))
        return self._key_salt

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transactions -------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction; commits on success, rolls back on error.

        A ``write()`` inside another joins it: several ledger writes that must land
        together (a hook's record of one tool call) go in one transaction, all or none.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self.conn
            finally:
                self._depth -= 1
            return
        with guarded():
            self._begin_immediate()
            self._depth = 1
            self._changed.clear()
            try:
                yield self.conn
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                raise
            finally:
                self._depth = 0
            self.conn.execute("COMMIT")
        changed, self._changed = self._changed, set()
        for session_id in changed:
            self.record_changed(session_id)

    @contextlib.contextmanager
    def patience(self, wait_s: float) -> Iterator[None]:
        """Wait at most ``wait_s`` for another process's lock inside the block (a chore that
        can as well be done later must not hold up the work it comes before)."""
        before = self.wait_s
        self.wait_s = min(wait_s, before)
        with guarded():
            self.conn.execute(f"PRAGMA busy_timeout = {_busy_ms(self.wait_s)}")
        try:
            yield
        finally:
            self.wait_s = before
            with guarded():
                self.conn.execute(f"PRAGMA busy_timeout = {_busy_ms(before)}")

    def _begin_immediate(self) -> None:
        # BEGIN IMMEDIATE takes the write lock up front, so the busy handler waits for it
        # instead of failing a read-to-write upgrade. A bounded retry covers the rare
        # SQLITE_BUSY that SQLite returns without calling the busy handler.
        deadline = time.monotonic() + self.wait_s
        delay = 0.005
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                message = str(exc).lower()
                if ("locked" not in message and "busy" not in message) or (
                    time.monotonic() > deadline
                ):
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.25)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[sqlite3.Row]:
        """Run a read query and return every row."""
        with guarded():
            return self.conn.execute(sql, params).fetchall()

    def newest(
        self,
        table: str,
        *,
        limit: int,
        extra: Sequence[tuple[str, Any]] = (),
        **equal: Any,
    ) -> list[sqlite3.Row]:
        """A ledger's rows, newest first, where each column in ``equal`` has its value.

        A ``None`` value filters nothing. ``extra`` adds ``(condition, parameter)``
        pairs written by the ledger itself; table and column names never come
        from input.
        """
        where, params = ["1 = 1"], []
        for column, value in equal.items():
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        for condition, value in extra:
            where.append(condition)
            params.append(value)
        return self.query(
            f"SELECT * FROM {table} WHERE {' AND '.join(where)} ORDER BY seq DESC LIMIT ?",
            (*params, max(0, limit)),
        )

    # -- migrations ---------------------------------------------------------------

    def applied_migrations(self) -> list[str]:
        with guarded():
            exists = self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            ).fetchone()
            if not exists:
                return []
            rows = self.conn.execute("SELECT name FROM schema_migrations ORDER BY rowid")
            return [str(row[0]) for row in rows]

    def apply(self, migrations: Sequence[Migration]) -> list[str]:
        """Apply the migrations not yet recorded, each in one transaction with its record.

        Returns the names applied now. Safe to call from several processes at once.
        """
        names = {m.name for m in migrations}
        if len(names) != len(migrations):
            raise ValueError("migration names must be unique")
        if names <= set(self.applied_migrations()):
            return []
        applied: list[str] = []
        for migration in migrations:
            with self.write() as conn:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations ("
                    "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
                )
                done = conn.execute(
                    "SELECT 1 FROM schema_migrations WHERE name = ?", (migration.name,)
                ).fetchone()
                if done:
                    continue
                for statement in migration.statements:
                    conn.execute(statement)
                if migration.function is not None:
                    migration.function(conn)
                conn.execute(
                    "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
                    (migration.name, self.clock()),
                )
                count = conn.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0]
                conn.execute(f"PRAGMA user_version = {int(count)}")
                applied.append(migration.name)
        return applied

    @property
    def schema_version(self) -> int:
        """The number of migrations applied to this database (also ``PRAGMA user_version``)."""
        with guarded():
            return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    # -- retention ----------------------------------------------------------------

    def prune_after_insert(self, conn: sqlite3.Connection, table: str, seq: int) -> None:
        """Inside a write: every ``PRUNE_EVERY`` rows, drop rows beyond the table's retention."""
        if seq % PRUNE_EVERY == 0:
            _prune(conn, table, seq, getattr(self.retention, table))

    def prune(self) -> dict[str, int]:
        """Apply the retention policy to every ledger now; returns rows deleted per table."""
        deleted: dict[str, int] = {}
        for table in _SEQ_TABLES:
            with self.write() as conn:
                top = conn.execute(f"SELECT MAX(seq) FROM {table}").fetchone()[0]
                if top is not None:
                    deleted[table] = _prune(conn, table, int(top), getattr(self.retention, table))
        with self.write() as conn:
            cur = conn.execute(
                "DELETE FROM sessions WHERE id NOT IN "
                "(SELECT id FROM sessions ORDER BY updated_at DESC, rowid DESC LIMIT ?)",
                (self.retention.sessions,),
            )
            deleted["sessions"] = cur.rowcount
        return deleted

    # -- ledgers ------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        return Journal(self)

    @property
    def prompts(self) -> Prompts:
        return Prompts(self)

    @property
    def evidence(self) -> EvidenceLedger:
        return EvidenceLedger(self)

    @property
    def attempts(self) -> Attempts:
        return Attempts(self)

    @property
    def events(self) -> Events:
        return Events(self)

    @property
    def sessions(self) -> Sessions:
        return Sessions(self)

    @property
    def inspections(self) -> RecordLedger:
        return RecordLedger(self, "inspections")

    @property
    def snapshots(self) -> RecordLedger:
        return RecordLedger(self, "snapshots")

    @property
    def check_reports(self) -> RecordLedger:
        return RecordLedger(self, "check_reports")


_SEQ_TABLES = (
    "journal",
    "prompts",
    "evidence",
    "attempts",
    "events",
    "inspections",
    "snapshots",
    "check_reports",
)

#: Journal rows that are precedents survive pruning.
_KEEP_LESSONS = " AND type != 'lesson' AND tags NOT LIKE '%\"lesson\"%'"


def _prune(conn: sqlite3.Connection, table: str, top: int, keep: int) -> int:
    extra = _KEEP_LESSONS if table == "journal" else ""
    cur = conn.execute(f"DELETE FROM {table} WHERE seq <= ?{extra}", (top - keep,))
    return cur.rowcount


def _create_database(path: Path) -> None:
    """Build a fully migrated WAL database beside ``path`` and link it into place.

    Several processes may race to create the store; building it under a private
    name means no one ever sees a half-created file or has to switch the journal
    mode of a database others are using. ``link`` refuses to replace a database
    another process put there first, and that one wins.
    """
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        with guarded():
            conn = connect(tmp)
            try:
                Store(conn)
            finally:
                conn.close()
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o600)
        with contextlib.suppress(FileExistsError):
            os.link(tmp, path)
    except OSError as exc:
        raise StoreError(
            f"cannot create the store database ({exc.strerror or 'I/O error'})",
            code="store_unavailable",
        ) from None
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(OSError):
                leftover.unlink()


def _busy_ms(wait_s: float) -> int:
    """SQLite's busy timeout for a store that waits ``wait_s`` in all."""
    return max(1, min(BUSY_TIMEOUT_MS, int(wait_s * 1000)))


def connect(path: Path, *, wait_s: float = WRITE_DEADLINE_S) -> sqlite3.Connection:
    """Open the database with the store's settings (WAL, busy timeout, autocommit mode)."""
    deadline = time.monotonic() + wait_s
    delay = 0.005
    while True:
        try:
            return _connect_once(path, _busy_ms(wait_s))
        except sqlite3.OperationalError as exc:
            message = str(exc).lower()
            # Switching to WAL can report "locked" without calling the busy handler.
            if ("locked" not in message and "busy" not in message) or time.monotonic() > deadline:
                raise translate(exc) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
        except sqlite3.Error as exc:
            raise translate(exc) from None


def _connect_once(path: Path, busy_ms: int = BUSY_TIMEOUT_MS) -> sqlite3.Connection:
    # isolation_level=None: we issue BEGIN/COMMIT ourselves, so DDL in a migration
    # shares the transaction of its record.
    conn = sqlite3.connect(path, timeout=busy_ms / 1000, isolation_level=None)
    try:
        conn.execute(f"PRAGMA busy_timeout = {busy_ms}")
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            conn.execute("PRAGMA journal_mode = WAL")
        # NORMAL in WAL mode: a crash of the process never corrupts or loses a
        # committed transaction; only a power loss can drop the last ones.
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.Error:
        conn.close()
        raise
    return conn


__all__ = [
    "BUSY_TIMEOUT_MS",
    "GITIGNORE",
    "Retention",
    "Store",
    "connect",
    "guarded",
    "translate",
    "utc_now",
    "write_gitignore",
]
