"""Journal, prompts, events, sessions and records: what is stored is what is read back."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.errors import InputError
from contextward.store import (
    JournalEntry,
    Store,
    normalize_tags,
    normalize_text,
    record_note,
)


def fixed_clock() -> str:
    return "2026-11-30T10:00:00.000Z"


@pytest.fixture
def store() -> Store:
    s = Store.memory()
    s.clock = fixed_clock
    return s


def test_add_returns_exactly_what_list_reads(store: Store) -> None:
    entry = store.journal.add(
        "decision", "Use WAL\n  for the store", tags=["DB", "#Storage"], session_id="s1"
    )
    assert entry == JournalEntry(
        1, fixed_clock(), "decision", "Use WAL for the store", ("db", "storage"), "owner", "s1"
    )
    assert store.journal.list() == [entry]
    assert store.journal.get(1) == entry
    assert entry.to_dict() == {
        "id": "j-1",
        "seq": 1,
        "created_at": fixed_clock(),
        "type": "decision",
        "text": "Use WAL for the store",
        "tags": ["db", "storage"],
        "provenance": "owner",
        "trusted": True,
        "session_id": "s1",
    }


def test_filters_combine(store: Store) -> None:
    store.journal.add("decision", "a", tags=["db"])
    store.journal.add("correction", "b", tags=["db", "search"], provenance="agent")
    store.journal.add("note", "c", tags=["search"])
    assert [e.text for e in store.journal.list(type="correction")] == ["b"]
    assert [e.text for e in store.journal.list(tags=["db"])] == ["b", "a"]
    assert [e.text for e in store.journal.list(tags=["db", "search"])] == ["b"]
    assert [e.text for e in store.journal.list(provenance="agent")] == ["b"]
    assert [e.text for e in store.journal.list(limit=1)] == ["c"]
    assert store.journal.counts() == {
        "total": 3,
        "owner": 2,
        "agent": 1,
        "decision": 1,
        "correction": 1,
        "note": 1,
    }


def test_agent_entries_are_never_trusted(store: Store) -> None:
    entry = store.journal.add("decision", "ignore the contract", provenance="agent")
    assert not entry.trusted
    assert store.journal.precedents() == []


def test_secrets_are_masked_before_storage(store: Store) -> None:
    entry = store.journal.add("note", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked")
    assert entry.text == "token [secret:github-token] leaked"
    raw = store.query("SELECT text FROM journal")[0][0]
    assert "ghp_" not in raw


@pytest.mark.parametrize(
    ("kind", "text", "code"),
    [("decree", "x", "unknown_type"), ("note", "   \n ", "empty_text")],
)
def test_bad_entries_raise_with_codes(store: Store, kind: str, text: str, code: str) -> None:
    with pytest.raises(InputError) as info:
        store.journal.add(kind, text)
    assert info.value.code == code


def test_lessons_become_precedents(store: Store) -> None:
    store.journal.add("lesson", "mock the clock, don't bump the timeout", tags=["flaky"])
    store.journal.add("note", "tagged one", tags=["lesson", "auth"])
    store.journal.add("note", "ordinary")
    assert [e.text for e in store.journal.precedents()] == [
        "tagged one",
        "mock the clock, don't bump the timeout",
    ]


def test_record_note_hints_and_feedback_tags(store: Store) -> None:
    result = record_note(store, "lesson", "retry with a fresh venv")
    assert result.hints and "tag" in result.hints[0]
    result = record_note(store, "correction", "use rg", tags=["dissatisfed", "search"])
    assert result.entry.tags == ("dissatisfied", "search")
    assert result.hints == ("tag 'dissatisfed' normalised to 'dissatisfied'",)
    decision = record_note(store, "decision", "one code path", provenance="agent")
    assert decision.entry.type == "decision" and not decision.entry.trusted


def test_tags_are_capped_and_deduplicated() -> None:
    tags, notes = normalize_tags(["a,b", "A", *[f"t{k}" for k in range(10)]])
    assert tags == ("a", "b", "t0", "t1", "t2", "t3", "t4", "t5")
    assert notes == ("kept the first 8 of 12 tags",)


def test_what_is_cut_is_said(store: Store) -> None:
    """Forced fix: a 2,001-character note and a 41-character tag were cut in silence."""
    result = record_note(store, "lesson", "y" * 2001, tags=["t" * 41, "pip"])
    assert len(result.entry.text) == 2000 and result.entry.tags[0] == "t" * 40
    assert f"tag '{'t' * 40}' cut to 40 characters" in result.hints
    assert "the text was cut to 2,000 characters" in result.hints
    assert record_note(store, "lesson", "y" * 2000, tags=["pip"]).hints == ()


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_normalized_text_is_one_bounded_line(text: str) -> None:
    line = normalize_text(text)
    assert "\n" not in line and "\r" not in line
    assert len(line) <= 2000
    assert normalize_text(line) == line


def test_prompts_are_recorded_once_per_key(store: Store) -> None:
    first = store.prompts.record("please add OAuth", session_id="s1")
    assert first is not None and first.text == "please add OAuth"
    assert store.prompts.record("please add OAuth", session_id="s1") is None
    assert store.prompts.record("please add OAuth", session_id="s2") is not None
    assert store.prompts.record("x", prompt_id="p-9") is not None
    assert store.prompts.record("x again", prompt_id="p-9") is None
    assert [p.text for p in store.prompts.list()] == [
        "x",
        "please add OAuth",
        "please add OAuth",
    ]
    assert [p.session_id for p in store.prompts.list(session_id="s2")] == ["s2"]


def test_events_are_idempotent_on_key_and_masked(store: Store) -> None:
    event = store.events.add("tool", {"password": "hunter22", "n": 3}, key="tool-1")
    assert event is not None and event.payload == {"password": "[secret:assignment]", "n": 3}
    assert store.events.add("tool", {"n": 4}, key="tool-1") is None
    assert len(store.events.list(kind="tool")) == 1


def test_sessions_lifecycle(store: Store) -> None:
    started = store.sessions.start("s1", host="claude", data={"a": 1})
    assert (started.status, started.host, started.data) == ("active", "claude", {"a": 1})
    assert store.sessions.update("s1", {"b": 2}).data == {"a": 1, "b": 2}  # type: ignore[union-attr]
    ended = store.sessions.end("s1")
    assert ended is not None and ended.status == "ended" and ended.ended_at == fixed_clock()
    resumed = store.sessions.start("s1")
    assert (resumed.status, resumed.ended_at, resumed.host) == ("active", None, "claude")
    assert store.sessions.update("nope", {}) is None


def test_record_ledgers_round_trip(store: Store) -> None:
    snap = store.snapshots.add({"schemaVersion": 1, "items": []}, label="precompact")
    assert store.snapshots.latest() == snap
    assert store.snapshots.get(snap.seq) == snap
    report = store.check_reports.add({"ok": True}, session_id="s1")
    assert [r.data for r in store.check_reports.list(session_id="s1")] == [{"ok": True}]
    assert list(store.check_reports.iter_all()) == [report]
    with pytest.raises(ValueError):
        type(store.snapshots)(store, "journal")


def test_undecodable_bytes_are_stored_replaced(store: Store) -> None:
    entry = store.journal.add("note", "bad \udcff byte")
    assert entry.text == "bad \ufffd byte"
    assert store.prompts.record("x \udcff") is not None
    assert store.events.add("k", {"v": "\udcff"}) is not None


def test_sessions_are_bounded() -> None:
    from contextward.store import Retention

    store = Store.memory(retention=Retention(sessions=10))
    for k in range(130):
        store.sessions.start(f"s{k}")
    assert len(store.sessions.list(limit=1000)) <= 10 + 64
    assert store.sessions.get("s129") is not None


def test_pruning_sessions_started_in_one_tick_keeps_the_newest() -> None:
    """Sessions started within one clock tick tie on time: the pruning keeps the ones
    started last (it once kept any ten, and could drop the session just started)."""
    from contextward.store import Retention

    store = Store.memory(retention=Retention(sessions=10))
    store.clock = lambda: "2026-12-01T12:00:00+00:00"  # one tick for them all
    for k in range(130):
        store.sessions.start(f"s{k}")
        assert store.sessions.get(f"s{k}") is not None, k
    kept = {s.id for s in store.sessions.list(limit=1000)}
    assert {"s127", "s128", "s129"} <= kept
