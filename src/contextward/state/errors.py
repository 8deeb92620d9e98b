"""Errors of session state.

    ContextwardError (contextward.errors)
     └── StateError(code)
        code = "field_too_long"  a checkpoint field, decision or log text is over its limit
        code = "invalid_field"   an unknown phase, or an empty text where one is required
        code = "path_escape"     a path leaves the repository or the plans folder
        code = "not_found"       a task folder or file that was named does not exist
        code = "unreadable"      STATE.md or a planning artifact cannot be read (or is too large)
        code = "state_conflict"  STATE.md holds an unresolved git merge conflict (decide refuses)

Messages are structural only (a field name, a limit, a path the user gave);
they never contain the text of a field, a file or a conversation.
"""

from __future__ import annotations

from typing import Literal

from ..errors import ContextwardError

ErrorCode = Literal[
    "field_too_long", "invalid_field", "path_escape", "not_found", "unreadable", "state_conflict"
]


class StateError(ContextwardError):
    """A refusal of the state layer, identified by a stable ``code``."""

    default_code = "invalid_field"

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message, code=code)
        self.state_code: ErrorCode = code
