"""``checkpoint``, ``decide``, ``log``, ``load`` and ``state`` through click's runner and a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.state import StateProject, load_task, read_state


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # a project root (not a working git repo: git says so)
    plans = tmp_path / "plans" / "t1"
    plans.mkdir(parents=True)
    (plans / "goal.md").write_text("# Goal\nShip the parser.\n")
    (plans / "plan.md").write_text("1. parse\n2. write\n")
    (plans / "notes.txt").write_text("token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_checkpoint_decide_log(repo: Path) -> None:
    assert invoke("checkpoint", "--focus", "parser", "--phase", "Testing", "--task", "t1") == (
        0,
        "checkpoint written to STATE.md (focus, phase, task)\n",
        "",
    )
    assert invoke("decide", "Use SQLite", "--why", "stdlib") == (
        0,
        "decision recorded in STATE.md\n",
        "",
    )
    assert invoke("decide", "Redis", "--rejected") == (
        0,
        "rejected approach recorded in STATE.md\n",
        "",
    )
    assert invoke("log", "Parser done") == (0, "log entry added to STATE.md\n", "")
    view = read_state(StateProject.open(repo))
    assert (view.fields["focus"], view.fields["phase"], view.fields["task"]) == (
        "parser",
        "testing",
        "t1",
    )
    assert [(d.text, d.rejected, d.reason) for d in view.decisions] == [
        ("Use SQLite", False, "stdlib"),
        ("Redis", True, ""),
    ]
    assert [e.text for e in view.log] == ["Parser done"]


def test_a_decision_text_marked_rejected_is_reported_as_what_state_md_holds(
    repo: Path,
) -> None:
    warning = (
        "contextward: warning: the text starts with [REJECTED], so STATE.md holds it as a"
        " rejected approach; reword it to record a decision\n"
    )
    assert invoke("decide", "[REJECTED] is a label we show in the UI") == (
        0,
        "rejected approach recorded in STATE.md\n",
        warning,
    )
    assert invoke("note", "decision", "[rejected] Kafka for events") == (
        0,
        "noted rejected approach in STATE.md (owner)\n",
        warning,
    )
    assert invoke("decide", "[REJECTED] Redis", "--rejected") == (
        0,
        "rejected approach recorded in STATE.md\n",
        "",
    )
    view = read_state(StateProject.open(repo))
    assert [(d.text, d.rejected) for d in view.decisions] == [
        ("is a label we show in the UI", True),
        ("Kafka for events", True),
        ("Redis", True),
    ]
    assert (view.locked, view.rejected) == (0, 3)


def test_a_text_marked_rejected_replaces_the_decision_it_rejects(repo: Path) -> None:
    invoke("decide", "Use Redis")
    code, out, _ = invoke("decide", "[REJECTED] Use Redis")
    assert (code, out) == (
        0,
        "rejected approach recorded in STATE.md\nsupersedes: Use Redis\n",
    )
    view = read_state(StateProject.open(repo))
    assert [(d.text, d.rejected, d.superseded) for d in view.decisions] == [
        ("Use Redis", False, True),
        ("Use Redis", True, False),
    ]


def test_over_long_field_is_one_line_exit_2_without_echo(repo: Path) -> None:
    code, out, err = invoke("checkpoint", "--next", "secret-ish " * 40)
    assert (code, out) == (2, "")
    assert err == "contextward: error: next is 439 characters long; the limit is 300\n"
    assert not (repo / "STATE.md").exists()


def test_bad_phase_and_empty_decision_exit_2(repo: Path) -> None:
    assert invoke("checkpoint", "--phase", "dreaming")[0] == 2
    code, _, err = invoke("decide", "   ")
    assert (code, err) == (2, "contextward: error: decision text is empty\n")


def test_task_outside_plans_folder_is_refused(repo: Path) -> None:
    code, out, err = invoke("checkpoint", "--task", "../../etc")
    assert (code, out) == (2, "")
    assert err.startswith("contextward: error: task ../../etc: outside plans")


def test_a_task_folder_not_made_yet_is_recorded_with_a_warning(repo: Path) -> None:
    assert invoke("checkpoint", "--task", "t2") == (
        0,
        "checkpoint written to STATE.md (task)\n",
        "contextward: warning: task folder plans/t2 does not exist yet;"
        " `contextward state` shows it as not found until it does\n",
    )
    assert read_state(StateProject.open(repo)).fields["task"] == "t2"


def test_load_summarises_artifacts(repo: Path) -> None:
    code, out, err = invoke("load", "t1")
    assert (code, err) == (0, "")
    assert out == (
        "# Task plans/t1\n"
        "present: goal.md, plan.md, notes.txt\n"
        "missing: anchor.md, summary.md\n"
        "\n"
        "## goal.md (2 lines)\n"
        "# Goal\n"
        "Ship the parser.\n"
        "\n"
        "## plan.md (2 lines)\n"
        "1. parse\n"
        "2. write\n"
        "\n"
        "## notes.txt (1 lines)\n"
        "token [secret:github-token]\n"
    )
    assert invoke("load", "plans/t1")[1] == out  # relative to the root works too


def test_load_refuses_escapes(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "goal.md").write_text("private")
    (repo / "plans" / "link").symlink_to(outside)
    (repo / "plans" / "t1" / "plan2.md").symlink_to(outside / "goal.md")
    for task in ("../..", "link", str(outside), "t1/../../.."):
        code, out, err = invoke("load", task)
        assert (code, out) == (2, ""), task
        assert "outside plans" in err
        assert "private" not in err
    # A symlinked artifact inside the task escapes: left out and counted, never read, and
    # the rest of the task still loads.
    code, out, err = invoke("load", "t1")
    assert (code, err) == (0, "")
    assert "skipped: 1 linked out of the plans folder" in out
    assert "private" not in out and "## goal.md" in out


def test_load_leaves_out_what_is_no_text_file_and_says_how_many_it_did_not_read(
    repo: Path,
) -> None:
    folder = repo / "plans" / "t1"
    os.mkfifo(folder / "notes.md")  # reading it would block
    for n in range(14):
        (folder / f"extra{n:02d}.md").write_text(f"extra {n}\n")
    code, out, _ = invoke("load", "t1")
    assert code == 0
    assert "notes.md" not in out
    texts = [f for f in folder.iterdir() if f.is_file() and f.suffix in (".md", ".txt")]
    present = out.splitlines()[1].removeprefix("present: ").split(", ")
    assert f"skipped: {len(texts) - len(present)} more text files not read" in out


def test_load_missing_task(repo: Path) -> None:
    assert invoke("load", "nope") == (2, "", "contextward: error: task nope: no such folder\n")


def test_state_json(repo: Path) -> None:
    invoke("checkpoint", "--focus", "parser", "--task", "t1")
    code, out, _ = invoke("state", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["schema_version"] == 1
    assert data["text"].splitlines()[1] == "focus: parser"
    assert "Task: t1 — goal.md ✓, anchor.md ✗, plan.md ✓, summary.md ✗" in data["text"]
    assert data["tokens"] <= 250


def test_load_task_api_bounds_big_files(repo: Path) -> None:
    (repo / "plans" / "t1" / "summary.md").write_text("line\n" * 5000)
    summary = load_task(StateProject.open(repo), "t1")
    big = next(a for a in summary.artifacts if a.name == "summary.md")
    assert big.clipped
    assert big.lines == 5000
    assert len(big.text) <= 3000


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_subprocess_in_a_real_git_repo(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    env.pop("CONTEXTWARD_SESSION_ID", None)
    subprocess.run(["git", "init", "-q", "-b", "trunk"], cwd=tmp_path, env=env, check=True)
    run = [sys.executable, "-c", "from contextward.cli import main; main()"]
    done = subprocess.run(
        [*run, "checkpoint", "--focus", "ship"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    state = subprocess.run([*run, "state"], cwd=tmp_path, env=env, capture_output=True, check=False)
    assert state.returncode == 0
    assert "Git: trunk, no commits yet, 1 uncommitted, no upstream." in state.stdout.decode()


CONFLICTED = (
    "# State\n\n## Current\n"
    "<<<<<<< HEAD\nfocus: branch A focus\n=======\nfocus: branch B focus\n>>>>>>> feature\n\n"
    "## Decisions\n- Use Kafka [2026-12-01]\n\n## Log\n"
)


def test_a_merge_conflict_in_state_md_is_said_and_decide_refuses_to_append(repo: Path) -> None:
    invoke("init")
    (repo / "STATE.md").write_text(CONFLICTED)
    code, out, _ = invoke("state")
    assert code == 0
    assert out.splitlines()[1] == (
        "STATE.md: unresolved git merge conflict at line 4"
        " (fields and decisions mix both sides until it is resolved)"
    )
    code, out, _ = invoke("doctor")
    assert code == 1
    assert (
        "warning state_conflict: STATE.md has an unresolved git merge conflict at line 4: "
        "resolve it (keep both sides' decisions) and remove the markers"
    ) in out.splitlines()
    assert invoke("decide", "Use gRPC") == (
        2,
        "",
        "contextward: error: STATE.md: unresolved git merge conflict at line 4; resolve it first\n",
    )
    assert (repo / "STATE.md").read_text() == CONFLICTED


def test_a_markdown_heading_underline_is_no_conflict(repo: Path) -> None:
    (repo / "STATE.md").write_text("Notes\n=======\n\n## Current\nfocus: x\n")
    assert invoke("decide", "Use gRPC")[0] == 0
    assert "merge conflict" not in invoke("state")[1]
