"""A decision the owner replaces stops being the project's: marked, hidden, ranked last."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

import contextward.state.recall_source  # noqa: F401 (registers STATE.md decisions in recall)
from contextward.brief import render_brief
from contextward.brief.state_block import render_state_block
from contextward.cli import main
from contextward.compaction import project_items
from contextward.recall import RecallQuery, recall
from contextward.state import StateProject, decide, decision_rows, read_state, record_decision
from contextward.state.git import GitState
from contextward.state.status import gather
from contextward.store import Store

NOW = datetime(2026, 4, 11, 14, 0, 5, tzinfo=UTC)


@pytest.fixture
def project(tmp_path: Path) -> StateProject:
    (tmp_path / ".git").mkdir()  # marks the root; no git needed for file tests
    return StateProject.open(tmp_path)


def decisions(project: StateProject) -> list[tuple[str, str]]:
    return [(d.kind, d.text) for d in read_state(project).decisions]


@pytest.mark.parametrize(
    ("first", "then"),
    [
        # The same sentence with another name in one place.
        ("Use PostgreSQL for the primary datastore", "Use MySQL for the primary datastore"),
        ("Deploy the API to us-east-1", "Deploy the API to eu-west-1"),
        # What inspection reads as a replacement.
        ("Use PostgreSQL for the primary datastore", "Switch the primary datastore to MySQL"),
        (
            "Use PostgreSQL for the primary datastore",
            "Actually, use MySQL instead of PostgreSQL for the primary datastore",
        ),
        ("Set the HTTP timeout to 30 seconds", "Set the HTTP timeout to 90 seconds"),
        ("主数据库用 PostgreSQL", "主数据库改用 MySQL"),
        # What the new one says it leaves, or a new number for the same words.
        ("Store uploads on S3.", "Uploads go to GCS now, not S3."),
        ("Use Celery for background jobs.", "Drop Celery; background jobs run on RQ."),
        ("上传文件存到 S3。", "上传改存 GCS，不用 S3 了。"),
        ("Use Postgres for orders.", "Move orders from Postgres to MySQL."),
        ("Page size is 50.", "Make the page size 200."),
    ],
)
def test_a_decision_that_replaces_an_earlier_one_supersedes_it(
    project: StateProject, first: str, then: str
) -> None:
    record_decision("Never deploy on Fridays", project=project, now=NOW)
    record_decision(first, project=project, now=NOW)
    done = decide(then, project=project, now=NOW)
    assert [d.text for d in done.replaced] == [first]
    assert decisions(project) == [
        ("decision", "Never deploy on Fridays"),
        ("superseded", first),
        ("decision", then),
    ]
    # Only the mark goes in: the line keeps its words and its date.
    assert f"- [SUPERSEDED] {first} [2026-04-11]\n" in project.state_path.read_text()


@pytest.mark.parametrize(
    ("first", "then"),
    [
        ("Use Redis for the cache", "Use Redis for the queue"),
        ("Use PostgreSQL for the primary datastore", "Use Redis for the cache"),
        ("Use pnpm", "Use pnpm for the monorepo too"),
        ("Never push to main", "Always open a PR"),
        # A full stop is no part of a name; a thing named in passing is not left.
        ("Use Redis for the cache.", "Use Redis for the queue."),
        ("Store uploads on S3.", "Copy logs from S3 nightly."),
        ("Store uploads on S3.", "Logs are not on S3."),
        ("Use 4 workers for export.", "Use 8 workers for import."),
        ("decision 1", "decision 2"),
    ],
)
def test_a_decision_beside_an_earlier_one_supersedes_nothing(
    project: StateProject, first: str, then: str
) -> None:
    record_decision(first, project=project, now=NOW)
    assert decide(then, project=project, now=NOW).replaced == ()
    assert decisions(project) == [("decision", first), ("decision", then)]


def test_turning_a_decision_down_supersedes_it_and_taking_it_up_again_lifts_the_rejection(
    project: StateProject,
) -> None:
    record_decision("Use PostgreSQL", why="transactions", project=project, now=NOW)
    record_decision("Use PostgreSQL", rejected=True, why="ops run MySQL", project=project, now=NOW)
    assert decisions(project) == [("superseded", "Use PostgreSQL"), ("rejected", "Use PostgreSQL")]
    view = read_state(project)
    assert (view.locked, view.rejected, view.superseded) == (0, 1, 1)
    record_decision("Use PostgreSQL", why="ops learned it", project=project, now=NOW)
    assert [kind for kind, _ in decisions(project)] == ["superseded", "superseded", "decision"]


def test_a_decision_recorded_again_word_for_word_is_not_appended_twice(
    project: StateProject,
) -> None:
    record_decision("Use WAL mode.", project=project, now=NOW)
    assert decide("use  WAL mode", project=project, now=NOW).repeated
    assert decisions(project) == [("decision", "Use WAL mode.")]


def test_the_cli_says_what_a_decision_superseded(
    project: StateProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project.root)
    runner = CliRunner()
    runner.invoke(main, ["decide", "Use PostgreSQL for the primary datastore"])
    result = runner.invoke(main, ["decide", "Use MySQL for the primary datastore"])
    assert result.exit_code == 0
    assert result.stdout == (
        "decision recorded in STATE.md\nsupersedes: Use PostgreSQL for the primary datastore\n"
    )
    again = runner.invoke(main, ["decide", "Use MySQL for the primary datastore"])
    assert again.stdout == "decision already recorded in STATE.md (not added twice)\n"


def test_a_superseded_decision_leaves_the_brief_the_state_block_and_the_standing_record(
    project: StateProject,
) -> None:
    record_decision("Use PostgreSQL for the primary datastore", project=project, now=NOW)
    record_decision("Use MySQL for the primary datastore", project=project, now=NOW)
    record_decision("Use Redis for the cache", rejected=True, why="no Redis", project=project)
    with Store.open(project.root) as store:
        brief = render_brief(store, env={"CONTEXTWARD_HOME": str(project.root / "home")})
        block = render_state_block(gather(project, git=GitState(repo=False, reason="no git")))
        standing = project_items(store, project.root)
        found = recall(store, RecallQuery("primary datastore"))
    assert "PostgreSQL" not in brief.text
    assert "- Use MySQL for the primary datastore (state:" in brief.text
    assert "Decisions: 1 locked, 1 rejected, 1 superseded" in block
    # The standing record a summary must keep: the decision in force, and the rejected
    # approach said to be rejected (its words alone would read as a decision).
    assert [(i.kind, i.content) for i in standing if i.id.startswith("state:")] == [
        ("decision", "Use MySQL for the primary datastore"),
        ("rejected", "Rejected: Use Redis for the cache — no Redis"),
    ]
    # Recall still finds the old one, marked, after the one in force.
    assert [(hit.kind, hit.text) for hit in found.hits] == [
        ("decision", "Use MySQL for the primary datastore"),
        ("superseded", "[SUPERSEDED] Use PostgreSQL for the primary datastore"),
    ]


def test_a_decisions_id_stays_the_same_once_superseded(project: StateProject) -> None:
    record_decision("Use PostgreSQL for the primary datastore", project=project, now=NOW)
    (before,) = decision_rows(project)
    record_decision("Use MySQL for the primary datastore", project=project, now=NOW)
    after = next(decision_rows(project))
    assert (after.id, after.kind) == (before.id, "superseded")


def test_a_rejected_approach_is_never_folded_into_a_decision_sharing_its_words(
    project: StateProject,
) -> None:
    record_decision("Use PostgreSQL for the primary datastore", project=project, now=NOW)
    record_decision("Use PostgreSQL for the primary datastore", rejected=True, project=project)
    record_decision("Use MySQL for the primary datastore", project=project, now=NOW)
    with Store.open(project.root) as store:
        found = recall(store, RecallQuery("primary datastore"))
    assert [hit.kind for hit in found.hits] == ["decision", "rejected", "superseded"]
