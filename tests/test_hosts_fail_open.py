"""Every hook entry point fails open when contextward itself cannot be loaded.

An upgrade under a running session (``pip install -U``, an editable checkout
mid-edit) can leave any module raising at import. Each test copies the package
to a temporary folder, breaks one module of the copy, and runs the copy in a
real process through each entry point a host may be configured with: the
installed ``python -S …/hosts/hook_entry.py HOST``, the ``contextward`` script
(as pip writes it from ``[project.scripts]``) and ``python -m contextward``.
Whatever breaks, the hook exits 0 with nothing on stdout and one line on
stderr naming the exception's type, never a traceback or the payload; a risky
shell command is still put to the owner while the risky-command guard loads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "contextward"
HOSTS = ("claude", "codex", "gemini")
SECRET_WORD = "s3cr3t-payload-w0rd"


def _script() -> str:
    """The ``contextward`` script as pip writes it from pyproject's entry point."""
    target = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = target["contextward"].split(":")
    return f"import sys; from {module} import {function}; sys.exit({function}())"


def broken_copy(tmp: Path, module: str, line: str) -> Path:
    """A copy of the package whose ``module`` (a path under it) runs ``line`` last at import."""
    copy = tmp / "site"
    shutil.copytree(PACKAGE, copy / "contextward", ignore=shutil.ignore_patterns("__pycache__"))
    with (copy / "contextward" / module).open("a", encoding="utf-8") as handle:
        handle.write(f"\n{line}\n")
    return copy


def run(copy: Path, entry: str, host: str, payload: dict[str, Any], *args: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CONTEXTWARD", "CLAUDE"))}
    env["CONTEXTWARD_HOME"] = str(copy / "home")
    if entry == "hook_entry":
        argv = [sys.executable, "-S", str(copy / "contextward" / "hosts" / "hook_entry.py"), host]
    else:
        env["PYTHONPATH"] = str(copy)  # the broken copy shadows the installed package
        start = ["-c", _script()] if entry == "script" else ["-m", "contextward"]
        argv = [sys.executable, *start, *(args or ("hook", host))]
    return subprocess.run(
        argv,
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=False,
        env=env,
        cwd=copy,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    return root


def _shell(host: str, project: Path, command: str) -> dict[str, Any]:
    gemini = host == "gemini"
    return {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "BeforeTool" if gemini else "PreToolUse",
        "tool_name": "run_shell_command" if gemini else "Bash",
        "tool_input": {"command": command},
    }


ENTRIES = ("hook_entry", "script", "module")


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("host", ("claude", "codex"))
def test_a_module_raising_at_import_costs_one_line_not_the_hook(
    tmp_path: Path, project: Path, host: str, entry: str
) -> None:
    # The walkthrough's upgrade: a NameError at import in inspect/supersession.py, which
    # the command line loads at start and PreCompact loads when it inspects.
    copy = broken_copy(tmp_path, "inspect/supersession.py", "undefined_name_during_upgrade")
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreCompact",
        "trigger": "auto",
        "transcript_path": "",
        "note": SECRET_WORD,
    }
    done = run(copy, entry, host, payload)
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr == b"contextward: PreCompact hook failed (NameError); continuing\n"
    # A hook that does not need the broken module answers as ever, whatever the entry.
    start = {"session_id": "s", "cwd": str(project), "hook_event_name": "SessionStart"}
    done = run(copy, entry, host, {**start, "source": "startup"})
    assert done.returncode == 0 and done.stderr == b""
    assert "contextward brief" in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]


@pytest.mark.parametrize("entry", ENTRIES)
@pytest.mark.parametrize("host", HOSTS)
def test_an_adapter_that_cannot_load_still_asks_about_a_risky_command(
    tmp_path: Path, project: Path, host: str, entry: str
) -> None:
    copy = broken_copy(tmp_path, "store/database.py", "raise RuntimeError('half upgraded')")
    risky = run(
        copy, entry, host, _shell(host, project, f"git push --force origin main #{SECRET_WORD}")
    )
    event = "BeforeTool" if host == "gemini" else "PreToolUse"
    assert risky.returncode == 0
    assert risky.stderr == f"contextward: {event} hook failed (RuntimeError); continuing\n".encode()
    answer = json.loads(risky.stdout)
    if host == "gemini":
        assert answer["decision"] == "deny" and "Ask the owner first" in answer["reason"]
    else:
        assert answer["hookSpecificOutput"]["permissionDecision"] == "ask"
        assert "git push --force" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    benign = run(copy, entry, host, _shell(host, project, "ls -la"))
    assert (benign.returncode, benign.stdout) == (0, b"")
    assert (
        benign.stderr == f"contextward: {event} hook failed (RuntimeError); continuing\n".encode()
    )


@pytest.mark.parametrize("entry", ENTRIES)
def test_when_even_the_guard_cannot_load_the_hook_still_exits_0(
    tmp_path: Path, project: Path, entry: str
) -> None:
    copy = broken_copy(tmp_path, "redact.py", "raise ImportError('half upgraded')")
    done = run(copy, entry, "claude", _shell("claude", project, "rm -rf /"))
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr == b"contextward: PreToolUse hook failed (ImportError); continuing\n"


def test_when_the_launcher_itself_cannot_load_the_installed_hook_exits_0(
    tmp_path: Path, project: Path
) -> None:
    copy = broken_copy(tmp_path, "launcher.py", "raise SyntaxError('half written')")
    done = run(copy, "hook_entry", "claude", _shell("claude", project, "ls"))
    assert (done.returncode, done.stdout) == (0, b"")
    assert done.stderr == b"contextward: unknown hook failed (SyntaxError); continuing\n"


@pytest.mark.parametrize("entry", ("script", "module"))
def test_another_command_on_a_broken_install_is_one_line_exit_2(
    tmp_path: Path, project: Path, entry: str
) -> None:
    # The CLI imports a command's module when it runs: break the one `status` needs.
    copy = broken_copy(tmp_path, "cli/store_cmds.py", "undefined_name_during_upgrade")
    done = run(copy, entry, "claude", {}, "status")
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == (
        b"contextward: error: contextward could not be loaded (NameError); reinstall it\n"
    )
