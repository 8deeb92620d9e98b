"""The reader seam: a byte source read in bounded pieces, and the Reader protocol.

Owns peeking for format detection and line/chunk iteration with a size cap.
Never holds more than one line (or one chunk) of the transcript at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, Protocol

from ..message import Message, Skips

#: A line (or JSON element) longer than this is skipped, never loaded whole.
MAX_RECORD = 32 * 1024 * 1024
CHUNK = 1024 * 1024
PEEK = 64 * 1024
#: How far detection reads on when the peek ends inside a line that names no format.
PEEK_FURTHER = 8 * 1024 * 1024
BOM = b"\xef\xbb\xbf"


class Reader(Protocol):
    """Turns a transcript's bytes into messages, counting what it skipped and why."""

    def __call__(self, source: ByteSource, skips: Skips) -> Iterator[Message]: ...


class ByteSource:
    """A binary stream whose first bytes were peeked; iterate it once, as lines or chunks."""

    def __init__(self, stream: BinaryIO, *, max_record: int = MAX_RECORD) -> None:
        self._stream = stream
        self.max_record = max_record
        self.head = stream.read(PEEK)
        self._pos = 0

    def _read(self, n: int) -> bytes:
        if self._pos < len(self.head):
            part = self.head[self._pos : self._pos + n]
            self._pos += len(part)
            return part
        if self.head:
            self.head = b""  # read (it may be megabytes when detection read on)
            self._pos = 0
        return self._stream.read(n)

    def peek_further(self, limit: int = PEEK_FURTHER) -> bool:
        """Read on, before any reading, until the peek holds ``PEEK`` bytes of a line that
        starts after what it held, or ``limit`` bytes in all; whether it grew."""
        if self._pos or len(self.head) < PEEK:
            return False  # reading began, or the stream ended within the peek
        parts, size, newline = [self.head], len(self.head), -1
        while size < limit and (newline < 0 or size - newline <= PEEK):
            data = self._stream.read(min(CHUNK, limit - size))
            if not data:
                break
            if newline < 0 and (found := data.find(b"\n")) >= 0:
                newline = size + found
            parts.append(data)
            size += len(data)
        self.head = b"".join(parts)
        return len(parts) > 1

    def chunks(self, size: int = CHUNK) -> Iterator[bytes]:
        while True:
            data = self._read(size)
            if not data:
                return
            yield data

    def lines(self) -> Iterator[tuple[int, bytes | None, bool]]:
        """Yield ``(line number, line or None if too large, torn)``.

        ``torn`` is true for a last line without a newline (a writer was cut off).
        """
        number = 0
        carry = b""
        oversized = False
        for chunk in self.chunks():
            start = 0
            while True:
                end = chunk.find(b"\n", start)
                if end < 0:
                    rest = chunk[start:]
                    if not oversized:
                        carry += rest
                        if len(carry) > self.max_record:
                            carry, oversized = b"", True
                    break
                number += 1
                if oversized or len(carry) + end - start > self.max_record:
                    yield number, None, False
                else:
                    yield number, carry + chunk[start:end], False
                carry, oversized = b"", False
                start = end + 1
        if oversized:
            yield number + 1, None, True
        elif carry.strip():
            yield number + 1, carry, True
