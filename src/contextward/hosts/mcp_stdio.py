"""The stdio transport of ``contextward mcp``: one message a line, no request left unanswered.

The SDK's ``stdio_server`` hands a line it cannot parse to the server as an exception,
which is logged and dropped, so the caller waited until its own timeout. Here every
line the SDK's own parser accepts reaches the server unchanged, and the rest is
answered by the transport:

- bytes that are not UTF-8, or text that is not JSON: ``-32700 Parse error``, id null
  (nothing in the line can be trusted, not even whether it was a notification);
- JSON that is no message (a batch, a scalar, a missing or wrong field, a lone
  surrogate, a number past 4,300 digits): ``-32600 Invalid Request``, with the
  request's id when it is a string or an integer, else null; JSON nested past the
  recursion limit, with the id the line opens with. An ``id`` that is null,
  a bool or a float makes a request invalid: the SDK took it for a notification;
- what reads as a notification (a string ``method``, no ``id``) or as a response
  (``result`` or ``error``, no ``method``) is never answered, however malformed;
- a line longer than ``MAX_LINE`` (32 MiB) is skipped in 1 MiB chunks, never held
  whole, and answered ``-32600`` with the id it opens with (``{"jsonrpc": "2.0",
  "id": 7, "method": …``, as SDK clients write it: only plain members before it),
  else null;
- a blank line is skipped.

While serving, fd 0 reads the null device and fd 1 writes to stderr, as under the
SDK's transport: a tool or a child process can neither eat the client's input nor
tear a frame; the wire uses private duplicates.

Must never: repeat any part of a refused line (answer, stderr, log): an answer is a
code, a fixed message and at most the caller's own id.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    RequestId,
    jsonrpc_message_adapter,
)
from pydantic import ValidationError
from pydantic_core import from_json

#: What the server is given: the SDK's read and write streams, served until the read side ends.
Serve = Callable[
    [ObjectReceiveStream[SessionMessage | Exception], ObjectSendStream[SessionMessage]],
    Awaitable[None],
]


@dataclass(frozen=True)
class Refused:
    """A line that is no message for the server; ``answer`` is what the client is told
    (None: nothing, for a notification, a response or a blank line)."""

    answer: JSONRPCError | None


def parse_line(line: bytes) -> JSONRPCMessage | Refused:
    """The message on one line, or its refusal; never raises for what the line holds."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return Refused(_error(PARSE_ERROR, None))
    if not text or text.isspace():
        return Refused(None)
    try:
        # The SDK's parser in two steps: its one-step validate_json took 6 GB and 19 s
        # to refuse a 50 MB line of numbers (each error holds its own copy of the
        # input); these take 0.5 GB and agree with it on every line (a hypothesis
        # test pins that).
        value = from_json(text)
    except ValueError:
        return _refuse_text(text)
    try:
        message = jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        return _refuse_value(value)
    if isinstance(message, JSONRPCNotification) and "id" in value:
        return Refused(_error(INVALID_REQUEST, None))
    return message


def _refuse_text(text: str) -> Refused:
    try:
        # The standard library reads what the SDK's parser refuses to: lone surrogates,
        # numbers past its limit, deep nesting (up to the recursion limit).
        value = json.loads(text, parse_int=_integer)
    except ValueError:
        return Refused(_error(PARSE_ERROR, None))
    except RecursionError:
        # JSON nested past the recursion limit: no request to read, but the id it opens
        # with is the caller's, who would otherwise wait for its own timeout.
        head = text[:_HEAD].encode("utf-8", "replace")
        return Refused(_error(INVALID_REQUEST, leading_id(head)))
    return _refuse_value(value)


def _refuse_value(value: Any) -> Refused:
    """The refusal of a JSON value the SDK cannot take as a message."""
    if not isinstance(value, dict):
        return Refused(_error(INVALID_REQUEST, None))
    is_response = "method" not in value and ("result" in value or "error" in value)
    if is_response or ("id" not in value and isinstance(value.get("method"), str)):
        return Refused(None)
    return Refused(_error(INVALID_REQUEST, _usable_id(value.get("id"))))


def _integer(digits: str) -> int | None:
    """A JSON integer; None past Python's 4,300-digit limit (valid JSON, never an id)."""
    try:
        return int(digits)
    except ValueError:
        return None


def _usable_id(value: Any) -> RequestId | None:
    if type(value) is int:
        return value
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate cannot go back on the wire
            return None
        return value
    return None


def _error(code: int, request_id: RequestId | None) -> JSONRPCError:
    message = "Parse error" if code == PARSE_ERROR else "Invalid Request"
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=message))


async def serve_stdio(serve: Serve) -> None:
    """Run ``serve`` on this process's stdin and stdout until stdin ends."""
    with _claimed_stdio() as (wire_in, wire_out):
        to_server, from_client = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        to_client, from_server = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read, wire_in, to_server, to_client.clone())
            tasks.start_soon(_write, anyio.wrap_file(wire_out), from_server)
            await serve(from_client, to_client)


#: The longest line read whole (a tool call carrying a long summary is a few MiB); a
#: longer one is skipped in chunks of ``_CHUNK`` and refused, so memory stays bounded.
MAX_LINE = 32 * 2**20
_CHUNK = 2**20


@dataclass(frozen=True)
class TooLong:
    """A line over ``MAX_LINE``, skipped; ``head`` is its start, where an id may lead."""

    head: bytes


async def _lines(stdin: BinaryIO) -> AsyncIterator[bytes | TooLong]:
    """Each line of ``stdin``, or the head of one longer than ``MAX_LINE`` (skipped unread)."""
    while line := await anyio.to_thread.run_sync(stdin.readline, MAX_LINE + 1):
        if len(line.removesuffix(b"\n")) <= MAX_LINE:
            yield line
            continue
        head = line[:_HEAD]
        # Over the cap: the rest of the line is read in chunks and dropped.
        while not line.endswith(b"\n") and (
            line := await anyio.to_thread.run_sync(stdin.readline, _CHUNK)
        ):
            pass
        yield TooLong(head)


_HEAD = 4096
_STRING = rb'"(?:[^"\\]|\\.)*"'
#: An object whose first members are plain (strings, numbers, literals), then ``"id"``.
_LEADING_ID = re.compile(
    rb"\A\s*\{(?:\s*" + _STRING + rb"\s*:\s*(?:" + _STRING + rb"|[-+.\w]+)\s*,)*?"
    rb'\s*"id"\s*:\s*(-?\d{1,18}|' + _STRING + rb")\s*[,}]"
)


def leading_id(head: bytes) -> RequestId | None:
    """The id an over-long line opens with, if it is a string or an integer; else None."""
    match = _LEADING_ID.match(head)
    if match is None:
        return None
    try:
        match.group(0).decode("utf-8")  # bytes that are not UTF-8: nothing can be trusted
        value = json.loads(match.group(1))
    except ValueError:  # UnicodeDecodeError included, or a bad escape
        return None
    return _usable_id(value)


async def _read(
    stdin: BinaryIO,
    to_server: ObjectSendStream[SessionMessage | Exception],
    to_client: ObjectSendStream[SessionMessage],
) -> None:
    async with to_server, to_client:
        async for line in _lines(stdin):
            parsed = (
                Refused(_error(INVALID_REQUEST, leading_id(line.head)))
                if isinstance(line, TooLong)
                else parse_line(line)
            )
            try:
                if not isinstance(parsed, Refused):
                    await to_server.send(SessionMessage(parsed))
                elif parsed.answer is not None:
                    await to_client.send(SessionMessage(parsed.answer))
            except anyio.BrokenResourceError:  # the server has stopped: nothing to serve
                return


async def _write(
    stdout: anyio.AsyncFile[bytes], from_server: ObjectReceiveStream[SessionMessage]
) -> None:
    async with from_server:
        async for outgoing in from_server:
            frame = outgoing.message.model_dump_json(by_alias=True, exclude_unset=True)
            await stdout.write(frame.encode("utf-8") + b"\n")
            await stdout.flush()


@contextmanager
def _claimed_stdio() -> Iterator[tuple[BinaryIO, BinaryIO]]:
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    try:
        # closefd=False: a worker thread may still block in a read when serving ends.
        yield os.fdopen(wire_in, "rb", closefd=False), os.fdopen(wire_out, "wb", closefd=False)
    finally:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
