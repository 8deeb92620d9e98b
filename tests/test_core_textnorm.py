"""Text normalisation the facts verifier rests on: segments, NFKC, Chinese numerals, cues.

These pin the forms that the speed work rewrote (sentence ends found from their
ending character, NFKC line by line, numeral patterns chosen by the text), so a
later change that alters what they return fails here, not in a distant verdict.
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.core.anchors import REVOKE_RE, cue_counts
from contextward.core.textnorm import MAX_SEGMENT_CHARS, arabic, nfkc, segments


def test_segments_keep_their_ending_punctuation_and_drop_what_follows() -> None:
    text = (
        'Ship it. Then "stop." Next!  Done?\n\n- item one\n- item two\nwrapped line\n'
        "上线了。」好的！！下一步"
    )
    assert segments(text) == [
        "Ship it.",
        'Then "stop."',
        "Next!",
        "Done?",
        "- item one",
        "- item two\nwrapped line\n上线了。」",  # a single newline is a wrap
        "好的！！",
        "下一步",
    ]


def test_a_long_run_is_cut_at_spaces_into_bounded_segments() -> None:
    text = "word " * 300 + "end."
    parts = segments(text)
    assert len(parts) > 1
    assert all(len(part) <= MAX_SEGMENT_CHARS for part in parts)
    assert "".join(parts) == text


def test_blank_and_space_only_pieces_are_no_segments() -> None:
    assert segments("") == []
    assert segments(" \n\n \n") == []
    assert segments("One.   \n\n   ") == ["One."]


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(
            list("ae\u0301\u0308\u0327\u1100\u1161\u11a8\uff21\uff0c\ufb01\u2460 \n")
        ),
        max_size=40,
    )
)
def test_nfkc_of_a_text_is_unicode_nfkc_line_breaks_and_all(text: str) -> None:
    # Lines are normalised one by one: a combining mark after a line break must not
    # join the line before, and every line must still be normalised.
    assert nfkc(text) == unicodedata.normalize("NFKC", text)


def test_nfkc_normalises_each_line_of_a_long_text() -> None:
    text = "plain line\nfull\uff0cwidth\ne\u0301\n\u0301mark first\nﬁne"
    assert nfkc(text) == "plain line\nfull,width\né\n\u0301mark first\nfine"


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        # counts: a digit before a measure word, unless a numeral or digit precedes it
        ("等五秒，三次", "等5秒，3次"),
        ("5五秒", "5五秒"),
        ("十分钟", "10分钟"),
        ("十分重要", "十分重要"),
        # runs with and without 万 / 亿 elsewhere in the text
        ("三百五十行", "350行"),
        ("三百五十行，2万次", "350行，20000次"),
        ("2 万一超时，三百行", "2 万一超时，300行"),
    ],
)
def test_chinese_numerals_with_and_without_large_units(text: str, digits: str) -> None:
    assert arabic(text) == digits


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the rule was lifted", "lifted"),
        ("the unlifted rule", None),  # a cue inside a word is none
        ("此规定已取消", "取消"),
        ("~~never push~~", "~~"),
        ("Revoked by the owner", None),  # REVOKE_RE reads lowercased text
    ],
)
def test_revocation_cues_are_found_from_either_side(text: str, found: str | None) -> None:
    match = REVOKE_RE.search(text)
    assert (match.group() if match else None) == found


def test_cues_are_counted_at_word_starts_only() -> None:
    assert cue_counts("you must not push; it is optional") == {
        "strong": 1,
        "neg": 1,
        "weak": 1,
    }
    assert cue_counts("mustard and notation") == {}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("~~Use Redis.~~ Set it. Next.", ["~~Use Redis.~~", "Set it.", "Next."]),
        ("**Never push.** Then go.", ["**Never push.**", "Then go."]),
        ("~~不要推到 main。~~超时设成 5 秒。", ["~~不要推到 main。~~", "超时设成 5 秒。"]),
        ("~~Use Redis. Cache it.~~ Next.", ["~~Use Redis.~~", "~~Cache it.~~", "Next."]),
        ("A ~~stray. B. C. D. E.", ["A ~~stray.", "B.", "C.", "D.", "E."]),
    ],
)
def test_a_segment_holds_whole_strikes(text: str, expected: list[str]) -> None:
    assert segments(text) == expected
