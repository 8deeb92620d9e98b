"""The Codex rollout reader: lines shaped as Codex 0.171.0 wrote them in the e2e run.

The fixture is written by hand from a real rollout (``~/.codex/sessions/…/rollout-….jsonl``
of tests/e2e/test_e2e_codex.py), shortened, with the machine's paths replaced.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextward.inspect import Message, open_transcript
from contextward.inspect.readers import detect
from contextward.inspect.readers.codex import exit_code_of

TURN = {"turn_id": "019d-turn-1"}


def line(ordinal: int, kind: str, payload: dict[str, Any], **extra: Any) -> bytes:
    entry = {"timestamp": "2026-11-30T12:09:29.898Z", "ordinal": ordinal, "type": kind}
    entry |= {"payload": payload, **extra}
    return json.dumps(entry, separators=(",", ":")).encode() + b"\n"


def message(mid: str, role: str, text: str, kinds: list[str] | None = None) -> dict[str, Any]:
    part = "output_text" if role == "assistant" else "input_text"
    meta: dict[str, Any] = dict(TURN)
    if kinds is not None:
        meta["content_item_kinds"] = kinds
    return {
        "type": "message",
        "id": mid,
        "role": role,
        "content": [{"type": part, "text": text}],
        "internal_chat_message_metadata_passthrough": meta,
    }


PREAMBLE = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. You also have access to the state of the tools that were used by that "
    "language model. Use this to build on the work that has already been done and avoid "
    "duplicating work. Here is the summary produced by the other language model, use the "
    "information in this summary to assist with your own analysis:\n"
)
SUMMARY = "Goal: build the OAuth login. Constraint: Never push directly to the main branch."
OWNER = (
    "We are building the OAuth login. Never push directly to the main branch. "
    "Do not edit files under the migrations folder."
)

ROLLOUT = b"".join(
    [
        line(
            0,
            "session_meta",
            {
                "session_id": "019d-session",
                "cwd": "/repo",
                "originator": "codex_exec",
                "cli_version": "0.171.0",
                "base_instructions": {"text": "You are Codex. " * 5000},  # past the 64 KiB peek
            },
        ),
        line(1, "event_msg", {"type": "task_started", **TURN}),
        line(2, "response_item", message("msg-dev", "developer", "<permissions instructions>")),
        line(
            3,
            "response_item",
            message("msg-env", "user", "<environment_context>\n  <cwd>/repo</cwd>"),
        ),
        line(4, "turn_context", {**TURN, "cwd": "/repo", "approval_policy": "never"}),
        line(
            5,
            "response_item",
            message("msg-brief", "developer", "## contextward brief\ncontract:", ["hooks.x"]),
        ),
        line(6, "response_item", message("msg-u1", "user", OWNER, ["user.text"])),
        line(
            7,
            "response_item",
            {
                "type": "function_call",
                "status": "completed",
                "id": "fc_1",
                "name": "exec_command",
                "arguments": '{"cmd": "npm test"}',
                "call_id": "call_1",
            },
        ),
        line(
            8,
            "event_msg",
            {
                "type": "item_completed",
                "item": {"type": "CommandExecution", "id": "call_1", "exit_code": 1},
            },
        ),
        line(
            9,
            "response_item",
            {
                "type": "function_call_output",
                "id": "fco_1",
                "call_id": "call_1",
                "output": "Chunk ID: bce0fa\nWall time: 0.0000 seconds\n"
                "Process exited with code 1\nOriginal token count: 3\nOutput:\n2 failing\n",
            },
        ),
        line(10, "response_item", {"type": "reasoning", "id": "rs_1", "summary": []}),
        line(11, "response_item", message("msg-a1", "assistant", "The tests fail.")),
        line(
            12,
            "response_item",
            message("msg-sum", "assistant", SUMMARY),
            metadata={"compaction_output": True},
        ),
        line(
            13,
            "compacted",
            {
                "message": PREAMBLE + SUMMARY,
                "replacement_history": [message("msg-u1", "user", OWNER, ["user.text"])],
            },
        ),
        line(14, "response_item", message("msg-a2", "assistant", "Continuing.")),
    ]
)


def read(data: bytes, format: str | None = None) -> tuple[list[Message], dict[str, int]]:
    transcript = open_transcript(io.BytesIO(data), format)
    messages = list(transcript.messages)
    assert transcript.format == "codex"
    return messages, transcript.skips.counts


def test_a_rollout_reads_as_the_conversation_with_the_summary_once() -> None:
    messages, skips = read(ROLLOUT)

    assert messages == [
        Message("msg-u1", "user", OWNER),
        Message("call_1", "tool", "$ npm test", tool_name="exec_command"),
        Message("call_1:result", "tool", "2 failing\n", tool_name="exec_command", is_error=True),
        Message("msg-a1", "assistant", "The tests fail."),
        Message("msg-sum", "system", SUMMARY, summary=True),
        Message("msg-a2", "assistant", "Continuing."),
    ]
    assert skips == {
        "entry_session_meta": 1,
        "entry_event_msg": 2,
        "entry_turn_context": 1,
        "role_developer": 2,
        "host_context": 1,
        "item_reasoning": 1,
        "compacted_duplicate": 1,
    }


def test_detection_by_shape_even_when_the_first_line_is_longer_than_the_peek() -> None:
    assert len(ROLLOUT.split(b"\n", 1)[0]) > 64 * 1024
    assert detect(ROLLOUT[: 64 * 1024]) == "codex"
    assert detect(line(0, "response_item", message("m", "user", "hi"))) == "codex"


def test_a_compaction_without_its_model_output_line_still_yields_the_summary() -> None:
    data = line(0, "compacted", {"message": PREAMBLE + SUMMARY, "replacement_history": []})
    data += line(1, "compacted", {"message": "", "replacement_history": []})  # remote compaction

    messages, skips = read(data)

    assert messages == [Message("l1", "system", SUMMARY, summary=True)]
    assert skips == {"compacted_without_summary": 1}


def test_tool_calls_of_every_kind_and_their_outputs() -> None:
    calls = [
        {
            "type": "local_shell_call",
            "call_id": "c1",
            "action": {"type": "exec", "command": ["bash", "-lc", "ls -la"]},
        },
        {"type": "function_call_output", "call_id": "c1", "output": "total 0\n"},
        {"type": "custom_tool_call", "call_id": "c2", "name": "apply_patch", "input": "*** Begin"},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "Done!"},
        {"type": "function_call", "call_id": "c3", "name": "view_image", "arguments": "{}"},
        {
            "type": "function_call_output",
            "call_id": "c3",
            "output": '{"output": "boom", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}',
        },
    ]
    messages, _ = read(b"".join(line(n, "response_item", c) for n, c in enumerate(calls)))

    assert messages == [
        Message("c1", "tool", "$ bash -lc 'ls -la'", tool_name="local_shell"),
        Message("c1:result", "tool", "total 0\n", tool_name="local_shell"),
        Message("c2", "tool", "apply_patch *** Begin", tool_name="apply_patch"),
        Message("c2:result", "tool", "Done!", tool_name="apply_patch"),
        Message("c3", "tool", "view_image {}", tool_name="view_image"),
        Message("c3:result", "tool", calls[5]["output"], tool_name="view_image", is_error=True),
    ]


def test_bare_response_items_of_older_rollouts_read_when_forced() -> None:
    data = json.dumps(message("m1", "user", "Keep the API stable.")).encode() + b"\n"

    assert read(data, "codex")[0] == [Message("m1", "user", "Keep the API stable.")]


def test_a_torn_last_line_is_counted_not_raised() -> None:
    torn = line(20, "response_item", message("m9", "assistant", "half"))[:-30]

    messages, skips = read(ROLLOUT + torn)

    assert messages[-1] == Message("msg-a2", "assistant", "Continuing.")
    assert skips["torn_last_line"] == 1


@pytest.mark.parametrize(
    ("output", "code"),
    [
        ("Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok\n", 0),
        ("Chunk ID: a\nProcess exited with code 127\nOutput:\n", 127),
        ('{"output": "x", "metadata": {"exit_code": 3}}', 3),
        ('{"output": "x", "metadata": {"exit_code": true}}', None),
        ("Process running with session ID 7\nOutput:\n", None),
        ("plain text", None),
        (None, None),
    ],
)
def test_exit_code_of_a_shell_output(output: object, code: int | None) -> None:
    assert exit_code_of(output) == code


@given(st.lists(st.recursive(st.none() | st.text() | st.integers(), st.lists)))
def test_the_reader_never_raises_on_odd_payloads(values: list[object]) -> None:
    data = b"".join(
        line(n, "response_item", {"type": "message", "role": v, "content": v, "call_id": v})
        + line(n, "compacted", {"message": v})
        for n, v in enumerate(values)
    )
    if data:
        transcript = open_transcript(io.BytesIO(data), "codex")
        assert all(isinstance(m.text, str) for m in transcript.messages)
