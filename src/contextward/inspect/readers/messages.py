"""The generic messages reader (DESIGN.md's shape) and OpenAI chat messages.

Streams a JSON list, ``{"messages": [...]}``, or one message object per line,
decoding one element at a time so a large file is never held whole. Never
interprets content: it only normalises roles, ids and blocks.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

from ..message import Message, Skips, role_of
from .base import BOM, CHUNK, ByteSource
from .content import block_text, tool_call_text
from .jsonl import objects

_WS = " \t\r\n"
_DECODER = json.JSONDecoder()
_REPLACEMENT = "\ufffd".encode()
#: What a skipped value's end is found by: outside a string, its quotes and brackets and
#: commas; inside one, its end, an escape, or a raw newline (which no JSON string holds).
_OUTSIDE = re.compile(r'["{}\[\],]')
_QUOTED = re.compile(r'["\\\n]')
#: A decode error this near the end of the text read may be a value cut by a chunk's end.
_NEAR_END = 16


class _Stream:
    """Incrementally decoded text with raw_decode over a sliding buffer.

    A byte order mark is dropped; bytes that are not UTF-8 become U+FFFD and are
    counted (``not_utf8_replaced``), never a reason to lose the message around them.
    """

    def __init__(self, source: ByteSource, skips: Skips) -> None:
        self._chunks = source.chunks(CHUNK)
        self._decoder = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._tail = b""
        self._max = source.max_record
        self._skips = skips
        self.buf = ""
        self.pos = 0
        self.eof = False

    def fill(self) -> bool:
        if self.eof:
            return False
        data = next(self._chunks, None)
        if data is None:
            self.eof = True
            self.buf += self._decoded(b"", final=True)
            return False
        if self.pos > CHUNK:
            # One character before the position is kept: whether a line starts there.
            self.buf, self.pos = self.buf[self.pos - 1 :], 1
        self.buf += self._decoded(data)
        return True

    def _decoded(self, data: bytes, *, final: bool = False) -> str:
        text = self._decoder.decode(data, final)
        if "\ufffd" in text:
            # U+FFFD the bytes spelled out were there already; the rest replaced bad bytes.
            written = (self._tail + data).count(_REPLACEMENT)
            if replaced := text.count("\ufffd") - written:
                self._skips.add("not_utf8_replaced", replaced)
        self._tail = data[-2:]
        return text

    def peek(self) -> str:
        """The next non-space character ('' at the end), positioned on it."""
        while True:
            while self.pos < len(self.buf) and self.buf[self.pos] in _WS:
                self.pos += 1
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.fill():
                return ""

    def line_start(self) -> bool:
        """Whether the position is the first character of a line."""
        return self.pos == 0 or self.buf[self.pos - 1] == "\n"

    def value(self, within: str) -> tuple[bool, Any]:
        """Decode one JSON value; ``(False, None)`` after skipping a malformed one (see
        ``skip`` for what ``within`` says of where the value is)."""
        self.peek()  # raw_decode does not skip leading whitespace
        while True:
            try:
                obj, end = _DECODER.raw_decode(self.buf, self.pos)
            except RecursionError:
                return self._failed("nested_too_deeply", within)
            except json.JSONDecodeError as exc:
                # Only a value the chunk's end cut can be read with more text: an error
                # before that is in the text itself, whatever follows (never read to the
                # record limit for a broken element of 14 bytes).
                cut = exc.pos >= len(self.buf) - _NEAR_END or exc.msg.startswith(
                    "Unterminated string"
                )
                if not cut:
                    return self._failed("malformed_json", within)
                if len(self.buf) - self.pos > self._max:
                    return self._failed("record_too_large", within)
                if self.fill():
                    continue
                return self._failed("malformed_json", within)
            except ValueError:  # an integer of more digits than Python converts
                return self._failed("malformed_json", within)
            too_large = end - self.pos > self._max
            self.pos = end
            if too_large:
                self._skips.add("record_too_large")
                return False, None
            return True, obj

    def _failed(self, reason: str, within: str) -> tuple[bool, Any]:
        self._skips.add(reason)
        self.skip(within)
        return False, None

    def skip(self, within: str) -> None:
        """Pass the rest of a value that could not be read, never reading a value nested
        in it as one of its own (a quoted message is no message). Strings and brackets
        are followed as they open and close, a piece at a time (what is passed is let go):

        - ``array``: an element; stops on the ``,`` or ``]`` after it;
        - ``object``: a value of a top-level object, which is given up: stops after the
          object's ``}``, or on a ``{`` or ``[`` that starts a line (the next line's
          record when this one was cut off);
        - ``top``: a top-level value; stops on a ``,`` after it, or as ``object`` does
          on a line's ``{`` or ``[``.

        A raw newline ends a string (no JSON string holds one), so a stray quote costs
        at most its line's place in the count of brackets.
        """
        depth, quoted, i = 0, False, self.pos
        begin = i  # the value's own first character starts no next record
        lines = within != "array"
        while True:
            found = (_QUOTED if quoted else _OUTSIDE).search(self.buf, i)
            if found is None:
                self.pos = len(self.buf)
                if not self.fill():
                    return
                i, begin = self.pos, -1
                continue
            i = found.start()
            char = self.buf[i]
            if quoted:
                if char == "\\":
                    if i + 1 == len(self.buf):  # what it escapes is in the next chunk
                        self.pos = i
                        if not self.fill():
                            self.pos = len(self.buf)
                            return
                        i, begin = self.pos, -1
                        continue
                    i += 2
                    continue
                quoted = False  # its closing quote, or a raw newline
            elif char == '"':
                quoted = True
            elif char in "{[":
                if lines and i != begin and i and self.buf[i - 1] == "\n":
                    self.pos = i
                    return
                depth += 1
            elif char in "}]":
                if depth:
                    depth -= 1
                elif within == "array" and char == "]":
                    self.pos = i
                    return
                elif within == "object" and char == "}":
                    self.pos = i + 1
                    return
                # else a bracket closing nothing here: passed over
            elif depth == 0 and within != "object":  # a comma after the value
                self.pos = i
                return
            i += 1


def read(source: ByteSource, skips: Skips) -> Iterator[Message]:
    """Messages from a JSON list, a ``{"messages": [...]}`` object, or JSON lines."""
    ids = _Ids()
    if _json_lines(source.head):
        # Line by line: a line cut off ('{"role":"user",') is one skip, never a reason to
        # read the next line's message as its value.
        for obj in objects(source, skips):
            if "messages" in obj:
                listed = obj["messages"]
                if isinstance(listed, list):
                    for item in listed:
                        yield from messages_of(item, ids, skips)
                else:
                    skips.add("messages_not_a_list")
                if "role" not in obj:
                    continue
            # A message (after its list, when it has both: neither is lost).
            yield from messages_of(obj, ids, skips)
        return
    stream = _Stream(source, skips)
    while True:
        char = stream.peek()
        if not char:
            return
        if char == "[":
            stream.pos += 1
            yield from _array(stream, skips, ids)
        elif char == "{":
            yield from _object(stream, skips, ids)
        elif char == ",":
            stream.pos += 1
        else:
            ok, _ = stream.value("top")
            if ok:
                skips.add("not_an_object")


def _json_lines(head: bytes) -> bool:
    """Whether a file is one JSON object per line: its first line is a whole object, and
    another line follows it (a document pretty-printed over lines starts with a line
    that is no whole value; one whose first line is past the peeked bytes is streamed)."""
    first, newline, rest = head.removeprefix(BOM).lstrip().partition(b"\n")
    if not newline or not first.startswith(b"{") or not rest.strip():
        return False
    try:
        return isinstance(json.loads(first), dict)
    except (ValueError, RecursionError):
        return False


def _array(stream: _Stream, skips: Skips, ids: _Ids) -> Iterator[Message]:
    while True:
        char = stream.peek()
        if char in ("]", ""):
            stream.pos += 1 if char else 0
            return
        if char == ",":
            stream.pos += 1
            continue
        ok, item = stream.value("array")
        if ok:
            yield from messages_of(item, ids, skips)


def _object(stream: _Stream, skips: Skips, ids: _Ids) -> Iterator[Message]:
    """A wrapper object (its ``messages`` list is streamed) or a message object."""
    stream.pos += 1
    fields: dict[str, Any] = {}
    while True:
        char = stream.peek()
        if char == "}":
            stream.pos += 1
            break
        if char == ",":
            stream.pos += 1
            continue
        if char != '"':
            # No key where one belongs: this object was cut off when a line starts with
            # the next object (the next message, never a value of this one); else the
            # object is broken, and passed whole (an object in it is no message).
            skips.add("malformed_json")
            if not (char in "{[" and stream.line_start()):
                stream.skip("object")
            return
        ok, key = stream.value("object")
        if not ok:
            return
        if stream.peek() != ":":
            skips.add("malformed_json")
            stream.skip("object")
            return
        stream.pos += 1
        if key == "messages" and stream.peek() == "[":
            stream.pos += 1
            yield from _array(stream, skips, ids)
            fields["messages"] = True
            continue
        ok, value = stream.value("object")
        if not ok:
            return
        if key == "messages":
            skips.add("messages_not_a_list")  # null, a string: nothing to read, but say so
        fields[key] = value
    if "messages" not in fields or "role" in fields:
        # A wrapper with a role is a message too, read after its list (neither is lost).
        yield from messages_of(fields, ids, skips)


class _Ids:
    """Each element's message id: its own, else ``m<position>`` (stable). The two never
    meet: a position's id steps aside (``m2~2``) for an own id taken before, and an own id
    for a position's id given before (``m1~2``). An id the transcript itself repeats is
    its own choice and stays one source."""

    def __init__(self) -> None:
        self.position = 0
        self._own: set[str] = set()  # own ids shaped like positional ones
        self._given: set[str] = set()  # positional ids given

    def next(self, raw: object) -> str:
        self.position += 1
        if isinstance(raw, str | int) and (own := str(raw)):
            if not _POSITIONAL.fullmatch(own):
                return own
            mid, n = own, 1
            while mid in self._given:
                n += 1
                mid = f"{own}~{n}"
            self._own.add(mid)
            return mid
        mid, n = f"m{self.position}", 1
        while mid in self._own:
            n += 1
            mid = f"m{self.position}~{n}"
        self._given.add(mid)
        return mid


_POSITIONAL = re.compile(r"m\d+(?:~\d+)?")


def messages_of(item: Any, ids: _Ids, skips: Skips) -> Iterator[Message]:
    """Normalise one generic or OpenAI message; tool calls become tool messages."""
    if not isinstance(item, dict):
        ids.position += 1
        skips.add("not_an_object")
        return
    mid = ids.next(item.get("id", item.get("tool_call_id")))
    kind = item.get("type")
    if "role" not in item and isinstance(kind, str) and kind in _GEMINI_TYPES:
        # Gemini CLI's chat recording: {"type": "user" | "gemini", "content", "toolCalls"}.
        yield from _gemini(mid, kind, item, skips)
        return
    role = role_of(item.get("role"))
    if role is None:
        skips.add("unknown_role")
        return
    content = item.get("content")
    tool_name = item.get("tool_name", item.get("name"))
    before = skips.total()
    text = block_text(content, skips)
    unread = skips.total() > before  # content of no known shape: counted once, there
    said = bool(text.strip()) or role == "tool"
    if said:
        yield Message(
            id=mid,
            role=role,
            text=text,
            tool_name=tool_name if isinstance(tool_name, str) and role == "tool" else None,
            is_error=item.get("is_error") is True,
        )
    for block in _tool_blocks(mid, content, skips):
        said = True
        yield block
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls:
        said = True
        for n, call in enumerate(calls, 1):
            if not isinstance(call, dict):
                skips.add("unknown_block")
                continue
            function = call.get("function") if isinstance(call.get("function"), dict) else {}
            name = function.get("name") if isinstance(function, dict) else None
            args = function.get("arguments") if isinstance(function, dict) else None
            cid = call.get("id")
            yield Message(
                id=str(cid) if isinstance(cid, str) and cid else f"{mid}:call{n}",
                role="tool",
                text=tool_call_text(name, args),
                tool_name=name if isinstance(name, str) else None,
            )
    if not said and not unread:
        skips.add("empty_message")


def _tool_blocks(mid: str, content: Any, skips: Skips) -> Iterator[Message]:
    if not isinstance(content, list):
        return
    for n, block in enumerate(content, 1):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "tool_use":
            bid = block.get("id")
            yield Message(
                id=bid if isinstance(bid, str) and bid else f"{mid}:use{n}",
                role="tool",
                text=tool_call_text(block.get("name"), block.get("input")),
                tool_name=block.get("name") if isinstance(block.get("name"), str) else None,
            )
        elif kind == "tool_result":
            bid = block.get("tool_use_id")
            yield Message(
                id=f"{bid}:result" if isinstance(bid, str) and bid else f"{mid}:result{n}",
                role="tool",
                text=block_text(block.get("content"), skips),
                is_error=block.get("is_error") is True,
            )


#: Gemini CLI's message types: the owner's, the model's, and the CLI's own notices.
_GEMINI_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})


def _gemini(mid: str, kind: str, item: dict[str, Any], skips: Skips) -> Iterator[Message]:
    """One message of a Gemini CLI chat recording, its tool calls as tool messages."""
    if kind not in ("user", "gemini"):
        skips.add(f"gemini_{kind}")  # the CLI's own notice, not the conversation
        return
    text = block_text(item.get("content"), skips)
    said = bool(text.strip())
    if said:
        yield Message(id=mid, role="user" if kind == "user" else "assistant", text=text)
    calls = item.get("toolCalls")
    for n, call in enumerate(calls if isinstance(calls, list) else (), 1):
        if not isinstance(call, dict):
            skips.add("unknown_block")
            continue
        name = call.get("name") if isinstance(call.get("name"), str) else None
        cid = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else None
        said = True
        yield Message(
            id=cid or f"{mid}:call{n}",
            role="tool",
            text=tool_call_text(name, call.get("args")),
            tool_name=name,
        )
        shown = call.get("resultDisplay")
        if isinstance(shown, str) and shown.strip():
            yield Message(
                id=f"{cid or f'{mid}:call{n}'}:result",
                role="tool",
                text=shown,
                tool_name=name,
                is_error=call.get("status") == "error",
            )
    if not said:
        skips.add("empty_message")
