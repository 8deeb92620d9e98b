"""``contextward doctor``: check the store and say exactly what is wrong.

Owns: the list of checks (database opens and passes ``integrity_check``,
WAL mode, every migration of the schema recorded and ``user_version`` consistent with
the record, ``.gitignore`` keeps the database out of git, configuration and
contract files parse, ledgers within retention, no temporary file
left by an interrupted atomic write, and an initialised ``.contextward/``
whose database is gone or empty) and their findings.

Must never: modify anything, print, or raise for a damaged store (damage is
a finding).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..errors import StoreError
from .config import load_config
from .contract import load_contract
from .database import Store
from .migrations import SCHEMA_MIGRATIONS
from .paths import (
    CONFIG_NAME,
    CONTRACT_NAME,
    DB_NAME,
    STORE_DIR,
    database_path,
    project_root,
    store_dir,
)

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    level: Level
    code: str
    message: str


@dataclass(frozen=True)
class DoctorReport:
    root: Path
    findings: tuple[Finding, ...]

    @property
    def ok(self) -> bool:
        return not any(f.level in {"error", "warning"} for f in self.findings)


def diagnose(start: Path | None = None, *, env: Mapping[str, str] | None = None) -> DoctorReport:
    root = project_root(start)
    findings: list[Finding] = []
    directory = store_dir(root)
    config = load_config(root, env=env)
    findings += [Finding("warning", "config_value", w) for w in config.warnings]
    findings += [
        Finding("warning", "contract_row", p) for p in load_contract(root, env=env).problems
    ]
    if config.warnings:
        findings.append(
            Finding(
                "info",
                "repair_hint",
                "fix or delete the named setting in that config.toml: until then the "
                "built-in default applies (each setting, its default and meaning are in "
                f"the {STORE_DIR}/config.toml that `contextward init` writes)",
            )
        )
    if any(f.code == "contract_row" for f in findings):
        findings.append(
            Finding(
                "info",
                "repair_hint",
                "fix or delete the named row in its contract.md: until then it is "
                "ignored and the rest of the contract applies",
            )
        )
    lost = _lost(directory)
    if lost:
        findings += lost
        return DoctorReport(root, tuple(findings))
    if not database_path(root).exists():
        findings.append(
            Finding(
                "info", "store_missing", f"no store yet in {STORE_DIR}/ (run `contextward init`)"
            )
        )
        return DoctorReport(root, tuple(findings))
    findings += _gitignore(directory)
    findings += _stale_temps(root, [directory, (root / config.state_file).parent])
    findings += _state_size(root / config.state_file)
    findings += _state_conflict(root / config.state_file)
    try:
        with Store.open(root, create=False, retention=config.retention()) as store:
            findings += _database(store)
    except StoreError as exc:
        findings.append(Finding("error", exc.code, f"{STORE_DIR}/{DB_NAME}: {exc}"))
    if any(f.code in {"store_damaged", "integrity"} for f in findings):
        findings.append(
            Finding(
                "info",
                "repair_hint",
                f"move {STORE_DIR}/{DB_NAME} aside (keep it for recovery) and run "
                "`contextward init` to start a fresh store; `contextward import` an export "
                "to load its journal, prompts and evidence back",
            )
        )
    return DoctorReport(root, tuple(findings))


def _lost(directory: Path) -> list[Finding]:
    """An initialised ``.contextward/`` (its config.toml or contract.md is there) whose
    database is gone (``git clean -X`` removes it: it is git-ignored) or empty (emptied
    by a crash, a full disk or a sync tool). Any command would quietly start a new
    store there, so this is said before anything opens the file: opening migrates it.
    """
    if not any((directory / name).is_file() for name in (CONFIG_NAME, CONTRACT_NAME)):
        return []
    path = directory / DB_NAME
    if not path.exists():
        what = f"{DB_NAME} is gone (git-ignored, so `git clean -X` deletes it)"
    elif _empty(path):
        what = f"{DB_NAME} is empty"
    else:
        return []
    return [
        Finding(
            "warning",
            "store_lost",
            f"{STORE_DIR}/ is initialised ({CONFIG_NAME} or {CONTRACT_NAME}) but {what}: "
            "any journal, lessons, prompts and evidence this checkout held are lost "
            "(STATE.md is not affected)",
        ),
        Finding(
            "info",
            "repair_hint",
            f"put a copy of {STORE_DIR}/{DB_NAME} back if you have one; otherwise run "
            "`contextward init` to start an empty store (all a fresh clone needs)",
        ),
    ]


def _empty(path: Path) -> bool:
    """True for a database file with no bytes, or no tables, and no write-ahead log."""
    try:
        if path.stat().st_size == 0:
            wal = path.with_name(path.name + "-wal")
            return not (wal.exists() and wal.stat().st_size > 0)
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()[0]) == 0
        finally:
            conn.close()
    except (OSError, sqlite3.Error):
        return False  # unreadable or damaged: the database checks say which


def _stale_temps(root: Path, folders: list[Path]) -> list[Finding]:
    """Temporary files an atomic write left behind when its process was killed (kill -9).

    The file they were to replace is intact (the rename never happened); they only
    take space, so they are reported for deletion and never touched here.
    """
    found: set[Path] = set()
    for folder in folders:
        try:
            found.update(p for p in folder.glob(".*.tmp") if p.is_file())
        except OSError:
            continue
    return [
        Finding(
            "warning",
            "stale_temp",
            f"{_shown(root, path)} was left by an interrupted write; the file it was to "
            "replace is intact, so it can be deleted",
        )
        for path in sorted(found)
    ]


def _state_size(path: Path) -> list[Finding]:
    """A STATE.md too large to read: every checkpoint and state block fails until it is
    trimmed (nothing is lost; it is never overwritten)."""
    from ..state.file import MAX_BYTES  # the state layer imports the store

    try:
        size = path.stat().st_size
    except OSError:
        return []
    if size <= MAX_BYTES:
        return []
    return [
        Finding(
            "warning",
            "state_too_large",
            f"{path.name} is {size / 2**20:.0f} MiB, over the {MAX_BYTES // 2**20} MiB the "
            "state layer reads: checkpoints and the state block fail until it is trimmed "
            "(move its old Log entries elsewhere)",
        )
    ]


def _state_conflict(path: Path) -> list[Finding]:
    """A STATE.md git left mid-merge: ``state`` and the brief read one side's fields and
    both sides' decisions, and ``decide`` refuses to append until it is resolved."""
    from ..state.errors import StateError
    from ..state.file import load  # the state layer imports the store

    try:
        line = load(path).view.conflict_line
    except StateError:
        return []  # unreadable or too large: said elsewhere
    if not line:
        return []
    return [
        Finding(
            "warning",
            "state_conflict",
            f"{path.name} has an unresolved git merge conflict at line {line}: resolve it "
            "(keep both sides' decisions) and remove the markers",
        )
    ]


def _shown(root: Path, path: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return path.name


def _gitignore(directory: Path) -> list[Finding]:
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return [
            Finding(
                "warning",
                "gitignore_missing",
                f"{STORE_DIR}/.gitignore is missing: the database could be committed",
            )
        ]
    patterns = {line.strip() for line in lines}
    if not patterns & {DB_NAME, "*.db", "*"}:
        return [
            Finding(
                "warning",
                "gitignore_incomplete",
                f"{STORE_DIR}/.gitignore does not ignore {DB_NAME}",
            )
        ]
    return []


def _database(store: Store) -> list[Finding]:
    out: list[Finding] = []
    try:
        rows = store.conn.execute("PRAGMA integrity_check(20)").fetchall()
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        for problem in problems:
            out.append(Finding("error", "integrity", f"integrity check: {problem}"))
        mode = str(store.conn.execute("PRAGMA journal_mode").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return [Finding("error", "store_damaged", f"the database cannot be read ({exc})")]
    if mode.lower() != "wal":
        out.append(Finding("warning", "journal_mode", f"journal mode is {mode}, expected wal"))
    applied = store.applied_migrations()
    missing = [m.name for m in SCHEMA_MIGRATIONS if m.name not in applied]
    if missing:
        out.append(
            Finding("error", "migration_missing", f"missing migrations: {', '.join(missing)}")
        )
    if store.schema_version != len(applied):
        out.append(
            Finding(
                "error",
                "schema_version",
                f"user_version {store.schema_version} does not match "
                f"{len(applied)} recorded migrations",
            )
        )
    known = {m.name for m in SCHEMA_MIGRATIONS}
    ours = tuple({m.name.split(".", 1)[0] + "." for m in SCHEMA_MIGRATIONS})
    foreign = [name for name in applied if name not in known and name.startswith(ours)]
    if foreign:
        out.append(
            Finding(
                "info",
                "migration_unknown",
                f"migrations from a newer version: {', '.join(foreign)}",
            )
        )
    out += _consistency(store)
    for table in ("journal", "evidence", "events", "prompts", "attempts"):
        count = int(store.query(f"SELECT COUNT(*) FROM {table}")[0][0])
        bound = getattr(store.retention, table)
        if count > bound * 2:
            out.append(
                Finding(
                    "info",
                    "retention_pending",
                    f"{table} holds {count} rows (bound {bound}); pruning catches up on writes",
                )
            )
    out.append(
        Finding(
            "info",
            "schema",
            f"schema version {store.schema_version} ({len(applied)} migrations applied)",
        )
    )
    return out


#: Re-derivable facts: (code, query counting mismatches, what a mismatch means).
_CHECKS = (
    (
        "json_invalid",
        "SELECT (SELECT COUNT(*) FROM journal WHERE NOT json_valid(tags))"
        " + (SELECT COUNT(*) FROM evidence WHERE NOT json_valid(reasons))"
        " + (SELECT COUNT(*) FROM events WHERE NOT json_valid(payload))"
        " + (SELECT COUNT(*) FROM sessions WHERE NOT json_valid(data))"
        " + (SELECT COUNT(*) FROM snapshots WHERE NOT json_valid(data))"
        " + (SELECT COUNT(*) FROM inspections WHERE NOT json_valid(data))"
        " + (SELECT COUNT(*) FROM check_reports WHERE NOT json_valid(data))",
        "rows whose JSON column does not parse",
    ),
    (
        "verdict_mismatch",
        "SELECT COUNT(*) FROM evidence WHERE (verdict IN ('ok', 'untrusted') AND exit_code != 0)"
        " OR (verdict = 'fail' AND exit_code = 0)",
        "evidence runs whose verdict contradicts their exit code",
    ),
    (
        "attempt_mismatch",
        "SELECT COUNT(*) FROM attempts a JOIN evidence e ON e.seq = a.evidence_seq"
        " WHERE a.streak_key != e.streak_key OR a.exit_code != e.exit_code",
        "loop-brake attempts that disagree with their evidence run",
    ),
    (
        "attempt_missing",
        "SELECT COUNT(*) FROM evidence e WHERE NOT EXISTS"
        " (SELECT 1 FROM attempts a WHERE a.evidence_seq = e.seq)"
        " AND e.seq > (SELECT COALESCE(MIN(evidence_seq), 0) FROM attempts)",
        "evidence runs without their loop-brake attempt",
    ),
)


def _consistency(store: Store) -> list[Finding]:
    out: list[Finding] = []
    for code, sql, meaning in _CHECKS:
        count = int(store.query(sql)[0][0])
        if count:
            out.append(Finding("error", code, f"{count} {meaning}"))
    return out


__all__ = ["DoctorReport", "Finding", "diagnose"]
