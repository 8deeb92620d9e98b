"""The words a pattern cannot match without: a test that spares most cue searches.

A unit is searched for some forty cues, and most find nothing; each search costs a
pass of the regular-expression engine over the text. Most cue alternatives start
with a word ("decided", "we'll use", "不再"), so the words a text holds, found once,
tell which cues cannot match it at all.

``needs`` reads a pattern's syntax and returns the tokens one of which every match
holds (None when it cannot tell); ``words`` returns the tokens a text holds. A
token is the first ``HEAD`` letters of a run of ASCII lowercase letters (the whole
run when it is shorter), or one character that is an ASCII capital or not ASCII.
The test is sound by construction: a pattern whose tokens a text lacks has no
match in it. It may pass a text that has no match; then the search decides, as
before. Never decides a match itself.
"""

from __future__ import annotations

import re
from typing import Any

try:  # the parser behind ``re`` (CPython 3.11+); without it nothing is skipped
    from re import _constants as sre  # type: ignore[attr-defined]
    from re import _parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - another Python implementation
    _parser = None

#: How many letters of a word a token keeps: four tell "decided" from "dead".
HEAD = 4
# A run's first letters only: a pattern's token starts a run (``_before``), so the rest of a
# long word ("dedl" of "decidedly") is no token a pattern can need, only a look-up more.
_WORDS = re.compile(rf"(?<![a-z])[a-z]{{1,{HEAD}}}|[A-Z\x80-\U0010ffff]")
_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)
_ZERO_WIDTH = (sre.ASSERT, sre.ASSERT_NOT)
# Tokens most English text holds: a pattern is better told by another of its words.
_COMMON = frozenset(
    re.findall(
        r"\S+",
        "a an the to is are be it its in on of and or for with that this we i you not no so "
        "as at by can will have has do if but now from all",
    )
)


def words(text: str) -> frozenset[str]:
    """The tokens ``text`` holds (see the module docstring)."""
    return frozenset(_WORDS.findall(text))


def tokens(text: str) -> list[str]:
    """The tokens ``text`` holds, in order, with repeats (``words`` as found)."""
    return _WORDS.findall(text)


def needs(pattern: re.Pattern[str], *, anchored: bool = False) -> frozenset[str] | None:
    """Tokens one of which every match of ``pattern`` holds; None if that cannot be told.

    ``anchored``: the pattern is only ever matched at the start of the text (``match``),
    so nothing comes before its first character.
    """
    if _parser is None or pattern.flags & re.IGNORECASE:
        return None
    try:
        return _need(list(_parser.parse(pattern.pattern, pattern.flags)), anchored, False)
    except Exception:  # an unforeseen parse tree: the pattern is always tried
        return None


def _letter(code: int) -> bool:
    return 97 <= code <= 122


def _token_char(code: int) -> bool:
    """A character that is a token of its own: an ASCII capital or not ASCII."""
    return 65 <= code <= 90 or code > 127


def _need(items: list[Any], before: bool, after: bool) -> frozenset[str] | None:
    """Tokens one of which every match of ``items`` holds. ``before``: the character before
    them, if any, is no lowercase letter when they start with one; ``after``: likewise for the
    character after them."""
    best: frozenset[str] | None = None
    i = 0
    while i < len(items):
        op, arg = items[i]
        found: frozenset[str] | None = None
        end = i + 1
        if op is sre.LITERAL and _letter(arg):
            while end < len(items) and items[end][0] is sre.LITERAL and _letter(items[end][1]):
                end += 1
            if _before(items, i, before):
                run = "".join(chr(code) for _, code in items[i:end])
                spelt = _spell(items, end, run, after)
                found = frozenset(spelt) if spelt is not None else None
        elif op is sre.LITERAL:
            found = frozenset({chr(arg)}) if _token_char(arg) else None
        elif op is sre.IN:
            if all(kind is sre.LITERAL and _token_char(code) for kind, code in arg):
                found = frozenset(chr(code) for _, code in arg)
        elif op is sre.SUBPATTERN:
            if not arg[1] & sre.SRE_FLAG_IGNORECASE:
                found = _need(list(arg[3]), _before(items, i, before), _after(items, end, after))
        elif op is sre.ATOMIC_GROUP:
            found = _need(list(arg), _before(items, i, before), _after(items, end, after))
        elif op is sre.BRANCH:
            found = _either(arg[1], _before(items, i, before), _after(items, end, after))
        elif op in _REPEATS and arg[0] >= 1:
            # The first time round: what follows it is the body again or the next item.
            last = arg[1] == 1 and _after(items, end, after)
            found = _need(list(arg[2]), _before(items, i, before), last)
        if found is not None and (best is None or _rank(found) < _rank(best)):
            best = found
        i = end
    return best


def _spell(items: list[Any], j: int, word: str, after: bool) -> set[str] | None:
    """The tokens a word that starts with ``word`` and goes on with ``items[j:]`` can be:
    its first ``HEAD`` letters, or all of it when it ends sooner ("use" or "uses" for
    ``uses?``). None when that cannot be told."""
    if len(word) >= HEAD:
        return {word[:HEAD]}
    if _after(items, j, after):
        return {word}
    if j == len(items):
        return None
    op, arg = items[j]
    if op is sre.LITERAL and _letter(arg):
        return _spell(items, j + 1, word + chr(arg), after)
    if op in _REPEATS and arg[:2] == (0, 1) and all(kind is sre.LITERAL for kind, _ in arg[2]):
        # An optional letter or mark: the word without it, and with it.
        without = _spell(items, j + 1, word, after)
        with_it = _spell([*arg[2], *items[j + 1 :]], 0, word, after)
        if without is None or with_it is None:
            return None
        return without | with_it
    return None


def _either(branches: list[Any], before: bool, after: bool) -> frozenset[str] | None:
    union: set[str] = set()
    for branch in branches:
        found = _need(list(branch), before, after)
        if found is None:
            return None
        union |= found
    return frozenset(union)


def _rank(tokens: frozenset[str]) -> tuple[int, int, int]:
    """Fewer common words first, then fewer tokens, then longer ones."""
    return (len(tokens & _COMMON), len(tokens), -min(map(len, tokens), default=0))


def _edge(at: Any, ends: tuple[Any, ...]) -> bool | None:
    """What an assertion next to a letter says of the character beyond it: True when it
    is no word character (a word boundary, or ``ends``: the text's edge on that side),
    False when it is one (``\\B``), None when it says nothing."""
    if at is sre.AT_BOUNDARY or at in ends:
        return True
    if at is sre.AT_NON_BOUNDARY:
        return False
    return None


def _before(items: list[Any], i: int, before: bool) -> bool:
    """Whether the character before ``items[i]`` is no lowercase letter (or there is none),
    when ``items[i]`` starts with a letter; ``before``: the same for ``items[0]``."""
    for k in range(i - 1, -1, -1):
        op, arg = items[k]
        if op is sre.AT:
            edge = _edge(arg, (sre.AT_BEGINNING, sre.AT_BEGINNING_STRING))
            if edge is not None:
                return edge
            continue
        if op in _ZERO_WIDTH:
            continue  # consumes nothing: the character before is still the one before it
        if op is sre.SUBPATTERN:
            return _before(list(arg[3]), len(arg[3]), _before(items, k, before))
        if op is sre.ATOMIC_GROUP:
            return _before(list(arg), len(arg), _before(items, k, before))
        if op is sre.BRANCH:
            outer = _before(items, k, before)
            return all(_before(list(b), len(b), outer) for b in arg[1])
        if op in _REPEATS:
            # The last time round ends it, or, repeated no time, what came before.
            last = _before(list(arg[2]), len(arg[2]), False)
            return last and (arg[0] >= 1 or _before(items, k, before))
        return _apart(op, arg)
    return before


def _after(items: list[Any], j: int, after: bool) -> bool:
    """Whether the character at ``items[j]`` is no lowercase letter (or there is none), right
    after a letter; ``after``: the same for the end of ``items``."""
    for k in range(j, len(items)):
        op, arg = items[k]
        if op is sre.AT:
            edge = _edge(arg, (sre.AT_END, sre.AT_END_STRING))
            if edge is not None:
                return edge
            continue
        if op in _ZERO_WIDTH:
            continue
        if op is sre.SUBPATTERN:
            return _after(list(arg[3]), 0, _after(items, k + 1, after))
        if op is sre.ATOMIC_GROUP:
            return _after(list(arg), 0, _after(items, k + 1, after))
        if op is sre.BRANCH:
            outer = _after(items, k + 1, after)
            return all(_after(list(b), 0, outer) for b in arg[1])
        if op in _REPEATS:
            first = _after(list(arg[2]), 0, False)
            return first and (arg[0] >= 1 or _after(items, k + 1, after))
        return _apart(op, arg)
    return after


def _apart(op: Any, arg: Any) -> bool:
    """Whether one character item can match no lowercase letter."""
    if op is sre.LITERAL:
        return not _letter(arg)
    if op is sre.IN:
        for kind, value in arg:
            if kind is sre.LITERAL:
                if _letter(value):
                    return False
            elif kind is sre.RANGE:
                if value[0] <= 122 and value[1] >= 97:
                    return False
            elif kind is sre.CATEGORY:
                if value not in (sre.CATEGORY_SPACE, sre.CATEGORY_DIGIT):
                    return False
            else:
                return False  # a negated class, or something unforeseen
        return True
    return False
