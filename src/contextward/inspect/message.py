"""The normalised conversation message every reader produces.

Owns the message value and role names. Never decides what is worth keeping.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from ..redact import mask

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


#: Skip reasons that mean part of the input was lost: the file is damaged or not a transcript.
UNREADABLE = frozenset(
    {
        "malformed_json",
        "not_an_object",
        "messages_not_a_list",
        "line_too_large",
        "record_too_large",
        "not_utf8",
        "unknown_content",
        "nested_too_deeply",
    }
)


def listed(counts: Mapping[str, int]) -> str:
    """ "malformed_json 2, torn_last_line 1": skip counts by reason, in reason order."""
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items()))


def fold(text: str) -> str:
    """``text`` with its whitespace collapsed and case folded, for comparing spans."""
    return " ".join(text.split()).casefold()


def unreadable(counts: Mapping[str, int]) -> dict[str, int]:
    """The skip counts of input that could not be read at all, not of what is skipped by
    design (a host's bookkeeping entries, sidechains, our own injections)."""
    return {reason: n for reason, n in sorted(counts.items()) if reason in UNREADABLE}


_TYPE_NAME = re.compile(r"[A-Za-z][\w-]{0,39}")


def typed(reason: str, kind: object) -> str:
    """``reason_<kind>`` for a plain type name ("entry_file-history-snapshot"), else
    ``reason``: a skip count never carries arbitrary transcript text, nor a secret (a
    "type" of ``AKIAIOSFODNN7EXAMPLE`` is a plain name, and is counted as ``entry``)."""
    return f"{reason}_{kind}" if isinstance(kind, str) and _plain(kind) else reason


@lru_cache(maxsize=512)
def _plain(kind: str) -> bool:
    """Whether a type name may be shown: short, word characters, and nothing the mask
    would change (a transcript names a few types thousands of times: asked once each)."""
    return _TYPE_NAME.fullmatch(kind) is not None and mask(kind) == kind


#: How what contextward itself writes into a conversation begins: the restore block, the
#: brief, the state block, the guidance. Read back as a message it would be kept, and
#: restored, as if someone had said it.
OWN_BLOCKS: tuple[str, ...] = (
    "contextward restore:",
    "contextward guidance for the compaction summary",
    "## contextward brief",
    "## Project state (contextward)",
)


def own_block(text: str) -> bool:
    """Whether a message is one of contextward's own blocks (``OWN_BLOCKS``)."""
    return text[:256].lstrip().startswith(OWN_BLOCKS)  # never a copy of a long message
