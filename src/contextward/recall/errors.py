"""Errors of recall; each carries a stable ``code``.

ContextwardError
 └── RecallError    unknown_type, bad_evidence_id, bad_limit
"""

from __future__ import annotations

from ..errors import ContextwardError

__all__ = ["RecallError"]


class RecallError(ContextwardError):
    """A recall request that cannot be answered as asked."""

    default_code = "invalid_query"
