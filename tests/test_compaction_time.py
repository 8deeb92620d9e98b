"""PreCompact's inspection ends in time: dense prose is read from the end, as far as the
time allows, and the guidance says how much was left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextward.compaction import SAMPLE_CHARS, WARM_CHARS, within_time
from contextward.inspect import Message


class Clock:
    """A clock that moves ``step`` seconds every time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _prose(count: int, size: int = 2000) -> list[Message]:
    sentence = "the parser keeps a cache of module tokens for the retry budget "
    body = (sentence * (size // len(sentence) + 1))[:size]
    return [
        Message(f"m{n}", "user" if n % 2 else "assistant", f"{body} Decided to use option {n}.")
        for n in range(count)
    ]


def test_what_fits_the_time_is_read_whole() -> None:
    messages = _prose(200)
    affordable = within_time(messages, deadline=10_000.0, clock=Clock(0.001))
    assert affordable.left_out == 0 and affordable.messages == messages


def test_a_little_prose_is_read_whole_without_timing_it() -> None:
    messages = _prose(5)
    assert sum(len(m.text) for m in messages) < WARM_CHARS + SAMPLE_CHARS
    affordable = within_time(messages, deadline=0.0, clock=Clock(100.0))
    assert affordable.left_out == 0 and affordable.messages == messages


def test_prose_too_slow_to_read_in_time_is_read_from_the_end() -> None:
    messages = _prose(400)
    # Each reading of the clock takes a second: the sample reads slowly.
    affordable = within_time(messages, deadline=6.0, clock=Clock(1.0))
    assert 0 < affordable.left_out < len(messages)
    assert affordable.messages == messages[affordable.left_out :]
    assert affordable.messages[-1] is messages[-1]


def test_only_what_followed_the_last_compaction_is_weighed() -> None:
    old = _prose(300)
    summary = Message("s", "user", "Summary of the earlier conversation.", summary=True)
    new = _prose(3)
    affordable = within_time([*old, summary, *new], deadline=0.0, clock=Clock(100.0))
    assert affordable.messages == [summary, *new] and affordable.left_out == 0


def test_pre_compact_says_what_it_left_out_first(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextward.hosts import hooks
    from test_hosts_claude import fire, transcript

    monkeypatch.setattr(hooks, "INSPECT_SECONDS", 0.0)
    filler = "We looked at the parser and its cache of tokens for a while. " * 40
    turns = [("user", "Never deploy on Fridays.")]
    turns += [("assistant", f"{filler} Module {n} is done.") for n in range(200)]
    turns += [("user", "Never push to main; open a PR instead.")]
    path = transcript(project / "t.jsonl", turns)
    code, guidance, _ = fire(project, "PreCompact", trigger="auto", transcript_path=str(path))
    assert code == 0
    assert guidance.startswith("(contextward read the last ")
    assert "were too long to read within 0 s.)" in guidance.split("\n")[0]
    assert "Never push to main; open a PR instead." in guidance
