"""Text the store can hold: SQLite stores UTF-8, so lone surrogates are replaced.

Must never: change text that is already valid (the common case returns it as is).
"""

from __future__ import annotations

import json


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


def encodable(value: object) -> bool:
    """Whether JSON-like ``value`` holds no lone surrogate (JSON's "\\ud800" decodes to one)."""
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["encodable", "storable"]
