"""Frames of the JSONL bridge, protocol v1: reading one line under a size cap, and validation.

Owns: the wire constants (protocol version, frame cap, frame types), reading
one newline-terminated frame from a byte stream without ever holding more
than the cap in memory, turning its bytes into a validated `Frame`, and
encoding outgoing frames.

Must never: echo the content of a frame in an error (only structural facts:
a field name, a type, a size), raise anything but `BridgeError` on bad input,
or do any I/O except reading the stream it is handed.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any, Final, Literal

from ..store.text import encodable
from .bridge_errors import BridgeError

#: The only protocol version this bridge speaks.
PROTOCOL_VERSION: Final = 1
#: The largest frame, in bytes, without its newline (2 MB).
MAX_FRAME_BYTES: Final = 2 * 1024 * 1024
#: Frame types a host may send.
INBOUND_TYPES: Final = ("request", "provider_response")
#: Every frame type of protocol v1.
FRAME_TYPES: Final = ("error", "provider_request", "provider_response", "request", "result")
#: Longest accepted request id or operation name, in characters.
MAX_ID_CHARS: Final = 200

# Discarding an over-long line in bounded chunks keeps memory flat even for
# a multi-gigabyte line.
_DISCARD_CHUNK = 64 * 1024

RequestId = str | int
FrameType = Literal["request", "provider_response"]


@dataclass(frozen=True)
class Line:
    """One raw frame read from the stream: its bytes, or the fact that it was too long."""

    data: bytes
    too_long: bool = False


@dataclass(frozen=True)
class Frame:
    """A validated inbound frame. ``body`` is the whole decoded JSON object."""

    type: FrameType
    request_id: RequestId
    body: Mapping[str, Any]


def read_line(stream: IO[bytes], limit: int = MAX_FRAME_BYTES) -> Line | None:
    """Read one frame line; ``None`` at end of input.

    A line longer than ``limit`` bytes is consumed up to and including its
    newline in fixed-size chunks and reported as ``too_long``; its bytes are
    not kept.
    """
    data = stream.readline(limit + 1)
    if not data:
        return None
    if data.endswith(b"\n"):
        return Line(data[:-1])
    if len(data) <= limit:
        return Line(data)  # the last line of the input, without a newline
    while True:
        chunk = stream.readline(_DISCARD_CHUNK)
        if not chunk or chunk.endswith(b"\n"):
            return Line(b"", too_long=True)


def parse_frame(data: bytes) -> Frame:
    """Decode and validate one inbound frame, or raise `BridgeError` naming the problem."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BridgeError("bad_frame", f"frame is not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise BridgeError(
            "bad_frame", f"frame is not JSON (line {exc.lineno} column {exc.colno})"
        ) from None
    except (RecursionError, ValueError):
        raise BridgeError("bad_frame", "frame is not valid JSON (too deep or not finite)") from None
    if not isinstance(value, dict):
        raise BridgeError("bad_frame", f"frame is a JSON {_json_kind(value)}, not an object")
    if "\\u" in text and not encodable(value):
        # "\ud800" alone decodes to half a surrogate pair, which nothing could store or
        # answer: a JavaScript host's text cut inside an emoji sends one. Repaired as a
        # transcript reader repairs it (U+FFFD), never a reason to refuse the request.
        value = _repaired(value)
    return validate_frame(value)


_SURROGATE = re.compile("[\ud800-\udfff]")


def _repaired(value: Any) -> Any:
    """``value`` with every lone surrogate of its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_repaired(item) for item in value]
    if isinstance(value, dict):
        return {_repaired(key): _repaired(item) for key, item in value.items()}
    return value


def validate_frame(body: dict[str, Any]) -> Frame:
    """Check the envelope every inbound frame shares: version, type, request id."""
    request_id = body.get("request_id")
    known_id = request_id if is_request_id(request_id) else None
    if "protocol_version" not in body:
        raise BridgeError(
            "unsupported_version",
            f"missing protocol_version; this bridge speaks protocol_version {PROTOCOL_VERSION}",
            request_id=known_id,
        )
    version = body["protocol_version"]
    if type(version) is not int or version != PROTOCOL_VERSION:
        raise BridgeError(
            "unsupported_version",
            f"unsupported protocol_version; this bridge speaks protocol_version {PROTOCOL_VERSION}",
            request_id=known_id,
        )
    frame_type = body.get("type")
    if not isinstance(frame_type, str):
        raise BridgeError("bad_frame", "frame has no string field 'type'", request_id=known_id)
    if frame_type not in INBOUND_TYPES:
        expected = " or ".join(INBOUND_TYPES)
        raise BridgeError(
            "bad_frame",
            f"a host may not send frames of this type; expected {expected}",
            request_id=known_id,
        )
    if known_id is None:
        raise BridgeError(
            "bad_frame",
            f"a {frame_type} frame needs a request_id "
            f"(a non-empty string of at most {MAX_ID_CHARS} characters, or an integer)",
        )
    if frame_type == "request":
        operation = body.get("operation")
        if not (isinstance(operation, str) and 0 < len(operation) <= MAX_ID_CHARS):
            raise BridgeError(
                "bad_frame", "a request needs a string field 'operation'", request_id=known_id
            )
        return Frame("request", known_id, body)
    return Frame("provider_response", known_id, body)


def is_request_id(value: object) -> bool:
    """A request id is a non-empty short string or an integer (never a boolean)."""
    if isinstance(value, str):
        return 0 < len(value) <= MAX_ID_CHARS
    return type(value) is int


def encode(frame: Mapping[str, Any]) -> bytes:
    """One outbound frame as a line of UTF-8 JSON (raises ValueError/TypeError if not JSON)."""
    text = json.dumps(frame, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"


def error_frame(message: str, code: str, request_id: RequestId | None = None) -> dict[str, Any]:
    """The frame that answers input the bridge could not take as a request."""
    frame: dict[str, Any] = {
        "protocol_version": PROTOCOL_VERSION,
        "type": "error",
        "error": message,
        "code": code,
    }
    if request_id is not None:
        frame["request_id"] = request_id
    return frame


def _reject_constant(name: str) -> float:
    # NaN and Infinity are not JSON; accepting them would let a frame through
    # that no other JSON parser (the host's included) could read back.
    if name in {"NaN", "Infinity", "-Infinity"}:
        raise ValueError(name)
    return math.nan  # pragma: no cover - json only calls this for the three names above


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"
