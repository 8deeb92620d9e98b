"""Text as a terminal or a model is shown it: what both verifiers compare.

A transcript can carry terminal escape sequences (``\\x1b[1m…\\x1b[0m``) and
characters no terminal shows as themselves (controls, bidi overrides,
zero-width marks). A snapshot keeps an item's text as it was said, escapes and
all, while what a summariser is shown (guidance, the restore block) is printed
without them, so a faithful summary holds the item as printed. Verifying both
sides in this form makes that summary verify, for snapshots written before or
after, and for a context that kept the escapes.

The same rules as ``contextward.printable.printable`` (a test keeps the two in
step): the core imports nothing else of contextward. Stdlib only, pure.
"""

from __future__ import annotations

import re
import unicodedata

#: Terminal escape sequences, removed whole (their payload is not text).
ANSI = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC … BEL / ST (titles, hyperlinks)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement)
    r"|\x1b[@-Z\\-_]"  # other two-byte escapes
)


def shown(text: str) -> str:
    """``text`` without escape sequences; other unprintable characters (controls, bidi
    overrides, zero-width marks) become spaces. Newlines, tabs and every other space
    stay as they are. Text that needs nothing (most) is returned as it is, after one
    test; of a long text only the lines that need it are rebuilt."""
    if "\x1b" in text:
        text = ANSI.sub("", text)
    if text.isprintable():
        return text
    return "\n".join(line if line.isprintable() else _spaced(line) for line in text.split("\n"))


def _spaced(line: str) -> str:
    return "".join(
        ch if ch.isprintable() or ch == "\t" or unicodedata.category(ch) == "Zs" else " "
        for ch in line
    )
