"""``contextward report [--html FILE]`` through click's runner and one real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main

SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_without_a_store_the_digest_says_nothing_yet_and_creates_nothing(repo: Path) -> None:
    assert invoke("report") == (
        0,
        "state: 0 fields\n"
        "decisions: 0\n"
        "evidence runs: none\n"
        "loop streaks: 0 open, 0 refused next\n"
        "last compaction: none recorded\n"
        "page: contextward report --html report.html (self-contained, open it anywhere)\n",
        "",
    )
    assert not (repo / ".contextward").exists()


def test_the_digest_and_the_page_show_what_the_commands_recorded(repo: Path) -> None:
    assert invoke("checkpoint", "--focus", f"parser {SECRET}", "--phase", "testing")[0] == 0
    assert invoke("decide", "Use SQLite", "--why", "stdlib")[0] == 0
    assert invoke("verify", "--", "exit 1")[0] == 1
    code, out, err = invoke("report")
    assert (code, err) == (0, "")
    assert out.splitlines()[:4] == [
        "state: 2 fields (focus: parser [secret:github-token])",
        "decisions: 1",
        "evidence runs: 1 fail",
        "loop streaks: 1 open, 0 refused next",
    ]
    assert invoke("report", "--html", "out.html") == (0, "written: out.html\n", "")
    page = (repo / "out.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert "Use SQLite — stdlib" in page and "<code>exit 1</code>" in page
    assert SECRET not in page


def test_html_to_standard_output(repo: Path) -> None:
    code, out, _ = invoke("report", "--html", "-")
    assert code == 0 and out.startswith("<!DOCTYPE html>") and out.endswith("</html>\n")


def test_an_unwritable_target_is_one_line_and_exit_2(repo: Path) -> None:
    (repo / "folder").mkdir()
    assert invoke("report", "--html", "folder") == (
        2,
        "",
        "contextward: error: --html folder: is a directory\n",
    )
    code, _, err = invoke("report", "--html", "missing/dir/out.html")
    assert code == 2 and err.startswith("contextward: error: --html missing/dir/out.html:")
    assert err.count("\n") == 1


def test_a_real_process_writes_the_page(repo: Path) -> None:
    env = {**os.environ, "CONTEXTWARD_HOME": str(repo / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "contextward", "report", "--html", "page.html"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "written: page.html\n", "")
    assert "No compaction recorded yet" in (repo / "page.html").read_text(encoding="utf-8")
