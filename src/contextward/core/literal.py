"""The literal verifier: substring presence after a configurable normalisation.

The context is read a fixed number of times however many items there are.
With whitespace folding (the default) the context becomes a token list once;
an item of three or more words is found by its longest inner word (which
must be a whole context token), then checked in place. Shorter items, and every
item when whitespace is significant, are branches of one trie-shaped regular
expression searched once. It never reports ``changed``: reworded text is
simply lost to it. Both sides are read as shown first (``shown``: no terminal
escapes), as the facts verifier reads them.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any

from .item import ContextItem
from .shown import shown


@dataclass(frozen=True, slots=True)
class LiteralVerifier:
    case_sensitive: bool = False
    normalize_whitespace: bool = True

    def normalize(self, text: str) -> str:
        text = shown(text)  # as printed: no terminal escapes (see ``shown``)
        if not self.case_sensitive:
            text = text.lower()
        if self.normalize_whitespace:
            text = " ".join(text.split())
        return text

    def verify(self, items: list[ContextItem], context: str) -> list[dict[str, Any]]:
        needles = {item.id: self.normalize(item.content) for item in items}
        wanted = set(needles.values()) - {""}
        context = shown(context)
        if self.normalize_whitespace:
            tokens = (context if self.case_sensitive else context.lower()).split()
            found = find_in_tokens(wanted, tokens)
        else:
            found = find_all(wanted, self.normalize(context))
        rule = self._rule()
        return [
            {
                "itemId": item_id,
                "status": "preserved" if needle in found else "lost",
                "reason": (
                    f"found in the context after {rule}"
                    if needle in found
                    else f"not found in the context after {rule}"
                ),
            }
            for item_id, needle in needles.items()
        ]

    def _rule(self) -> str:
        parts = []
        if self.normalize_whitespace:
            parts.append("whitespace folding")
        if not self.case_sensitive:
            parts.append("lowercasing")
        return " and ".join(parts) or "exact comparison"


def find_in_tokens(needles: set[str], tokens: list[str]) -> set[str]:
    """Needles (single-spaced) that occur in ``" ".join(tokens)``, without scanning per needle.

    A needle's inner words must equal whole context tokens (only its first and
    last word may be cut), so a needle of three or more words is anchored on
    its longest inner word (usually the rarest). One pass, run in C (``map``,
    ``compress``, ``count``), finds where anchors occur; each hit is then
    checked in place, the next word first.
    """
    anchored: dict[str, list[tuple[int, list[str]]]] = {}
    short = set()
    for needle in needles:
        words = needle.split(" ")
        if len(words) < 3:
            short.add(needle)
            continue
        j = max(range(1, len(words) - 1), key=lambda k: len(words[k]))
        anchored.setdefault(words[j], []).append((j, words))
    found = find_all(short, " ".join(tokens)) if short else set()
    last = len(tokens) - 1
    marks = map(anchored.__contains__, tokens)
    for index in itertools.compress(itertools.count(), marks):
        for anchor, words in anchored[tokens[index]]:
            start = index - anchor
            end = start + len(words) - 1
            if start < 0 or end > last:
                continue
            if anchor + 2 < len(words) and tokens[index + 1] != words[anchor + 1]:
                continue  # the next word is inner too, so it must match whole
            needle = " ".join(words)
            if (
                needle not in found
                and tokens[start].endswith(words[0])
                and tokens[end].startswith(words[-1])
                and tokens[start + 1 : end] == words[1:-1]
            ):
                found.add(needle)
    return found


def find_all(needles: set[str], haystack: str) -> set[str]:
    """Return the needles that occur in ``haystack``, reading it once."""
    ordered = sorted(needles)
    if not ordered:
        return set()
    try:
        pattern = re.compile(_alternation(ordered), re.DOTALL)
    except (RecursionError, re.error, OverflowError):  # pathological nesting: slower, still exact
        return {needle for needle in ordered if needle in haystack}
    prefixes = _proper_prefixes(ordered)
    found: set[str] = set()
    pos = 0
    while len(found) < len(ordered):
        match = pattern.search(haystack, pos)
        if match is None:
            break
        # The regex prefers the longest needle at a position; every needle
        # that is a prefix of it matched there too.
        hit = match.group()
        found.add(hit)
        found.update(prefixes[hit])
        pos = match.start() + 1
    return found


def _alternation(ordered: list[str]) -> str:
    """A trie-shaped regex matching exactly the sorted, distinct, non-empty ``ordered``.

    Sharing prefixes keeps the work per context position small however many
    needles there are; the greedy optional tail makes the longest needle win.
    """
    branches = []
    index = 0
    while index < len(ordered):
        end = index + 1
        while end < len(ordered) and ordered[end][0] == ordered[index][0]:
            end += 1
        group = ordered[index:end]
        stem = _common_prefix(group)
        tails = [needle[len(stem) :] for needle in group]
        optional = tails[0] == ""  # sorted: the empty tail comes first
        rest = tails[1:] if optional else tails
        tail = _alternation(rest) if rest else ""
        if optional and tail:
            tail = "(?:" + tail + ")?"
        branches.append(re.escape(stem) + tail)
        index = end
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _common_prefix(group: list[str]) -> str:
    first, last = group[0], group[-1]  # sorted: the extremes bound the common prefix
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    return first[:size]


def _proper_prefixes(ordered: list[str]) -> dict[str, list[str]]:
    """Map each needle to the other needles that are its prefixes (sorted input: one walk)."""
    result: dict[str, list[str]] = {}
    stack: list[str] = []
    for needle in ordered:
        while stack and not needle.startswith(stack[-1]):
            stack.pop()
        result[needle] = list(stack)
        stack.append(needle)
    return result
