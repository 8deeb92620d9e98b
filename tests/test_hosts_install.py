"""``contextward install claude`` / ``uninstall claude``: merge, keep the user's keys, remove only ours."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.hosts.claude_install import HOOK_EVENTS, is_ours

USER_SETTINGS = {
    "permissions": {"allow": ["Bash(ls)"]},
    "model": "opus",
    "hooks": {
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard"}]},
        ],
    },
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path


def settings(repo: Path) -> dict[str, object]:
    return json.loads((repo / ".claude" / "settings.json").read_text())  # type: ignore[no-any-return]


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_install_merges_and_is_idempotent(repo: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    assert invoke("install", "claude")[0] == 0
    first = settings(repo)
    assert invoke("install", "claude")[0] == 0
    assert settings(repo) == first
    assert first["permissions"] == USER_SETTINGS["permissions"] and first["model"] == "opus"
    hooks = first["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) == {event for event, _, _ in HOOK_EVENTS}
    assert hooks["Stop"][0] == USER_SETTINGS["hooks"]["Stop"][0]  # type: ignore[index]
    assert hooks["PreToolUse"][0]["hooks"][0]["command"] == "my-guard"
    ours = [h for groups in hooks.values() for g in groups for h in g["hooks"] if is_ours(h)]
    assert len(ours) == len(HOOK_EVENTS)
    assert all(" -S " in h["command"] and h["command"].endswith(" claude") for h in ours)


def test_uninstall_restores_exactly_the_user_settings(repo: Path) -> None:
    (repo / ".claude").mkdir()
    (repo / ".claude" / "settings.json").write_text(json.dumps(USER_SETTINGS))
    invoke("install", "claude")
    code, out, _ = invoke("uninstall", "claude")
    assert code == 0 and "hooks removed" in out
    assert settings(repo) == USER_SETTINGS


def test_install_into_a_fresh_project_and_the_user_scope(repo: Path) -> None:
    assert invoke("install", "claude", "--project")[0] == 0
    assert (repo / ".claude" / "settings.json").exists()
    assert invoke("install", "claude", "--user")[0] == 0
    assert (repo / "home" / ".claude" / "settings.json").exists()
    invoke("uninstall", "claude")
    assert settings(repo) == {}


def test_dry_run_writes_nothing(repo: Path) -> None:
    code, out, err = invoke("install", "claude", "--dry-run")
    assert code == 0 and "SessionStart" in json.loads(out)["hooks"]
    assert "not written" in err and not (repo / ".claude").exists()


@pytest.mark.parametrize("bad", ["{not json", "[]", '{"hooks": []}', '{"hooks": {"Stop": {}}}'])
def test_malformed_settings_are_left_alone(repo: Path, bad: str) -> None:
    (repo / ".claude").mkdir()
    path = repo / ".claude" / "settings.json"
    path.write_text(bad)
    code, _, err = invoke("install", "claude")
    assert code == 2 and err.count("\n") == 1
    assert path.read_text() == bad


def test_the_plugin_layout_uses_the_same_events() -> None:
    root = Path(__file__).resolve().parents[1] / "integrations" / "claude-code"
    manifest = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    hooks = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]
    assert manifest["name"] == "contextward"
    assert set(hooks) == {event for event, _, _ in HOOK_EVENTS}
    for groups in hooks.values():
        for group in groups:
            assert group["hooks"][0]["command"] == "contextward hook claude"


@pytest.mark.parametrize(
    ("host", "said"),
    [
        ("codex", "see docs/hosts/codex.md"),
        ("OpenCode", "see docs/hosts/opencode.md"),
        ("vscode", "hosts: claude"),
    ],
)
def test_a_host_set_up_by_hand_is_pointed_to_its_page(repo: Path, host: str, said: str) -> None:
    for command in ("install", "uninstall"):
        code, out, err = invoke(command, host)
        assert code == 2 and out == "" and err.count("\n") == 1
        assert err.endswith(f"only claude is installed by this command ({said})\n")
    assert not (repo / ".claude").exists()


@pytest.mark.parametrize("host", ["codex", "gemini"])
def test_the_fast_hook_command_for_another_host_answers_as_the_cli_does(
    host: str, tmp_path: Path
) -> None:
    printed = CliRunner().invoke(main, ["hook", host, "--print-command"])
    assert printed.exit_code == 0
    payload = json.dumps(
        {
            "hook_event_name": "PreToolUse" if host == "codex" else "BeforeTool",
            "session_id": "s",
            "cwd": str(tmp_path),
            "tool_name": "Bash" if host == "codex" else "run_shell_command",
            "tool_input": {"command": "rm -rf /"},
        }
    )
    done = subprocess.run(
        shlex.split(printed.output), input=payload, capture_output=True, text=True, check=True
    )
    assert "risky command" in done.stdout
