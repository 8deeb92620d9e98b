"""The pure core: items, snapshots, verification, verifiers, reports, errors.

Stdlib only, no I/O, no globals, deterministic. Imports nothing else of contextward.
"""

from .errors import ContextGuardError
from .facts import FactsVerifier
from .guard import ContextGuard
from .item import KINDS, ContextItem
from .literal import LiteralVerifier
from .report import STATUSES, Finding, Issue, VerificationReport
from .snapshot import SCHEMA_VERSION, Snapshot
from .verify import Verifier, averify_context, normalize_findings, verify_context

__all__ = [
    "KINDS",
    "SCHEMA_VERSION",
    "STATUSES",
    "ContextGuard",
    "ContextGuardError",
    "ContextItem",
    "FactsVerifier",
    "Finding",
    "Issue",
    "LiteralVerifier",
    "Snapshot",
    "VerificationReport",
    "Verifier",
    "averify_context",
    "normalize_findings",
    "verify_context",
]
