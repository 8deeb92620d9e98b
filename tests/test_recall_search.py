"""Recall over a real SQLite store: ranking, filters, trust labels, widening, sync."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from contextward.recall import (
    Document,
    RecallError,
    RecallIndex,
    RecallQuery,
    VersionedSource,
    recall,
    register_source,
    unregister_source,
)
from contextward.store import Retention, Store


@pytest.fixture
def store() -> Iterator[Store]:
    s = Store.memory()
    yield s
    s.close()


def refs(store: Store, query: RecallQuery) -> list[str]:
    return [hit.ref for hit in recall(store, query).hits]


def run(store: Store, command: str, exit_code: int = 0, digest: str = "") -> str:
    verdict = "ok" if exit_code == 0 else "fail"
    return store.evidence.record(
        command=command,
        fingerprint=" ".join(command.split()),
        streak_key=" ".join(command.split()),
        cwd=".",
        exit_code=exit_code,
        duration_ms=5,
        verdict=verdict,
        reasons=(),
        digest=digest,
        output_bytes=len(digest),
        attempt_outcome="success" if exit_code == 0 else "fail",
    ).id


def test_hits_carry_trust_labels(store: Store) -> None:
    store.journal.add("decision", "Auth tokens expire after one hour", tags=["auth"])
    store.journal.add("note", "auth token refresh looks flaky", provenance="agent")
    ev = run(store, "pytest tests/test_auth.py", 1, "FAILED test_token_refresh")
    result = recall(store, RecallQuery("auth token"))
    assert {(h.ref, h.trust) for h in result.hits} == {
        ("j-1", "owner"),
        ("j-2", "agent-unverified"),
        (ev, "evidence"),
    }


def test_precise_short_row_outranks_verbose_filler(store: Store) -> None:
    filler = " ".join(["deploy pipeline notes about staging and production"] * 8)
    store.journal.add("note", filler)
    store.journal.add("decision", "Deploy only from the release branch")
    for n in range(10):
        store.journal.add("note", f"unrelated entry number {n} about logging")
    assert refs(store, RecallQuery("deploy release"))[0] == "j-2"


def test_inflected_query_finds_other_forms(store: Store) -> None:
    store.journal.add("lesson", "Retrieval of patches must mock the clock")
    assert refs(store, RecallQuery("retrieving patch")) == ["j-1"]


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("Version all public APIs and CLIs", "api"),
        ("Version all public APIs and CLIs", "cli"),
        ("the public API is frozen", "APIs"),
        ("pin GPUs per job", "gpu"),
        ("never share DBs or VMs", "db vm"),
        ("keep ids stable", "ID"),
    ],
)
def test_a_short_word_finds_its_plural_and_back(store: Store, text: str, query: str) -> None:
    store.journal.add("lesson", text)
    store.journal.add("lesson", "the bus carries gas, yes")
    assert refs(store, RecallQuery(query)) == ["j-1"]


def test_an_index_built_by_the_older_analyzer_is_rebuilt_once(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        store.journal.add("lesson", "never share DBs")
        RecallIndex(store).sync()
        # What the analyzer before the short-plural rule stored, and a store that has
        # not seen the migration yet.
        with store.write() as conn:
            conn.execute("UPDATE recall_fts SET body = 'never share dbs'")
            conn.execute(
                "DELETE FROM schema_migrations WHERE name = 'recall.0002_reindex_short_plurals'"
            )
        assert refs(store, RecallQuery("db")) == ["j-1"]


def test_tags_are_searched_as_words(store: Store) -> None:
    store.journal.add("lesson", "prefers the broad fix over a narrow patch", tags=["annoyed"])
    assert refs(store, RecallQuery("annoyed")) == ["j-1"]


def test_cjk_query_finds_text_inside_an_unsegmented_run(store: Store) -> None:
    store.journal.add("correction", "不要在生产库上运行迁移")
    store.journal.add("note", "生产环境的配置")
    assert refs(store, RecallQuery("生产库")) == ["j-1"]


def test_only_stopwords_is_said_not_silently_listed(store: Store) -> None:
    store.journal.add("note", "something")
    result = recall(store, RecallQuery("the and of"))
    assert result.hits == ()
    assert result.notes == ("the query has no searchable words",)


def test_long_query_widens_once_and_says_so(store: Store) -> None:
    store.journal.add("decision", "Use WAL mode for the database")
    strict = recall(store, RecallQuery("wal database"))
    assert [h.ref for h in strict.hits] == ["j-1"]
    assert not strict.widened
    wide = recall(store, RecallQuery("wal database zebra unicorn"))
    assert [h.ref for h in wide.hits] == ["j-1"]
    assert wide.widened
    assert wide.notes[0].startswith("widened:")


def test_short_query_does_not_widen(store: Store) -> None:
    store.journal.add("decision", "Use WAL mode for the database")
    result = recall(store, RecallQuery("wal zebra"))
    assert result.hits == ()
    assert not result.widened


def test_near_duplicates_collapse_into_the_best_hit(store: Store) -> None:
    store.journal.add("note", "the auth timeout happens in CI again")
    store.journal.add("note", "The auth timeout happens in CI again!")
    store.journal.add("note", "the auth timeout happens in CI again.")
    store.journal.add("note", "auth timeout fixed by mocking the clock")
    result = recall(store, RecallQuery("auth timeout"))
    assert len(result.hits) == 2
    assert sorted(h.duplicates for h in result.hits) == [0, 2]


def test_rows_differing_in_a_number_are_not_duplicates(store: Store) -> None:
    store.journal.add("decision", "the api listens on port 8080")
    store.journal.add("decision", "the api listens on port 9090")
    assert len(recall(store, RecallQuery("api port")).hits) == 2


def test_filters_type_tags_and_no_query_lists_newest(store: Store) -> None:
    store.journal.add("decision", "a", tags=["db"])
    store.journal.add("decision", "b", tags=["db", "perf"])
    store.journal.add("note", "c", tags=["db", "perf"])
    assert refs(store, RecallQuery()) == ["j-3", "j-2", "j-1"]
    assert refs(store, RecallQuery(type="decision")) == ["j-2", "j-1"]
    assert refs(store, RecallQuery(tags=("db", "perf"))) == ["j-3", "j-2"]
    assert refs(store, RecallQuery(type="decision", tags=("PERF",))) == ["j-2"]
    assert refs(store, RecallQuery(limit=1)) == ["j-3"]


def test_evidence_id_filter_and_id_as_a_word(store: Store) -> None:
    first = run(store, "npm test", 1)
    run(store, "npm test", 0)
    assert refs(store, RecallQuery(evidence_id="ev-1")) == [first]
    assert refs(store, RecallQuery(evidence_id=first.upper())) == [first]
    assert refs(store, RecallQuery("ev-0001")) == [first]


def test_cmd_filter_exact_fingerprint_first_then_substring(store: Store) -> None:
    exact = run(store, "pytest -q")
    longer = run(store, "pytest -q tests/test_x.py")
    run(store, "npm test")
    store.journal.add("note", "pytest -q is the gate")
    assert refs(store, RecallQuery(cmd="pytest -q")) == [exact, longer]
    assert refs(store, RecallQuery(cmd="PYTEST")) == []


def test_evidence_hits_are_labelled_with_their_outcome(store: Store) -> None:
    run(store, "make lint", 2, "E501 line too long")
    (hit,) = recall(store, RecallQuery("lint")).hits
    assert (hit.kind, hit.trust, hit.label) == ("evidence", "evidence", "FAIL exit 2")


def test_digest_words_are_searchable_but_weaker_than_the_command(store: Store) -> None:
    in_digest = run(store, "make check", 1, "flaky websocket reconnect")
    in_command = run(store, "pytest tests/test_websocket.py")
    assert refs(store, RecallQuery("websocket")) == [in_command, in_digest]


def test_bad_requests_have_codes(store: Store) -> None:
    with pytest.raises(RecallError) as info:
        recall(store, RecallQuery(type="banana"))
    assert info.value.code == "unknown_type"
    with pytest.raises(RecallError) as info:
        recall(store, RecallQuery(evidence_id="seven"))
    assert info.value.code == "bad_evidence_id"
    with pytest.raises(RecallError) as info:
        recall(store, RecallQuery(limit=21))
    assert info.value.code == "bad_limit"


def test_index_follows_new_rows_and_retention(tmp_path: object) -> None:
    store = Store.memory(retention=Retention(journal=3))
    index = RecallIndex(store)
    store.journal.add("note", "alpha first")
    assert [h.ref for h in recall(store, RecallQuery("alpha"), index=index).hits] == ["j-1"]
    for n in range(70):
        store.journal.add("note", f"filler {n}")
    store.journal.add("note", "alpha again")
    # Retention pruned j-1 from the journal: the index drops it too.
    assert [h.ref for h in recall(store, RecallQuery("alpha"), index=index).hits] == ["j-72"]
    assert index.count() == store.journal.counts()["total"]


def test_quiet_sync_changes_nothing_and_rebuild_gives_the_same_answers(store: Store) -> None:
    for n in range(30):
        store.journal.add("note", f"entry {n} about caching layer {n % 3}")
    index = RecallIndex(store)
    before = recall(store, RecallQuery("caching layer"), index=index)
    assert not index.sync().changed
    rebuilt = index.rebuild()
    assert rebuilt.added["journal"] == 30
    assert sum(rebuilt.added.values()) == 30
    assert recall(store, RecallQuery("caching layer"), index=index) == before


def test_registered_document_source_is_indexed_and_replaced_on_change(store: Store) -> None:
    version = {"v": "1"}
    docs = {
        "1": [Document(1, "doc:d1", "decision", "owner", "2026-01-01T00:00:00Z", "Use Postgres")],
        "2": [Document(1, "doc:d1", "decision", "owner", "2026-01-02T00:00:00Z", "Use SQLite")],
    }
    register_source(
        "test-docs",
        lambda _store: VersionedSource(
            "test-docs", lambda: version["v"], lambda: docs[version["v"]]
        ),
    )
    try:
        assert refs(store, RecallQuery("postgres")) == ["doc:d1"]
        version["v"] = "2"
        assert refs(store, RecallQuery("postgres")) == []
        (hit,) = recall(store, RecallQuery("sqlite")).hits
        assert (hit.source, hit.trust) == ("test-docs", "owner")
    finally:
        unregister_source("test-docs")


def test_hit_text_is_masked_even_if_a_source_forgot(store: Store) -> None:
    secret = "ghp_" + "b" * 36
    source = VersionedSource(
        "raw",
        lambda: "1",
        lambda: [Document(1, "raw:1", "note", "owner", "2026-01-01T00:00:00Z", f"token {secret}")],
    )
    index = RecallIndex(store, [source])
    (hit,) = recall(store, RecallQuery("token"), index=index).hits
    assert secret not in hit.text
    assert "[secret:github-token]" in hit.text


def test_result_dict_shape(store: Store) -> None:
    store.journal.add("decision", "Keep the API stable", tags=["api"])
    data = recall(store, RecallQuery("api")).to_dict()
    assert data["schema_version"] == 1
    assert data["terms"] == ["api"]
    (hit,) = data["hits"]
    assert {k: hit[k] for k in ("ref", "kind", "trust", "text", "tags", "duplicates")} == {
        "ref": "j-1",
        "kind": "decision",
        "trust": "owner",
        "text": "Keep the API stable",
        "tags": ["api"],
        "duplicates": 0,
    }
