"""The MCP server: in process through the SDK's client, and once as a real stdio subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from contextward.hosts.mcp import build_server
from contextward.store import Store

TOOLS = {
    "status", "brief", "checkpoint", "decide", "note", "journal", "recall", "intent", "verify",
    "evidence", "loops", "diff", "preflight", "budget", "orientation", "contract", "inspect",
    "guidance", "snapshot", "check", "restore", "load",
}  # fmt: skip


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setenv("CONTEXTWARD_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "personal"))
    return tmp_path


async def call(client: Client, name: str, args: dict[str, Any] | None = None) -> Any:
    result = await client.call_tool(name, args or {})
    if result.is_error:
        raise AssertionError(result.content[0].text)  # type: ignore[union-attr]
    data = result.structured_content
    assert isinstance(data, dict)
    # Lists and strings come wrapped as {"result": ...}; objects come as they are.
    return data["result"] if set(data) == {"result"} else data


@pytest.mark.anyio
async def test_every_capability_is_a_tool_with_honest_annotations(project: Path) -> None:
    async with Client(build_server()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    verify = tools["verify"].annotations
    assert verify is not None and verify.destructive_hint and verify.open_world_hint
    for name in ("status", "brief", "recall", "journal", "evidence", "inspect"):
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint and not hints.open_world_hint, name


@pytest.mark.anyio
async def test_model_writes_are_agent_provenance_and_never_trusted(project: Path) -> None:
    async with Client(build_server()) as client:
        noted = await call(
            client, "note", {"type": "lesson", "text": "mock the clock", "tags": ["tests"]}
        )
        decided = await call(
            client, "decide", {"text": "Use Redis for sessions", "why": "already deployed"}
        )
        entries = await call(client, "journal", {"limit": 5})
        contract = await call(client, "contract", {"add": "Keep the CLI output stable."})
        brief = await call(client, "brief")
    assert noted["provenance"] == "agent" and decided["trusted"] is False
    assert {(e["type"], e["provenance"], e["trusted"]) for e in entries} == {
        ("lesson", "agent", False),
        ("decision", "agent", False),
    }
    added = [c for c in contract if c["text"] == "Keep the CLI output stable."]
    assert added and added[0]["provenance"] == "agent" and not added[0]["trusted"]
    assert not (project / "STATE.md").exists()  # only the owner writes trusted decisions
    assert "Use Redis for sessions" not in brief or "unverified" in brief


@pytest.mark.anyio
async def test_verify_records_evidence_and_the_loop_brake_refuses(project: Path) -> None:
    async with Client(build_server()) as client:
        ok = await call(client, "verify", {"command": "true"})
        assert ok["id"] == "ev-0001" and ok["exit_code"] == 0
        for _ in range(2):
            await call(client, "verify", {"command": "exit 3"})
        refused = await call(client, "verify", {"command": "exit 3"})
        loops = await call(client, "loops")
    assert refused["refused"] is True
    assert loops == [{"command": "exit 3", "failures": 2, "blocked": True}]


@pytest.mark.anyio
async def test_the_compaction_loop_through_tools(project: Path) -> None:
    messages = [
        {"role": "user", "content": "Goal: ship OAuth login."},
        {"role": "user", "content": "Never push to main; open a PR instead."},
    ]
    async with Client(build_server()) as client:
        guidance = await call(client, "guidance", {"messages": messages})
        snap = await call(client, "snapshot", {"messages": messages})
        report = await call(client, "check", {"summary": "We will ship OAuth login."})
        restore = await call(client, "restore")
    assert "Never push to main; open a PR instead." in guidance
    assert snap["schemaVersion"] == 1 and snap["seq"] == 1
    assert report["criticalFailures"] and report["ok"] is False
    assert "Never push to main; open a PR instead." in restore


@pytest.mark.anyio
async def test_refusals_are_error_results_without_content(project: Path) -> None:
    async with Client(build_server()) as client:
        escape = await client.call_tool("load", {"task": "../../etc"})
        empty = await client.call_tool("checkpoint", {})
    assert escape.is_error and "path_escape" in escape.content[0].text  # type: ignore[union-attr]
    assert empty.is_error


@pytest.mark.anyio
async def test_a_real_stdio_client_subprocess(project: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "contextward", "mcp"],
        env={
            "CONTEXTWARD_PROJECT_DIR": str(project),
            "CONTEXTWARD_HOME": str(project / "p"),
            **_coverage_env(),
        },
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        status = await call(client, "checkpoint", {"focus": "stdio test"})
    assert names == TOOLS
    assert status == "checkpoint written: focus"
    assert "stdio test" in (project / "STATE.md").read_text()
    with Store.open(project) as store:
        assert store.journal.counts()["total"] == 0


def _coverage_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith(("COV_", "COVERAGE"))}


@pytest.mark.anyio
async def test_wrong_argument_types_are_named_never_echoed(project: Path) -> None:
    secret = "sk-live-0123456789abcdefSECRETVALUE"
    async with Client(build_server()) as client:
        result = await client.call_tool(
            "recall", {"query": {"token": secret}, "limit": f"ten {secret}"}
        )
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error
    assert text == "invalid_arguments for recall: limit: int_parsing; query: string_type"
    assert secret not in text
