"""Context items: the unit the guard registers, snapshots and verifies.

Owns validation of untrusted item input. Never puts item content into an
error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ContextGuardError

#: Kinds of memory an item may hold (a superset of seed 000's kinds).
KINDS: tuple[str, ...] = (
    "goal",
    "constraint",
    "preference",
    "requirement",
    "decision",
    "rejected",
    "todo",
    "state",
    "fact",
    "correction",
    "risk",
    "lesson",
)
_KIND_SET = frozenset(KINDS)
#: Kinds that hold until replaced, never by being done: what a bounded list keeps first.
STANDING: frozenset[str] = frozenset({"goal", "constraint", "requirement", "preference"})
_FIELDS = frozenset({"id", "kind", "content", "critical"})


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One important piece of context; validated on construction, immutable after."""

    id: str
    kind: str
    content: str
    critical: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id.strip():
            raise ContextGuardError("invalid_input", "an item id must be a non-empty string")
        if not isinstance(self.kind, str) or self.kind not in _KIND_SET:
            raise _item_error(self.id, "has an unknown kind")
        if not isinstance(self.content, str) or not self.content.strip():
            raise _item_error(self.id, "needs non-empty string content")
        if not isinstance(self.critical, bool):
            raise _item_error(self.id, "has a non-boolean critical field")

    @classmethod
    def from_input(cls, data: object, *, strict: bool = False) -> ContextItem:
        """Validate untrusted input (a mapping or a ContextItem) into an item.

        ``critical`` defaults to False. ``strict`` (snapshots) requires every
        field and rejects any other, so a snapshot round-trips exactly.
        """
        if isinstance(data, ContextItem):
            return data
        if not isinstance(data, Mapping):
            raise ContextGuardError("invalid_input", "an item must be an object")
        item_id = data.get("id")
        if not isinstance(item_id, str) or not item_id.strip():
            raise ContextGuardError("invalid_input", "an item id must be a non-empty string")
        if strict and set(data) != _FIELDS:
            raise _item_error(item_id, "must have exactly id, kind, content and critical")
        return cls(
            id=item_id,
            kind=data.get("kind"),  # type: ignore[arg-type]  # validated in __post_init__
            content=data.get("content"),  # type: ignore[arg-type]
            critical=data.get("critical", False),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "content": self.content,
            "critical": self.critical,
        }


def _item_error(item_id: str, problem: str) -> ContextGuardError:
    return ContextGuardError("invalid_input", f"item {named(item_id)} {problem}", item_id=item_id)


def named(item_id: str) -> str:
    """An item's id as an error names it: quoted, and of an id of any length its first 80
    characters (an error is one short line)."""
    return repr(item_id) if len(item_id) <= 80 else f"{item_id[:80]!r}…"
