"""The store: location, migrations, schema version, retention, error codes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import contextward.store as store_pkg
from contextward import guard
from contextward.errors import StoreError
from contextward.store import (
    CORE_MIGRATIONS,
    GITIGNORE,
    SCHEMA_MIGRATIONS,
    Migration,
    Retention,
    Store,
    database_path,
    project_root,
)


def test_documented_api_stays_available() -> None:
    # docs/store-api.md promises these names; the surface only grows.
    for name in (
        "Migration",
        "Retention",
        "Store",
        "record_decision",
        "record_note",
        "session_id_from_env",
        "parse_evidence_id",
    ):
        assert name in store_pkg.__all__
    for name in ("assess", "check", "decide", "run_verified", "streak_key"):
        assert name in guard.__all__
    store = Store.memory()
    for ledger in ("journal", "prompts", "evidence", "attempts", "events", "sessions"):
        assert getattr(store, ledger).store is store
    for ledger in ("inspections", "snapshots", "check_reports"):
        assert getattr(store, ledger).table == ledger


def test_store_lives_at_the_git_worktree_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    assert project_root(deep) == tmp_path.resolve()
    with Store.open(deep) as store:
        assert store.path == database_path(tmp_path.resolve())
    assert (tmp_path / ".contextward" / ".gitignore").read_text() == GITIGNORE
    assert not (deep / ".contextward").exists()


def test_a_linked_worktree_has_a_git_file(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("gitdir: /elsewhere\n")
    (tmp_path / "src").mkdir()
    assert project_root(tmp_path / "src") == tmp_path.resolve()


def test_without_git_the_store_is_in_the_starting_directory(tmp_path: Path) -> None:
    assert project_root(tmp_path) == tmp_path.resolve()


def test_without_git_the_host_project_folder_holds_its_subfolders(tmp_path: Path) -> None:
    from contextward.fastpath import project_root as fast_project_root

    named, sibling = tmp_path / "app", tmp_path / "app-other"
    (named / "src" / "deep").mkdir(parents=True)
    sibling.mkdir()
    cases = {
        named / "src" / "deep": named,  # inside the named folder: the named folder
        named: named,
        sibling: sibling,  # a name that only starts the same is outside it
        tmp_path: tmp_path,  # above it: the start, as without a host
    }
    for start, expected in cases.items():
        assert project_root(start, host_project=named) == expected.resolve()
        assert fast_project_root(str(start), str(named)) == str(expected.resolve())
    (named / "src" / ".git").mkdir()  # a repository inside it: its worktree root wins
    assert project_root(named / "src" / "deep", host_project=named) == (named / "src").resolve()
    assert fast_project_root(str(named / "src" / "deep"), str(named)) == str(named / "src")


def test_database_is_wal_with_a_busy_timeout(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert sorted(p.name for p in (tmp_path / ".contextward").iterdir()) == [
        ".gitignore",
        "contextward.db",
    ]


def test_missing_store_is_not_created_for_reading(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as info:
        Store.open(tmp_path, create=False)
    assert info.value.code == "store_missing"
    assert not (tmp_path / ".contextward").exists()


def test_core_migration_names_are_append_only() -> None:
    # Released names never change; new migrations are appended after these.
    assert [m.name for m in CORE_MIGRATIONS][:1] == ["store.0001_ledgers"]


def test_schema_version_counts_applied_migrations(tmp_path: Path) -> None:
    schema = [m.name for m in SCHEMA_MIGRATIONS]
    with Store.open(tmp_path) as store:
        assert store.applied_migrations() == schema
        assert store.schema_version == len(schema)
        extra = (Migration("plugin.0001_demo", ("CREATE TABLE demo (x INTEGER)",)),)
        assert store.apply(extra) == ["plugin.0001_demo"]
        assert store.apply(extra) == []
        assert store.schema_version == len(schema) + 1
    with Store.open(tmp_path) as again:
        assert again.applied_migrations() == [*schema, "plugin.0001_demo"]


def test_the_recall_rank_migration_holds_the_weights_search_uses() -> None:
    from contextward.recall.index import WEIGHTS

    (index, *_) = (m for m in SCHEMA_MIGRATIONS if m.name == "recall.0001_index")
    assert f"'bm25({', '.join(map(str, WEIGHTS))})'" in "".join(index.statements)


def test_a_failing_migration_leaves_neither_table_nor_record(tmp_path: Path) -> None:
    broken = (
        Migration(
            "test.0001_broken", ("CREATE TABLE half (x INTEGER)", "CREATE TABLE half (x INTEGER)")
        ),
    )
    with Store.open(tmp_path) as store:
        with pytest.raises(StoreError):
            store.apply(broken)
        assert "test.0001_broken" not in store.applied_migrations()
        tables = {r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "half" not in tables
        assert store.schema_version == len(SCHEMA_MIGRATIONS)


def test_python_step_runs_in_the_migration_transaction() -> None:
    store = Store.memory()
    seen: list[bool] = []

    def step(conn: sqlite3.Connection) -> None:
        seen.append(conn.in_transaction)
        conn.execute("INSERT INTO demo VALUES (1)")

    store.apply((Migration("test.0001_data", ("CREATE TABLE demo (x INTEGER)",), step),))
    assert seen == [True]
    assert store.query("SELECT x FROM demo")[0][0] == 1


def test_duplicate_migration_names_are_refused() -> None:
    store = Store.memory()
    with pytest.raises(ValueError):
        store.apply((Migration("a.1"), Migration("a.1")))


def test_write_rolls_back_on_error() -> None:
    store = Store.memory()
    with pytest.raises(RuntimeError), store.write() as conn:
        conn.execute(
            "INSERT INTO journal (created_at, type, text, provenance) VALUES ('t','note','x','owner')"
        )
        raise RuntimeError("boom")
    assert store.journal.counts()["total"] == 0


def test_retention_prunes_oldest_rows_but_keeps_lessons() -> None:
    store = Store.memory(retention=Retention(journal=100, evidence=100))
    store.journal.add("lesson", "mock the clock", tags=["clock"])
    store.journal.add("note", "tagged lesson", tags=["lesson", "flaky"])
    for k in range(400):
        store.journal.add("note", f"n{k}")
    texts = [e.text for e in store.journal.list(limit=10_000)]
    assert "mock the clock" in texts and "tagged lesson" in texts
    assert len(texts) <= 100 + 64 + 2
    store.prune()
    texts = [e.text for e in store.journal.list(limit=10_000)]
    assert len(texts) == 102
    assert texts[0] == "n399"
    assert "n0" not in texts


def test_evidence_ids_are_never_reused_after_pruning() -> None:
    store = Store.memory(retention=Retention(evidence=100))
    for k in range(300):
        store.evidence.record(
            command=f"c{k}",
            fingerprint="c",
            streak_key="c",
            cwd=".",
            exit_code=0,
            duration_ms=1,
            verdict="ok",
            reasons=(),
            digest="",
            output_bytes=0,
            attempt_outcome="success",
        )
    store.prune()
    assert store.evidence.count() == 100
    assert store.evidence.last() is not None
    assert store.evidence.last().id == "ev-0300"  # type: ignore[union-attr]
    run = store.evidence.record(
        command="next",
        fingerprint="n",
        streak_key="n",
        cwd=".",
        exit_code=0,
        duration_ms=1,
        verdict="ok",
        reasons=(),
        digest="",
        output_bytes=0,
        attempt_outcome="success",
    )
    assert run.id == "ev-0301"


def test_errors_translate_to_stable_codes(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError) as info:
        store_pkg.connect(path)
    assert info.value.code == "store_damaged"


def test_store_unavailable_when_directory_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / ".contextward").write_text("a file where the folder should be")
    with pytest.raises(StoreError) as info:
        Store.open(tmp_path)
    assert info.value.code == "store_unavailable"


def test_a_sessions_own_runs_mark_only_its_generation(tmp_path: Path) -> None:
    # The hook fast path watches the project's generation and the session's own: a test
    # run or a loop streak of session b changes no other session's prompt brief.
    generations = tmp_path / ".contextward"
    with Store.open(tmp_path) as store:
        store.evidence.record(
            command="pytest -q", fingerprint="pytest -q", streak_key="pytest -q", cwd=".",
            exit_code=1, duration_ms=1, verdict="fail", reasons=(), digest="",
            output_bytes=0, attempt_outcome="fail", session_id="b",
        )  # fmt: skip
        store.attempts.record(
            streak_key="make lint", fingerprint="make lint", outcome="fail", source="claude",
            session_id="c",
        )  # fmt: skip
        assert not (generations / "record.gen").exists()
        assert sorted(p.name for p in (generations / "hook-cache").iterdir()) == ["b.gen", "c.gen"]
        # What every session's brief shows: the journal, the owner's reset of a streak.
        store.journal.add("correction", "The API port is 8443.", session_id="b")
        assert (generations / "record.gen").exists()
        (generations / "record.gen").unlink()
        store.attempts.record(
            streak_key="make lint", fingerprint="make lint", outcome="success", source="reset"
        )
        assert (generations / "record.gen").exists()
