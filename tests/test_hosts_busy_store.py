"""A store held by another writer past a hook's wait: nothing a hook saw is lost.

PostToolUse (and a prompt that takes the full path) spools what it could not
store, masked and 0600, and the next hook or command that opens the store
records it, once: a host that reports the same call again, a drain cut short
and drained again, or a spool line that is no record change nothing. The
walkthrough's case runs as real processes (``python -S hook_entry.py claude``,
the store held by another connection for longer than the hook's 3 s wait);
the rest runs the adapter in process with a shorter wait.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextward import spool
from contextward.cli import main
from contextward.hosts import claude_code, hooks, toolcall
from contextward.hosts.claude_install import ENTRY_SCRIPT
from contextward.store import Store, store_dir

SECRET = "Hunter2Staging"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    with Store.open(root):
        pass
    return root


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTWARD", "CLAUDE"))}
    env["CONTEXTWARD_HOME"] = str(tmp / "home")
    return env


def _hold_lock(root: Path) -> sqlite3.Connection:
    """Another process's long write: the database's write lock, held until closed."""
    conn = sqlite3.connect(store_dir(root) / "contextward.db", isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    return conn


def _hook(root: Path, tmp: Path, payload: dict[str, Any], session: str = "s") -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    data = json.dumps({"session_id": session, "cwd": str(root), **payload}).encode()
    claude_code.run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=_env(tmp))
    return out.getvalue(), err.getvalue()


def _test_run(
    tool_use_id: str, command: str = "pytest -q", out: str = "3 failed"
) -> dict[str, Any]:
    return {
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_use_id": tool_use_id,
        "tool_input": {"command": command},
        "error": f"Exit code 1\n{out}",
    }


def _tool_spool(root: Path) -> Path:
    return store_dir(root) / spool.TOOL_SPOOL_NAME


def _rows(root: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(store_dir(root) / "contextward.db")
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


@pytest.fixture
def short_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hooks, "HOOK_WAIT_S", 0.3)


@pytest.mark.usefixtures("short_wait")
def test_a_tool_call_on_a_busy_store_is_spooled_masked_and_recorded_at_the_next_open(
    project: Path, tmp_path: Path
) -> None:
    command = f"DB_PASS={SECRET} pytest -q"
    held = _hold_lock(project)
    try:
        out, err = _hook(
            project, tmp_path, _test_run("t1", command, f"no login with PGPASS={SECRET}")
        )
        assert (out, err) == ("", "")  # kept, not lost: nothing to report
    finally:
        held.close()
    path = _tool_spool(project)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert SECRET not in path.read_text() and "[secret:assignment]" in path.read_text()
    assert _rows(project, "SELECT COUNT(*) FROM evidence") == [(0,)]

    _hook(project, tmp_path, {"hook_event_name": "Stop"})  # any hook opens the store
    assert _rows(project, "SELECT command, exit_code, verdict, digest FROM evidence") == [
        (
            "DB_PASS=[secret:assignment] pytest -q",
            1,
            "fail",
            "Exit code 1\nno login with PGPASS=[secret:assignment]",
        )
    ]
    assert _rows(project, "SELECT COUNT(*) FROM events WHERE key = 'tool:s:t1'") == [(1,)]
    assert path.read_bytes() == b""


@pytest.mark.usefixtures("short_wait")
def test_spooled_failures_count_for_the_loop_brake(project: Path, tmp_path: Path) -> None:
    held = _hold_lock(project)
    try:
        for n in range(2):
            assert _hook(project, tmp_path, _test_run(f"t{n}")) == ("", "")
    finally:
        held.close()
    out, _ = _hook(
        project,
        tmp_path,
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "pytest -q"},
        },
    )
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.usefixtures("short_wait")
def test_a_call_reported_again_or_drained_twice_is_recorded_once(
    project: Path, tmp_path: Path
) -> None:
    no_id = {**_test_run(""), "tool_use_id": None}
    held = _hold_lock(project)
    try:
        _hook(project, tmp_path, _test_run("t1"))
        _hook(project, tmp_path, no_id)
    finally:
        held.close()
    lines = _tool_spool(project).read_bytes()
    assert len(lines.splitlines()) == 2
    _hook(project, tmp_path, _test_run("t1"))  # the host reports t1 again: drained, then a repeat
    # A drain killed before it emptied the spool: the same lines are drained again.
    _tool_spool(project).write_bytes(lines + lines)
    with Store.open(project) as store:
        assert toolcall.drain(store) == 0
    assert _rows(project, "SELECT COUNT(*) FROM evidence") == [(2,)]
    assert _tool_spool(project).read_bytes() == b""


def test_a_spool_line_that_is_no_call_is_dropped_and_the_rest_recorded(project: Path) -> None:
    call = toolcall.observe(
        session_id="s",
        host="claude",
        root=project,
        tool_name="Bash",
        tool_use_id="t9",
        tool_input={"command": "ls"},
        failed=True,
        error="Exit code 2",
    )
    assert toolcall.spool_call(project, call)
    good = _tool_spool(project).read_bytes()
    bad = [
        b"not json\n",
        b'{"v": 1, "tool": "Bash"}\n',
        b'{"v": 99, "session_id": "s", "host": "h", "key": "k", "tool": "Bash"}\n',
        good.replace(b'"exit_code": 2', b'"exit_code": "2"'),
    ]
    _tool_spool(project).write_bytes(b"".join(bad) + good)
    with Store.open(project) as store:
        assert toolcall.drain(store) == 1
        assert [(a.fingerprint, a.outcome, a.exit_code) for a in store.attempts.for_key("ls")] == [
            ("ls", "fail", 2)
        ]
    assert _tool_spool(project).read_bytes() == b""


def test_a_drain_on_a_busy_store_keeps_the_calls_for_later(project: Path) -> None:
    for n in range(3):
        call = toolcall.observe(
            session_id="s",
            host="claude",
            root=project,
            tool_name="Bash",
            tool_use_id=f"t{n}",
            tool_input={"command": "make"},
            failed=True,
            error="Exit code 2",
        )
        assert toolcall.spool_call(project, call)
    lines = _tool_spool(project).read_bytes()
    with Store.open(project) as store:
        held = _hold_lock(project)
        try:
            started = time.monotonic()
            assert toolcall.drain(store) == 0
            assert time.monotonic() - started < 2  # it waits briefly, not the store's 60 s
        finally:
            held.close()
        assert _tool_spool(project).read_bytes() == lines
        assert toolcall.drain(store) == 3


def test_the_tool_spool_is_bounded(project: Path) -> None:
    directory = str(store_dir(project))
    line = {"tool": "Bash", "pad": "x" * 60_000}
    assert spool.append_tool(directory, {"tool": "Bash", "pad": "x" * spool.MAX_LINE}) is False
    while spool.append_tool(directory, line):
        pass
    assert 0 < os.path.getsize(_tool_spool(project)) <= spool.MAX_TOOL_SPOOL


@pytest.mark.usefixtures("short_wait")
def test_a_full_path_prompt_on_a_busy_store_is_spooled_masked_and_stored_once(
    project: Path, tmp_path: Path
) -> None:
    said = f"staging uses DB_PASS={SECRET}; never commit it"  # may hold a secret: full path
    prompt = {"hook_event_name": "UserPromptSubmit", "prompt": said}
    held = _hold_lock(project)
    try:
        assert _hook(project, tmp_path, prompt) == ("", "")
    finally:
        held.close()
    spooled = (store_dir(project) / spool.SPOOL_NAME).read_text()
    assert SECRET not in spooled and "[secret:assignment]" in spooled
    _hook(project, tmp_path, prompt)  # the same prompt again, once the store is free
    assert _rows(project, "SELECT text FROM prompts") == [
        ("staging uses DB_PASS=[secret:assignment]; never commit it",)
    ]


def test_a_cli_command_records_spooled_calls_before_it_reads(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    call = toolcall.observe(
        session_id="s",
        host="claude",
        root=project,
        tool_name="Bash",
        tool_use_id="t1",
        tool_input={"command": "pytest -q"},
        failed=False,
        output="12 passed",
    )
    assert toolcall.spool_call(project, call)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["evidence"])
    assert result.exit_code == 0
    assert result.output == "ev-0001 · exit 0 · ok · 0ms · pytest -q\n"


def test_writes_inside_a_write_are_one_transaction(project: Path) -> None:
    with Store.open(project) as store:
        with pytest.raises(RuntimeError), store.write():
            store.journal.add("note", "first")
            store.journal.add("note", "second")
            raise RuntimeError("the second half failed")
        assert store.journal.list() == []
        with store.write():
            store.journal.add("note", "first")
            store.journal.add("note", "second")
        assert [e.text for e in store.journal.list()] == ["second", "first"]


def test_the_walkthrough_case_in_real_processes(project: Path, tmp_path: Path) -> None:
    """The store held for longer than a hook's 3 s wait while a test run is reported."""

    def hook(payload: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
        data = json.dumps({"session_id": "L", "cwd": str(project), **payload}).encode()
        return subprocess.run(
            [sys.executable, "-S", str(ENTRY_SCRIPT), "claude"],
            input=data,
            capture_output=True,
            timeout=60,
            check=False,
            env=_env(tmp_path),
        )

    hook({"hook_event_name": "SessionStart", "source": "startup"})
    held = _hold_lock(project)
    try:
        started = time.monotonic()
        post = hook(_test_run("t1"))
        assert time.monotonic() - started < 8  # the hook's wait, then the spool
    finally:
        held.close()
    assert (post.returncode, post.stdout, post.stderr) == (0, b"", b"")
    hook({"hook_event_name": "Stop"})
    assert _rows(project, "SELECT command, verdict FROM evidence") == [("pytest -q", "fail")]
