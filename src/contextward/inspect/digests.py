"""The statements an inspection has seen, each numbered once: what makes two one.

Owns what two statements of one thing share (``statement_key``) and the one structure
of a streamed inspection that grows with the transcript: every distinct statement's
16-byte digest, kept so that a copy said any time later merges into its first statement
(``inspector._Builder``). A dict of bytes to ints holds one 49-byte bytes object, one
int and one slot per statement, about 130 bytes; here each is two unsigned 64-bit
halves in flat arrays and one index in an open-addressed table, 29 to 41 bytes. Never
decides what a statement is.
"""

from __future__ import annotations

import hashlib
import struct
from array import array

from .lexicon import narrow

_QUOTES = "\"'`“”‘’「」『』 "

#: A digest's two halves, little-endian: the low one places it in the table.
_HALVES = struct.Struct("<QQ").unpack
#: The table's first size (a power of two); it doubles before it is two-thirds full.
_START = 1 << 10
_EMPTY = -1


class DigestTable:
    """16-byte digests, each numbered by the order in which it was first added.

    ``add`` is the one operation: it returns the digest's number.
    Linear probing on the low half, which a cryptographic digest spreads evenly; the
    halves live in arrays indexed by number, so growing rebuilds only the index table.
    """

    __slots__ = ("_high", "_low", "_mask", "_slots")

    def __init__(self) -> None:
        self._low: array[int] = array("Q")
        self._high: array[int] = array("Q")
        self._slots: array[int] = array("q", [_EMPTY]) * _START
        self._mask = _START - 1

    def __len__(self) -> int:
        return len(self._low)

    def add(self, digest: bytes) -> int:
        """The number of ``digest`` (16 bytes): a digest already in the table keeps its
        number, a new one takes the next."""
        low, high = _HALVES(digest)
        slots, lows, highs, mask = self._slots, self._low, self._high, self._mask
        at: int = low & mask
        while (number := slots[at]) != _EMPTY:
            if lows[number] == low and highs[number] == high:
                return number
            at = (at + 1) & mask
        number = len(lows)
        slots[at] = number
        lows.append(low)
        highs.append(high)
        if 3 * len(lows) >= 2 * len(slots):
            self._grow()
        return number

    def _grow(self) -> None:
        size = 2 * len(self._slots)
        slots = array("q", [_EMPTY]) * size
        mask = size - 1
        for number, low in enumerate(self._low):
            at = low & mask
            while slots[at] != _EMPTY:
                at = (at + 1) & mask
            slots[at] = number
        self._slots, self._mask = slots, mask


def statement_key(text: str) -> str:
    """What two statements of one thing share: the words, folded, without the quotation
    marks a summary puts around the user's ("\"Use Redis.\"") or a closing full stop,
    fullwidth letters and digits as ASCII ("ｎｅｖｅｒ ｐｕｓｈ ｔｏ ｍａｉｎ．")."""
    return " ".join(narrow(text).split()).strip(_QUOTES).rstrip(".。．!！").casefold()


class Statements:
    """Statements numbered by their key (``statement_key``): a copy takes the number of
    the first statement it copies, a new one the next. Where the messages are read
    (``inspector._reads``), in a reading process of its own or not."""

    __slots__ = ("_table",)

    def __init__(self) -> None:
        self._table = DigestTable()

    def number(self, text: str) -> int:
        key = statement_key(text).encode()
        return self._table.add(hashlib.blake2b(key, digest_size=16).digest())
