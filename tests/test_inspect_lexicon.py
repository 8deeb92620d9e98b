"""The lexicon's cues split by script find what their whole alternation finds.

A cue keeps its Latin and its Chinese alternatives apart, so that English text is never
scanned for the Chinese ones. That is only sound while every Chinese alternative needs a
character that ASCII text lacks; these tests pin it for every cue there is.
"""

from __future__ import annotations

import re
from re._constants import BRANCH, IN, LITERAL, MAX_REPEAT, MIN_REPEAT, RANGE, SUBPATTERN
from re._parser import parse
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect import lexicon
from contextward.inspect.lexicon import _Cue, _StartOrAnywhere
from test_inspect_prefilter import _corpus as labelled_lines

CUES = {
    name: value._anywhere if isinstance(value, _StartOrAnywhere) else value
    for name, value in vars(lexicon).items()
    if isinstance(value, _Cue | _StartOrAnywhere)
}

# Words and marks the cues are made of, in both scripts, so that drawn text hits them.
_PIECES = [
    *"abcdefghijklmnopqrstuvwxyz0123456789 .,;:!?-—–'`()\n\t\x1c",
    *(
        "instead ",
        "not ",
        "only",
        "actually",
        "because ",
        "must ",
        "never ",
        "to ",
        "is ",
        "TODO",
        "todo ",
        "separate",
        "also ",
        "too.",
        "please ",
        "use ",
        "it ",
    ),
    *("因为", "不能", "其实", "改用", "还没", "需要", "用 ", "了", "是", "，", "。", "！", "？"),
]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)


def test_every_cue_set_of_the_classifier_is_split() -> None:
    assert sorted(CUES) == [
        "ADDITIVE",
        "ASKS",
        "CONSTRAINT",
        "CORRECTION",
        "DECISION",
        "DECLARATIVE",
        "FACT",
        "FIXED",
        "GOAL",
        "IMPERATIVE",
        "LESSON",
        "LIMITATION",
        "PREFERENCE",
        "REASON",
        "REJECTED",
        "REPLACE_STRONG",
        "REQUIREMENT",
        "RESOLVED",
        "RISK",
        "STATE",
        "SUPERSEDE",
        "TODO",
        "TODO_DEADLINE",
    ]


def _needs_non_ascii(items: Any) -> bool:
    """Whether every match of these parsed pattern items holds a non-ASCII character:
    one of them is such a character, a class of only such, or a group, a repeat of at
    least once or a choice whose every branch needs one (lookarounds consume nothing)."""
    for op, arg in items:
        if op is LITERAL and arg > 127:
            return True
        if op is IN and all(
            (kind is LITERAL and value > 127) or (kind is RANGE and value[0] > 127)
            for kind, value in arg
        ):
            return True
        if op is SUBPATTERN and _needs_non_ascii(arg[-1]):
            return True
        if op in (MAX_REPEAT, MIN_REPEAT) and arg[0] >= 1 and _needs_non_ascii(arg[2]):
            return True
        if op is BRANCH and all(_needs_non_ascii(branch) for branch in arg[1]):
            return True
    return False


@pytest.mark.parametrize("name", sorted(CUES))
def test_every_chinese_alternative_needs_a_character_ascii_text_lacks(name: str) -> None:
    assert _needs_non_ascii(parse(CUES[name]._chinese.pattern))


def test_the_proof_catches_a_latin_alternative_among_the_chinese() -> None:
    assert not _needs_non_ascii(parse(r"也要|\b(?:is|are) (?:a )?separate\b"))
    assert not _needs_non_ascii(parse(r"(?:请)?do|[，,]"))
    assert _needs_non_ascii(parse(r"[，,][^，,]{0,12}其实|^(?:请|帮我)?(?:实现|加)"))


@pytest.mark.parametrize("name", sorted(CUES))
@settings(max_examples=200, deadline=None)
@given(text=_TEXT)
def test_a_split_cue_finds_what_its_whole_alternation_finds(name: str, text: str) -> None:
    cue = CUES[name]
    assert (cue.search(text) is None) == (cue.whole().search(text) is None)
    assert (cue.match(text) is None) == (cue.whole().match(text) is None)
    assert cue.sub(" ", text) == cue.whole().sub(" ", text)


def test_examples_in_both_scripts() -> None:
    assert lexicon.REASON.search("it kept failing, so we dropped it")
    assert lexicon.REASON.search("因为锁表，所以放弃了")
    assert not lexicon.REASON.search("ship it on friday")
    assert lexicon.CONSTRAINT.search("linux only, no windows")
    assert lexicon.CONSTRAINT.search("以后一律用英文写提交信息")
    assert lexicon.SUPERSEDE.sub(" ", "use redis instead") == "use redis  "
    assert lexicon.SUPERSEDE.sub(" ", "改用 redis") == "  redis"


def test_the_characters_a_match_starts_with_are_read_from_the_pattern() -> None:
    starts = lexicon._first_characters
    assert starts(r"\b(?:decided|chose)\b") == {(ord("d"), ord("d")), (ord("c"), ord("c"))}
    assert starts(r"\b(?:[a-c]x|y)|z") == {(ord("a"), ord("c")), (ord("y"),) * 2, (ord("z"),) * 2}
    # A match that may start anywhere, or be empty, tells nothing.
    assert starts(r"\b\w+ only") is None
    assert starts(r"\b(?:a)?b") is None
    assert starts(r"\b(?=x)x") is None
    # re skips ahead by a literal or a class itself: no look-ahead is added.
    assert starts(r"改用|换成") is None
    assert starts(r"[,;]\s*and") is None


def _plain(pattern: str) -> str:
    """A cue part's pattern without the look-ahead ``_scanned`` put before it."""
    return pattern[pattern.index("])(?:") + 5 : -1] if pattern.startswith("(?=[") else pattern


@pytest.mark.parametrize("name", sorted(CUES))
@settings(max_examples=200, deadline=None)
@given(text=_TEXT)
def test_a_part_behind_its_look_ahead_finds_what_it_finds_without(name: str, text: str) -> None:
    for part in (CUES[name]._latin, CUES[name]._chinese):
        plain = re.compile(_plain(part.pattern))
        assert _span(part.search(text)) == _span(plain.search(text))
        assert _span(part.match(text)) == _span(plain.match(text))


def test_the_look_ahead_is_put_before_the_parts_that_start_with_a_word_boundary() -> None:
    assert lexicon.FACT._latin.pattern.startswith("(?=[")
    assert not lexicon.SUPERSEDE._chinese.pattern.startswith("(?=[")  # re skips ahead itself


def _span(match: re.Match[str] | None) -> tuple[int, int] | None:
    return match.span() if match is not None else None


def test_every_part_finds_on_every_labelled_line_what_it_finds_without_its_look_ahead() -> None:
    lines = labelled_lines()
    assert len(lines) > 10_000
    parts = [part for cue in CUES.values() for part in (cue._latin, cue._chinese)]
    wrong = [
        (part.pattern[:40], text[:60])
        for part in parts
        for plain in [re.compile(_plain(part.pattern))]
        for text in lines
        if _span(part.search(text)) != _span(plain.search(text))
    ]
    assert wrong == []
