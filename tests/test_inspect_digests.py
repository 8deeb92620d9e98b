"""The digest table: a dict's answers in flat arrays, through growth and collisions."""

from __future__ import annotations

import hashlib
import struct
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect.digests import DigestTable, Statements


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _numbered(digests: list[bytes]) -> list[int]:
    """What a dict answers for each digest added in turn: its number."""
    seen: dict[bytes, int] = {}
    return [seen.setdefault(d, len(seen)) for d in digests]


def test_numbers_follow_first_sight_and_copies_keep_theirs() -> None:
    table = DigestTable()
    a, b = _digest("use redis"), _digest("use sqlite")
    assert [table.add(d) for d in (a, b, a, b)] == [0, 1, 0, 1]
    assert len(table) == 2


def test_growth_keeps_every_number() -> None:
    digests = [_digest(f"statement {n}") for n in range(5000)]  # several doublings
    table = DigestTable()
    assert [table.add(d) for d in digests] == list(range(5000))
    assert [table.add(d) for d in reversed(digests)] == list(reversed(range(5000)))
    assert len(table) == 5000


def test_digests_sharing_a_low_half_are_told_apart_by_the_high_one() -> None:
    # The same slot and the same low half: only the high half differs.
    pack = struct.Struct("<QQ").pack
    same_low = [pack(7, high) for high in range(1, 40)]
    # Another low half that probes into the same run of slots.
    neighbours = [pack(7 + 1024 * n, 1) for n in range(1, 40)]
    digests = [d for pair in zip(same_low, neighbours, strict=True) for d in pair]
    table = DigestTable()
    assert [table.add(d) for d in digests + digests[::3]] == _numbered(digests + digests[::3])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=3000), max_size=4000))
def test_the_table_answers_as_a_dict_would(picks: list[int]) -> None:
    # Few distinct values among many picks: copies, near and far, through growth.
    pack = struct.Struct("<QQ").pack
    digests = [pack(n * 0x9E3779B97F4A7C15 % 2**64, n % 5) for n in picks]
    table = DigestTable()
    assert [table.add(d) for d in digests] == _numbered(digests)


def test_statements_that_say_one_thing_share_a_number() -> None:
    statements = Statements()
    said = [
        "Use Redis.",
        '"Use   redis"',  # a summary quoting it, spaced and cased its own way
        "Use SQLite.",
        "use redis!",
        "不要改公共 API。",
        "不要改公共 API",
    ]
    assert [statements.number(text) for text in said] == [0, 0, 1, 0, 2, 2]


def test_a_digest_costs_a_few_dozen_bytes_at_any_size() -> None:
    # What a streamed inspection keeps of each statement for the rest of it: a dict of
    # bytes to ints cost about 130 bytes a statement (its key, its value and its slot).
    for n in (3_000, 43_691, 87_381):  # just after a doubling, and just before one
        table = DigestTable()
        for k in range(n):
            table.add(_digest(str(k)))
        held = sum(sys.getsizeof(part) for part in (table._low, table._high, table._slots))
        assert held / n < 48, n
