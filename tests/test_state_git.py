"""Git awareness with real git in temporary repositories."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from contextward.state import git as state_git
from contextward.state.git import GitState, git_state, read_git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **ENV}, capture_output=True, check=True
    )
    return done.stdout.decode()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    return path


def commit(repo: Path, name: str, message: str) -> None:
    (repo / name).write_text(name)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", message)


def test_outside_a_repository(tmp_path: Path) -> None:
    state = read_git(tmp_path, now=1.0)
    assert state == GitState(repo=False, reason="not a git repository", checked_at=1.0)


def test_repository_without_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    (repo / "new.txt").write_text("x")
    state = read_git(repo)
    assert (state.repo, state.branch, state.head, state.uncommitted) == (True, "main", "", 1)
    assert state.last_subject == ""
    assert [path for path, _ in state.changes] == ["new.txt"]


def test_branch_upstream_ahead_behind_and_last_commit(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    commit(origin, "a.txt", "first")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    commit(origin, "b.txt", "upstream work")
    git(clone, "fetch", "-q")
    commit(clone, "c.txt", "local one")
    commit(clone, "d.txt", "local two")
    (clone / "c.txt").write_text("changed")
    (clone / "untracked.txt").write_text("u")
    state = read_git(clone)
    assert state.branch == "main"
    assert state.upstream == "origin/main"
    assert (state.ahead, state.behind) == (2, 1)
    assert state.uncommitted == 2
    assert state.last_subject == "local two"
    assert state.last_time > 0
    assert not state.detached


def test_detached_head_and_no_upstream(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    commit(repo, "a.txt", "one")
    commit(repo, "b.txt", "two")
    git(repo, "checkout", "-q", "--detach", "HEAD~1")
    state = read_git(repo)
    assert state.detached
    assert state.branch == ""
    assert state.upstream == ""
    assert state.last_subject == "one"
    assert len(state.head) == 7


def test_renamed_files_count_once(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    commit(repo, "a.txt", "one")
    git(repo, "mv", "a.txt", "b.txt")
    state = read_git(repo)
    assert state.uncommitted == 1
    assert [path for path, _ in state.changes] == ["b.txt"]


def test_cached_for_thirty_seconds_in_memory_and_in_a_file(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    commit(repo, "a.txt", "one")
    cache = repo / ".contextward" / "git-status.cache.tmp"
    cache.parent.mkdir()
    with (repo / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".contextward/\n")
    first = git_state(repo, cache_file=cache, now=1000.0)
    (repo / "new.txt").write_text("x")
    state_git._MEMO.clear()  # a new process: only the file cache is left
    assert git_state(repo, cache_file=cache, now=1029.0) == first
    fresh = git_state(repo, cache_file=cache, now=1031.0)
    assert fresh.uncommitted == first.uncommitted + 1
    assert fresh.checked_at == 1031.0


def test_a_damaged_cache_file_is_ignored(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    cache = tmp_path / "cache.tmp"
    cache.write_bytes(b"\xff not json")
    state_git._MEMO.clear()
    assert git_state(repo, cache_file=cache, now=5.0).repo
