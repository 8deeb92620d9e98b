"""Owner prompts, recorded for intent.

Owns: storing each prompt the owner typed once (idempotent on a key: the
host's prompt id when it has one, else session + prompt hash), masked and
bounded, and listing them newest first. Prompts are owner provenance by
definition: the host hands us what the owner typed.

Must never: store a prompt unmasked, or store the same prompt twice for one key
(hooks may fire more than once).
"""

from __future__ import annotations

import hashlib
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import spool
from ..errors import InputError
from ..redact import mask
from .text import storable, storable_id

if TYPE_CHECKING:
    from .database import Store

#: A prompt is kept up to this many characters (the intent view shows less).
MAX_PROMPT = 4_000


@dataclass(frozen=True)
class Prompt:
    seq: int
    created_at: str
    session_id: str | None
    key: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "created_at": self.created_at,
            "session_id": self.session_id,
            "key": self.key,
            "text": self.text,
            "provenance": "owner",
        }


def prompt_key(text: str, *, session_id: str | None, prompt_id: str | None = None) -> str:
    """The idempotency key: the host's prompt id, else session and a hash of the text."""
    if prompt_id:
        return f"id:{prompt_id}"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return f"h:{session_id or ''}:{digest}"


def _fields(
    text: str, session_id: str | None, prompt_id: str | None
) -> tuple[str, str | None, str, str]:
    """A prompt as the ledger keeps it: ("", session, key, masked and bounded text)."""
    # A hook payload's "\ud800" decodes to a lone surrogate, which SQLite cannot store.
    text = storable(text)
    session_id = storable_id(session_id[:200]) if session_id is not None else None
    prompt_id = storable_id(prompt_id) if prompt_id is not None else None
    body = mask(text).strip()
    if not body:
        raise InputError("the prompt is empty", code="empty_text")
    if len(body) > MAX_PROMPT:
        body = body[: MAX_PROMPT - 1] + "…"
    return ("", session_id, prompt_key(text, session_id=session_id, prompt_id=prompt_id), body)


def spool_record(
    text: str, *, session_id: str | None, prompt_id: str | None, created_at: str
) -> dict[str, object]:
    """The spool line for a prompt the store was too busy to take (``spool.append_prompt``):
    masked, bounded, and keyed as ``Prompts.record`` would key it, so it is stored once."""
    _, session_id, key, body = _fields(text, session_id, prompt_id)
    return {
        "text": body,
        "session_id": session_id,
        "prompt_id": None,
        "created_at": created_at,
        "key": key,
    }


def _prompt(row: sqlite3.Row) -> Prompt:
    return Prompt(
        int(row["seq"]), str(row["created_at"]), row["session_id"], str(row["key"]), row["text"]
    )


class Prompts:
    def __init__(self, store: Store) -> None:
        self.store = store

    def record(
        self,
        text: str,
        *,
        session_id: str | None = None,
        prompt_id: str | None = None,
        created_at: str | None = None,
    ) -> Prompt | None:
        """Store one owner prompt; returns None when this key was already recorded."""
        row = self._row(text, session_id, prompt_id, created_at)
        with self.store.write() as conn:
            return self._insert(conn, row)

    def _row(
        self,
        text: str,
        session_id: str | None,
        prompt_id: str | None,
        created_at: str | None,
        key: str | None = None,
    ) -> tuple[str, str | None, str, str]:
        created, session_id, derived, body = _fields(text, session_id, prompt_id)
        created = storable(created_at) if created_at is not None else self.store.clock()
        return (created, session_id, key or derived, body)

    def _insert(
        self, conn: sqlite3.Connection, row: tuple[str, str | None, str, str]
    ) -> Prompt | None:
        cur = conn.execute(
            "INSERT OR IGNORE INTO prompts (created_at, session_id, key, text) VALUES (?, ?, ?, ?)",
            row,
        )
        if cur.rowcount == 0:
            return None
        seq = int(cur.lastrowid or 0)
        self.store.prune_after_insert(conn, "prompts", seq)
        created, session_id, key, body = row
        return Prompt(seq, created, session_id, key, body)

    def of_recent_sessions(
        self, *, sessions: int, per_session: int, also: str | None = None, scan: int = 5_000
    ) -> list[Prompt]:
        """The latest ``per_session`` prompts of each of the ``sessions`` sessions other
        than ``also`` prompted most recently, and of ``also``; newest first.

        Per session, so that sessions running in parallel do not push one another's
        words out of a project-wide window. Only the project's last ``scan`` prompts are
        looked at, so the cost stays flat however long the retention.
        """
        rows = self.store.query(
            "WITH latest AS (SELECT * FROM prompts ORDER BY seq DESC LIMIT ?),"
            " recent(sid) AS (SELECT IFNULL(session_id, '') FROM latest"
            "  WHERE session_id IS NOT ? GROUP BY 1 ORDER BY MAX(seq) DESC LIMIT ?),"
            " ranked AS (SELECT *, ROW_NUMBER() OVER"
            "  (PARTITION BY IFNULL(session_id, '') ORDER BY seq DESC) AS n FROM latest"
            "  WHERE IFNULL(session_id, '') IN (SELECT sid FROM recent) OR session_id IS ?)"
            " SELECT seq, created_at, session_id, key, text FROM ranked WHERE n <= ?"
            " ORDER BY seq DESC",
            (max(0, scan), also, max(0, sessions), also, max(0, per_session)),
        )
        return [_prompt(row) for row in rows]

    def ingest_spool(self, store_dir: Path) -> int:
        """Move the prompts the hook fast path spooled into the ledger; returns how many.

        One transaction for the lot, and the spool is emptied only after it
        committed: a process killed in between leaves the prompts spooled.
        """
        claim = spool.claim_prompts(str(store_dir))
        if claim is None:
            return 0
        with claim:
            rows = []
            for record in claim.records:
                text = record["text"]
                if not isinstance(text, str) or not text.strip():
                    continue
                session_id = record.get("session_id")
                prompt_id = record.get("prompt_id")
                created_at = record.get("created_at")
                key = record.get("key")  # a prompt spooled masked: its key was derived before
                try:
                    row = self._row(
                        text,
                        session_id if isinstance(session_id, str) else None,
                        prompt_id if isinstance(prompt_id, str) else None,
                        created_at if isinstance(created_at, str) else None,
                        key=storable_id(key) if isinstance(key, str) and key else None,
                    )
                except InputError:
                    continue  # nothing left to store once masked
                rows.append(row)
            added = 0
            if rows:
                with self.store.write() as conn:
                    added = sum(self._insert(conn, row) is not None for row in rows)
            claim.done()
        return added

    def list(self, *, limit: int = 20, session_id: str | None = None) -> list[Prompt]:
        """Newest first."""
        if session_id is None:
            rows = self.store.query(
                "SELECT * FROM prompts ORDER BY seq DESC LIMIT ?", (max(0, limit),)
            )
        else:
            rows = self.store.query(
                "SELECT * FROM prompts WHERE session_id = ? ORDER BY seq DESC LIMIT ?",
                (session_id, max(0, limit)),
            )
        return [_prompt(row) for row in rows]


__all__ = ["MAX_PROMPT", "Prompt", "Prompts", "prompt_key", "spool_record"]
