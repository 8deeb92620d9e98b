"""Hardening (issue 9, item 4): no path argument leaves the project.

Every argument that names a *project file* is confined to the project (``..``,
absolute paths and symlinks are resolved first); an escape is refused with exit
2 (CLI), an error result (MCP) or an error frame (bridge), and nothing outside
the project is read, shown or written. Enumerated from the code:

CLI
- ``load TASK`` — confined to the plans folder (tests/test_state_cli.py covers
  ``..``, absolute, a symlinked task and a symlinked artifact; not repeated here).
- ``checkpoint --task TASK`` — confined to the plans folder (test_state_cli.py).
- configuration ``state_file`` (the STATE.md path) and ``plans_dir`` (the plans
  folder), project or personal layer — confined to the repository; every command
  that opens them (``checkpoint``, ``log``, ``decide``, ``note decision``,
  ``state``, ``load``, ``brief``) refuses an escape: here.
- Not confined, by design (DESIGN.md "Details"): files the owner names on the
  command line — ``inspect|guidance|snapshot|review FILE``, ``compact-test
  TRANSCRIPT --summary F``, ``check --snapshot F --context F``, ``--decisions F``,
  ``review --save F`` — are read or written where they are.

MCP tools
- ``load(task)`` — confined (escape: test_hosts_mcp.py; symlink + absolute: here).
- ``checkpoint(task=...)`` — confined to the plans folder like the CLI: here
  (forced fix: the MCP tool wrote any task path the model gave).
- ``checkpoint``/``decide``-adjacent STATE.md writes go through the configured,
  confined STATE.md path: here.
- ``diff(baseline)`` is a git ref, not a path; option-shaped refs are refused
  (tests/test_scope_audit.py).

Bridge operations
- ``inspect``/``guidance`` ``transcript_path`` — a host's transcript, read where it
  is by design; no other operation takes a path. ``record_event`` session_end
  writes the confined STATE.md: an escaping configuration gives an error frame.

Hooks
- ``tool_input.file_path`` / ``notebook_path`` (PostToolUse) — a path outside the
  project is never recorded as a modified project file.
- ``transcript_path`` — a host's transcript, read where it is by design.
- an escaping STATE.md configuration never makes a hook write outside the project.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.hosts import claude_code
from contextward.hosts.bridge import Bridge
from contextward.hosts.bridge_ops import default_registry
from contextward.state import StateError, StateProject
from contextward.state.writer import checkpoint
from contextward.store import Store


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "STATE.md").write_text("# State\n\n## Current\n\n- focus: OUTSIDE SECRET\n")
    (outside / "t1").mkdir()
    (outside / "t1" / "plan.md").write_text("OUTSIDE SECRET PLAN\n")
    (root / "plans" / "t1").mkdir(parents=True)
    (root / "link").symlink_to(outside, target_is_directory=True)
    monkeypatch.chdir(root)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CONTEXTWARD_PROJECT_DIR", str(root))
    for name in ("CLAUDE_PROJECT_DIR", "CONTEXTWARD_SESSION_ID"):
        monkeypatch.delenv(name, raising=False)
    with Store.open(root):
        pass
    return root, outside


def _configure(root: Path, **values: str) -> None:
    body = "".join(f"{k} = {json.dumps(v)}\n" for k, v in values.items())
    (root / ".contextward" / "config.toml").write_text(body, encoding="utf-8")


def _escapes(outside: Path) -> list[str]:
    return [
        "../outside/STATE.md",
        str(outside / "STATE.md"),
        "link/STATE.md",
        "plans/../../outside/x.md",
    ]


def _snapshot(outside: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in outside.rglob("*") if p.is_file()}


STATE_COMMANDS: list[list[str]] = [
    ["checkpoint", "--focus", "f"],
    ["log", "a milestone"],
    ["decide", "use sqlite"],
    ["note", "decision", "use sqlite"],
    ["state"],
]


@pytest.mark.parametrize(
    "argv", STATE_COMMANDS, ids=lambda a: a[0] + ("-" + a[1] if a[0] == "note" else "")
)
def test_cli_refuses_a_state_file_outside_the_project(
    world: tuple[Path, Path], argv: list[str]
) -> None:
    root, outside = world
    before = _snapshot(outside)
    for escape in _escapes(outside):
        _configure(root, state_file=escape)
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 2, (escape, result.output)
        assert "OUTSIDE SECRET" not in result.output
        assert "Traceback" not in result.output
    assert _snapshot(outside) == before


@pytest.mark.parametrize("escape", ["../outside", "link", "/"])
def test_cli_refuses_a_plans_folder_outside_the_project(
    world: tuple[Path, Path], escape: str
) -> None:
    root, outside = world
    _configure(root, plans_dir=escape if escape != "/" else str(outside))
    for argv in (["load", "t1"], ["checkpoint", "--task", "t1"]):
        result = CliRunner().invoke(main, argv)
        assert result.exit_code == 2, result.output
        assert "OUTSIDE SECRET" not in result.output


def test_the_library_refuses_an_escaping_task_whoever_calls_it(world: tuple[Path, Path]) -> None:
    """Forced fix: the task check lived in the CLI only, so MCP's checkpoint skipped it."""
    root, outside = world
    project = StateProject.open(root)
    for task in ("../outside/t1", str(outside / "t1"), "../../../etc", "link/t1"):
        with pytest.raises(StateError) as caught:
            checkpoint({"task": task}, project=project)
        assert caught.value.code == "path_escape"
    assert not (root / "STATE.md").exists()
    checkpoint({"task": "t1"}, project=project)
    assert "t1" in (root / "STATE.md").read_text()


# -- MCP ------------------------------------------------------------------------------


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def _mcp(name: str, args: dict[str, Any]) -> Any:
    from mcp import Client

    from contextward.hosts.mcp import build_server

    async with Client(build_server()) as client:
        return await client.call_tool(name, args)


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("load", {"task": "link/t1"}),
        ("load", {"task": "ABS"}),
        ("load", {"task": "t1/../../../outside/t1"}),
        ("checkpoint", {"task": "../outside/t1"}),
        ("checkpoint", {"task": "ABS"}),
        ("checkpoint", {"task": "link/t1"}),
    ],
)
async def test_mcp_tools_refuse_paths_outside_the_project(
    world: tuple[Path, Path], tool: str, args: dict[str, Any]
) -> None:
    root, outside = world
    before = _snapshot(outside)
    args = {k: (str(outside / "t1") if v == "ABS" else v) for k, v in args.items()}
    result = await _mcp(tool, args)
    assert result.is_error
    text = result.content[0].text
    assert "path_escape" in text and "OUTSIDE SECRET" not in text
    assert _snapshot(outside) == before
    assert not (root / "STATE.md").exists() or "outside" not in (root / "STATE.md").read_text()


@pytest.mark.anyio
async def test_mcp_state_writes_refuse_an_escaping_state_file(world: tuple[Path, Path]) -> None:
    root, outside = world
    before = _snapshot(outside)
    for escape in _escapes(outside):
        _configure(root, state_file=escape)
        result = await _mcp("checkpoint", {"focus": "f"})
        assert result.is_error and "path_escape" in result.content[0].text
    assert _snapshot(outside) == before


# -- bridge -----------------------------------------------------------------------------


def _bridge(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = io.BytesIO()
    bridge = Bridge(default_registry(), out, log=io.StringIO())
    bridge.serve(io.BytesIO(b"".join(json.dumps(f).encode() + b"\n" for f in frames)))
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_bridge_session_end_refuses_an_escaping_state_file(world: tuple[Path, Path]) -> None:
    root, outside = world
    before = _snapshot(outside)
    for n, escape in enumerate(_escapes(outside)):
        _configure(root, state_file=escape)
        frames = _bridge(
            [
                {"protocol_version": 1, "type": "request", "request_id": f"a{n}", "operation": "record_event",
                 "event": "session_start", "session_id": f"s{n}"},
                {"protocol_version": 1, "type": "request", "request_id": f"b{n}", "operation": "record_event",
                 "event": "session_end", "session_id": f"s{n}"},
            ]
        )  # fmt: skip
        end = next(f for f in frames if f.get("request_id") == f"b{n}")
        assert end["ok"] is False, end
        assert "OUTSIDE SECRET" not in json.dumps(frames)
    assert _snapshot(outside) == before


# -- hooks -------------------------------------------------------------------------------


def _hook(root: Path, payload: dict[str, Any]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    data = json.dumps({"session_id": "s1", "cwd": str(root), **payload}).encode()
    env = {"CONTEXTWARD_HOME": os.environ["CONTEXTWARD_HOME"]}
    assert claude_code.run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=env) == 0
    return out.getvalue(), err.getvalue()


def test_hooks_never_record_a_modified_file_outside_the_project(world: tuple[Path, Path]) -> None:
    root, outside = world
    escapes = [
        "../outside/STATE.md",
        str(outside / "STATE.md"),
        "link/STATE.md",
        "/etc/passwd",
        "a/../../../x",
    ]
    for n, path in enumerate([*escapes, "src/inside.py"]):
        _hook(root, {"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_use_id": f"t{n}",
                     "tool_input": {"file_path": path}, "tool_response": {}})  # fmt: skip
    with Store.open(root) as store:
        rows = store.query("SELECT payload FROM events WHERE kind = 'state.file_modified'")
    assert [json.loads(r["payload"])["path"] for r in rows] == ["src/inside.py"]


def test_hooks_never_write_an_escaping_state_file(world: tuple[Path, Path]) -> None:
    root, outside = world
    before = _snapshot(outside)
    for escape in _escapes(outside):
        _configure(root, state_file=escape)
        for event in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
            out, err = _hook(
                root, {"hook_event_name": event, "prompt": "hello there", "source": "startup"}
            )
            assert "OUTSIDE SECRET" not in out + err
    assert _snapshot(outside) == before
