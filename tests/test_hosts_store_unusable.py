"""A session start whose store database cannot be opened still injects what lives in
files — STATE.md's state block and decisions, the contract — and one line saying the
project memory could not be read, and why (walk9 #9)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from contextward.state import StateProject, checkpoint, decide
from contextward.store import Store, database_path
from hook_helpers import fire, read_only_mounts


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    Store.open(tmp_path).close()
    where = StateProject.open(tmp_path)
    decide("Never deploy on Fridays", project=where)
    checkpoint({"focus": "release 2.0", "handoff": "do not merge PR 41"}, project=where)
    return tmp_path


def injected(output: str) -> str:
    return str(json.loads(output)["hookSpecificOutput"]["additionalContext"])


def assert_files_injected(text: str, code: str) -> None:
    first = text.splitlines()[0]
    assert first.startswith(f"contextward: the project memory could not be read ({code}: ")
    assert "decisions:\n- Never deploy on Fridays (state:" in text
    assert "focus: release 2.0" in text and "handoff: do not merge PR 41" in text
    assert "01-follow-the-owner" in text  # the contract is a file too


def test_a_damaged_database_still_injects_state_md(project: Path) -> None:
    database_path(project).write_bytes(os.urandom(8192))
    code, out, err = fire(project, "SessionStart", source="startup")
    assert (code, err) == (0, "")
    assert_files_injected(injected(out), "store_damaged")


def test_a_database_busy_past_the_wait_still_injects_state_md(project: Path) -> None:
    holder = sqlite3.connect(database_path(project), isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        code, out, err = fire(project, "SessionStart", source="startup")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert (code, err) == (0, "")
    assert_files_injected(injected(out), "store_busy")


def test_a_store_folder_that_is_a_file_still_injects_the_contract(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".contextward").write_text("a file where the store folder should be")
    code, out, err = fire(tmp_path, "SessionStart", source="startup")
    assert (code, err) == (0, "")
    text = injected(out)
    assert text.startswith("contextward: the project memory could not be read (store_")
    assert "01-follow-the-owner" in text


@pytest.mark.skipif(not read_only_mounts(), reason="needs unshare -m (root in a container)")
def test_a_read_only_store_folder_still_injects_state_md(project: Path) -> None:
    store = project / ".contextward"
    payload = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "SessionStart",
        "source": "startup",
    }
    # A fresh store: its WAL files gone, so opening has to create them (and cannot).
    for extra in store.glob("contextward.db-*"):
        extra.unlink()
    command = (
        f"mount --bind -o ro '{store}' '{store}' && '{sys.executable}' -m contextward hook claude"
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert_files_injected(injected(done.stdout), "store_unavailable")
