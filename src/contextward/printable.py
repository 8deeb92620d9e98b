"""Text safe to print on a terminal or hand to a model: no escape sequences, no controls.

A leaf module (stdlib only). Transcript text can carry terminal escapes (an OSC
that retitles the window, a CSI that moves the cursor) and bidi or zero-width
format characters that make a line read as something else; what we print shows
the words only. Never changes printable characters.
"""

from __future__ import annotations

import re

#: Terminal escape sequences, removed whole (their payload is not text).
ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC … BEL / ST (titles, hyperlinks)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement)
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)


def printable(value: str) -> str:
    """``value`` without escape sequences; other unprintable characters (controls, bidi
    overrides, zero-width marks) become spaces. Newlines and tabs stay."""
    value = ANSI.sub("", value)
    if value.isprintable():
        return value
    return "".join(ch if ch.isprintable() or ch in "\n\t" else " " for ch in value)


def counted(n: int, word: str) -> str:
    """ "1 message", "2 messages": a count with its noun (an English plural in -s)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def one_line(value: str) -> str:
    """``printable(value)`` with all whitespace, newlines included, collapsed to single spaces."""
    return " ".join(printable(value).split())
