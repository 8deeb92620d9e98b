"""The evidence ledger: one row per verification run, ids ``ev-NNNN``.

Owns: the ``EvidenceRun`` value, appending a run (and, in the same
transaction, its loop-brake attempt) and reading runs back. The id is the
row's AUTOINCREMENT sequence, so ids are unique across concurrent processes
and never reused, even after retention pruned older rows.

Must never: run commands (``guard.evidence`` does), or store a command or
digest that has not been masked.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..redact import mask
from .text import storable, storable_key

if TYPE_CHECKING:
    from .database import Store

VERDICTS: tuple[str, ...] = ("fail", "ok", "timeout", "untrusted")
_EV_ID = re.compile(r"^ev-?(\d{1,12})$", re.IGNORECASE)


def evidence_id(seq: int) -> str:
    """``ev-0007``: at least four digits, more when the ledger grows past 9999."""
    return f"ev-{seq:04d}"


def parse_evidence_id(text: str) -> int | None:
    """``ev-7``, ``ev-0007`` and ``EV-0007`` all name seq 7; anything else is None."""
    match = _EV_ID.match(text.strip())
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class EvidenceRun:
    seq: int
    created_at: str
    session_id: str | None
    command: str
    fingerprint: str
    streak_key: str
    cwd: str
    exit_code: int
    duration_ms: int
    verdict: str
    reasons: tuple[str, ...]
    digest: str
    output_bytes: int

    @property
    def id(self) -> str:
        return evidence_id(self.seq)

    @property
    def label(self) -> str:
        """``ok``, ``FAIL``, ``UNTRUSTED`` or ``TIMEOUT``: what a reader may conclude."""
        return "ok" if self.verdict == "ok" else self.verdict.upper()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created_at": self.created_at,
            "session_id": self.session_id,
            "command": self.command,
            "fingerprint": self.fingerprint,
            "cwd": self.cwd,
            "exit_code": self.exit_code,
            "duration_ms": self.duration_ms,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "digest": self.digest,
            "output_bytes": self.output_bytes,
        }


def _run(row: sqlite3.Row) -> EvidenceRun:
    return EvidenceRun(
        seq=int(row["seq"]),
        created_at=str(row["created_at"]),
        session_id=row["session_id"],
        command=str(row["command"]),
        fingerprint=str(row["fingerprint"]),
        streak_key=str(row["streak_key"]),
        cwd=str(row["cwd"]),
        exit_code=int(row["exit_code"]),
        duration_ms=int(row["duration_ms"]),
        verdict=str(row["verdict"]),
        reasons=tuple(json.loads(row["reasons"])),
        digest=str(row["digest"]),
        output_bytes=int(row["output_bytes"]),
    )


class EvidenceLedger:
    def __init__(self, store: Store) -> None:
        self.store = store

    def record(
        self,
        *,
        command: str,
        fingerprint: str,
        streak_key: str,
        cwd: str,
        exit_code: int,
        duration_ms: int,
        verdict: str,
        reasons: tuple[str, ...],
        digest: str,
        output_bytes: int,
        attempt_outcome: str,
        session_id: str | None = None,
    ) -> EvidenceRun:
        """Append one run and its loop-brake attempt in one transaction; returns the run."""
        if verdict not in VERDICTS:
            raise ValueError(f"unknown verdict {verdict!r}")
        created = self.store.clock()
        command, fingerprint = mask(storable(command)), mask(storable(fingerprint))
        streak_key = storable_key(streak_key, self.store.key_salt)
        digest, cwd = mask(storable(digest)), storable(cwd)
        with self.store.write() as conn:
            cur = conn.execute(
                "INSERT INTO evidence (created_at, session_id, command, fingerprint, streak_key,"
                " cwd, exit_code, duration_ms, verdict, reasons, digest, output_bytes)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    created,
                    session_id,
                    command,
                    fingerprint,
                    streak_key,
                    cwd,
                    exit_code,
                    duration_ms,
                    verdict,
                    json.dumps(list(reasons)),
                    digest,
                    output_bytes,
                ),
            )
            seq = int(cur.lastrowid or 0)
            attempt = conn.execute(
                "INSERT INTO attempts (created_at, session_id, streak_key, fingerprint, outcome,"
                " source, exit_code, evidence_seq) VALUES (?, ?, ?, ?, ?, 'verify', ?, ?)",
                (created, session_id, streak_key, fingerprint, attempt_outcome, exit_code, seq),
            )
            self.store.prune_after_insert(conn, "evidence", seq)
            self.store.prune_after_insert(conn, "attempts", int(attempt.lastrowid or 0))
        # What a session's prompt brief shows of it: that session's loop streak (another
        # session's run changes only the "last evidence" line, which no prompt injects).
        self.store.record_changed(session_id or None)
        return EvidenceRun(
            seq,
            created,
            session_id,
            command,
            fingerprint,
            streak_key,
            cwd,
            exit_code,
            duration_ms,
            verdict,
            reasons,
            digest,
            output_bytes,
        )

    def get(self, ev_id: str | int) -> EvidenceRun | None:
        seq = ev_id if isinstance(ev_id, int) else parse_evidence_id(ev_id)
        if seq is None:
            return None
        rows = self.store.query("SELECT * FROM evidence WHERE seq = ?", (seq,))
        return _run(rows[0]) if rows else None

    def list(
        self, *, limit: int = 5, session_id: str | None = None, fingerprint: str | None = None
    ) -> list[EvidenceRun]:
        """Newest first."""
        rows = self.store.newest(
            "evidence", limit=limit, session_id=session_id, fingerprint=fingerprint
        )
        return [_run(row) for row in rows]

    def last(self, *, session_id: str | None = None) -> EvidenceRun | None:
        runs = self.list(limit=1, session_id=session_id)
        return runs[0] if runs else None

    def count(self) -> int:
        return int(self.store.query("SELECT COUNT(*) FROM evidence")[0][0])

    def iter_all(self, *, batch: int = 500) -> Iterator[EvidenceRun]:
        """Every retained run, oldest first."""
        last = 0
        while True:
            rows = self.store.query(
                "SELECT * FROM evidence WHERE seq > ? ORDER BY seq LIMIT ?", (last, batch)
            )
            if not rows:
                return
            for row in rows:
                yield _run(row)
            last = int(rows[-1]["seq"])


__all__ = ["VERDICTS", "EvidenceLedger", "EvidenceRun", "evidence_id", "parse_evidence_id"]
