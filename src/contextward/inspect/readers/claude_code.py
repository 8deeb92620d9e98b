"""Claude Code transcript JSONL (``~/.claude/projects/<project>/<session>.jsonl``).

Reads user and assistant entries (text, tool_use and tool_result blocks),
recognises the compact boundary and the ``isCompactSummary`` summary that
follows it (and the same continuation message written without the flag), skips sidechain (subagent) and meta lines, and counts every
other entry type. The format is internal to Claude Code, so unknown lines
are skipped and counted, never fatal.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..continuation import is_continuation
from ..message import Message, Skips
from .base import ByteSource
from .content import block_text, tool_call_text
from .jsonl import objects

_WRAPPERS = ("<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-")
# What Claude Code writes as the user's turn when the user stops a run: the host's words.
_INTERRUPTED = re.compile(r"\[Request interrupted by user(?: for tool use)?\]")


def read(source: ByteSource, skips: Skips) -> Iterator[Message]:
    for position, entry in enumerate(objects(source, skips), 1):
        kind = entry.get("type")
        if kind == "system" and entry.get("subtype") == "compact_boundary":
            skips.add("compact_boundary")
            continue
        if kind not in ("user", "assistant"):
            skips.entry(kind)
            continue
        if entry.get("isSidechain") is True:
            skips.add("sidechain")
            continue
        message = entry.get("message")
        if not isinstance(message, dict):
            skips.add("no_message")
            continue
        uuid = entry.get("uuid")
        mid = uuid if isinstance(uuid, str) and uuid else f"l{position}"
        content = message.get("content")
        if entry.get("isCompactSummary") is True:
            text = block_text(content, skips)
            if text.strip():
                yield Message(mid, "system", text, summary=True)
            else:
                skips.add("empty_summary")
            continue
        if entry.get("isMeta") is True:
            skips.add("meta")
            continue
        if kind == "user" and _continuation(content):
            # The continuation message written without the flag: still the host's summary.
            yield Message(mid, "system", block_text(content, skips), summary=True)
            continue
        yield from _message(mid, kind, content, skips)


def _continuation(content: Any) -> bool:
    """Whether a user entry's content is the host's continuation text (tool results are not)."""
    if isinstance(content, str):
        return is_continuation(content)
    if isinstance(content, list) and content and isinstance(content[0], dict):
        first = content[0]
        text = first.get("text")
        return first.get("type") == "text" and isinstance(text, str) and is_continuation(text)
    return False


# "/compact keep the auth decisions": what the owner typed after /compact tells the
# summary what to keep, so it is the owner's word; other commands' wrappers are skipped.
# (Found by ``str.find`` after the name: a lazy ".*?" up to the arguments, tried after
# every name, took time of the square of a message of many names and no arguments.)
_COMPACT_NAME = re.compile(r"<command-name>\s*/compact\s*</command-name>")


def _compact_args(text: str) -> str:
    """What the owner typed after /compact in a command wrapper ("" if nothing)."""
    name = _COMPACT_NAME.search(text)
    start = text.find("<command-args>", name.end()) if name else -1
    end = text.find("</command-args>", start) if start >= 0 else -1
    return text[start + len("<command-args>") : end].strip() if end >= 0 else ""


def _message(mid: str, kind: str, content: Any, skips: Skips) -> Iterator[Message]:
    text = block_text(content, skips)
    if text.strip():
        if kind == "user" and _INTERRUPTED.fullmatch(text.strip()):
            skips.add("interrupted")
        elif kind == "user" and text.lstrip().startswith(_WRAPPERS):
            skips.add("local_command")
            if args := _compact_args(text):
                yield Message(f"{mid}:compact-args", "user", args)
        else:
            yield Message(mid, "user" if kind == "user" else "assistant", text)
    if not isinstance(content, list):
        return
    for n, block in enumerate(content, 1):
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "tool_use":
            bid = block.get("id")
            name = block.get("name")
            yield Message(
                bid if isinstance(bid, str) and bid else f"{mid}:use{n}",
                "tool",
                tool_call_text(name, block.get("input")),
                tool_name=name if isinstance(name, str) else None,
            )
        elif btype == "tool_result":
            bid = block.get("tool_use_id")
            yield Message(
                f"{bid}:result" if isinstance(bid, str) and bid else f"{mid}:result{n}",
                "tool",
                block_text(block.get("content"), skips),
                is_error=block.get("is_error") is True,
            )
