"""Errors of the core.

    ContextGuardError(code, item_id)
        code = "duplicate_item_id"  an item id is already registered / repeated
        code = "invalid_input"      an item, snapshot or argument is malformed

Messages are structural only: they may name an item id or a field, never
item content or context text.
"""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal["duplicate_item_id", "invalid_input"]


class ContextGuardError(Exception):
    """A validation failure of the core, identified by a stable ``code``."""

    def __init__(self, code: ErrorCode, message: str, *, item_id: str | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.item_id = item_id
