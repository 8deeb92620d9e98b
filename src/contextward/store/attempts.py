"""Command attempts: the loop brake's raw material.

Owns: appending an attempt (a verify run writes its own in the same
transaction as the evidence row; hooks record outcomes they observed) and
reading the attempts of one streak key newest first.

Outcomes: ``success`` (a real, proven exit 0; with source ``reset``, the owner
clearing the streak), ``fail`` (non-zero or timeout), ``unproven`` (exit 0 that proves nothing: masked or an unchecked
pipeline), ``refused`` (the brake stopped it; it did not run).

Must never: decide anything (``guard.loops`` owns the policy).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..redact import mask
from .text import storable, storable_key

if TYPE_CHECKING:
    from .database import Store

OUTCOMES: tuple[str, ...] = ("fail", "refused", "success", "unproven")


@dataclass(frozen=True)
class Attempt:
    seq: int
    created_at: str
    session_id: str | None
    streak_key: str
    fingerprint: str
    outcome: str
    source: str
    exit_code: int | None
    evidence_seq: int | None


def _attempt(row: sqlite3.Row) -> Attempt:
    return Attempt(
        int(row["seq"]),
        str(row["created_at"]),
        row["session_id"],
        str(row["streak_key"]),
        str(row["fingerprint"]),
        str(row["outcome"]),
        str(row["source"]),
        row["exit_code"],
        row["evidence_seq"],
    )


class Attempts:
    def __init__(self, store: Store) -> None:
        self.store = store

    def record(
        self,
        *,
        streak_key: str,
        fingerprint: str,
        outcome: str,
        source: str,
        exit_code: int | None = None,
        session_id: str | None = None,
    ) -> Attempt:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        created = self.store.clock()
        streak_key = storable_key(streak_key, self.store.key_salt)
        fingerprint = mask(storable(fingerprint))
        with self.store.write() as conn:
            previous = conn.execute(
                "SELECT outcome FROM attempts WHERE streak_key = ? ORDER BY seq DESC LIMIT 1",
                (streak_key,),
            ).fetchone()
            cur = conn.execute(
                "INSERT INTO attempts (created_at, session_id, streak_key, fingerprint, outcome,"
                " source, exit_code) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (created, session_id, streak_key, fingerprint, outcome, source, exit_code),
            )
            seq = int(cur.lastrowid or 0)
            self.store.prune_after_insert(conn, "attempts", seq)
        # A success after a success leaves every open loop as it was; anything else may not.
        # A session's open loops are its own attempts' (and the owner's resets, which
        # clear a streak in every session): another session's attempt changes none of them.
        if outcome != "success" or (previous is not None and previous["outcome"] != "success"):
            self.store.record_changed(None if source == "reset" else session_id or None)
        return Attempt(
            seq, created, session_id, streak_key, fingerprint, outcome, source, exit_code, None
        )

    def for_key(
        self, streak_key: str, *, limit: int = 100, session_id: str | None = None
    ) -> list[Attempt]:
        """Attempts of one streak key, newest first (optionally one session's)."""
        key = storable_key(streak_key, self.store.key_salt)
        if session_id is None:
            rows = self.store.query(
                "SELECT * FROM attempts WHERE streak_key = ? ORDER BY seq DESC LIMIT ?",
                (key, limit),
            )
        else:
            # The owner's reset (``source = 'reset'``) clears the streak in every session.
            rows = self.store.query(
                "SELECT * FROM attempts WHERE streak_key = ? AND (session_id = ? OR source = ?)"
                " ORDER BY seq DESC LIMIT ?",
                (key, session_id, "reset", limit),
            )
        return [_attempt(row) for row in rows]

    def recent_keys(self, *, limit: int = 50, session_id: str | None = None) -> list[str]:
        """Distinct streak keys, most recently attempted first."""
        if session_id is None:
            rows = self.store.query(
                "SELECT streak_key FROM attempts GROUP BY streak_key ORDER BY MAX(seq) DESC LIMIT ?",
                (limit,),
            )
        else:
            rows = self.store.query(
                "SELECT streak_key FROM attempts WHERE session_id = ? GROUP BY streak_key"
                " ORDER BY MAX(seq) DESC LIMIT ?",
                (session_id, limit),
            )
        return [str(row[0]) for row in rows]


__all__ = ["OUTCOMES", "Attempt", "Attempts"]
