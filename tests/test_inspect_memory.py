"""Inspection's memory: what one more statement of a transcript costs while it is inspected.

Readers stream, but inspection holds a candidate for every statement, so its peak grows
with the transcript; what each statement costs is what a 100 MB transcript multiplies
(bench: inspect_speed).
"""

from __future__ import annotations

import gc
import tracemalloc

from contextward.inspect import Message, inspect_messages

#: Peak bytes a statement adds while it is inspected, result included: 570 here (1,160
#: while every draft was held beside its candidate, with the folded text it merged by,
#: its own copy of each repeated reason and weight and empty lists).
PER_STATEMENT = 800


def session(turns: int, tag: str) -> list[Message]:
    """A session whose every sentence is its own (``tag`` and a number in each), as in a
    real one: nothing merges, every statement is a candidate."""
    messages = []
    for i in range(turns):
        messages.append(
            Message(
                f"{tag}u{i}",
                "user",
                f"Use worker pool {tag}{i} for the ingest service. "
                f"The {tag}{i} queue must stay under {i % 90 + 10} MB. Thanks {tag}{i}!",
            )
        )
        messages.append(
            Message(
                f"{tag}a{i}",
                "assistant",
                f"I'll wire pool {tag}{i} into the ingest service and keep queue {tag}{i} "
                f"under its limit. Running the tests for {tag}{i} now.",
            )
        )
        messages.append(Message(f"{tag}t{i}", "tool", f"===== {i} passed, 0 failed ({tag}) ====="))
    return messages


def peak(messages: list[Message]) -> tuple[int, int]:
    """Traced peak bytes of one inspection above what was held before it, and its candidates."""
    gc.collect()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    result = inspect_messages(messages)
    return tracemalloc.get_traced_memory()[1] - before, len(result.candidates)


def test_a_statement_costs_a_bounded_few_hundred_bytes_while_inspected() -> None:
    small, large = session(300, "s"), session(600, "l")
    tracemalloc.start()
    try:
        # The rules' caches (bounded: ``supersession._CACHE`` texts) fill first, so the
        # difference between the two sizes is mostly what the statements themselves cost.
        inspect_messages(session(600, "w"))
        low, low_n = peak(small)
        high, high_n = peak(large)
    finally:
        tracemalloc.stop()
    assert high_n > low_n + 1_500
    assert (high - low) / (high_n - low_n) < PER_STATEMENT
