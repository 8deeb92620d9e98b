"""The project store: SQLite ledgers, owner text files, configuration layers.

Public surface (stable; additions only — see docs/store-api.md)::

    from contextward.store import Store
    with Store.open() as store:                 # .contextward/ at the git worktree root
        store.journal.add("decision", "Use WAL.", tags=["db"])
        store.evidence.list(limit=5)

Must never: import from ``guard``, ``recall``, ``brief``, ``hosts`` or ``cli``
(dependencies point downward), or print.
"""

from __future__ import annotations

from .attempts import OUTCOMES, Attempt, Attempts
from .database import GITIGNORE, Retention, Store, connect, guarded, translate, utc_now
from .evidence import EvidenceLedger, EvidenceRun, evidence_id, parse_evidence_id
from .journal import (
    JOURNAL_TYPES,
    Journal,
    JournalEntry,
    NoteResult,
    normalize_tags,
    normalize_text,
    record_decision,
    record_note,
)
from .migrations import CORE_MIGRATIONS, SCHEMA_MIGRATIONS, Migration
from .paths import (
    STORE_DIR,
    database_path,
    personal_dir,
    project_root,
    store_dir,
)
from .prompts import Prompt, Prompts, prompt_key
from .records import (
    SESSION_ENV,
    Event,
    Events,
    Record,
    RecordLedger,
    Session,
    Sessions,
    session_id_from_env,
)
from .text import storable

__all__ = [
    "CORE_MIGRATIONS",
    "GITIGNORE",
    "JOURNAL_TYPES",
    "OUTCOMES",
    "SCHEMA_MIGRATIONS",
    "SESSION_ENV",
    "STORE_DIR",
    "Attempt",
    "Attempts",
    "Event",
    "Events",
    "EvidenceLedger",
    "EvidenceRun",
    "Journal",
    "JournalEntry",
    "Migration",
    "NoteResult",
    "Prompt",
    "Prompts",
    "Record",
    "RecordLedger",
    "Retention",
    "Session",
    "Sessions",
    "Store",
    "connect",
    "database_path",
    "evidence_id",
    "guarded",
    "normalize_tags",
    "normalize_text",
    "parse_evidence_id",
    "personal_dir",
    "project_root",
    "prompt_key",
    "record_decision",
    "record_note",
    "session_id_from_env",
    "storable",
    "store_dir",
    "translate",
    "utc_now",
]
