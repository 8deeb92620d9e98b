"""Session lifecycle against a real SQLite store: counts, auto-log, the next session's warning."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from contextward.brief.state_block import state_block
from contextward.state import (
    StateProject,
    checkpoint,
    file_modified,
    previous_session,
    read_state,
    session_end,
    session_record,
    session_start,
    tool_called,
)
from contextward.state.git import GitState
from contextward.state.status import gather
from contextward.store import Store, connect, database_path

START = datetime(2026, 4, 11, 14, 0, 0, tzinfo=UTC)


class Clock:
    """The store's clock, moved by the test (the store takes any ``() -> str``)."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> str:
        return self.now.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


@pytest.fixture
def project(tmp_path: Path) -> StateProject:
    (tmp_path / ".git").mkdir()
    return StateProject.open(tmp_path)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(project: StateProject, clock: Clock) -> Iterator[Store]:
    database_path(project.root).parent.mkdir()
    with Store(connect(database_path(project.root)), root=project.root, clock=clock) as opened:
        yield opened


def test_tool_calls_are_counted_once_per_key_and_files_once_per_path(
    store: Store, project: StateProject, clock: Clock
) -> None:
    session_start(store, "s1", host="claude")
    assert tool_called(store, "s1", key="toolu_1", tool="Bash")
    assert not tool_called(store, "s1", key="toolu_1", tool="Bash")  # a repeated hook
    assert tool_called(store, "s1", tool="Edit")
    clock.advance(minutes=1)
    assert file_modified(store, "s1", project.root / "src" / "a.py", project=project)
    assert file_modified(store, "s1", "src/a.py", project=project)
    assert file_modified(store, "s1", "b.py", project=project)
    assert not file_modified(store, "s1", "../outside.py", project=project)
    record = session_record(store, "s1")
    assert record is not None
    assert (record.host, record.status, record.tool_calls) == ("claude", "active", 2)
    assert sorted(record.files) == ["b.py", "src/a.py"]


def test_session_ending_without_checkpoint_is_auto_logged_and_reported_next_time(
    store: Store, project: StateProject, clock: Clock
) -> None:
    session_start(store, "s1")
    for n in range(3):
        tool_called(store, "s1", key=f"t{n}")
    file_modified(store, "s1", "a.py", project=project)
    clock.advance(minutes=23)
    ended = session_end(store, "s1", project=project)
    assert ended.logged
    assert ended.record.status == "ended"
    assert not ended.record.checkpointed
    log = read_state(project).log
    assert [(e.text, e.when, e.auto) for e in log] == [
        (
            "Session ended without a checkpoint: 23 min, 3 tool calls, 1 files modified (a.py)",
            "2026-04-11 14:23",
            True,
        )
    ]
    # The next session is told.
    clock.advance(minutes=5)
    session_start(store, "s2")
    previous = previous_session(store, "s2")
    assert previous is not None and previous.id == "s1"
    status = gather(
        project,
        session=session_record(store, "s2"),
        previous=previous,
        now=clock.now,
        git=GitState(repo=False, reason="not a git repository"),
    )
    assert status.previous_without_checkpoint
    assert "Last session ended without a checkpoint." in state_block(
        project, store=store, session_id="s2", now=clock.now
    )
    # A checkpoint in the new session answers it.
    checkpoint({"focus": "verify"}, project=project, now=clock.advance(seconds=2))
    assert "without a checkpoint" not in state_block(
        project, store=store, session_id="s2", now=clock.now
    )


def test_a_checkpoint_in_the_second_the_session_started_came_before_it(
    store: Store, project: StateProject, clock: Clock
) -> None:
    # A script checkpoints, then starts the host within the same second (the CI run that
    # found this): the session itself never checkpointed, so it is auto-logged.
    clock.advance(seconds=0.2)
    checkpoint({"focus": "carried"}, project=project, now=clock.now)
    clock.advance(seconds=0.5)
    session_start(store, "s1")
    tool_called(store, "s1", key="t1")
    clock.advance(minutes=1)
    ended = session_end(store, "s1", project=project)
    assert ended.logged
    assert not ended.record.checkpointed
    assert [entry.auto for entry in read_state(project).log] == [True]


def test_a_session_that_checkpointed_is_not_auto_logged(
    store: Store, project: StateProject, clock: Clock
) -> None:
    session_start(store, "s1")
    tool_called(store, "s1", key="t1")
    checkpoint({"focus": "done"}, project=project, now=clock.advance(minutes=2))
    ended = session_end(store, "s1", project=project)
    assert not ended.logged
    assert ended.record.checkpointed
    assert read_state(project).log == ()
    session_start(store, "s2")
    assert "without a checkpoint" not in state_block(project, store=store, session_id="s2")


def test_idle_logs_at_most_once_per_interval_and_only_after_new_activity(
    store: Store, project: StateProject, clock: Clock
) -> None:
    session_start(store, "s1")
    tool_called(store, "s1", key="t1")
    clock.advance(minutes=1)
    assert not session_end(store, "s1", project=project, idle=True).logged  # a turn ended
    tool_called(store, "s1", key="t2")  # the session resumes after going idle
    assert session_record(store, "s1").status == "active"  # type: ignore[union-attr]
    clock.advance(minutes=15)
    assert session_end(store, "s1", project=project, idle=True).logged
    clock.advance(minutes=1)
    tool_called(store, "s1", key="t3")
    assert not session_end(store, "s1", project=project, idle=True).logged  # too soon
    clock.advance(minutes=20)
    assert session_end(store, "s1", project=project, idle=True).logged  # t3 is new
    clock.advance(minutes=20)
    assert not session_end(store, "s1", project=project, idle=True).logged  # nothing new
    assert [e.text.split(":")[0] for e in read_state(project).log] == [
        "Session went idle without a checkpoint",
        "Session went idle without a checkpoint",
    ]
    # The real end is always logged when there was activity since the last entry.
    tool_called(store, "s1", key="t4")
    clock.advance(minutes=1)
    assert session_end(store, "s1", project=project).logged


def test_hooks_out_of_order_start_the_session(store: Store, project: StateProject) -> None:
    assert tool_called(store, "late", key="k")
    ended = session_end(store, "never-started", project=project)
    assert ended.record.tool_calls == 0
    assert ended.logged  # no checkpoint while it ran


def test_session_lines_in_the_state_block(
    store: Store, project: StateProject, clock: Clock
) -> None:
    session_start(store, "s1")
    for n in range(14):
        tool_called(store, "s1", key=f"t{n}")
    for name in ("a.py", "b.py"):
        file_modified(store, "s1", name, project=project)
    text = state_block(project, store=store, session_id="s1", now=clock.advance(minutes=23))
    assert "Session: 23 min, 14 tool calls, 2 files modified" in text
    assert "checkpoint due (2 files changed since the last one)" in text
