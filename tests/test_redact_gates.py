"""The secret patterns' gates: a pattern is searched only in a text holding one of the
strings its every match holds, read from its syntax. Masking must come out exactly as
searching every pattern in order would."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward import redact
from contextward.redact import _SPECS, _folded, _gates, _needs, _scan
from test_redact_formats import SAMPLES
from test_secret_hints import mixed


def _every_pattern(text: str) -> tuple[str, int]:
    """Masking as it was before the gates: every pattern, in order, on every text."""
    total = 0
    for pattern, replacement in _gates().rules:
        text, count = pattern.subn(replacement, text)
        total += count
    return text, total


# Characters `re` ignoring case takes for ASCII letters though `str.lower` does not
# make them those letters, and the Kelvin sign, which it does.
LOOKALIKES = {"s": "\u017f", "i": "\u0131", "I": "\u0130", "K": "\u212a"}


def _variants(text: str) -> list[str]:
    out = [text, text.upper(), text.lower(), f"see: {text}, thanks", f'{{"env": "{text}"}}']
    out += [text.replace(plain, odd) for plain, odd in LOOKALIKES.items()]
    return out


SAMPLE_TEXTS = [variant for _, text, _ in SAMPLES for variant in _variants(text)]


def test_every_pattern_is_gated_by_something_its_matches_hold() -> None:
    # "" is what a pattern whose needs cannot be read gets: every text holds it.
    assert all("" not in _needs(spec) for _, spec in _SPECS)


@pytest.mark.parametrize("text", SAMPLE_TEXTS)
def test_a_pattern_that_matches_finds_one_of_its_needs(text: str) -> None:
    low = _folded(text)
    for (pattern, _), (kind, spec) in zip(_gates().rules, _SPECS, strict=True):
        if pattern.search(text):
            assert any(need in low for need in _needs(spec)), kind


@pytest.mark.parametrize("text", SAMPLE_TEXTS)
def test_gated_masking_is_masking_by_every_pattern(text: str) -> None:
    assert _scan(text) == _every_pattern(text)


words = st.sampled_from(
    ["deploy", "the", "token", "key", "pass", "sk", "://", "密码", "是", "-u", "Bearer", "ok"]
)
secrets = st.sampled_from(SAMPLE_TEXTS)
glue = st.sampled_from([" ", "", "\n", "=", ":", "-", ".", "/", "_", '"', "\\n", "@"])


@settings(max_examples=400, deadline=None)
@given(mixed(words, secrets, glue))
def test_gated_masking_of_mixed_text_is_masking_by_every_pattern(text: str) -> None:
    assert _scan(text) == _every_pattern(text)


def test_a_mask_label_is_read_by_the_later_patterns_as_before() -> None:
    # The first mask's label holds "key", a need of later patterns: they read the masked
    # text, not the text as it came in.
    text = "sk-proj-abcdefghijklmnopqrstuvwx and x-api-key: s3cr3tvalue99"
    assert _scan(text) == _every_pattern(text)
    assert _scan(text)[1] == 2


def test_folding_makes_every_lookalike_of_an_ascii_letter_that_letter() -> None:
    # Whatever `re` ignoring case matches to a letter, folded, holds that letter.
    letter = re.compile("[a-z]", re.IGNORECASE)
    for code in range(128, 0x110000):
        char = chr(code)
        if letter.fullmatch(char):
            folded = _folded(f"x{char}x")
            assert folded[1].isascii() and letter.fullmatch(folded[1]), hex(code)


@pytest.mark.parametrize(
    ("pattern", "needs"),
    [
        (r"sk-(?:proj-)?[a-z]{20}", {"sk-"}),
        (r"(?=g)(?:gh[pous]_|github_pat_)\w+", {"gh", "github_pat_"}),  # a run goes on
        (r"(?<=://)[^@]+@", {"://"}),  # a look-behind that must hold
        (r"(?i)\bbearer\s+\S{16,}", {"bearer"}),
        (r"(?:x-)?token(?:=|:)", {"token"}),  # what may be absent is no need
        (r"(?!secret)\w+=\d+", {"="}),  # nor what must not be there
        (r"(?P<a>ab)?(?(a)cd|ef)", {"cd", "ef"}),  # one arm or the other
        (r"(?:api|auth)_k", {"api", "auth"}),  # one alternative or another
        (r"\d+", {""}),  # nothing to tell: always searched
    ],
)
def test_needs_are_read_from_a_patterns_syntax(pattern: str, needs: set[str]) -> None:
    assert _needs(pattern) == needs


def test_a_text_holding_no_need_is_not_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    searched: list[str] = []

    class Spy:
        def __init__(self, pattern: re.Pattern[str]) -> None:
            self.pattern = pattern

        def subn(self, replacement: object, text: str) -> tuple[str, int]:
            searched.append(self.pattern.pattern)
            return self.pattern.subn(replacement, text)  # type: ignore[arg-type]

    gates = _gates()
    spied = gates._replace(rules=tuple((Spy(p), r) for p, r in gates.rules))  # type: ignore[arg-type]
    monkeypatch.setattr(redact, "_gates", lambda: spied)
    assert _scan("Refactored the parser; all 214 tests pass now.") == (
        "Refactored the parser; all 214 tests pass now.",
        0,
    )
    assert len(searched) == 2  # "pass": the .env PASS= pattern and the --pass flag
    searched.clear()
    assert _scan("Refactored the retry loop in main.go.")[1] == 0
    assert searched == []
