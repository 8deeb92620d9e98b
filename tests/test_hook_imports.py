"""What a tool-call hook loads: it runs before and after every tool call, so it must not
pay for what only other moments need (the decision matcher, the secret patterns)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from contextward.hosts.claude_install import ENTRY_SCRIPT
from contextward.store import Store

SESSION = "0f3c5a4e-9b1d-4c2e-8f7a-1d2e3f4a5b6c"  # Claude Code names sessions by a UUID

# Runs one hook as the installed command does (``python -S hook_entry.py claude``), then
# reports what that process loaded and whether it compiled the secret patterns.
PROBE = """
import json, runpy, sys
entry, report = sys.argv[1], sys.argv[2]
sys.argv = [entry, "claude"]
try:
    runpy.run_path(entry, run_name="__main__")
except SystemExit:
    pass
from contextward import redact
with open(report, "w") as out:
    json.dump({"modules": sorted(sys.modules),
               "compiled": redact._patterns.cache_info().currsize > 0}, out)
"""


def _run(project: Path, tmp_path: Path, event: str, **fields: object) -> dict[str, object]:
    payload = {"session_id": SESSION, "cwd": str(project), "hook_event_name": event, **fields}
    report = tmp_path / f"{event}.json"
    subprocess.run(
        [sys.executable, "-S", "-c", PROBE, str(ENTRY_SCRIPT), str(report)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    loaded: dict[str, object] = json.loads(report.read_text())
    return loaded


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    Store.open(root).close()
    return root


SHELL = {"tool_name": "Bash", "tool_input": {"command": "ls -la"}}


def test_before_a_shell_command_no_secret_pattern_is_compiled(
    project: Path, tmp_path: Path
) -> None:
    seen = _run(project, tmp_path, "PreToolUse", **SHELL)
    assert seen["compiled"] is False


def test_after_a_tool_call_neither_the_decision_matcher_nor_the_patterns_load(
    project: Path, tmp_path: Path
) -> None:
    seen = _run(
        project,
        tmp_path,
        "PostToolUse",
        tool_use_id="toolu_01",
        tool_response={"stdout": "total 0\n", "stderr": "", "interrupted": False},
        **SHELL,
    )
    modules = seen["modules"]
    assert isinstance(modules, list)
    assert "contextward.hosts.toolcall" in modules  # the call was recorded by this process
    assert "contextward.state.superseding" not in modules
    assert "contextward.core.textnorm" not in modules
    assert seen["compiled"] is False


def test_a_command_that_may_hold_a_secret_is_still_masked(project: Path, tmp_path: Path) -> None:
    token = "ghp_" + "a1" * 18
    seen = _run(
        project,
        tmp_path,
        "PostToolUse",
        tool_use_id="toolu_02",
        tool_name="Bash",
        tool_input={"command": f"GH_TOKEN={token} ./deploy.sh"},
        tool_response={"stdout": "", "stderr": "boom", "interrupted": False, "exit_code": 1},
    )
    assert seen["compiled"] is True
    for path in (project / ".contextward").rglob("*"):
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path.name
