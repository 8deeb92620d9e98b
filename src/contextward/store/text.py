"""Text the store can hold: SQLite stores UTF-8, so lone surrogates are replaced.

Must never: change text that is already valid (the common case returns it as is).
"""

from __future__ import annotations

import hashlib
import json

from ..redact import mask


def storable(text: str) -> str:
    """``text`` with lone surrogates (undecodable bytes from argv or files) replaced.

    SQLite stores UTF-8 only; without this a stray byte in a command line would
    make a write fail. Bytes that argv or a file could not decode come back as
    U+FFFD, as a reader would show them.
    """
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


def storable_id(value: str) -> str:
    """An id a host sent, as the store may keep it: repaired, and hashed when it holds a
    secret (hosts make ids themselves; a payload naming a session by a token is not one)."""
    value = storable(value)
    if mask(value) == value:
        return value
    return "masked-" + hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


def encodable(value: object) -> bool:
    """Whether JSON-like ``value`` holds no lone surrogate (JSON's "\\ud800" decodes to one)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["encodable", "storable", "storable_id"]
