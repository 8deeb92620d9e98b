"""The pure core: items, snapshots, verification, verifiers, reports, errors.

Stdlib only, no I/O, no globals, deterministic. Imports nothing else of contextward.
``FactsVerifier`` is loaded on first use: its pattern tables cost tens of
milliseconds, which a hook that never verifies must not pay.
"""

from typing import TYPE_CHECKING, Any

from .errors import ContextGuardError
from .guard import ContextGuard
from .item import KINDS, ContextItem
from .literal import LiteralVerifier
from .report import STATUSES, Finding, Issue, VerificationReport
from .snapshot import SCHEMA_VERSION, Snapshot
from .verify import Verifier, averify_context, normalize_findings, verify_context

if TYPE_CHECKING:
    from .facts import FactsVerifier


def __getattr__(name: str) -> Any:
    if name == "FactsVerifier":
        from .facts import FactsVerifier

        return FactsVerifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
