"""Transcript readers: detection by shape and a small registry of formats.

``open_transcript`` peeks at the first bytes, picks a reader (or takes the
one forced with ``format``) and returns a lazy stream of messages plus the
skip counts the reader fills in as it goes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import BinaryIO

from ..errors import InspectError
from ..message import Message, Skips
from . import claude_code, codex, messages, pi
from .base import MAX_RECORD, ByteSource, Reader

READERS: dict[str, Reader] = {
    "claude-code": claude_code.read,
    "codex": codex.read,
    "gemini": messages.read,  # Gemini CLI's chat recording: a messages wrapper, typed
    "messages": messages.read,
    "openai": messages.read,
    "pi": pi.read,
}
FORMATS: tuple[str, ...] = tuple(sorted(READERS))

_PI_TYPES = frozenset(
    {
        "session",
        "compaction",
        "branch_summary",
        "model_change",
        "thinking_level_change",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)
_CLAUDE_KEYS = ("uuid", "sessionId", "isSidechain", "parentUuid", "leafUuid")
_OPENAI_MARKS = (b'"tool_calls"', b'"tool_call_id"', b'"developer"', b'"function_call"')


@dataclass(slots=True)
class Transcript:
    """A transcript being read: its format, its lazy messages, and the skips so far."""

    format: str
    messages: Iterator[Message]
    skips: Skips


def open_transcript(
    stream: BinaryIO, format: str | None = None, *, max_record: int = MAX_RECORD
) -> Transcript:
    """Start reading ``stream``; raises InspectError for empty or unrecognisable input."""
    source = ByteSource(stream, max_record=max_record)
    if not source.head.strip(b" \t\r\n\xef\xbb\xbf"):
        raise InspectError("empty_input", "the transcript is empty")
    if format is None:
        found = _detect(source.head, final=False)
        if found is None and source.peek_further():
            # The peek ended in a line that names no format (a Claude Code file-history
            # snapshot of 140 KB before the first message): the next lines may.
            found = _detect(source.head, final=False)
        format = found or detect(source.head)
    elif format not in READERS:
        # The name is the caller's: never repeated (a bridge or MCP caller may send anything).
        raise InspectError("unknown_format", f"unknown format (one of: {', '.join(FORMATS)})")
    skips = Skips()
    return Transcript(format, _whole(READERS[format](source, skips), skips), skips)


#: Half of a UTF-16 surrogate pair: JSON's "\ud800" decodes to it, and no UTF-8 output takes it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _whole(messages: Iterator[Message], skips: Skips) -> Iterator[Message]:
    """The messages with every lone surrogate replaced by U+FFFD, counted."""
    for message in messages:
        # ASCII text (most of it) cannot hold one, and a str knows whether it is ASCII.
        if (
            (not message.text.isascii() and _SURROGATE.search(message.text))
            or (not message.id.isascii() and _SURROGATE.search(message.id))
            or (message.tool_name and _SURROGATE.search(message.tool_name))
        ):
            skips.add("lone_surrogate_replaced")
            yield replace(
                message,
                id=_SURROGATE.sub("\ufffd", message.id),
                text=_SURROGATE.sub("\ufffd", message.text),
                tool_name=message.tool_name and _SURROGATE.sub("\ufffd", message.tool_name),
            )
        else:
            yield message


def detect(head: bytes) -> str:
    """The format of a transcript from its first bytes."""
    found = _detect(head, final=True)
    assert found is not None, "a final detection decides"
    return found


def _detect(head: bytes, *, final: bool) -> str | None:
    """``detect``; unless ``final``, None when the bytes end inside a line before anything
    decided the format (more bytes may: the caller reads on and asks again)."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] == b"[":
        return _generic(text)
    if text[:1] != b"{":
        raise InspectError("unknown_format", "the transcript is neither JSON nor JSON lines")
    if codex.looks_like(text):
        return "codex"
    lines = text.split(b"\n")
    for index, line in enumerate(lines[:50]):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):  # also UnicodeDecodeError and too-long integers
            if index == len(lines) - 1 and (found := _by_prefix(line)):
                # A line longer than the peek (an image pasted in the first prompt) is
                # known by the keys it opens with.
                return found
            if index == len(lines) - 1 and not final:
                return None
            if index == 0:
                # A JSON document spread over lines: the wrapper or a message list.
                return _generic(text)
            continue
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type")
        kind = kind if isinstance(kind, str) else None  # a list or object names no format
        if kind in codex.ENTRY_TYPES and "payload" in obj and "timestamp" in obj:
            return "codex"  # a rollout written with other spacing or key order
        if "messages" in obj or ("role" in obj and kind is None):
            return _generic(text)
        if kind in _PI_TYPES or (kind == "message" and isinstance(obj.get("message"), dict)):
            return "pi"
        if any(key in obj for key in _CLAUDE_KEYS) or kind in ("user", "assistant", "system"):
            return "claude-code"
    raise InspectError("unknown_format", "the transcript's shape matches no known format")


_CLAUDE_PREFIX = re.compile(rb'"(?:uuid|sessionId|isSidechain|parentUuid|leafUuid)"\s*:')
_PI_PREFIX = re.compile(
    rb'^\{\s*"type"\s*:\s*"(?:message|' + "|".join(sorted(_PI_TYPES)).encode() + rb')"'
)


def _by_prefix(line: bytes) -> str | None:
    """The format of a line cut off by the peek, from the keys it opens with."""
    if _PI_PREFIX.match(line):
        return "pi"
    if _CLAUDE_PREFIX.search(line):
        return "claude-code"
    return None


def _generic(text: bytes) -> str:
    return "openai" if any(mark in text for mark in _OPENAI_MARKS) else "messages"


__all__ = ["FORMATS", "READERS", "ByteSource", "Reader", "Transcript", "detect", "open_transcript"]
