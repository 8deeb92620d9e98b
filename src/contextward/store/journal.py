"""The journal: decisions, corrections, risks, notes and lessons, with tags and provenance.

Owns: the ``JournalEntry`` value, normalising text (secrets masked, one
bounded line) and tags before anything is stored, reading entries back, the
precedent view (lessons), and ``record_note`` — the one library function
every ``note`` goes through (so decisions can be redirected to STATE.md
later without touching callers).

Provenance: ``owner`` rows come from owner surfaces (the CLI); everything
written through a model-facing path (MCP, hooks, bridge) is ``agent`` and is
never rendered as trusted.

Must never: store text that has not passed ``redact.mask``, or let an agent
write claim owner provenance (callers on model-facing paths pass "agent").
"""

from __future__ import annotations

import builtins
import difflib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InputError
from ..redact import mask
from .text import storable

if TYPE_CHECKING:
    from .database import Store

JOURNAL_TYPES: tuple[str, ...] = ("correction", "decision", "lesson", "note", "risk")
Provenance = Literal["owner", "agent"]
PROVENANCES: tuple[str, ...] = ("agent", "owner")

#: One stored entry is one line of at most this many characters.
MAX_TEXT = 2_000
MAX_TAGS = 8
MAX_TAG_LENGTH = 40
#: Feedback words with a fixed spelling: near misses are normalised on write.
FEEDBACK_TAGS = ("dissatisfied", "satisfied")
#: Tags that say nothing a search could use.
GENERIC_TAGS = frozenset({"lesson", "note", "decision", "correction", "risk", "todo", "misc"})


@dataclass(frozen=True)
class JournalEntry:
    """One journal row as stored (text already masked and normalised)."""

    seq: int
    created_at: str
    type: str
    text: str
    tags: tuple[str, ...]
    provenance: str
    session_id: str | None

    @property
    def id(self) -> str:
        """Stable display id, e.g. ``j-42``."""
        return f"j-{self.seq}"

    @property
    def trusted(self) -> bool:
        return self.provenance == "owner"

    @property
    def is_precedent(self) -> bool:
        return self.type == "lesson" or "lesson" in self.tags

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seq": self.seq,
            "created_at": self.created_at,
            "type": self.type,
            "text": self.text,
            "tags": list(self.tags),
            "provenance": self.provenance,
            "trusted": self.trusted,
            "session_id": self.session_id,
        }


@dataclass(frozen=True)
class NoteResult:
    """What ``record_note`` wrote, plus hints for the writer (never errors)."""

    entry: JournalEntry
    hints: tuple[str, ...] = ()


def normalize_text(text: str, *, limit: int = MAX_TEXT) -> str:
    """Mask secrets, fold to one line (so stored text cannot forge output lines), cap length."""
    line = " ".join(mask(storable(text)).split())
    if len(line) > limit:
        line = line[: limit - 1].rstrip() + "…"
    return line


def normalize_tags(tags: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Lower-case, strip ``#``, keep letters/digits/``-_.:``; returns (tags, notes about changes)."""
    out: list[str] = []
    notes: list[str] = []
    for raw in tags:
        for part in raw.split(","):
            if mask(part) != part:
                notes.append("a tag that looked like a secret was left out")
                continue
            whole = "".join(
                ch for ch in part.strip().lstrip("#").lower().replace(" ", "-") if _tag_char(ch)
            )
            tag = whole[:MAX_TAG_LENGTH]
            if not tag:
                continue
            if tag != whole:
                notes.append(f"tag {tag!r} cut to {MAX_TAG_LENGTH} characters")
            if tag not in FEEDBACK_TAGS:
                close = difflib.get_close_matches(tag, FEEDBACK_TAGS, n=1, cutoff=0.85)
                if close:
                    notes.append(f"tag {tag!r} normalised to {close[0]!r}")
                    tag = close[0]
            if tag not in out:
                out.append(tag)
    if len(out) > MAX_TAGS:
        notes.append(f"kept the first {MAX_TAGS} of {len(out)} tags")
        out = out[:MAX_TAGS]
    return tuple(out), tuple(notes)


def _tag_char(ch: str) -> bool:
    return ch.isalnum() or ch in "-_.:"


def _entry(row: sqlite3.Row) -> JournalEntry:
    return JournalEntry(
        seq=int(row["seq"]),
        created_at=str(row["created_at"]),
        type=str(row["type"]),
        text=str(row["text"]),
        tags=tuple(json.loads(row["tags"])),
        provenance=str(row["provenance"]),
        session_id=row["session_id"],
    )


class Journal:
    """Journal rows of one store."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(
        self,
        type: str,
        text: str,
        *,
        tags: Sequence[str] = (),
        provenance: Provenance = "owner",
        session_id: str | None = None,
    ) -> JournalEntry:
        """Append one entry (masked, normalised); returns it as stored."""
        if type not in JOURNAL_TYPES:
            raise InputError(
                f"unknown journal type {type!r} (use one of: {', '.join(JOURNAL_TYPES)})",
                code="unknown_type",
            )
        if provenance not in PROVENANCES:
            raise InputError(f"unknown provenance {provenance!r}", code="invalid_input")
        body = normalize_text(text)
        if not body:
            raise InputError("the entry text is empty", code="empty_text")
        clean_tags, _ = normalize_tags(tags)
        created = self.store.clock()
        with self.store.write() as conn:
            cur = conn.execute(
                "INSERT INTO journal (created_at, type, text, tags, provenance, session_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (created, type, body, json.dumps(clean_tags), provenance, session_id),
            )
            seq = int(cur.lastrowid or 0)
            self.store.prune_after_insert(conn, "journal", seq)
        self.store.record_changed()
        return JournalEntry(seq, created, type, body, clean_tags, provenance, session_id)

    def get(self, seq: int) -> JournalEntry | None:
        rows = self.store.query("SELECT * FROM journal WHERE seq = ?", (seq,))
        return _entry(rows[0]) if rows else None

    def list(
        self,
        *,
        limit: int = 5,
        type: str | None = None,
        tags: Sequence[str] = (),
        provenance: str | None = None,
        session_id: str | None = None,
    ) -> list[JournalEntry]:
        """Newest first; ``tags`` must all be present (exact, case-insensitive)."""
        tag_filters = [
            ("EXISTS (SELECT 1 FROM json_each(journal.tags) WHERE value = ?)", tag)
            for tag in normalize_tags(tags)[0]
        ]
        rows = self.store.newest(
            "journal",
            limit=limit,
            extra=tag_filters,
            type=type,
            provenance=provenance,
            session_id=session_id,
        )
        return [_entry(row) for row in rows]

    def precedents(
        self, *, limit: int = 3, trusted_only: bool = True
    ) -> builtins.list[JournalEntry]:
        """Lessons (type ``lesson`` or tagged ``lesson``), newest first."""
        owner = " AND provenance = 'owner'" if trusted_only else ""
        rows = self.store.query(
            "SELECT * FROM journal WHERE (type = 'lesson' OR EXISTS "
            "(SELECT 1 FROM json_each(journal.tags) WHERE value = 'lesson'))"
            f"{owner} ORDER BY seq DESC LIMIT ?",
            (max(0, limit),),
        )
        return [_entry(row) for row in rows]

    def counts(self) -> dict[str, int]:
        """Rows per type and per provenance (``owner``/``agent``), plus ``total``."""
        out: dict[str, int] = {"total": 0, "owner": 0, "agent": 0}
        for row in self.store.query(
            "SELECT type, provenance, COUNT(*) AS n FROM journal GROUP BY type, provenance"
        ):
            n = int(row["n"])
            out[str(row["type"])] = out.get(str(row["type"]), 0) + n
            out[str(row["provenance"])] += n
            out["total"] += n
        return out

    def iter_all(self, *, batch: int = 500) -> Iterator[JournalEntry]:
        """Every retained row, oldest first (export, index rebuilds)."""
        last = 0
        while True:
            rows = self.store.query(
                "SELECT * FROM journal WHERE seq > ? ORDER BY seq LIMIT ?", (last, batch)
            )
            if not rows:
                return
            for row in rows:
                yield _entry(row)
            last = int(rows[-1]["seq"])


def record_decision(
    store: Store,
    text: str,
    *,
    tags: Sequence[str] = (),
    provenance: Provenance = "owner",
    session_id: str | None = None,
) -> JournalEntry:
    """Record a decision. Until STATE.md holds trusted decisions they live in the journal."""
    return store.journal.add(
        "decision", text, tags=tags, provenance=provenance, session_id=session_id
    )


def record_note(
    store: Store,
    type: str,
    text: str,
    *,
    tags: Sequence[str] = (),
    provenance: Provenance = "owner",
    session_id: str | None = None,
) -> NoteResult:
    """The one path every note takes (CLI ``note``, MCP, bridge); decisions go to ``record_decision``."""
    clean_tags, hints = normalize_tags(tags)
    if type == "decision":
        entry = record_decision(
            store, text, tags=clean_tags, provenance=provenance, session_id=session_id
        )
    else:
        entry = store.journal.add(
            type, text, tags=clean_tags, provenance=provenance, session_id=session_id
        )
    notes = list(hints)
    if entry.text.endswith("…") and len(entry.text) >= MAX_TEXT:
        notes.append(f"the text was cut to {MAX_TEXT:,} characters")
    if entry.is_precedent and not set(entry.tags) - GENERIC_TAGS:
        notes.append(
            "a lesson is found by its tags: add a trigger word you would search for (--tag WORD)"
        )
    return NoteResult(entry, tuple(notes))


__all__ = [
    "FEEDBACK_TAGS",
    "JOURNAL_TYPES",
    "MAX_TAGS",
    "MAX_TEXT",
    "PROVENANCES",
    "Journal",
    "JournalEntry",
    "NoteResult",
    "Provenance",
    "normalize_tags",
    "normalize_text",
    "record_decision",
    "record_note",
]
