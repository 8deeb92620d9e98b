"""A cue is not tried on the focused text only when it cannot match there.

The prefilter reads which tokens a pattern needs; a pattern the focused text lacks
every such token of is skipped. These tests pin that the tokens read are the ones
a match needs, and that every cue of the lexicon finds on the focused text what it
finds on any other copy of it.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect import lexicon, prefilter, supersession
from contextward.inspect.lexicon import _Cue, _Gated, _StartOrAnywhere


@pytest.fixture(autouse=True)
def _prepared() -> None:
    # ``focus`` reads the cues' tokens only after ``FOCUS_AFTER`` units; these tests need
    # them read from the first.
    lexicon.prepare()


def _needs(pattern: str, anchored: bool = False) -> frozenset[str] | None:
    return prefilter.needs(re.compile(pattern), anchored=anchored)


def test_a_word_a_match_starts_with_is_needed_by_its_first_letters() -> None:
    assert _needs(r"\b(?:decided|chose)\b") == {"deci", "chos"}
    # "use" is a whole word or the start of "uses": both are tokens a text can hold.
    assert _needs(r"\buses?\b") == {"use", "uses"}
    assert _needs(r"\bcan'?t\b") == {"can", "cant"}
    assert _needs(r"^(?:let me|i'll)", anchored=True) == {"let", "i"}


def test_nothing_is_needed_when_a_word_may_be_part_of_a_longer_one() -> None:
    assert _needs(r"use") is None  # "reuse" holds it, and its token is "reus"
    assert _needs(r"\buse") is None  # "user": the token is "user", not "use"
    assert _needs(r"\w+ only") == {"only"}  # after a space, "only" starts a word
    assert prefilter.needs(re.compile(r"\bdecided\b", re.I)) is None
    assert _needs(r"\b(?:decided|\w+ed)\b") is None  # one branch needs nothing


def test_chinese_characters_and_capitals_are_tokens_of_their_own() -> None:
    assert _needs(r"改用|换成") == {"改", "换"}
    assert _needs(r"TODO") is not None
    # A run's first letters only: "dedl" and "y" of "decidedly" start no run.
    assert prefilter.words("Use 改用 redis, decidedly") == {"U", "se", "改", "用", "redi", "deci"}


_PIECES = [
    *"abcdefghijklmnopqrstuvwxyzT0123456789 .,;:!?-—–'`()\n:：，。！？",
    *(
        "decided ",
        "we'll use ",
        "uses ",
        "can't ",
        "cannot ",
        "instead ",
        "not ",
        "only",
        "actually",
        "because ",
        "never ",
        "tests pass",
        "i'll ",
        "let me ",
        "now ",
        "first",
        "ok, ",
        "todo ",
        "TODO",
        "too.",
        "also ",
        "is ",
        "are ",
        "stored in ",
        "the ",
        "but ",
        " and ",
        "因为",
        "不能",
        "其实",
        "改用",
        "还没",
        "需要",
        "不过",
        "算了",
        "还是用",
        "了，",
        "我先",
        "用 ",
    ),
]
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=24).map("".join)

CUES = {
    name: value
    for name, value in vars(lexicon).items()
    if isinstance(value, _Cue | _Gated | _StartOrAnywhere)
}


def _found(match: re.Match[str] | None) -> tuple[int, int] | None:
    return match.span() if match is not None else None


@pytest.mark.parametrize("name", sorted(CUES))
@settings(max_examples=100, deadline=None)
@given(text=_TEXT)
def test_a_cue_finds_on_the_focused_text_what_it_finds_on_any_other(name: str, text: str) -> None:
    cue = CUES[name]
    other = "".join(list(text))  # equal, but not the focused object
    lexicon.focus(text)
    assert _found(cue.search(text)) == _found(cue.search(other))
    if not isinstance(cue, _StartOrAnywhere):
        assert _found(cue.match(text)) == _found(cue.match(other))


def test_the_focused_text_skips_a_cue_it_cannot_match() -> None:
    text = "the export reads invoices in pages of 5000 rows."
    lexicon.focus(text)
    assert not lexicon.DECISION._latin_needs.isdisjoint(prefilter.words("we decided to"))
    assert lexicon.DECISION._latin_needs.isdisjoint(prefilter.words(text))
    assert lexicon.DECISION.search(text) is None


def test_a_word_inside_another_by_a_non_boundary_needs_nothing() -> None:
    # "\Buse" matches the "use" of "reuse": its token there is "reus", not "use".
    assert _needs(r"\Buse\b") is None
    assert _needs(r"\buse\B") is None


def _corpus() -> list[str]:
    """Every line of the labelled sessions, casefolded as the classifier reads it."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "bench" / "data" / "inspect"
    lines = {
        line.strip().casefold()
        for path in sorted(root.rglob("*.txt"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    }
    return sorted(lines)


def test_every_cue_finds_on_every_labelled_line_focused_what_it_finds_unfocused() -> None:
    # Real sentences in English and Chinese: where a skipped cue would have matched, the
    # classification would change. 20,000-odd lines times every cue of the lexicon.
    lines = _corpus()
    assert len(lines) > 10_000
    wrong = []
    for text in lines:
        other = "".join(list(text))
        lexicon.focus(text)
        for name, cue in CUES.items():
            if _found(cue.search(text)) != _found(cue.search(other)):
                wrong.append((name, text[:60]))
            if not isinstance(cue, _StartOrAnywhere) and _found(cue.match(text)) != _found(
                cue.match(other)
            ):
                wrong.append((name, text[:60]))
    assert wrong == []


# Supersession's owner-statement patterns ("pushing to main is fine now", "drop the redis
# idea", "switch the store to Postgres") are gated the same way, on any text: by the
# tokens read from the pattern itself. Hand-kept word lists gated them once, and an
# alternative added to a pattern without its word in the list never fired.
GATES = {
    name: value
    for name, value in vars(supersession).items()
    if isinstance(value, supersession._Gated)
}


def test_supersession_s_owner_statement_patterns_are_gated_by_tokens_read_from_them() -> None:
    assert {"_BACK_ON", "_BARE_ZH", "_CANCEL", "_LIFTS", "_REPOINT", "_REVERTS"} <= set(GATES)
    for name, gate in GATES.items():
        assert prefilter.needs(gate.pattern) is not None, name  # else the gate spares nothing


@pytest.mark.parametrize("name", sorted(GATES))
def test_an_alternative_added_to_a_gated_pattern_is_looked_for(name: str) -> None:
    added = r"|\bzorped the \w+ flag\b|插件卸载掉"
    gate = supersession._Gated(GATES[name].pattern.pattern + added)
    assert gate.search("ok, zorped the beta flag for now.") is not None
    assert gate.search("那个插件卸载掉。") is not None


def test_every_gate_finds_on_every_labelled_line_what_its_pattern_finds() -> None:
    wrong = [
        (name, text[:60])
        for text in _corpus()
        for name, gate in GATES.items()
        if _found(gate.search(text)) != _found(gate.pattern.search(text))
    ]
    assert wrong == []


def test_a_gate_reads_its_tokens_on_its_first_search_not_on_import() -> None:
    # Hooks import inspection on every prompt and never link: reading a pattern's syntax
    # costs a fraction of a millisecond each.
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "from contextward.inspect import supersession as s\n"
        "gates = [v for v in vars(s).values() if isinstance(v, s._Gated)]\n"
        "assert gates and not any(g._read for g in gates)\n"
        "s._LIFTS.search('pushing to main is fine now.')\n"
        "assert s._LIFTS._read and s._LIFTS._needs\n"
    )
    src = Path(supersession.__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        env={"PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


_OWNER_PIECES = [
    *"abcdefghijklmnopqrstuvwxyz0123456789 .,;:=!?-_/%$\n，。：",
    *(
        "make it ",
        "set it to ",
        "pushing to main is fine now",
        "you may ",
        "from now on ",
        "better to use ",
        "drop the ",
        "switch the ",
        " to ",
        " back on",
        "re-enable ",
        "revert to ",
        "timeout",
        "max_retries",
        "ttl-",
        " is ",
        "改成",
        "也",
        "吧",
        "取消了",
        "现在可以",
        "撤掉",
    ),
]
_OWNER_TEXT = st.lists(st.sampled_from(_OWNER_PIECES), max_size=24).map("".join)


@pytest.mark.parametrize("name", sorted(GATES))
@settings(max_examples=100, deadline=None)
@given(text=_OWNER_TEXT)
def test_a_gate_finds_what_its_pattern_finds(name: str, text: str) -> None:
    gate = GATES[name]
    assert _found(gate.search(text)) == _found(gate.pattern.search(text))


def test_a_short_inspection_reads_no_cue_tokens_and_a_long_one_does() -> None:
    # Reading every cue's tokens costs a fixed ~35 ms: a small file on the command line
    # or a short session's PreCompact does not pay it; a long transcript does, and gains.
    code = (
        "import io, json\n"
        "from contextward.inspect import inspect_stream, lexicon\n"
        "def run(n):\n"
        "    msgs = [{'id': f'm{i}', 'role': 'user', 'content': f'Use Redis {i} for the cache.'}"
        " for i in range(n)]\n"
        "    inspect_stream(io.BytesIO(json.dumps(msgs).encode()))\n"
        "    return bool(lexicon._unread)\n"
        "print(run(20), run(lexicon.FOCUS_AFTER + 10))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "False"]


# Pieces of statements whose words (``supersession._words``) are made in every way: stems,
# hyphens and slashes, Chinese pairs, acronyms, two runs of letters read as one word, and
# the replacing cues that are cut out before the words are read.
_STATEMENT_PIECES = [
    *"abcdefgxyz0123 .,-/'`\n：，。",
    *(
        "roll back ",
        "rollback ",
        "set up ",
        "scale-up ",
        "us-east-1 ",
        "/internal/admin ",
        "config.yaml ",
        "a database ",
        "data base ",
        "deciding ",
        "decided ",
        "instead ",
        "switched to ",
        ", not redis",
        "PG ",
        "UI ",
        "缓存服务",
        "改成",
        "一遍",
        "the ",
        "every ",
        "r1 ",
    ),
]
_STATEMENT = st.lists(st.sampled_from(_STATEMENT_PIECES), max_size=16).map("".join)


@settings(max_examples=300, deadline=None)
@given(new=_STATEMENT, old=_STATEMENT)
def test_the_words_a_statement_may_share_are_never_fewer_than_it_shares(new: str, old: str) -> None:
    # A statement is passed over unread when this bound says it cannot share enough: the
    # bound must never be below what reading its words finds.
    words = supersession._words(new)
    assert supersession._sharable(words, old) >= len(words & supersession._words(old))


def test_the_bound_reads_words_the_text_does_not_spell() -> None:
    words = supersession._words
    # Two runs of letters read as one word, a hyphen dropped, an acronym, a cue cut out.
    for new, old in [
        ("the rollback job", "Roll back the job"),
        ("the scaleup", "the scale-up plan"),
        ("use PG", "PG is fine"),
        ("postgresmysql", "postgres instead mysql"),
    ]:
        assert words(new) & words(old)
        assert supersession._sharable(words(new), old) >= len(words(new) & words(old))
    assert supersession._sharable(words("the export reads invoices"), "Deploy on Fridays.") == 0


def test_a_large_transcript_file_reads_the_cue_tokens_before_its_first_unit(
    tmp_path: Path,
) -> None:
    # A file of megabytes holds thousands of units: its first 2,000 are focused too. Bytes
    # of unknown length (a pipe, a buffer) are read as before.
    path = tmp_path / "session.json"
    path.write_text(
        json.dumps([{"id": "m0", "role": "user", "content": "Use Redis for the cache."}])
    )
    code = (
        "import io, sys\n"
        "from contextward.inspect import inspect_stream, inspector, lexicon\n"
        "inspector.FOCUS_FROM_BYTES = 10\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "inspect_stream(io.BytesIO(data))\n"
        "buffered = bool(lexicon._unread)\n"
        "with open(sys.argv[1], 'rb') as f:\n"
        "    inspect_stream(f)\n"
        "print(buffered, bool(lexicon._unread))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["True", "False"]


@settings(max_examples=300, deadline=None)
@given(text=st.text() | _TEXT)
def test_the_focused_text_holds_the_parts_of_every_token_prefilter_finds(text: str) -> None:
    # ``focus`` finds a text's tokens its own faster way: it must find the same ones, or a
    # cue whose token it missed would be skipped where it matches.
    bits = lexicon._ANY
    for token in prefilter.tokens(text):
        bits |= lexicon._NEEDED_BY.get(token, 0)
    assert lexicon._live(text) == bits
