"""Every field of every format's shape, replaced by any JSON value: the readers count what
they cannot read and go on, never raise, and never put transcript text in a skip reason.

A content block whose ``type`` was a list raised ``TypeError: unhashable type`` in every
reader (and cost the whole transcript when a second process read it).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect import InspectError, Message, open_transcript
from contextward.redact import mask

_BLOCKS: list[Any] = [
    {"type": "text", "text": "Never push to main."},
    {"type": "input_text", "text": "in"},
    {"type": "thinking", "thinking": "hm"},
    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}},
    {
        "type": "tool_result",
        "tool_use_id": "t1",
        "content": [{"type": "text", "text": "ok"}],
        "is_error": False,
    },
    {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}},
    "plain",
]

#: One transcript of each format, holding every field its reader looks at.
SHAPES: dict[str, Any] = {
    "messages": [
        {"id": "u1", "role": "user", "content": _BLOCKS, "name": "n", "is_error": False},
        {"role": "assistant", "content": "Use Postgres.", "tool_call_id": "x"},
    ],
    "openai": {
        "messages": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "function": {"name": "f", "arguments": '{"cmd": "ls"}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": "ok"}]},
        ]
    },
    "gemini": {
        "sessionId": "s",
        "messages": [
            {"type": "user", "id": "g1", "content": [{"text": "Deploy to eu."}]},
            {
                "type": "gemini",
                "content": "done",
                "toolCalls": [
                    {"id": "c", "name": "n", "args": {}, "resultDisplay": "r", "status": "error"}
                ],
            },
            {"type": "info", "content": "notice"},
        ],
    },
    "claude-code": [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
        {"type": "system", "subtype": "compact_boundary", "uuid": "b"},
        {
            "type": "user",
            "uuid": "s1",
            "isCompactSummary": True,
            "message": {"role": "user", "content": [{"type": "text", "text": "Summary."}]},
        },
        {"type": "user", "uuid": "u1", "sessionId": "s", "isSidechain": False, "isMeta": False}
        | {"message": {"role": "user", "content": _BLOCKS}},
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "plain"}},
    ],
    "pi": [
        {"type": "session", "version": 3, "id": "s"},
        {"type": "compaction", "id": "c", "summary": "Summary."},
        {"type": "custom_message", "id": "cm", "customType": "other", "content": _BLOCKS},
        {"type": "message", "id": "e1", "message": {"role": "user", "content": _BLOCKS}},
        {
            "type": "message",
            "id": "e2",
            "message": {"role": "toolResult", "toolName": "bash", "content": "ok", "isError": 1},
        },
        {
            "type": "message",
            "id": "e3",
            "message": {"role": "bashExecution", "command": "ls", "output": "x", "exitCode": 1},
        },
        {"type": "message", "id": "e4", "message": {"role": "branchSummary", "summary": "S."}},
        {"type": "message", "id": "e5", "message": {"role": "custom", "content": "c"}},
    ],
    "codex": [
        {"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}},
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "id": "m1",
                "role": "user",
                "content": [{"type": "input_text", "text": "Use Postgres."}],
                "internal_chat_message_metadata_passthrough": {"content_item_kinds": ["user.text"]},
            },
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "metadata": {"compaction_output": True},
            "payload": {"type": "message", "role": "assistant", "content": "Summary."},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call", "name": "exec", "call_id": "c1"}
            | {"arguments": '{"cmd": ["ls", "-l"]}'},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "local_shell_call", "call_id": "c2", "action": {"command": ["ls"]}},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "custom_tool_call", "call_id": "c3", "name": "p", "input": "x"},
        },
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1"}
            | {"output": {"content": [{"type": "input_text", "text": "ok"}], "success": False}},
        },
        {"timestamp": "t", "type": "compacted", "payload": {"message": "Summary two."}},
        {"type": "reasoning", "id": "r"},
    ],
}
JSON_LINES = ("claude-code", "pi", "codex")


def _holes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside ``value`` (itself included)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _holes(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _holes(item, (*path, n))


def _put(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _put(value[path[0]], path[1:], new)
    return copy


def _encoded(fmt: str, shape: Any) -> bytes:
    if fmt in JSON_LINES and isinstance(shape, list):
        return "".join(json.dumps(line) + "\n" for line in shape).encode()
    return json.dumps(shape).encode()


HOLES = [(fmt, path) for fmt, shape in SHAPES.items() for path in _holes(shape)]
SECRETS = [
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "0123456789abcdefghij" * 2,
    "glpat-abcdefghij0123456789",
]
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["text", "user", "message", "tool_use", "response_item", *SECRETS])
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _read(data: bytes, fmt: str | None) -> tuple[list[Message], dict[str, int]]:
    transcript = open_transcript(io.BytesIO(data), fmt)
    return list(transcript.messages), dict(transcript.skips.counts)


def _check(data: bytes, fmt: str | None) -> None:
    try:
        messages, skips = _read(data, fmt)
    except InspectError as exc:
        assert exc.code == "empty_input" or (fmt is None and exc.code == "unknown_format")
        return
    for message in messages:
        assert isinstance(message.id, str) and isinstance(message.text, str)
        assert message.tool_name is None or isinstance(message.tool_name, str)
    for reason in skips:
        assert mask(reason) == reason, reason
        assert all(secret not in reason for secret in SECRETS), reason


def test_every_shape_reads_as_its_format() -> None:
    for fmt, shape in SHAPES.items():
        messages, _ = _read(_encoded(fmt, shape), fmt)
        assert messages, fmt


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(HOLES), JSON_VALUES)
def test_any_json_value_in_any_field_is_read_or_counted(hole: tuple[str, Any], new: Any) -> None:
    fmt, path = hole
    data = _encoded(fmt, _put(SHAPES[fmt], path, new))
    _check(data, fmt)
    _check(data, None)


@pytest.mark.parametrize("fmt", sorted(SHAPES))
@pytest.mark.parametrize("kind", [["x"], {"a": 1}])
def test_a_block_type_that_is_a_list_or_object_is_an_unknown_block(fmt: str, kind: Any) -> None:
    """Each place that reads content blocks, with one block's type not a string."""
    for path in _holes(SHAPES[fmt]):
        if path and path[-1] == "type" and isinstance(path[-2], int) and "content" in path:
            messages, skips = _read(_encoded(fmt, _put(SHAPES[fmt], path, kind)), fmt)
            assert messages, (fmt, path)
            if path.count("content") == 1:  # a tool result's blocks are read by some readers
                assert skips.get("unknown_block", 0) >= 1, (fmt, path)


def test_a_codex_summary_that_is_no_string_is_never_read_as_its_repr() -> None:
    lines = [{"timestamp": "t", "type": "compacted", "payload": {"message": {"k": ["v"]}}}]
    messages, skips = _read(_encoded("codex", lines), "codex")
    assert messages == [] and skips == {"unknown_content": 1, "compacted_without_summary": 1}
