"""What recall indexes: documents, and the sources that feed them.

Owns: the ``Document`` value (one searchable row with its trust label), the
``SourceBatch`` a source returns, and the ``RecallSource`` protocol. A source
is either append-only (the journal, the evidence ledger: its cursor is the
last row id it handed out) or a document that changes as a whole (STATE.md:
its cursor is a version such as mtime + size, and a changed version replaces
every row of that source).

Must never: hold text that has not been masked (sources mask on the way in).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = ["TRUST_LABELS", "Document", "RecallSource", "SourceBatch", "Trust"]

Trust = Literal["owner", "agent-unverified", "evidence"]
#: Every hit carries one of these: who stands behind the text.
TRUST_LABELS: tuple[str, ...] = ("agent-unverified", "evidence", "owner")


@dataclass(frozen=True)
class Document:
    """One searchable row. ``seq`` orders rows within a source and identifies them."""

    seq: int
    ref: str
    kind: str
    trust: Trust
    created_at: str
    text: str
    tags: tuple[str, ...] = ()
    evidence_id: str | None = None
    fingerprint: str | None = None
    extra: str = ""
    label: str = ""


@dataclass(frozen=True)
class SourceBatch:
    """New documents since a cursor, the cursor to store, and how to apply them.

    ``replace``: drop every indexed row of the source first (a whole-document
    source changed). ``live``: how many rows the source retains now, so the
    index can notice rows that retention removed.
    """

    documents: tuple[Document, ...]
    cursor: str
    replace: bool = False
    live: int | None = None


class RecallSource(Protocol):
    """Something recall can index; register factories with ``register_source``."""

    @property
    def name(self) -> str: ...

    def fetch(self, cursor: str, *, limit: int) -> SourceBatch:
        """Documents after ``cursor`` (``""`` = from the start), at most ``limit`` of them."""
        ...

    def live_seqs(self) -> set[int]:
        """Every ``seq`` the source still retains (asked only when ``live`` disagrees)."""
        ...
