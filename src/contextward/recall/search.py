"""Recall: ranked search over the journal, the evidence ledger and registered documents.

Owns: the ``RecallQuery`` and ``RecallResult`` values, building the FTS5
expression (every query term must match — in the text, the tags or the
digest — and filters are exact meta terms), BM25 ranking with recency as the
tie-break, the single widening step (all terms -> any term) that a query of
three or more terms takes when it finds nothing, collapsing near-duplicate
hits, and a trust label on every hit.

Must never: present a widened answer as a full match (the result says so),
render agent text as trusted, or return text that has not been masked.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..redact import mask
from ..store import evidence_id, parse_evidence_id
from .analyzer import analyze
from .errors import RecallError
from .index import WEIGHTS, RecallIndex, meta_term

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "Hit", "RecallQuery", "RecallResult", "recall"]

DEFAULT_LIMIT = 5
MAX_LIMIT = 20
#: A query needs this many distinct terms before it may widen from all to any.
WIDEN_MIN_TERMS = 3
#: Hits whose term sets overlap at least this much (Jaccard) are one hit.
DUPLICATE_SIMILARITY = 0.8
#: A query's matches beyond this many (newest first) are not ranked; the result says so.
RANK_WINDOW = 2000
_BASE_TYPES = ("correction", "decision", "evidence", "lesson", "note", "risk")


@dataclass(frozen=True)
class RecallQuery:
    """What to look for. Filters combine with AND; ``tags`` must all be present."""

    text: str = ""
    type: str | None = None
    tags: tuple[str, ...] = ()
    limit: int = DEFAULT_LIMIT
    evidence_id: str | None = None
    cmd: str | None = None


@dataclass(frozen=True)
class Hit:
    """One answer with its trust label: ``owner``, ``agent-unverified`` or ``evidence``."""

    ref: str
    kind: str
    trust: str
    text: str
    created_at: str
    source: str
    tags: tuple[str, ...] = ()
    label: str = ""
    evidence_id: str | None = None
    fingerprint: str | None = None
    score: float = 0.0
    duplicates: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "kind": self.kind,
            "trust": self.trust,
            "text": self.text,
            "created_at": self.created_at,
            "source": self.source,
            "tags": list(self.tags),
            "label": self.label,
            "evidence_id": self.evidence_id,
            "fingerprint": self.fingerprint,
            "score": round(self.score, 4),
            "duplicates": self.duplicates,
        }


#: At most this much of the query, and this many of its terms, are echoed in a result.
MAX_ECHO = 1000
MAX_ECHO_TERMS = 64


@dataclass(frozen=True)
class RecallResult:
    """The hits, best first, and what the search did to find them."""

    query: RecallQuery
    hits: tuple[Hit, ...]
    terms: tuple[str, ...] = ()
    widened: bool = False
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        # The query is echoed masked and bounded: a secret searched for is never printed
        # back, nor the terms read from it (they are those of the masked query then).
        shown = mask(self.query.text)
        terms = (
            list(self.terms) if shown == self.query.text else list(dict.fromkeys(analyze(shown)))
        )
        return {
            "schema_version": 1,
            "query": shown[:MAX_ECHO] + ("…" if len(shown) > MAX_ECHO else ""),
            "terms": terms[:MAX_ECHO_TERMS],
            "widened": self.widened,
            "notes": list(self.notes),
            "hits": [h.to_dict() for h in self.hits],
        }


def recall(store: Store, query: RecallQuery, *, index: RecallIndex | None = None) -> RecallResult:
    """Sync the index and answer ``query``."""
    if not 0 <= query.limit <= MAX_LIMIT:
        raise RecallError(f"limit must be between 0 and {MAX_LIMIT}", code="bad_limit")
    index = index or RecallIndex(store)
    index.sync()
    filters, params = _filters(store, query)
    terms = tuple(dict.fromkeys(analyze(query.text)))
    if query.text.strip() and not terms:
        return RecallResult(query, (), (), notes=("the query has no searchable words",))
    if query.limit == 0:
        return RecallResult(query, (), terms)
    notes: list[str] = []
    rows = _search(
        store, terms=terms, joiner="AND", meta=filters, params=params, query=query, notes=notes
    )
    widened = False
    if not rows and len(terms) >= WIDEN_MIN_TERMS:
        rows = _search(
            store, terms=terms, joiner="OR", meta=filters, params=params, query=query, notes=notes
        )
        widened = bool(rows)
        if widened:
            notes.append(
                f"widened: no entry matched all {len(terms)} terms; these match some of them"
            )
    # Mask only what is returned: the page, after near-duplicates were folded.
    # A decision a later one superseded stays findable, after everything still in force.
    found = _collapse([_hit(row) for row in rows])
    found.sort(key=lambda hit: hit.kind == "superseded")
    hits = [_masked(hit) for hit in found[: query.limit]]
    return RecallResult(query, tuple(hits), terms, widened, tuple(notes))


def _filters(store: Store, query: RecallQuery) -> tuple[list[str], list[Any]]:
    """Meta terms (exact filters inside FTS) and SQL conditions on ``recall_docs``."""
    meta: list[str] = []
    params: list[Any] = []
    if query.type is not None:
        kind = query.type.strip().lower()
        if kind not in _BASE_TYPES and not store.query(
            "SELECT 1 FROM recall_docs WHERE kind = ? LIMIT 1", (kind,)
        ):
            # Only the error path lists every kind (a full scan of the index).
            known = set(_BASE_TYPES) | {
                str(r[0]) for r in store.query("SELECT DISTINCT kind FROM recall_docs")
            }
            raise RecallError(
                f"unknown type {query.type!r} (use one of: {', '.join(sorted(known))})",
                code="unknown_type",
            )
        meta.append(meta_term("k", kind))
    for tag in query.tags:
        clean = tag.strip().lstrip("#").lower()
        if clean:
            meta.append(meta_term("t", clean))
    if query.evidence_id is not None:
        seq = parse_evidence_id(query.evidence_id)
        if seq is None:
            raise RecallError("an evidence id looks like ev-0007", code="bad_evidence_id")
        meta.append(meta_term("e", evidence_id(seq)))
    if query.cmd is not None:
        meta.append(meta_term("k", "evidence"))
        params.append(query.cmd)
    return meta, params


def _search(
    store: Store,
    *,
    terms: tuple[str, ...],
    joiner: str,
    meta: list[str],
    params: list[Any],
    query: RecallQuery,
    notes: list[str],
) -> list[Any]:
    parts: list[str] = []
    if terms:
        inner = f" {joiner} ".join(f'"{t}"' for t in terms)
        parts.append(f"{{body tags extra}} : ({inner})")
    parts.extend(f'meta : "{m}"' for m in meta)
    # Fetch more than asked so collapsing near-duplicates still fills the page.
    want = query.limit * 3 + 5
    cmd_filter = " AND instr(d.fingerprint, ?) > 0" if query.cmd is not None else ""
    cmd_first = "(d.fingerprint = ?) DESC, " if query.cmd is not None else ""
    order_params = list(params)
    if not parts:
        return store.query(
            "SELECT d.*, 0.0 AS score FROM recall_docs d WHERE 1 = 1"
            f"{cmd_filter} ORDER BY {cmd_first}d.created_at DESC, d.id DESC LIMIT ?",
            (*params, *order_params, want),
        )
    expression = " AND ".join(parts)
    if not terms or query.cmd is not None:
        # Filters only (or a command filter that needs the table): newest first.
        ranked = "f.rank" if terms else "0.0"
        order = f"{cmd_first}{'f.rank, ' if terms else ''}d.created_at DESC, d.id DESC"
        return store.query(
            f"SELECT d.*, {ranked} AS score FROM recall_fts f JOIN recall_docs d"
            f" ON d.id = f.rowid WHERE recall_fts MATCH ?{cmd_filter} ORDER BY {order} LIMIT ?",
            (expression, *params, *order_params, want),
        )
    # Rank the newest RANK_WINDOW matches with BM25 inside FTS5, then load only the page.
    # FTS5 walks matches in rowid order and stops at the LIMIT, so a broad query costs
    # the window, not the whole index; the result says when the window was full.
    scored = store.query(
        f"SELECT rowid, bm25(recall_fts, {', '.join(map(str, WEIGHTS))}) FROM recall_fts"
        " WHERE recall_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
        (expression, RANK_WINDOW + 1),
    )
    if len(scored) > RANK_WINDOW:
        notes.append(
            f"broad query: ranked the {RANK_WINDOW} most recently indexed matches;"
            " add a word or a filter to narrow it"
        )
    best = heapq.nsmallest(want, scored[:RANK_WINDOW], key=lambda r: (float(r[1]), -int(r[0])))
    if not best:
        return []
    marks = ",".join("?" * len(best))
    docs = {
        int(row["id"]): row
        for row in store.query(
            f"SELECT d.*, 0.0 AS score FROM recall_docs d WHERE d.id IN ({marks})",
            [int(r[0]) for r in best],
        )
    }
    return [_Row(docs[int(r[0])], float(r[1])) for r in best if int(r[0]) in docs]


class _Row:
    """A ``recall_docs`` row with the score computed outside the row."""

    def __init__(self, row: Any, score: float) -> None:
        self._row = row
        self._score = score

    def __getitem__(self, key: str) -> Any:
        return self._score if key == "score" else self._row[key]


def _hit(row: Any) -> Hit:
    return Hit(
        ref=str(row["ref"]),
        kind=str(row["kind"]),
        trust=str(row["trust"]),
        text=str(row["text"]),
        created_at=str(row["created_at"]),
        source=str(row["source"]),
        tags=tuple(json.loads(row["tags"])),
        label=str(row["label"]),
        evidence_id=row["evidence_id"],
        fingerprint=row["fingerprint"],
        score=-float(row["score"] or 0.0),
    )


def _masked(hit: Hit) -> Hit:
    fingerprint = None if hit.fingerprint is None else mask(hit.fingerprint)
    return replace(hit, text=mask(hit.text), fingerprint=fingerprint)


def _collapse(hits: list[Hit]) -> list[Hit]:
    """Fold near-duplicates into the best-ranked one, counting what was folded."""
    kept: list[tuple[Hit, set[str]]] = []
    for hit in hits:
        terms = set(analyze(f"{hit.text} {hit.label}"))
        for pos, (other, other_terms) in enumerate(kept):
            # A rejected approach is never folded into a decision that shares its words.
            if other.kind == hit.kind and _similar(terms, other_terms):
                kept[pos] = (replace(other, duplicates=other.duplicates + 1), other_terms)
                break
        else:
            kept.append((hit, terms))
    return [hit for hit, _ in kept]


def _similar(a: set[str], b: set[str]) -> bool:
    if not a or not b:
        return a == b
    if len(a & b) < DUPLICATE_SIMILARITY * len(a | b):
        return False
    # Rare-token veto: rows that differ in a number or id (port 8080 vs 9090) stay apart.
    return not any(any(ch.isdigit() for ch in term) for term in a ^ b)
