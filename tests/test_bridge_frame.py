"""Frames of protocol v1: the size-capped line reader, validation, and fuzzing of both."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.hosts.bridge import Bridge, Registry
from contextward.hosts.bridge_errors import BridgeError
from contextward.hosts.bridge_frame import (
    MAX_FRAME_BYTES,
    Frame,
    Line,
    encode,
    error_frame,
    parse_frame,
    read_line,
)
from contextward.hosts.bridge_ops import default_registry


def frame_bytes(**fields: Any) -> bytes:
    return json.dumps(fields).encode()


class CountingStream(io.BytesIO):
    """A byte stream that records the largest single read it was asked for."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.largest = 0

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(size)
        self.largest = max(self.largest, len(line))
        return line


def test_lines_are_split_on_newlines_and_the_last_may_lack_one() -> None:
    stream = io.BytesIO(b'{"a":1}\n\n{"b":2}')
    assert read_line(stream) == Line(b'{"a":1}')
    assert read_line(stream) == Line(b"")
    assert read_line(stream) == Line(b'{"b":2}')
    assert read_line(stream) is None


def test_an_over_long_line_is_skipped_to_its_newline_without_being_held() -> None:
    huge = b"x" * (3 * MAX_FRAME_BYTES)
    stream = CountingStream(huge + b"\n" + b'{"next":true}\n')
    assert read_line(stream) == Line(b"", too_long=True)
    assert read_line(stream) == Line(b'{"next":true}')
    # Never more than the cap (plus one byte to notice) in memory at once.
    assert stream.largest <= MAX_FRAME_BYTES + 1


def test_a_line_of_exactly_the_cap_is_a_frame() -> None:
    data = b"y" * MAX_FRAME_BYTES
    assert read_line(io.BytesIO(data + b"\nrest")) == Line(data)
    assert read_line(io.BytesIO(data + b"z\n")) == Line(b"", too_long=True)


def test_an_over_long_last_line_without_newline_ends_the_input() -> None:
    stream = io.BytesIO(b"z" * (MAX_FRAME_BYTES + 10))
    assert read_line(stream) == Line(b"", too_long=True)
    assert read_line(stream) is None


def test_a_valid_request_and_provider_response() -> None:
    req = frame_bytes(protocol_version=1, type="request", request_id="r1", operation="ping")
    frame = parse_frame(req)
    assert frame == Frame("request", "r1", json.loads(req))
    resp = frame_bytes(protocol_version=1, type="provider_response", request_id=7, ok=True, data=1)
    assert parse_frame(resp).type == "provider_response"
    assert parse_frame(resp).request_id == 7


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"not json", "bad_frame"),
        (b"\xff\xfe\x00garbage", "bad_frame"),
        (b"[1, 2]", "bad_frame"),
        (b'"a string"', "bad_frame"),
        (b"null", "bad_frame"),
        (b'{"protocol_version": 1, "value": NaN}', "bad_frame"),
        (b"[" * 100_000 + b"]" * 100_000, "bad_frame"),
        (frame_bytes(type="request", request_id="a", operation="ping"), "unsupported_version"),
        (frame_bytes(protocol_version=2, type="request", request_id="a"), "unsupported_version"),
        (frame_bytes(protocol_version="1", type="request", request_id="a"), "unsupported_version"),
        (frame_bytes(protocol_version=True, type="request", request_id="a"), "unsupported_version"),
        (frame_bytes(protocol_version=1.0, type="request", request_id="a"), "unsupported_version"),
        (frame_bytes(protocol_version=1, request_id="a", operation="ping"), "bad_frame"),
        (frame_bytes(protocol_version=1, type=3, request_id="a"), "bad_frame"),
        (frame_bytes(protocol_version=1, type="result", request_id="a"), "bad_frame"),
        (frame_bytes(protocol_version=1, type="request", operation="ping"), "bad_frame"),
        (
            frame_bytes(protocol_version=1, type="request", request_id="", operation="x"),
            "bad_frame",
        ),
        (
            frame_bytes(protocol_version=1, type="request", request_id=True, operation="x"),
            "bad_frame",
        ),
        (
            frame_bytes(protocol_version=1, type="request", request_id=[1], operation="x"),
            "bad_frame",
        ),
        (frame_bytes(protocol_version=1, type="request", request_id="a" * 201), "bad_frame"),
        (frame_bytes(protocol_version=1, type="request", request_id="a"), "bad_frame"),
        (
            frame_bytes(protocol_version=1, type="request", request_id="a", operation=""),
            "bad_frame",
        ),
        (frame_bytes(protocol_version=1, type="provider_response"), "bad_frame"),
    ],
)
def test_bad_frames_raise_a_coded_error(data: bytes, code: str) -> None:
    with pytest.raises(BridgeError) as caught:
        parse_frame(data)
    assert caught.value.code == code


def test_a_wrong_version_names_the_supported_one_and_keeps_the_request_id() -> None:
    with pytest.raises(BridgeError) as caught:
        parse_frame(frame_bytes(protocol_version=2, type="request", request_id="r9"))
    assert "protocol_version 1" in str(caught.value)
    assert caught.value.request_id == "r9"


def test_errors_never_echo_frame_content() -> None:
    secret = "the-owner-said-never-push-to-main"
    bad = [
        secret.encode(),
        frame_bytes(protocol_version=1, type=secret, request_id="a"),
        frame_bytes(protocol_version=secret, type="request", request_id="a"),
        frame_bytes(protocol_version=1, type="request", request_id="a", operation=[secret]),
        b'{"' + secret.encode() + b'": ',
    ]
    for data in bad:
        with pytest.raises(BridgeError) as caught:
            parse_frame(data)
        assert secret not in str(caught.value)


def test_encode_is_one_line_of_json_and_refuses_non_json() -> None:
    data = encode({"text": "a\nb", "emoji": "☃"})
    assert data.count(b"\n") == 1 and data.endswith(b"\n")
    assert json.loads(data) == {"text": "a\nb", "emoji": "☃"}
    with pytest.raises(ValueError):
        encode({"x": float("nan")})
    with pytest.raises(TypeError):
        encode({"x": object()})


def test_error_frame_shape() -> None:
    assert error_frame("boom", "bad_frame") == {
        "protocol_version": 1,
        "type": "error",
        "error": "boom",
        "code": "bad_frame",
    }
    assert error_frame("boom", "bad_frame", "r1")["request_id"] == "r1"


# -- fuzzing -------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)
envelope_fields = st.fixed_dictionaries(
    {},
    optional={
        "protocol_version": st.sampled_from([1, 2, 0, "1", True, None, 1.5]),
        "type": st.sampled_from(["request", "provider_response", "result", "error", "", 5]),
        "request_id": st.one_of(st.text(max_size=5), st.integers(), st.booleans(), st.none()),
        "operation": st.sampled_from(["ping", "version", "nope", "", 1]),
        "ok": st.booleans(),
        "timeout_ms": st.one_of(st.integers(-5, 5), st.floats(), st.text(max_size=3)),
    },
)
frames = st.one_of(
    st.binary(max_size=200),
    json_values.map(lambda value: json.dumps(value).encode()),
    st.builds(
        lambda env, extra: json.dumps({**extra, **env}).encode(),
        envelope_fields,
        st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    ),
)


@settings(max_examples=300, deadline=None)
@given(frames)
def test_parse_frame_raises_only_bridge_errors(data: bytes) -> None:
    try:
        frame = parse_frame(data)
    except BridgeError as exc:
        assert exc.code in {"bad_frame", "unsupported_version"}
    else:
        assert frame.type in {"request", "provider_response"}


@settings(max_examples=300, deadline=None)
@given(frames)
def test_any_line_gets_at_most_well_formed_frames_and_the_loop_goes_on(data: bytes) -> None:
    out = io.BytesIO()
    # Requests are answered on worker threads: serve the line, then a ping, to end of input.
    stream = io.BytesIO(data.replace(b"\n", b" ") + b"\n" + PING)
    code = Bridge(default_registry(), out, log=io.StringIO()).serve(stream)
    assert code == 0
    lines = out.getvalue().splitlines(keepends=True)
    assert all(line.endswith(b"\n") for line in lines)
    # Exactly one answer per non-blank line: never none (a hang), never two.
    blank = not data.replace(b"\n", b" ").strip()
    assert len(lines) == (1 if blank else 2)
    answers = [json.loads(line) for line in lines]
    for frame in answers:
        assert frame["protocol_version"] == 1
        assert frame["type"] in {"error", "result"}
        if frame["type"] == "error":
            assert isinstance(frame["error"], str) and frame["error"]
            assert isinstance(frame["code"], str)
    assert {
        "protocol_version": 1,
        "type": "result",
        "request_id": "last",
        "ok": True,
        "result": {"pong": True, "protocol_version": 1},
    } in answers


PING = frame_bytes(protocol_version=1, type="request", request_id="last", operation="ping") + b"\n"


def test_registry_refuses_a_second_handler_for_one_name() -> None:
    registry = Registry()
    registry.add("x", lambda request, context: None)
    with pytest.raises(ValueError):
        registry.add("x", lambda request, context: None)
    assert "x" in registry and registry.names() == ["x"]
