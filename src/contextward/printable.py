"""Text safe to print on a terminal or hand to a model: no escape sequences, no controls.

A leaf module (stdlib only). Transcript text can carry terminal escapes (an OSC
that retitles the window, a CSI that moves the cursor) and bidi or zero-width
format characters that make a line read as something else; what we print shows
the words only. Never changes printable characters.
"""

from __future__ import annotations

import json
import re
import unicodedata

#: Terminal escape sequences, removed whole (their payload is not text).
ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC … BEL / ST (titles, hyperlinks)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement)
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)


#: Characters no terminal shows as themselves: controls JSON leaves raw (DEL, C1), bidi
#: overrides and isolates, zero-width marks, line and paragraph separators, and the
#: soft hyphen, byte order mark and interlinear annotations.
_HIDDEN = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb]"
)


def printable(value: str) -> str:
    """``value`` without escape sequences; other unprintable characters (controls, bidi
    overrides, zero-width marks) become spaces. Newlines, tabs and every other space
    (an ideographic space, a no-break space) stay as they are."""
    value = ANSI.sub("", value)
    if value.isprintable():
        return value
    return "".join(
        ch if ch.isprintable() or ch in "\n\t" or unicodedata.category(ch) == "Zs" else " "
        for ch in value
    )


def json_text(data: object, *, indent: int | None = 2) -> str:
    """``data`` as JSON for a terminal or a file: every character as written, except those
    a terminal would not show as themselves (``_HIDDEN``), which are ``\\uXXXX`` escapes
    (the same value to any JSON reader)."""
    return json_visible(json.dumps(data, ensure_ascii=False, indent=indent))


def json_visible(text: str) -> str:
    """JSON ``text`` with the characters a terminal would not show as themselves
    (``_HIDDEN``) as ``\\uXXXX`` escapes: ``json_text`` of JSON written otherwise."""
    return _HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def counted(n: int, word: str) -> str:
    """ "1 message", "2 messages": a count with its noun (an English plural in -s)."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


_SPACE_RUN = re.compile(r"\s+")


def one_line(value: str) -> str:
    """``printable(value)`` on one line: each run of whitespace, newlines included, one space,
    except a lone space character, kept as written (an ideographic space is verbatim)."""
    return _SPACE_RUN.sub(_one_space, printable(value)).strip()


#: A line opening or closing a fenced code block.
_FENCE = re.compile(r"^[ \t]*(?:```|~~~)", re.M)


def item_text(value: str) -> str:
    """``value`` as a list item's text: ``one_line``, but a fenced code block (``` or ~~~)
    keeps its lines, the later ones indented under the item: joined, two commands
    would read as one."""
    if "\n" not in value or not _FENCE.search(value):
        return one_line(value)
    return "\n  ".join(printable(value).strip().splitlines())


def _one_space(match: re.Match[str]) -> str:
    run = match.group()
    return run if len(run) == 1 and run not in "\n\r\t\v\f\x1c\x1d\x1e\x85" else " "
