"""``contextward import``: an export of this format loaded back into a store.

Owns: checking an export before anything is written — the header (format and
version), every line a JSON object of a known ledger, the footer's row count
and SHA-256 of the lines before it (an export edited or cut short is refused
whole) — and loading its journal (lessons included), owner prompts and
evidence rows in one transaction. Loading is idempotent: a row already in the
store (same ledger, same content, same time) is not added again, so importing
the same file twice, or an export of a store into that same store, adds
nothing. Rows get new sequence numbers (``j-``/``ev-`` ids) in the store they
join; text is masked again on the way in.

What it does not load, and says so: the contract (a file, ``contract.md``,
already in git), the loop brake's attempts, events, sessions, inspections,
snapshots and check reports (runtime state of sessions that are over).
STATE.md is not in an export at all.

Must never: write part of a file (all rows or none), echo the file's content
in an error, or print.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..redact import mask
from .database import Store
from .export import EXPORT_FORMAT, EXPORT_VERSION
from .journal import JOURNAL_TYPES

#: The ledgers an import loads, as the export names them.
LOADED = ("journal", "prompt", "evidence")
#: The ledgers an export holds that an import leaves out (counted, not loaded).
NOT_LOADED = (
    "contract",
    "attempt",
    "event",
    "session",
    "inspection",
    "snapshot",
    "check_report",
)
_VERDICTS = frozenset(("ok", "fail", "untrusted", "timeout"))
#: Free text, masked again on the way in (an export edited by hand may hold a secret).
_TEXT = frozenset(("text", "command", "cwd", "digest"))


@dataclass(frozen=True)
class ImportResult:
    """What an import added, what it found already there, and what it left out."""

    added: Mapping[str, int]
    present: Mapping[str, int]
    skipped: Mapping[str, int]


Key = tuple[Any, ...]
Row = dict[str, Any]


def import_export(store: Store, lines: Iterable[bytes]) -> ImportResult:
    """Check the export in ``lines`` (raw lines of the file) and load it into ``store``.

    Raises ``InputError`` — ``import_foreign`` (not a contextward export, or a row of
    no known shape), ``import_version`` (an export format this version cannot load),
    ``import_tampered`` (the footer does not match what precedes it) — before
    writing anything.
    """
    rows = _checked(lines)
    wanted: dict[str, list[Row]] = {name: [] for name in LOADED}
    skipped: Counter[str] = Counter()
    for number, row in rows:
        ledger = row["ledger"]
        if ledger in wanted:
            wanted[ledger].append(_valid(ledger, row, number))
        else:
            skipped[ledger] += 1
    added: dict[str, int] = {}
    present: dict[str, int] = {}
    with store.write() as conn:
        for name in LOADED:
            spec = _SPECS[name]
            have = Counter(spec.identity(dict(r)) for r in conn.execute(spec.existing))
            new = 0
            for row in wanted[name]:
                key = spec.identity(row)
                if have[key] > 0:
                    have[key] -= 1  # one row of the file matched by one row of the store
                    continue
                conn.execute(spec.insert, spec.values(row))
                new += 1
            added[name] = new
            present[name] = len(wanted[name]) - new
    return ImportResult(added, present, dict(skipped))


def _checked(lines: Iterable[bytes]) -> list[tuple[int, Row]]:
    """The rows between header and footer, once the whole file checked out."""
    digest = hashlib.sha256()
    rows: list[tuple[int, Row]] = []
    footer: Row | None = None
    number = 0
    for number, raw in enumerate(lines, start=1):
        if footer is not None:
            raise InputError(f"line {number}: rows after the footer", code="import_tampered")
        row = _object(raw, number)
        if number == 1:
            _header(row)
        elif row["ledger"] == "footer":
            footer = row
            continue
        digest.update(raw if raw.endswith(b"\n") else raw + b"\n")
        if number > 1:
            rows.append((number, row))
    if not number:
        raise InputError("the file is empty, not a contextward export", code="import_foreign")
    if footer is None:
        raise InputError("the export has no footer: it was cut short", code="import_tampered")
    if footer.get("rows") != len(rows) + 1 or footer.get("sha256") != digest.hexdigest():
        raise InputError(
            "the export does not match its checksum: it was edited or cut short",
            code="import_tampered",
        )
    return rows


def _object(raw: bytes, number: int) -> Row:
    try:
        row = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InputError(f"line {number}: not JSON", code="import_foreign") from None
    if not isinstance(row, dict) or not isinstance(row.get("ledger"), str):
        raise InputError(f"line {number}: not a contextward export row", code="import_foreign")
    return row


def _header(row: Row) -> None:
    if row.get("ledger") != "header" or row.get("format") != EXPORT_FORMAT:
        raise InputError("not a contextward export (no export header)", code="import_foreign")
    version = row.get("schema_version")
    if version != EXPORT_VERSION:
        newer = isinstance(version, int) and version > EXPORT_VERSION
        why = (
            "a newer contextward wrote it"
            if newer
            else "an older contextward wrote it, without the checksum an import needs"
        )
        raise InputError(
            f"export format {version!r} cannot be imported ({why}; this one reads "
            f"{EXPORT_VERSION})",
            code="import_version",
        )


def _valid(ledger: str, row: Row, number: int) -> Row:
    """``row`` with its text masked, when every field the ledger needs has its type."""
    spec = _SPECS[ledger]
    for name, kind in spec.fields.items():
        value = row.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise InputError(
                f"line {number}: a {ledger} row without a valid {name!r}", code="import_foreign"
            )
    if not spec.check(row):
        raise InputError(f"line {number}: a {ledger} row out of range", code="import_foreign")
    return {name: mask(v) if name in _TEXT and isinstance(v, str) else v for name, v in row.items()}


@dataclass(frozen=True)
class _Spec:
    fields: Mapping[str, type | tuple[type, ...]]
    check: Callable[[Row], bool]
    existing: str
    insert: str
    values: Callable[[Row], tuple[Any, ...]]
    #: What makes a row the same row (default: all its values).
    key: Callable[[Row], Key] | None = None

    def identity(self, row: Row) -> Key:
        return (self.key or self.values)(row)


def _tags(value: object) -> str:
    return json.dumps(value if isinstance(value, list) else json.loads(str(value)))


_OPT_STR = (str, type(None))

_SPECS: dict[str, _Spec] = {
    "journal": _Spec(
        fields={
            "created_at": str,
            "type": str,
            "text": str,
            "tags": list,
            "provenance": str,
            "session_id": _OPT_STR,
        },
        check=lambda r: (
            r["type"] in JOURNAL_TYPES
            and r["provenance"] in ("owner", "agent")
            and all(isinstance(t, str) for t in r["tags"])
        ),
        existing="SELECT created_at, type, text, tags, provenance, session_id FROM journal",
        insert=(
            "INSERT INTO journal (created_at, type, text, tags, provenance, session_id)"
            " VALUES (?, ?, ?, ?, ?, ?)"
        ),
        values=lambda r: (
            r["created_at"],
            r["type"],
            r["text"],
            _tags(r["tags"]),
            r["provenance"],
            r["session_id"],
        ),
    ),
    "prompt": _Spec(
        fields={"created_at": str, "session_id": _OPT_STR, "key": str, "text": str},
        check=lambda r: bool(r["text"].strip() and r["key"]),
        existing="SELECT key FROM prompts",
        insert="INSERT INTO prompts (created_at, session_id, key, text) VALUES (?, ?, ?, ?)",
        values=lambda r: (r["created_at"], r["session_id"], r["key"], r["text"]),
        # The store's own idempotency key: a prompt is recorded once, whatever its seq.
        key=lambda r: (r["key"],),
    ),
    "evidence": _Spec(
        fields={
            "created_at": str,
            "session_id": _OPT_STR,
            "command": str,
            "fingerprint": str,
            "streak_key": str,
            "cwd": str,
            "exit_code": int,
            "duration_ms": int,
            "verdict": str,
            "reasons": list,
            "digest": str,
            "output_bytes": int,
        },
        check=lambda r: r["verdict"] in _VERDICTS and all(isinstance(t, str) for t in r["reasons"]),
        existing="SELECT created_at, session_id, command, fingerprint, exit_code FROM evidence",
        insert=(
            "INSERT INTO evidence (created_at, session_id, command, fingerprint, streak_key,"
            " cwd, exit_code, duration_ms, verdict, reasons, digest, output_bytes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        ),
        values=lambda r: (
            r["created_at"],
            r["session_id"],
            r["command"],
            r["fingerprint"],
            r["streak_key"],
            r["cwd"],
            r["exit_code"],
            r["duration_ms"],
            r["verdict"],
            json.dumps(r["reasons"]),
            r["digest"],
            r["output_bytes"],
        ),
        key=lambda r: (
            r["created_at"],
            r["session_id"],
            r["command"],
            r["fingerprint"],
            r["exit_code"],
        ),
    ),
}

__all__ = ["LOADED", "NOT_LOADED", "ImportResult", "import_export"]
