"""``contextward verify | evidence | loops``: exit codes and output, plus a real process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    return tmp_path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_verify_ok_exits_zero_and_cites_the_id(project: Path) -> None:
    code, out, _ = run("verify", "--", "echo", "hello")
    lines = out.splitlines()
    assert code == 0
    assert lines[0].startswith("contextward verify ev-0001 · exit 0 · ok · ")
    assert lines[1:] == [
        "cmd: echo hello",
        "digest:",
        "  hello",
        "Nudge: cite ev-0001 when claiming success.",
    ]


def test_arguments_are_joined_and_run_by_bash(project: Path) -> None:
    code, out, _ = run("verify", "--", "false || true")
    assert code == 1
    assert "UNTRUSTED" in out.splitlines()[0]
    assert "fix: drop the failure mask" in out
    code, out, _ = run("verify", "--", "echo a | cat")
    assert code == 1 and "fix: bash -o pipefail -c 'echo a | cat'" in out


def test_failure_then_refusal(project: Path) -> None:
    assert run("verify", "--", "exit 3")[0] == 1
    assert run("verify", "--", "exit 3")[0] == 1
    code, out, _ = run("verify", "--", "exit 3")
    assert code == 1
    assert out.splitlines()[0] == (
        "contextward verify refused · `exit 3` · failed 2 time(s) in a row"
    )
    code, out, _ = run("loops", "--json")
    assert code == 1
    assert json.loads(out) == [
        {
            "command": "exit 3",
            "streak_key": "exit 3",
            "failures": 2,
            "failed": 2,
            "unproven": 0,
            "streak": "failed 2 time(s)",
            "threshold": 3,
            "blocked": True,
            "last_at": json.loads(out)[0]["last_at"],
        }
    ]


def test_timeout_records_124(project: Path) -> None:
    code, out, _ = run("verify", "--timeout", "1", "--", "sleep 20")
    assert code == 1
    assert " exit 124 · TIMEOUT · " in out.splitlines()[0]


@pytest.mark.parametrize(
    "args", [("verify",), ("verify", "--", " "), ("verify", "--timeout", "0", "--", "true")]
)
def test_bad_verify_input_exits_two(project: Path, args: tuple[str, ...]) -> None:
    code, _, err = run(*args)
    assert code == 2 and err.startswith("contextward: error: ")


def test_evidence_views(project: Path) -> None:
    run("verify", "--", "echo one")
    run("verify", "--", "echo two; exit 1")
    code, out, _ = run("evidence")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("ev-0002 · exit 1 · FAIL · ") and lines[0].endswith(
        "· echo two; exit 1"
    )
    assert lines[1] == "  last line: two"
    code, out, _ = run("evidence", "--id", "ev-1", "--json")
    assert [r["digest"] for r in json.loads(out)] == ["one"]
    code, _, err = run("evidence", "--id", "ev-9")
    assert code == 2 and err == "contextward: error: no evidence run ev-9\n"


def test_config_threshold_and_warnings_apply(project: Path) -> None:
    (project / ".contextward").mkdir()
    (project / ".contextward" / "config.toml").write_text("loop_block_after = 2\nbogus = 1\n")
    code, _, err = run("verify", "--", "false")
    assert code == 1
    assert err == "contextward: warning: project config: bogus is not a setting; ignored\n"
    code, out, _ = run("verify", "--", "false")
    assert "refused" in out


def test_verify_as_a_real_process_closes_stdin(project: Path) -> None:
    env = {**os.environ, "CONTEXTWARD_HOME": str(project / "home")}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from contextward.cli import main; main()",
            "verify",
            "--",
            "cat",
            "&&",
            "echo",
            "done",
        ],
        input="this must not be read",
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "  done" in proc.stdout and "must not be read" not in proc.stdout


def test_undecodable_bytes_in_a_command(project: Path) -> None:
    code, out, _ = run("verify", "--", "echo", "\udcff")
    assert code == 0 and "cmd: echo \ufffd" in out


def test_a_failing_test_before_a_semicolon_is_no_proof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    script = tmp_path / "t.sh"
    script.write_text('#!/bin/sh\necho "1 failed, 3 passed"; exit 1\n')
    script.chmod(0o755)
    result = CliRunner().invoke(main, ["verify", "--", "./t.sh; git status --short"])
    assert result.exit_code == 1
    assert "UNTRUSTED" in result.stdout
    assert "fix: join the commands with `&&` (or `set -e` first) and re-run" in result.stdout


def test_unproven_runs_are_named_as_run_and_never_called_failures(project: Path) -> None:
    """``; echo done`` masks nothing the key keeps (the key is ``ls``), but the agent ran
    ``ls; echo done``: that is the command shown, and its exits 0 are unproven, not failed."""
    subprocess.run(["git", "init", "-q"], check=True)
    for _ in range(2):
        assert run("verify", "--", "ls; echo done")[0] == 1  # UNTRUSTED
    code, out, _ = run("loops")
    assert (code, out.splitlines()) == (
        1,
        [
            "loops: 1 open streak (refused at attempt 3)",
            "  BLOCKED `ls; echo done` · could not be proven 2 time(s) in a row",
            "Nudge: change the approach or gather new information; do not re-run it unchanged.",
        ],
    )
    code, out, _ = run("loops", "--json")
    (loop,) = json.loads(out)
    assert {k: v for k, v in loop.items() if k != "last_at"} == {
        "command": "ls; echo done",
        "streak_key": "ls",
        "failures": 2,
        "failed": 0,
        "unproven": 2,
        "streak": "could not be proven 2 time(s)",
        "threshold": 3,
        "blocked": True,
    }
    code, out, _ = run("verify", "--", "ls; echo done")
    assert (code, out.splitlines()[0]) == (
        1,
        "contextward verify refused · `ls; echo done` · could not be proven 2 time(s) in a row",
    )


def test_the_owner_clears_a_streak_the_brake_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    subprocess.run(["git", "init", "-q"], check=True)
    for _ in range(2):
        CliRunner().invoke(main, ["verify", "--", "test -f ready"])
    assert "refused" in CliRunner().invoke(main, ["verify", "--", "test -f ready"]).stdout
    cleared = CliRunner().invoke(main, ["loops", "--reset", "--", "test -f ready"])
    assert cleared.exit_code == 0 and "cleared 1 streak" in cleared.stdout
    (tmp_path / "ready").write_text("")
    assert " ok " in CliRunner().invoke(main, ["verify", "--", "test -f ready"]).stdout
    stray = CliRunner().invoke(main, ["loops", "test -f ready"])
    assert stray.exit_code == 2
