"""pi session JSONL (``~/.pi/agent/sessions/--<path>--/<time>_<uuid>.jsonl``, format v3).

Reads ``message`` entries (user, assistant with text and toolCall blocks,
toolResult, bashExecution, custom) and the summaries of ``compaction`` and
``branch_summary`` entries, in file order. The entry tree (``parentId``) is
not walked: branches are read as written. Other entries are counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..message import Message, Skips
from .base import ByteSource
from .content import block_text, tool_call_text
from .jsonl import objects

_SUMMARY_ROLES = frozenset({"compactionSummary", "branchSummary"})
#: The ``customType`` of what the contextward pi extension injects (integrations/pi).
OWN_TYPE = "contextward"


def read(source: ByteSource, skips: Skips) -> Iterator[Message]:
    for position, entry in enumerate(objects(source, skips), 1):
        kind = entry.get("type")
        eid = entry.get("id")
        mid = eid if isinstance(eid, str) and eid else f"l{position}"
        if kind == "session":
            skips.add("header")
        elif kind in ("compaction", "branch_summary"):
            summary = entry.get("summary")
            if isinstance(summary, str) and summary.strip():
                yield Message(mid, "system", summary, summary=True)
        elif kind == "custom_message" and entry.get("customType") == OWN_TYPE:
            skips.add("contextward_injection")  # our own brief, not the conversation
        elif kind == "custom_message":
            text = block_text(entry.get("content"), skips)
            if text.strip():
                yield Message(mid, "system", text)
        elif kind == "message" and isinstance(entry.get("message"), dict):
            yield from _message(mid, entry["message"], skips)
        else:
            skips.entry(kind)


def _message(mid: str, message: dict[str, Any], skips: Skips) -> Iterator[Message]:
    role: Any = message.get("role")
    if not isinstance(role, str):
        role = None  # a list or object is no role (and cannot be looked up in a set)
    content = message.get("content")
    if role in ("user", "assistant"):
        text = block_text(content, skips)
        if text.strip():
            yield Message(mid, role, text)
        if isinstance(content, list):
            for n, block in enumerate(content, 1):
                if isinstance(block, dict) and block.get("type") == "toolCall":
                    bid, name = block.get("id"), block.get("name")
                    yield Message(
                        bid if isinstance(bid, str) and bid else f"{mid}:call{n}",
                        "tool",
                        tool_call_text(name, block.get("arguments")),
                        tool_name=name if isinstance(name, str) else None,
                    )
    elif role == "toolResult":
        name = message.get("toolName")
        yield Message(
            mid,
            "tool",
            block_text(content, skips),
            tool_name=name if isinstance(name, str) else None,
            is_error=message.get("isError") is True,
        )
    elif role == "bashExecution":
        command, output = message.get("command"), message.get("output")
        text = f"$ {command if isinstance(command, str) else ''}\n{output if isinstance(output, str) else ''}"
        code = message.get("exitCode")
        yield Message(
            mid, "tool", text, tool_name="bash", is_error=isinstance(code, int) and code != 0
        )
    elif role in _SUMMARY_ROLES:
        summary = message.get("summary")
        if isinstance(summary, str) and summary.strip():
            yield Message(mid, "system", summary, summary=True)
    elif role == "custom" and message.get("customType") == OWN_TYPE:
        skips.add("contextward_injection")
    elif role == "custom":
        text = block_text(content, skips)
        if text.strip():
            yield Message(mid, "system", text)
    else:
        skips.add("unknown_role")
