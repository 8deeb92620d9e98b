"""Hardening (issue 9, item 2): several sessions' hooks firing at once on one store.

Real processes run the installed entry (``python -S .../hook_entry.py claude``, the
fast path included) and real threads run the adapters in process; afterwards
every prompt, tool event and evidence run is there exactly once, no hook
reported an internal error or a locked database, and no id repeats. The spool
of the fast path is hammered on its own too: prompts appended by many
processes while other processes open the store (which drains it) — none lost,
none duplicated.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from contextward import spool
from contextward.errors import StoreError
from contextward.hosts import claude_code, hooks
from contextward.store import Store, store_dir

SRC = Path(__file__).resolve().parents[1] / "src"
HOOK_ENTRY = SRC / "contextward" / "hosts" / "hook_entry.py"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    with Store.open(root):
        pass
    return root


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTWARD", "CLAUDE"))}
    env["CONTEXTWARD_HOME"] = str(tmp / "home")
    return env


def _prompt(session: int, n: int) -> str:
    # No secret hints, so the fast path may spool these once a session is cached.
    return f"please tidy module {WORDS[session % len(WORDS)]} step {n} of session {session}"


def _events(root: Path, session: int, prompts: int) -> list[dict[str, Any]]:
    sid = f"sess-{session}"
    base = {"session_id": sid, "cwd": str(root)}
    events: list[dict[str, Any]] = [
        {**base, "hook_event_name": "SessionStart", "source": "startup"}
    ]
    for n in range(prompts):
        events.append(
            {**base, "hook_event_name": "UserPromptSubmit", "prompt": _prompt(session, n)}
        )
        events.append(
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": f"{sid}-bash-{n}",
                "tool_input": {"command": f"pytest -q tests/test_{session}_{n}.py"},
                "tool_response": {"stdout": f"{n + 1} passed", "stderr": ""},
            }
        )
        events.append(
            {
                **base,
                "hook_event_name": "PostToolUse",
                "tool_name": "Edit",
                "tool_use_id": f"{sid}-edit-{n}",
                "tool_input": {"file_path": str(root / "src" / f"m{session}_{n}.py")},
                "tool_response": {},
            }
        )
    # Hosts may fire a hook twice: the repeats must change nothing.
    events.append(events[1])
    events.append(events[2])
    events.append({**base, "hook_event_name": "Stop"})
    return events


def _check_store(root: Path, sessions: int, prompts: int) -> None:
    with Store.open(root) as store:  # drains whatever the fast path spooled
        rows = store.query("SELECT session_id, text, key FROM prompts")
        texts = sorted(str(r["text"]) for r in rows)
        expected = sorted(_prompt(s, n) for s in range(sessions) for n in range(prompts))
        assert texts == expected  # nothing lost, nothing twice
        tool_rows = store.query("SELECT key FROM events WHERE kind = 'state.tool_call'")
        assert len(tool_rows) == sessions * prompts * 2
        assert len({r["key"] for r in tool_rows}) == len(tool_rows)
        evidence = store.query("SELECT seq, command FROM evidence")
        assert sorted(r["command"] for r in evidence) == sorted(
            f"pytest -q tests/test_{s}_{n}.py" for s in range(sessions) for n in range(prompts)
        )
        for table in ("prompts", "evidence", "events", "journal", "attempts"):
            seqs = [r[0] for r in store.query(f"SELECT seq FROM {table}")]
            assert len(seqs) == len(set(seqs))
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    assert (
        not (store_dir(root) / spool.SPOOL_NAME).exists()
        or (store_dir(root) / spool.SPOOL_NAME).stat().st_size == 0
    )


def _run_processes(root: Path, tmp: Path, sessions: int, prompts: int) -> list[str]:
    env = _env(tmp)
    errors: list[str] = []
    lock = threading.Lock()

    def one_session(session: int) -> None:
        for payload in _events(root, session, prompts):
            done = subprocess.run(
                [sys.executable, "-S", str(HOOK_ENTRY), "claude"],
                input=json.dumps(payload).encode(),
                capture_output=True,
                env=env,
                cwd=root,
                timeout=120,
                check=False,
            )
            with lock:
                assert done.returncode == 0
                errors.append(done.stderr.decode("utf-8", "replace"))
                if payload["hook_event_name"] == "PostToolUse":
                    assert done.stdout == b""

    with ThreadPoolExecutor(sessions) as pool:
        for future in [pool.submit(one_session, s) for s in range(sessions)]:
            future.result()
    return errors


def test_six_sessions_of_hook_processes_lose_nothing(project: Path, tmp_path: Path) -> None:
    errors = _run_processes(project, tmp_path, sessions=6, prompts=1)
    joined = "".join(errors)
    assert "locked" not in joined.lower()
    assert "hook failed" not in joined
    _check_store(project, sessions=6, prompts=1)


def test_threads_firing_hooks_in_one_process_lose_nothing(project: Path, tmp_path: Path) -> None:
    env = _env(tmp_path)
    errs: list[str] = []

    def one_session(session: int) -> None:
        for payload in _events(project, session, 3):
            out, err = io.StringIO(), io.StringIO()
            code = claude_code.run(
                stdin=io.BytesIO(json.dumps(payload).encode()), stdout=out, stderr=err, env=env
            )
            assert code == 0
            errs.append(err.getvalue())

    with ThreadPoolExecutor(8) as pool:
        for future in [pool.submit(one_session, s) for s in range(8)]:
            future.result()
    assert "".join(errs) == ""
    _check_store(project, sessions=8, prompts=3)


# -- the fast path's spool -----------------------------------------------------------

APPENDER = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
from contextward import spool
store_dir, worker, count = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
go = os.path.join(store_dir, "go")
while not os.path.exists(go):
    pass
for n in range(count):
    record = {"text": f"worker {worker} prompt {n}", "session_id": f"w{worker}", "prompt_id": None,
              "created_at": "2026-11-30T00:00:00Z"}
    assert spool.append_prompt(store_dir, record)
"""

OPENER = r"""
import os, sys, time
sys.path.insert(0, sys.argv[1])
from pathlib import Path
from contextward.store import Store
root, rounds = Path(sys.argv[2]), int(sys.argv[3])
go = root / ".contextward" / "go"
while not go.exists():
    pass
for _ in range(rounds):
    with Store.open(root):
        pass
"""


def _spool_race(root: Path, appenders: int, count: int, openers: int, rounds: int) -> None:
    directory = store_dir(root)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(SRC), str(directory), str(w), str(count)]
        )
        for w in range(appenders)
    ] + [
        subprocess.Popen([sys.executable, "-c", OPENER, str(SRC), str(root), str(rounds)])
        for _ in range(openers)
    ]
    (directory / "go").touch()
    for proc in procs:
        assert proc.wait(timeout=120) == 0
    with Store.open(root) as store:
        texts = [str(r["text"]) for r in store.query("SELECT text FROM prompts")]
    expected = [f"worker {w} prompt {n}" for w in range(appenders) for n in range(count)]
    assert sorted(texts) == sorted(expected)


def test_spooled_prompts_are_drained_once_while_processes_append(project: Path) -> None:
    _spool_race(project, appenders=4, count=60, openers=3, rounds=15)


@pytest.mark.slow
def test_spool_race_at_scale(project: Path) -> None:
    _spool_race(project, appenders=8, count=500, openers=6, rounds=80)


@pytest.mark.slow
def test_twelve_sessions_of_hook_processes_lose_nothing(project: Path, tmp_path: Path) -> None:
    errors = _run_processes(project, tmp_path, sessions=12, prompts=4)
    assert "locked" not in "".join(errors).lower()
    _check_store(project, sessions=12, prompts=4)


# -- the bridge at end of input --------------------------------------------------------


def test_the_bridge_writes_every_answer_before_end_of_input_returns() -> None:
    """Forced fix: a call left ``_calls`` before its answer was written, so ``serve`` (and
    with it the ``bridge --stdio`` process) could end with the last answer unwritten."""
    from contextward.hosts.bridge import Bridge, Registry

    registry = Registry()
    registry.add(
        "big",
        lambda request, context: {"rows": [{"n": n, "text": "x" * 20} for n in range(20_000)]},
    )
    frame = (
        b'{"protocol_version": 1, "type": "request", "request_id": "last", "operation": "big"}\n'
    )
    for _ in range(10):
        out = io.BytesIO()
        Bridge(registry, out, log=io.StringIO()).serve(io.BytesIO(frame))
        answers = out.getvalue().splitlines()
        assert len(answers) == 1 and json.loads(answers[0])["ok"] is True


def _hold_lock(root: Path) -> sqlite3.Connection:
    """Another process's long write: the database's write lock, held until closed."""
    conn = sqlite3.connect(store_dir(root) / "contextward.db", isolation_level=None)
    conn.execute("BEGIN EXCLUSIVE")
    return conn


def test_a_store_waits_no_longer_than_it_was_told(project: Path) -> None:
    held = _hold_lock(project)
    try:
        with pytest.raises(StoreError) as raised, Store.open(project, wait_s=0.3) as store:
            store.journal.add("note", "written while another process holds the lock")
        assert raised.value.code == "store_busy"
    finally:
        held.close()


def _hook(root: Path, tmp: Path, payload: dict[str, Any]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    data = json.dumps({"session_id": "s", "cwd": str(root), **payload}).encode()
    claude_code.run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=_env(tmp))
    return out.getvalue(), err.getvalue()


def test_a_hook_on_a_locked_store_fails_open_but_still_asks_about_a_risky_command(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hooks, "HOOK_WAIT_S", 0.3)
    held = _hold_lock(project)
    try:
        shell = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
        out, _ = _hook(
            project, tmp_path, {**shell, "tool_input": {"command": "git push --force origin main"}}
        )
        assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
        out, _ = _hook(project, tmp_path, {**shell, "tool_input": {"command": "ls"}})
        assert out == ""  # the brake reads; WAL readers are never blocked
        out, err = _hook(project, tmp_path, {"hook_event_name": "Stop"})
        assert out == "" and "hook failed (StoreError)" in err
    finally:
        held.close()


def test_a_store_that_cannot_open_still_gets_a_risky_command_asked_about(
    tmp_path: Path,
) -> None:
    root = tmp_path / "broken"
    (root / ".git").mkdir(parents=True)
    (root / ".contextward").write_text("not a directory")  # the store cannot open
    shell = {"hook_event_name": "PreToolUse", "tool_name": "Bash"}
    out, _ = _hook(root, tmp_path, {**shell, "tool_input": {"command": "rm -rf /"}})
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    out, err = _hook(root, tmp_path, {**shell, "tool_input": {"command": "ls"}})
    assert out == "" and "PreToolUse hook failed (StoreError); continuing" in err
