"""Recall: ranked search over the journal, evidence and registered documents.

Public surface::

    from contextward.recall import RecallQuery, recall
    result = recall(store, RecallQuery("auth timeout", limit=5))
    for hit in result.hits:            # best first, near-duplicates collapsed
        hit.ref, hit.trust, hit.text   # trust: owner | agent-unverified | evidence

    # Another package's documents (STATE.md decisions) join the index:
    register_source("state", lambda store: VersionedSource("state", version, documents))

Must never: import from ``brief``, ``hosts`` or ``cli``.
"""

from __future__ import annotations

from .analyzer import STOPWORDS, analyze
from .document import TRUST_LABELS, Document, RecallSource, SourceBatch, Trust
from .errors import RecallError
from .index import RECALL_MIGRATIONS, RecallIndex, SyncReport
from .search import DEFAULT_LIMIT, MAX_LIMIT, Hit, RecallQuery, RecallResult, recall
from .sources import (
    EvidenceSource,
    JournalSource,
    VersionedSource,
    register_source,
    registered_sources,
    sources_for,
    unregister_source,
)
from .stemmer import stem

__all__ = [
    "DEFAULT_LIMIT",
    "MAX_LIMIT",
    "RECALL_MIGRATIONS",
    "STOPWORDS",
    "TRUST_LABELS",
    "Document",
    "EvidenceSource",
    "Hit",
    "JournalSource",
    "RecallError",
    "RecallIndex",
    "RecallQuery",
    "RecallResult",
    "RecallSource",
    "SourceBatch",
    "SyncReport",
    "Trust",
    "VersionedSource",
    "analyze",
    "recall",
    "register_source",
    "registered_sources",
    "sources_for",
    "stem",
    "unregister_source",
]
