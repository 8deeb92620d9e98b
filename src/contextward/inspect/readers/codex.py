"""Codex CLI rollout JSONL (``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``).

Each line is ``{"timestamp", "ordinal"?, "type", "payload"}``. Read, in file order:

- ``response_item`` messages: ``user`` (``input_text``) and ``assistant``
  (``output_text``) text. ``developer`` messages are the host's and our own
  injections, and user messages that Codex writes itself
  (``<environment_context>``, AGENTS.md, a turn abort) are not the owner's:
  both are skipped and counted;
- tool calls (``function_call``, ``custom_tool_call``, ``local_shell_call``)
  and their outputs (``…_output``; an exit code in the output marks an
  error) as tool messages;
- Codex's compaction: the summary its model wrote (an assistant message
  with ``metadata.compaction_output``) and the ``compacted`` entry's message
  (the same summary behind Codex's own preamble) as one host summary
  (``summary=True``), never twice.

Everything else (``session_meta``, ``event_msg``, ``turn_context``, reasoning,
…) is skipped and counted by reason. The format is internal to Codex, so an
unknown line is never fatal; a torn last line is counted, not raised.
Never reads more than one line at a time.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from typing import Any

from ..message import Message, Skips, typed
from .base import ByteSource
from .content import block_text, tool_call_text
from .jsonl import objects

#: Top-level line types of a rollout (what detection recognises).
ENTRY_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "world_state",
        "token_usage_record",
    }
)
#: A rollout's first bytes: ``{"timestamp":"…","ordinal":0,"type":"session_meta",…``.
#: Matched on raw bytes because the session_meta line can be longer than the peek.
_HEAD = re.compile(
    rb'^\{\s*"timestamp"\s*:\s*"[^"]{1,64}"\s*,\s*(?:"ordinal"\s*:\s*\d{1,12}\s*,\s*)?'
    rb'"type"\s*:\s*"('
    + b"|".join(sorted(t.encode() for t in ENTRY_TYPES))
    + rb')"\s*,\s*"payload"\s*:'
)
#: Response items written bare (no wrapper), as older rollouts did.
_ITEMS = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "reasoning",
    }
)
#: The preamble Codex puts before its summary in the ``compacted`` entry.
_PREAMBLE = re.compile(
    r"^Another language model started to solve this problem.*?"
    r"use the information in this summary to assist with your own analysis:\s*",
    re.S,
)
#: User messages that Codex writes (context, AGENTS.md, aborts), not the owner.
_HOST_USER = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<turn_")
#: The unified exec tool's output header: ``Process exited with code N`` then ``Output:``.
_EXITED = re.compile(r"^Process exited with code (-?\d{1,6})$", re.M)
_OUTPUT = re.compile(r"^Output:\n", re.M)


def looks_like(head: bytes) -> bool:
    """Whether a transcript's first bytes are a Codex rollout."""
    return _HEAD.match(head.lstrip(b"\xef\xbb\xbf \t\r\n")) is not None


def read(source: ByteSource, skips: Skips) -> Iterator[Message]:
    names: dict[str, str] = {}  # call_id -> tool name, until its output arrives
    last_summary = ""
    for position, entry in enumerate(objects(source, skips), 1):
        kind = entry.get("type")
        payload = entry.get("payload")
        if isinstance(kind, str) and kind in _ITEMS and "payload" not in entry:
            kind, payload = "response_item", entry
        if not isinstance(payload, dict):
            skips.add(typed("entry", kind))
            continue
        if kind == "compacted":
            # Codex writes a string; anything else is read as content (never its repr).
            text = _PREAMBLE.sub("", block_text(payload.get("message"), skips), count=1).strip()
            if not text:
                skips.add("compacted_without_summary")
            elif text == last_summary:
                skips.add("compacted_duplicate")
            else:
                last_summary = text
                yield Message(f"l{position}", "system", text, summary=True)
            continue
        if kind != "response_item":
            skips.add(typed("entry", kind))
            continue
        iid = payload.get("id")
        mid = iid if isinstance(iid, str) and iid else f"l{position}"
        item = payload.get("type")
        if item == "message":
            metadata = entry.get("metadata")
            if isinstance(metadata, dict) and metadata.get("compaction_output") is True:
                text = block_text(payload.get("content"), skips).strip()
                if text:
                    last_summary = text
                    yield Message(mid, "system", text, summary=True)
                continue
            yield from _message(mid, payload, skips)
        elif item in ("function_call", "custom_tool_call", "local_shell_call"):
            yield _call(mid, payload, names)
        elif item in ("function_call_output", "custom_tool_call_output"):
            yield _output(mid, payload, names, skips)
        else:
            skips.add(typed("item", item))


def exit_code_of(output: object) -> int | None:
    """The exit code a shell tool's output states: the unified exec header or JSON metadata."""
    if not isinstance(output, str):
        return None
    found = _EXITED.search(output[:2000])
    if found:
        return int(found.group(1))
    if output.startswith("{"):
        try:
            data = json.loads(output)
        except (ValueError, RecursionError):
            return None
        metadata = data.get("metadata") if isinstance(data, dict) else None
        code = metadata.get("exit_code") if isinstance(metadata, dict) else None
        if isinstance(code, int) and not isinstance(code, bool):
            return code
    return None


def _message(mid: str, payload: dict[str, Any], skips: Skips) -> Iterator[Message]:
    role = payload.get("role")
    if role not in ("user", "assistant"):
        skips.add(typed("role", role))
        return
    text = block_text(payload.get("content"), skips)
    if not text.strip():
        return
    if role == "user" and _host_written(payload, text):
        skips.add("host_context")
        return
    yield Message(mid, role, text)


def _host_written(payload: dict[str, Any], text: str) -> bool:
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if isinstance(kinds, list) and kinds and all(isinstance(k, str) for k in kinds):
        return "user.text" not in kinds
    return text.lstrip().startswith(_HOST_USER)


def _call(mid: str, payload: dict[str, Any], names: dict[str, str]) -> Message:
    raw_name = payload.get("name")
    name = raw_name if isinstance(raw_name, str) and raw_name else "tool"
    call_id = payload.get("call_id")
    cid = call_id if isinstance(call_id, str) and call_id else mid
    if payload.get("type") == "local_shell_call":
        action = payload.get("action")
        argv = action.get("command") if isinstance(action, dict) else None
        words = [w for w in argv if isinstance(w, str)] if isinstance(argv, list) else []
        name, text = "local_shell", f"$ {shlex.join(words)}"
    elif payload.get("type") == "custom_tool_call":
        body = payload.get("input")
        text = f"{name} {body}" if isinstance(body, str) else name
    else:
        text = _shell_text(payload.get("arguments")) or tool_call_text(
            name, payload.get("arguments")
        )
    names[cid] = name
    return Message(cid, "tool", text, tool_name=name)


def _shell_text(arguments: object) -> str:
    """``$ cmd`` for Codex's exec tool, whose command is in ``cmd`` (a string or argv)."""
    if not isinstance(arguments, str) or '"cmd"' not in arguments:
        return ""
    try:
        data = json.loads(arguments)
    except (ValueError, RecursionError):
        return ""
    cmd = data.get("cmd") if isinstance(data, dict) else None
    if isinstance(cmd, list):
        cmd = shlex.join(w for w in cmd if isinstance(w, str))
    return f"$ {cmd}" if isinstance(cmd, str) else ""


def _output(mid: str, payload: dict[str, Any], names: dict[str, str], skips: Skips) -> Message:
    call_id = payload.get("call_id")
    cid = call_id if isinstance(call_id, str) and call_id else ""
    name = names.pop(cid, None)
    output = payload.get("output")
    code = exit_code_of(output)
    if isinstance(output, str):
        # The exec tool's header (chunk id, wall time, exit code) is not the output.
        body = _OUTPUT.split(output, maxsplit=1)[-1] if code is not None else output
    elif isinstance(output, dict):  # an output with content items and a success flag
        body = block_text(output.get("content"), skips)
        if output.get("success") is False:
            code = code or 1
    else:
        body = block_text(output, skips)
    return Message(
        f"{cid}:result" if cid else mid,
        "tool",
        body,
        tool_name=name,
        is_error=code is not None and code != 0,
    )
