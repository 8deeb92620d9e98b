"""Errors of the inspection layer.

    InspectError(code)
        code = "empty_input"        the transcript has no content at all
        code = "unknown_format"     the transcript's shape matches no reader
        code = "invalid_decision"   a review decision is malformed
        code = "unknown_candidate"  a review decision names no candidate
        code = "provider_error"     a provider failed (recorded; rules take over)
        code = "read_failed"        the process reading a large transcript failed or died

Messages are structural only (formats, line numbers, candidate ids): never
transcript content, which may hold secrets.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "empty_input",
    "invalid_decision",
    "provider_error",
    "read_failed",
    "unknown_candidate",
    "unknown_format",
]


class InspectError(Exception):
    """A failure of inspection, identified by a stable ``code``."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
