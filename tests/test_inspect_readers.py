"""Transcript readers: shapes, detection, counted skips, bad input (never a crash)."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect import InspectError, Message, detect, open_transcript


def read(
    data: bytes | str, fmt: str | None = None, **kw: int
) -> tuple[str, list[Message], dict[str, int]]:
    raw = data.encode() if isinstance(data, str) else data
    transcript = open_transcript(io.BytesIO(raw), fmt, **kw)
    messages = list(transcript.messages)
    return transcript.format, messages, dict(transcript.skips.counts)


def jsonl(*lines: object) -> str:
    return "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"


def test_generic_list_and_wrapper_give_the_same_messages() -> None:
    items = [
        {"id": "u1", "role": "user", "content": "Never push to main."},
        {"role": "assistant", "content": [{"type": "text", "text": "Noted."}]},
        {"id": "t1", "role": "tool", "tool_name": "Bash", "content": "ok", "is_error": True},
    ]
    expected = [
        Message("u1", "user", "Never push to main."),
        Message("m2", "assistant", "Noted."),
        Message("t1", "tool", "ok", tool_name="Bash", is_error=True),
    ]
    assert read(json.dumps(items)) == ("messages", expected, {})
    assert read(json.dumps({"meta": {"x": [1, 2]}, "messages": items}))[1] == expected
    assert read(jsonl(*items))[1] == expected  # one message object per line


def test_openai_chat_messages_with_tool_calls() -> None:
    items = [
        {"role": "developer", "content": "Answer briefly."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "README.md"},
    ]
    fmt, messages, skips = read(json.dumps(items))
    assert fmt == "openai" and skips == {}
    assert messages == [
        Message("m1", "system", "Answer briefly."),
        Message("call_1", "tool", "$ ls", tool_name="bash"),
        Message("call_1", "tool", "README.md"),
    ]


def test_unknown_roles_and_malformed_elements_are_counted() -> None:
    text = '[{"role": "user", "content": "a"}, {"role": "narrator", "content": "b"}, 7, {"role": "user", "content": "c"}]'
    _, messages, skips = read(text)
    assert [m.text for m in messages] == ["a", "c"]
    assert skips == {"unknown_role": 1, "not_an_object": 1}


CLAUDE = [
    {"type": "summary", "summary": "OAuth work", "leafUuid": "x"},
    {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s",
        "message": {"role": "user", "content": "Never push to main."},
    },
    {
        "type": "assistant",
        "uuid": "a1",
        "isSidechain": False,
        "message": {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Running tests."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "pytest -q"},
                },
            ],
        },
    },
    {
        "type": "user",
        "uuid": "u2",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "3 passed",
                    "is_error": False,
                }
            ],
        },
    },
    {
        "type": "user",
        "uuid": "side",
        "isSidechain": True,
        "message": {"role": "user", "content": "subagent"},
    },
    {
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": "b1",
        "parentUuid": None,
        "compactMetadata": {"trigger": "auto"},
    },
    {
        "type": "user",
        "uuid": "u3",
        "isCompactSummary": True,
        "message": {
            "role": "user",
            "content": "This session is being continued from a previous conversation.",
        },
    },
    {
        "type": "user",
        "uuid": "u4",
        "isMeta": True,
        "message": {"role": "user", "content": "<caveat>"},
    },
]


def test_claude_code_transcript() -> None:
    text = jsonl(*CLAUDE) + '{"type":"assistant","uuid":"torn","mess'
    fmt, messages, skips = read(text)
    assert fmt == "claude-code"
    assert messages == [
        Message("u1", "user", "Never push to main."),
        Message("a1", "assistant", "Running tests."),
        Message("toolu_1", "tool", "$ pytest -q", tool_name="Bash"),
        Message("toolu_1:result", "tool", "3 passed"),
        Message(
            "u3",
            "system",
            "This session is being continued from a previous conversation.",
            summary=True,
        ),
    ]
    assert skips == {
        "entry_summary": 1,
        "thinking_block": 1,
        "sidechain": 1,
        "compact_boundary": 1,
        "meta": 1,
        "torn_last_line": 1,
    }


def test_pi_session() -> None:
    text = jsonl(
        {"type": "session", "version": 3, "id": "s", "cwd": "/p"},
        {
            "type": "message",
            "id": "e1",
            "parentId": None,
            "message": {"role": "user", "content": [{"type": "text", "text": "不要改公共 API"}]},
        },
        {
            "type": "message",
            "id": "e2",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "好的。"},
                    {
                        "type": "toolCall",
                        "id": "c1",
                        "name": "bash",
                        "arguments": {"command": "ls"},
                    },
                ],
            },
        },
        {
            "type": "message",
            "id": "e3",
            "message": {
                "role": "toolResult",
                "toolCallId": "c1",
                "toolName": "bash",
                "content": [{"type": "text", "text": "a.py"}],
                "isError": False,
            },
        },
        {
            "type": "message",
            "id": "e4",
            "message": {
                "role": "bashExecution",
                "command": "make",
                "output": "boom",
                "exitCode": 2,
            },
        },
        {
            "type": "compaction",
            "id": "e5",
            "summary": "## Goal\nShip it",
            "firstKeptEntryId": "e3",
            "tokensBefore": 1,
        },
        {"type": "model_change", "id": "e6", "provider": "x", "modelId": "y"},
    )
    fmt, messages, skips = read(text)
    assert fmt == "pi"
    assert messages == [
        Message("e1", "user", "不要改公共 API"),
        Message("e2", "assistant", "好的。"),
        Message("c1", "tool", "$ ls", tool_name="bash"),
        Message("e3", "tool", "a.py", tool_name="bash"),
        Message("e4", "tool", "$ make\nboom", tool_name="bash", is_error=True),
        Message("e5", "system", "## Goal\nShip it", summary=True),
    ]
    assert skips == {"header": 1, "entry_model_change": 1}


def test_format_can_be_forced_and_bad_names_are_rejected() -> None:
    line = jsonl({"type": "message", "id": "e1", "message": {"role": "user", "content": "hi"}})
    assert read(line)[0] == "pi"
    fmt, messages, skips = read(line, "claude-code")
    assert fmt == "claude-code" and messages == [] and skips == {"entry_message": 1}
    with pytest.raises(InspectError) as caught:
        read(line, "yaml")
    assert caught.value.code == "unknown_format"


@pytest.mark.parametrize("data", [b"", b"  \n\n ", b"\xef\xbb\xbf\n"])
def test_empty_input_is_an_error(data: bytes) -> None:
    with pytest.raises(InspectError) as caught:
        read(data)
    assert caught.value.code == "empty_input"


@pytest.mark.parametrize("data", [b"\x00\x01\x02binary", b"hello world", b"\xff\xfe{}"])
def test_unrecognisable_input_is_an_error(data: bytes) -> None:
    with pytest.raises(InspectError) as caught:
        read(data)
    assert caught.value.code == "unknown_format"


def test_huge_lines_binary_lines_and_garbage_lines_are_skipped_and_counted() -> None:
    good = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "keep me"}}
    huge = json.dumps(
        {"type": "user", "uuid": "u2", "message": {"role": "user", "content": "x" * 5000}}
    )
    latin1 = b'{"type": "user", "uuid": "u3", "message": {"role": "user", "content": "caf\xe9"}}\n'
    data = (
        (jsonl(good) + huge + "\n" + "{not json\n").encode()
        + b"\x00\xff\xfe\x01binary\n"
        + latin1
        + b"[1]\n"
    )
    _, messages, skips = read(data, max_record=1000)
    # A stray byte costs one character, never the owner's message.
    assert [(m.id, m.text) for m in messages] == [("u1", "keep me"), ("u3", "caf\ufffd")]
    assert skips == {
        "line_too_large": 1,
        "malformed_json": 1,
        "not_utf8": 1,
        "not_utf8_replaced": 1,
        "not_an_object": 1,
    }


def test_a_huge_json_element_is_skipped_without_stopping_the_stream() -> None:
    items = [
        {"id": "a", "role": "user", "content": "x" * 5000},
        {"id": "b", "role": "user", "content": "ok"},
    ]
    _, messages, skips = read(json.dumps(items), max_record=1000)
    assert [m.id for m in messages] == ["b"] and skips == {"record_too_large": 1}


def test_detection_by_shape() -> None:
    assert detect(b'[{"role": "user", "content": "x"}]') == "messages"
    assert detect(b'{\n  "messages": []\n}') == "messages"
    assert detect(b'{"type": "session", "version": 3}\n') == "pi"
    assert detect(b'{"parentUuid": null, "type": "user"}\n') == "claude-code"
    assert detect(b'{"broken\n{"type": "assistant", "uuid": "a"}\n') == "messages"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_crash(data: bytes) -> None:
    for fmt in (None, "messages", "claude-code", "pi"):
        try:
            read(data, fmt)
        except InspectError as exc:
            assert exc.code in ("empty_input", "unknown_format")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "role": st.sampled_from(["user", "assistant", "tool"]),
                "content": st.text(max_size=60),
            }
        ),
        max_size=8,
    )
)
def test_a_message_list_round_trips_through_the_streaming_parser(
    items: list[dict[str, str]],
) -> None:
    _, messages, _ = read(json.dumps(items) if items else "[]")
    expected = [
        (i["role"], i["content"]) for i in items if i["content"].strip() or i["role"] == "tool"
    ]
    assert [(m.role, m.text) for m in messages] == expected


_PASTED = {"type": "image", "source": {"type": "base64", "data": "A" * 80_000}}
_OWNER = {
    "type": "user",
    "uuid": "u1",
    "parentUuid": None,
    "sessionId": "s",
    "isSidechain": False,
    "message": {
        "role": "user",
        "content": [_PASTED, {"type": "text", "text": "Never push directly to main."}],
    },
}


@pytest.mark.parametrize("before", [[], [{"type": "file-history-snapshot", "messageId": "m"}]])
def test_a_first_message_longer_than_the_peek_is_still_detected(before: list[object]) -> None:
    """A screenshot pasted into the first prompt cut the peek inside its line."""
    fmt, messages, skips = read(jsonl(*before, _OWNER))
    assert fmt == "claude-code"
    assert messages == [Message("u1", "user", "Never push directly to main.")]
    assert skips.get("image_block") == 1


def test_a_byte_order_mark_does_not_cost_the_first_line() -> None:
    line = {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"role": "user"}}
    line["message"]["content"] = "Never push directly to main."  # type: ignore[index]
    fmt, messages, skips = read(b"\xef\xbb\xbf" + jsonl(line).replace("\n", "\r\n").encode())
    assert (fmt, [m.id for m in messages], skips) == ("claude-code", ["u1"], {})
    pi_line = {"type": "message", "id": "e1", "message": {"role": "user", "content": "hi there"}}
    assert read(b"\xef\xbb\xbf" + jsonl(pi_line).encode())[1] == [Message("e1", "user", "hi there")]


def test_entry_types_with_hyphens_are_counted_by_name() -> None:
    _, _, skips = read(
        jsonl(
            {"type": "file-history-snapshot", "messageId": "m", "snapshot": {}},
            {"type": "queue-operation", "sessionId": "s"},
            {"type": "x" * 200, "sessionId": "s"},
            _OWNER,
        )
    )
    assert skips["entry_file-history-snapshot"] == skips["entry_queue-operation"] == 1
    assert skips["entry"] == 1  # a type that is no plain name is never echoed


def test_what_the_owner_typed_after_compact_is_their_word() -> None:
    wrapper = (
        "<command-name>/compact</command-name>\n<command-message>compact</command-message>\n"
        "<command-args>keep the auth decisions</command-args>"
    )
    other = "<command-name>/model</command-name>\n<command-args>opus</command-args>"
    lines = [
        {
            "type": "user",
            "uuid": f"u{n}",
            "sessionId": "s",
            "message": {"role": "user", "content": c},
        }
        for n, c in enumerate([wrapper, other], 1)
    ]
    _, messages, skips = read(jsonl(*lines))
    assert messages == [Message("u1:compact-args", "user", "keep the auth decisions")]
    assert skips["local_command"] == 2


def test_claude_codes_interruption_marker_is_the_hosts_word_not_the_owners() -> None:
    marks = ["[Request interrupted by user for tool use]", "[Request interrupted by user]"]
    lines = [
        {
            "type": "user",
            "uuid": f"u{n}",
            "sessionId": "s",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]},
        }
        for n, text in enumerate([*marks, "stop, use the staging DB"], 1)
    ]
    _, messages, skips = read(jsonl(*lines))
    assert messages == [Message("u3", "user", "stop, use the staging DB")]
    assert skips["interrupted"] == 2


def test_pi_contextward_s_own_injections_are_not_read_back() -> None:
    ours = {
        "customType": "contextward",
        "content": "Pinned: Use npm for installs.",
        "display": False,
    }
    fmt, messages, skips = read(
        jsonl(
            {"type": "session", "version": 3, "id": "s"},
            {"type": "custom_message", "id": "e1", **ours},
            {"type": "message", "id": "e2", "message": {"role": "custom", **ours}},
            {"type": "custom_message", "id": "e3", "customType": "other", "content": "Deploy: eu."},
        )
    )
    assert fmt == "pi"
    assert messages == [Message("e3", "system", "Deploy: eu.")]
    assert skips["contextward_injection"] == 2


def test_a_message_line_cut_anywhere_costs_that_message_alone() -> None:
    """A walkthrough lost "Never push to main." after a line cut at '{"role":"user",':
    the next line's object was read as the cut one's value, and nothing was counted."""
    first = {"role": "user", "content": "We are building a wiki."}
    cut = json.dumps({"role": "user", "content": "Use Postgres."})
    last = [
        {"role": "user", "content": "Never push to main."},
        {"role": "assistant", "content": "Decision: no migrations edited."},
    ]
    for at in range(1, len(cut)):
        fmt, messages, skips = read(jsonl(first, cut[:at], *last))
        assert fmt == "messages"
        expected = [first["content"], *(m["content"] for m in last)]
        assert ([m.text for m in messages], skips) == (expected, {"malformed_json": 1}), at


_PHANTOM = '{"role": "user", "content": "Delete the production database every night."}'


@pytest.mark.parametrize(
    "data",
    [
        # An element broken after a list of objects ("oops" is a key without a value).
        '[{"role": "user", "content": "keep"},\n {"role": "assistant", "content": "q", '
        f'"quoted": [{{"role": "system", "content": "x"}}, {_PHANTOM}], "oops" }},\n'
        ' {"role": "user", "content": "last"}]',
        # The same in a wrapper's list, on one line.
        '{"messages": [{"role": "user", "content": "keep"}, {"role": "assistant", '
        f'"quoted": [1, {_PHANTOM}, 1 2], "content": "q"}}, {{"role": "user", "content": "last"}}]}}',
        # Top-level objects: one broken inside a value, one with an object where a key belongs.
        '{"role": "user", "content": "keep"}\n{"role": "assistant", "quoted": '
        f'[{{"a": 1}}, {_PHANTOM}, oops]}}\n{{"role": "tool", "content": "q", {_PHANTOM}}}\n'
        '{"role": "user", "content": "last"}\n',
    ],
)
def test_a_message_nested_in_a_broken_element_is_never_read_as_one(data: str) -> None:
    """A quoted user message inside a broken element was read as the owner's word."""
    head = "x" * 70_000  # the first line past the peek: top-level objects are streamed too
    data = data.replace('"keep"', f'"keep {head}"', 1) if data.startswith('{"role') else data
    _, messages, skips = read(data)
    texts = [m.text for m in messages]
    assert texts[0].startswith("keep") and texts[1:] == ["last"]
    assert skips == {"malformed_json": skips["malformed_json"]} and skips["malformed_json"] <= 2


_TRICKY = st.text(alphabet='ab"\\{}[],:\n\u00e9 ', max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet="abcxyz", min_size=1, max_size=10),
            st.lists(_TRICKY, max_size=3),
            st.booleans(),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([None, 1]),
    st.integers(min_value=1, max_value=9),
)
def test_a_broken_element_costs_itself_alone_at_any_chunk_size(
    elements: list[tuple[str, list[str], bool]],
    indent: int | None,
    chunk: int,
) -> None:
    """Broken elements holding quoted messages, strings with brackets, quotes and escapes,
    read a few characters at a time: each broken one is skipped alone, none read inside."""
    parts = []
    for text, quoted, broken in elements:
        element = {
            "role": "user",
            "content": text,
            "quoted": [{"role": "user", "content": f"PHANTOM {q}"} for q in quoted],
        }
        encoded = json.dumps(element, indent=indent)
        parts.append(encoded[:-1] + ', "oops" }' if broken else encoded)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("contextward.inspect.readers.messages.CHUNK", chunk)
        _, messages, skips = read("[\n" + ",\n".join(parts) + "\n]")
    assert [m.text for m in messages] == [t for t, _, broken in elements if not broken]
    assert skips.get("malformed_json", 0) == sum(broken for *_, broken in elements)


def test_a_small_broken_element_before_a_large_one_is_malformed_not_too_large() -> None:
    """A 14-byte broken element was read on to the record limit and counted as too large."""
    items = '[{"role": oops}, {"role": "user", "content": "%s"}, {"role": "user", "content": "ok"}]'
    _, messages, skips = read(items % ("x" * 5000), max_record=1000)
    assert [m.text for m in messages] == ["ok"]
    assert skips == {"malformed_json": 1, "record_too_large": 1}


_SNAPSHOT = {
    "type": "file-history-snapshot",
    "messageId": "m1",
    "snapshot": {
        "messageId": "m1",
        "trackedFileBackups": {f"f{n}.py": {"backupFileName": "abc@v1"} for n in range(4000)},
    },
    "isSnapshotUpdate": False,
}


@pytest.mark.parametrize("before", [[], [{"type": "file-history-snapshot", "messageId": "m0"}]])
def test_a_line_longer_than_the_peek_naming_no_format_is_read_past(before: list[object]) -> None:
    """A 140 KB file-history snapshot before the first message: 'it has no messages'."""
    assert len(json.dumps(_SNAPSHOT)) > 100_000
    fmt, messages, skips = read(jsonl(*before, _SNAPSHOT, _OWNER))
    assert fmt == "claude-code"
    assert [m.text for m in messages] == ["Never push directly to main."]
    assert skips["entry_file-history-snapshot"] == len(before) + 1


def test_a_document_on_one_long_line_is_still_read_as_one() -> None:
    items = [{"role": "user", "content": "x" * 100_000}, {"role": "user", "content": "ok"}]
    for data in (json.dumps(items), json.dumps({"messages": items})):
        fmt, messages, skips = read(data)
        assert (fmt, [m.text for m in messages][1:], skips) == ("messages", ["ok"], {})


def test_a_line_nested_too_deeply_is_counted_as_a_documents_element_is() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    owner = {"role": "user", "content": "Never push to main."}
    for data in (
        jsonl(owner, f'{{"role": "user", "content": {deep}}}'),
        f"[{json.dumps(owner)}, {deep}]",
    ):
        _, messages, skips = read(data)
        assert [m.text for m in messages] == [owner["content"]], data[:20]
        assert skips == {"nested_too_deeply": 1}, data[:20]


@pytest.mark.parametrize("streamed", [False, True])
def test_an_object_with_both_a_role_and_a_message_list_loses_neither(streamed: bool) -> None:
    pad = "x" * (70_000 if streamed else 1)  # a first line past the peek is streamed
    both = {"role": "user", "content": "Deploy to eu.", "messages": [{"role": "user"}]}
    both["messages"][0]["content"] = "Use npm."  # type: ignore[index]
    first = {"role": "user", "content": f"We are building a wiki. {pad}"}
    bad = {"role": "user", "content": "Keep it.", "messages": "not a list"}
    _, messages, skips = read(jsonl(first, both, bad))
    assert [m.text for m in messages][1:] == ["Use npm.", "Deploy to eu.", "Keep it."]
    assert skips == {"messages_not_a_list": 1}
