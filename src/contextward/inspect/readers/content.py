"""Flattening message content (a string or content blocks) into text.

Owns the block shapes the hosts share (text, tool_use, tool_result, OpenAI
parts). Never drops a text block silently: unknown blocks are counted.
"""

from __future__ import annotations

import json
from typing import Any

from ..message import Skips

_TEXT_BLOCKS = frozenset({"text", "input_text", "output_text"})
_QUIET_BLOCKS = frozenset({"thinking", "redacted_thinking", "image", "input_image", "document"})


def block_text(content: Any, skips: Skips) -> str:
    """The text of a content value; tool blocks are handled by the readers, not here."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                kind = block.get("type")
                if kind is not None and not isinstance(kind, str):
                    # A list or object names no block (and cannot be looked up in a set).
                    skips.add("unknown_block")
                    continue
                text = block.get("text")
                if (kind in _TEXT_BLOCKS or kind is None) and isinstance(text, str):
                    parts.append(text)
                elif kind in _QUIET_BLOCKS:
                    skips.add(f"{kind}_block")
                elif kind not in ("tool_use", "tool_result", "toolCall"):
                    skips.add("unknown_block")
            else:
                skips.add("unknown_block")
        return "\n".join(parts)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return str(content["text"])
    skips.add("unknown_content")
    return ""


def tool_call_text(name: Any, arguments: Any) -> str:
    """How a tool call reads as text: ``$ cmd`` for shells, else name and compact JSON input."""
    label = name if isinstance(name, str) and name else "tool"
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError):
            return f"{label} {arguments}"
    if isinstance(arguments, dict):
        command = arguments.get("command")
        if isinstance(command, str):
            return f"$ {command}"
    try:
        rendered = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        rendered = ""
    return f"{label} {rendered}".strip()
