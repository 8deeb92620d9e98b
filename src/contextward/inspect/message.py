"""The normalised conversation message every reader produces.

Owns the message value and role names. Never decides what is worth keeping.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["user", "assistant", "system", "tool"]
ROLES: tuple[Role, ...] = ("user", "assistant", "system", "tool")

#: Role names other shapes use, mapped onto ours.
ROLE_ALIASES: dict[str, Role] = {
    "user": "user",
    "human": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "model": "assistant",
    "bot": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
    "function": "tool",
    "toolresult": "tool",
    "tool_result": "tool",
    "ipython": "tool",
}


def role_of(name: object) -> Role | None:
    """Our role for a foreign role name, or None when it is unknown."""
    if not isinstance(name, str):
        return None
    return ROLE_ALIASES.get(name.strip().lower())


@dataclass(frozen=True, slots=True)
class Message:
    """One message: who said it and its text. ``summary`` marks a host's compaction summary."""

    id: str
    role: Role
    text: str
    tool_name: str | None = None
    is_error: bool = False
    summary: bool = False


@dataclass(slots=True)
class Skips:
    """Counts of what a reader skipped, by reason (mutable while reading)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, reason: str, n: int = 1) -> None:
        self.counts[reason] = self.counts.get(reason, 0) + n

    def entry(self, kind: object) -> None:
        """An entry of a type the reader does not read (``entry_<type>``)."""
        self.add(typed("entry", kind))

    def total(self) -> int:
        return sum(self.counts.values())


_TYPE_NAME = re.compile(r"[A-Za-z][\w-]{0,39}")


def typed(reason: str, kind: object) -> str:
    """``reason_<kind>`` for a plain type name ("entry_file-history-snapshot"), else
    ``reason``: a skip count never carries arbitrary transcript text."""
    return f"{reason}_{kind}" if isinstance(kind, str) and _TYPE_NAME.fullmatch(kind) else reason
