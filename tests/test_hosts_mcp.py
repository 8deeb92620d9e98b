"""The MCP server: in process through the SDK's client, and as a real stdio subprocess (through
the SDK's client, and line by line for what a client should never send)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client, StdioServerParameters
from mcp_types import INVALID_REQUEST, JSONRPCNotification, jsonrpc_message_adapter
from pydantic import ValidationError

from contextward.hosts.mcp import build_server
from contextward.hosts.mcp_stdio import MAX_LINE, Refused, leading_id, parse_line
from contextward.store import Store

SRC = str(Path(__file__).parents[1] / "src")
SECRET = b"sk-live-0123456789abcdefSECRETVALUE"
PARSE_ERROR = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}

TOOLS = {
    "status", "brief", "checkpoint", "decide", "note", "journal", "recall", "intent", "verify",
    "evidence", "loops", "diff", "preflight", "budget", "orientation", "contract", "inspect",
    "inspect_prompt", "guidance", "snapshot", "check", "restore", "load",
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
    assert [{k: v for k, v in loop.items() if k != "last_at"} for loop in loops] == [
        {
            "command": "exit 3",
            "streak_key": "exit 3",
            "failures": 2,
            "failed": 2,
            "unproven": 0,
            "streak": "failed 2 time(s)",
            "threshold": 3,
            "blocked": True,
        }
    ]


@pytest.mark.anyio
async def test_loops_say_what_a_streak_counted_as_the_refusal_does(project: Path) -> None:
    """A test run whose exit 0 proves nothing is no failure: the tool gives the split the
    hook's refusal gives (failed 1 time(s) and could not be proven 1 time(s))."""
    async with Client(build_server()) as client:
        await call(client, "verify", {"command": "false"})
        await call(client, "verify", {"command": "false || true"})  # masked: unproven
        refused = await call(client, "verify", {"command": "false || true"})
        (loop,) = await call(client, "loops")
    assert "failed 1 time(s) and could not be proven 1 time(s)" in refused["reason"]
    assert (loop["failures"], loop["failed"], loop["unproven"], loop["streak"]) == (
        2,
        1,
        1,
        "failed 1 time(s) and could not be proven 1 time(s)",
    )


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
    assert snap["schemaVersion"] == 1 and snap["snapshot_seq"] == 1 and "seq" not in snap
    assert report["criticalFailures"] and report["ok"] is False
    assert "Never push to main; open a PR instead." in restore


@pytest.mark.anyio
async def test_a_named_session_restores_only_its_own_snapshot(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rule = "Never push to main; open a PR instead."
    monkeypatch.setenv("CONTEXTWARD_SESSION_ID", "a")
    async with Client(build_server()) as client:
        await call(client, "snapshot", {"messages": [{"role": "user", "content": rule}]})
        await call(client, "check", {"summary": "We will ship OAuth login."})
        mine = await call(client, "restore")
    monkeypatch.setenv("CONTEXTWARD_SESSION_ID", "b")
    async with Client(build_server()) as client:
        other = await call(client, "restore")
    assert rule in mine and other == "nothing to restore"


# The owner moves away from a plan in words the rules cannot read as replacing it.
PLAN = [
    {"role": "user", "content": "Ship the billing export to the finance bucket."},
    {"role": "user", "content": "Package it as a Helm chart."},
    {"role": "assistant", "content": "Starting on the chart now."},
    {"role": "user", "content": "The cluster team owns every chart, so plain manifests from us."},
]
READING = {
    "candidates": [
        {"kind": "goal", "content": "Ship the billing export to the finance bucket."},
        {
            "kind": "decision",
            "content": "The cluster team owns every chart, so plain manifests from us.",
            "replaces": "Package it as a Helm chart.",
        },
    ]
}


@pytest.mark.anyio
async def test_provider_mode_through_tools_the_model_reads_what_rules_cannot(
    project: Path,
) -> None:
    answer = json.dumps(READING)
    async with Client(build_server()) as client:
        asked = await call(client, "inspect_prompt", {"messages": PLAN})
        # The question alone, for a model that already holds the conversation: no transcript
        # in it, and no message ids to name.
        bare = await call(client, "inspect_prompt")
        rules = await call(client, "inspect", {"messages": PLAN})
        read = await call(client, "inspect", {"messages": PLAN, "answer": answer})
        # A client may send the JSON itself rather than a string: it is read the same.
        as_object = await call(client, "inspect", {"messages": PLAN, "answer": READING})
        guidance = await call(client, "guidance", {"messages": PLAN, "answer": answer})
        snap = await call(client, "snapshot", {"messages": PLAN, "answer": answer})
    assert "Answer with JSON only." in asked and "Package it as a Helm chart." in asked
    assert "Answer with JSON only." in bare and "Helm" not in bare and "source" not in bare
    assert bare.endswith("Messages: the ones you pass with your answer.")
    helm = "Package it as a Helm chart."

    def action(result: dict[str, Any]) -> str:
        return next(c["action"] for c in result["candidates"] if c["content"] == helm)

    assert rules["mode"] == "rules" and action(rules) == "keep"
    assert read["mode"] == "provider" and action(read) == "drop"
    assert "fallback_reason" not in read and as_object == read
    must, _, stale = guidance.partition("Can discard")
    assert helm in stale and helm not in must
    assert "plain manifests from us." in must
    kept = [item["content"] for item in snap["items"]]
    assert helm not in kept and PLAN[3]["content"] in kept
    assert "fallback_reason" not in snap


@pytest.mark.anyio
async def test_an_answer_that_cannot_be_used_falls_back_to_rules_and_says_why(
    project: Path,
) -> None:
    invented = json.dumps({"candidates": [{"kind": "decision", "content": SECRET.decode()}]})
    async with Client(build_server()) as client:
        result = await call(client, "inspect", {"messages": PLAN, "answer": invented})
        prose = await call(client, "guidance", {"messages": PLAN, "answer": "no JSON here"})
        snap = await call(client, "snapshot", {"messages": PLAN, "answer": '{"candidates": }'})
    assert result["mode"] == "rules"
    assert (
        result["fallback_reason"]
        == "none of its 1 proposals is usable (not verbatim in the transcript, or of no known kind)"
    )
    assert "\nNotes for the host (not part of the guidance" in prose
    assert prose.endswith("contextward: answer not used (the model's answer holds no JSON)")
    assert "Package it as a Helm chart." in prose
    assert snap["fallback_reason"] == "the model's answer is malformed JSON"
    assert SECRET.decode() not in json.dumps([result, prose, snap])


@pytest.mark.anyio
async def test_what_was_not_used_or_not_read_is_counted(project: Path) -> None:
    helm = "Package it as a Helm chart."
    named = {"kind": "decision", "content": helm, "source": "m2"}
    invented = {"kind": "goal", "content": f"Migrate billing. {SECRET.decode()}", "source": "m1"}
    odd = [{"content": "no role"}, {"role": "wizard", "content": "Never push to main."}]
    async with Client(build_server()) as client:
        result = await call(
            client, "inspect", {"messages": PLAN + odd, "answer": [named, invented]}
        )
        text = await call(client, "guidance", {"messages": PLAN, "answer": [named, invented]})
        unread = await client.call_tool("inspect", {"messages": odd})
        asked = await client.call_tool("inspect_prompt", {"messages": []})
        schema = next(t for t in (await client.list_tools()).tools if t.name == "inspect")
    # A bare list of proposals is an answer; the one not found is counted, never quoted.
    assert result["mode"] == "provider" and result["provider_rejected"] == 1
    assert result["skipped"] == {"unknown_role": 2}
    notes = text.split(
        "Notes for the host (not part of the guidance; leave them out of the summary):\n"
    )
    assert len(notes) == 2 and notes[1].startswith("contextward: 1 proposal of the answer not used")
    assert SECRET.decode() not in json.dumps(result) + text
    for refused in (unread, asked):
        assert refused.is_error
    # One shape for every refusal, the tool's own as its arguments': "<code> for <tool>: …".
    assert unread.content[0].text == (  # type: ignore[union-attr]
        "invalid_arguments for inspect: no message could be read (skipped: unknown_role 2)"
    )
    assert asked.content[0].text == "invalid_arguments for inspect_prompt: messages is empty"  # type: ignore[union-attr]
    answer = schema.input_schema["properties"]["answer"]
    assert {"string", "object", "array"} <= {branch.get("type") for branch in answer["anyOf"]}


@pytest.mark.anyio
async def test_an_answer_too_large_is_refused_without_content(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextward.inspect import provider

    monkeypatch.setattr(provider, "MAX_ANSWER_BYTES", 64)
    async with Client(build_server()) as client:
        refused = await client.call_tool(
            "inspect", {"messages": PLAN, "answer": SECRET.decode() * 4}
        )
    assert refused.is_error
    text = refused.content[0].text  # type: ignore[union-attr]
    assert text == "invalid_request for inspect: the answer is larger than 64 bytes"
    assert SECRET.decode() not in text


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
            "PYTHONPATH": SRC,
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


@pytest.mark.anyio
@pytest.mark.parametrize("variable", ["CONTEXTWARD_PROJECT_DIR", "CLAUDE_PROJECT_DIR"])
async def test_a_named_project_that_is_not_there_is_an_error_not_the_cwd(
    project: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    cwd = project / "elsewhere"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("CONTEXTWARD_PROJECT_DIR")
    monkeypatch.setenv(variable, str(project / "typo-project"))
    async with Client(build_server()) as client:
        noted = await client.call_tool("note", {"type": "lesson", "text": "hello"})
        checkpoint = await client.call_tool("checkpoint", {"focus": "x"})
    for tool, result in (("note", noted), ("checkpoint", checkpoint)):
        assert result.is_error
        text = result.content[0].text  # type: ignore[union-attr]
        assert text.startswith(f"project_dir_missing for {tool}: {variable} names no directory")
    assert list(cwd.iterdir()) == []  # nothing went to the server's working directory


def test_the_server_refuses_to_start_for_a_project_that_is_not_there(project: Path) -> None:
    cwd = project / "elsewhere"
    cwd.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "contextward", "mcp"],
        input="",
        capture_output=True,
        text=True,
        cwd=cwd,
        env={
            "CONTEXTWARD_PROJECT_DIR": str(project / "typo-project"),
            "CONTEXTWARD_HOME": str(project / "p"),
            "PYTHONPATH": SRC,
            "PATH": "/usr/bin:/bin",
            **_coverage_env(),
        },
        timeout=60,
        check=False,
    )
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"contextward: error: CONTEXTWARD_PROJECT_DIR names no directory "
        f"({project / 'typo-project'}): set it to the project's folder, or unset it to"
        " serve the current directory\n"
    )
    assert list(cwd.iterdir()) == []


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


# --- lines a client should never send: each is answered, and the server goes on ----------


def invalid_request(request_id: object) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": -32600, "message": "Invalid Request"},
    }


class Wire:
    """``contextward mcp`` as a child process spoken to line by line; an answer that does
    not come within a few seconds fails the test instead of hanging it."""

    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "contextward", "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=project,
            env={**os.environ, "PYTHONPATH": SRC},
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        hello = {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"},
        }
        initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello}
        self.send(json.dumps(initialize).encode())
        assert "result" in self.answer()
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def answer(self, timeout: float = 5.0) -> dict[str, Any]:
        try:
            return json.loads(self.lines.get(timeout=timeout))  # type: ignore[no-any-return]
        except queue.Empty:
            pytest.fail(f"no answer within {timeout} s")

    def tool_names(self, request_id: int = 99) -> set[str]:
        self.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}).encode())
        answer = self.answer()
        assert answer["id"] == request_id
        return {tool["name"] for tool in answer["result"]["tools"]}

    def close(self) -> bytes:
        """Close stdin (EOF): the server must exit 0 promptly; returns what it wrote to stderr."""
        assert self.proc.stdin is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        assert self.proc.wait(timeout=10) == 0
        return self.proc.stderr.read()

    def peak_kib(self) -> int | None:
        status = Path(f"/proc/{self.proc.pid}/status")
        if not status.exists():
            return None
        peak = next(line for line in status.read_text().splitlines() if line.startswith("VmHWM"))
        return int(peak.split()[1])


@pytest.fixture
def wire(project: Path) -> Iterator[Wire]:
    served = Wire(project)
    yield served
    if served.proc.poll() is None:
        served.proc.kill()
        served.proc.wait()


@pytest.mark.parametrize(
    "line",
    [
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"text":"' + SECRET,
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":"\xff' + SECRET + b'"}}',
        b"hello " + SECRET,
    ],
    ids=["cut-short", "not-utf8", "not-json"],
)
def test_a_line_that_is_not_json_gets_a_parse_error(wire: Wire, line: bytes) -> None:
    wire.send(line)
    assert wire.answer() == PARSE_ERROR
    assert wire.tool_names() == TOOLS
    assert SECRET not in wire.close()


@pytest.mark.parametrize(
    ("line", "request_id"),
    [
        (b'[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', None),
        (b"42", None),
        (b'{"id":1,"method":"tools/list"}', 1),
        (b'{"jsonrpc":"2.0","id":"r-1","method":"tools/list","params":"' + SECRET + b'"}', "r-1"),
        (b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}', None),
        (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note",'
         b'"arguments":{"type":"note","text":"\\ud800 ' + SECRET + b'"}}}', 2),
        (b'{"jsonrpc":"2.0","id":"\\udc00","method":"tools/list"}', None),
        # Valid JSON nested past the recursion limit: the id it opens with is answered.
        (b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"inspect",'
         b'"arguments":{"messages":' + b"[" * 5000 + b"]" * 5000 + b'}}}', 7),
        (b'{"jsonrpc":"2.0","id":"deep","params":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
         "deep"),
    ],
    ids=["batch", "number", "no-jsonrpc", "params-text", "5000-digit-id", "float-id", "bool-id",
         "lone-surrogate", "lone-surrogate-id", "deep-5000", "deep-100000"],
)  # fmt: skip
def test_json_that_is_no_request_gets_an_invalid_request(
    wire: Wire, line: bytes, request_id: object
) -> None:
    wire.send(line)
    assert wire.answer() == invalid_request(request_id)
    assert wire.tool_names() == TOOLS
    assert SECRET not in wire.close()


def test_malformed_notifications_and_responses_are_never_answered(wire: Wire) -> None:
    for line in (
        b'{"jsonrpc":"1.0","method":"notifications/initialized"}',
        b'{"method":"notifications/progress","params":"' + SECRET + b'"}',
        b'{"jsonrpc":"2.0","id":1,"result":"' + SECRET + b'"}',
        b"   ",
        b'{"method":7}',  # not even a notification: answered
    ):
        wire.send(line)
    assert wire.answer() == invalid_request(None)
    assert wire.tool_names() == TOOLS
    assert SECRET not in wire.close()


def test_a_30_mb_line_is_answered_in_memory_bounded_by_the_line(wire: Wire) -> None:
    size = 30 * 2**20
    before = wire.peak_kib()
    wire.send(b"x" * size)
    assert wire.answer(timeout=20) == PARSE_ERROR
    wire.send(b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":"' + b"x" * size + b'"}')
    assert wire.answer(timeout=20) == invalid_request(3)
    after = wire.peak_kib()
    if before is not None and after is not None:
        assert (after - before) * 1024 < 6 * size  # the line, its text and a parse: not 6 GB
    assert wire.tool_names() == TOOLS
    wire.close()


def test_a_line_over_the_cap_is_refused_without_being_held_whole(wire: Wire) -> None:
    size = 8 * MAX_LINE
    before = wire.peak_kib()
    wire.send(b'{"jsonrpc":"2.0","id":4,"method":"tools/list","params":"' + b"x" * size + b'"}')
    # Its id leads the line, as SDK clients write it: the client is answered, not left
    # waiting. An id behind the parameters is never read.
    assert wire.answer(timeout=30) == invalid_request(4)
    wire.send(b'{"method":"tools/list","params":"' + b"x" * MAX_LINE + b'","id":5}')
    assert wire.answer(timeout=30) == invalid_request(None)
    after = wire.peak_kib()
    if before is not None and after is not None:
        assert (after - before) * 1024 < 3 * MAX_LINE  # the cap, not the 256 MiB line
    assert wire.tool_names() == TOOLS
    wire.close()


@pytest.mark.parametrize(
    ("head", "request_id"),
    [
        (b'{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"x', 4),
        (b'{ "jsonrpc": "2.0", "id": "a\\"b", "method": "x', 'a"b'),
        (b'{"method":"x","params":{"id":5},"id":3,', None),  # behind a nested value
        (b'{"id": 1.5, "method"', None),
        (b'{"id": true, "method"', None),
        (b'[{"id": 1}, ', None),
        (b'{"a": "\xff", "id": 2, "method"', None),  # not UTF-8: nothing is trusted
        (b'{"jsonrpc":"2.0","id":' + b"9" * 30 + b',"method"', None),
    ],
)
def test_an_over_long_line_is_answered_with_the_id_it_opens_with(
    head: bytes, request_id: Any
) -> None:
    assert leading_id(head) == request_id


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_MESSAGES = st.dictionaries(
    st.sampled_from(["jsonrpc", "id", "method", "params", "result", "error"]),
    _VALUES | st.just("2.0") | st.just("tools/list") | st.fixed_dictionaries({"code": st.integers(), "message": st.text(max_size=4)}),
    max_size=5,
)  # fmt: skip


@given(_MESSAGES | _VALUES)
@settings(max_examples=400, deadline=None)
def test_every_line_the_sdk_takes_reaches_the_server_unchanged(value: Any) -> None:
    line = json.dumps(value)
    try:
        expected = jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        assert isinstance(parse_line(line.encode()), Refused)
        return
    parsed = parse_line(line.encode())
    if isinstance(expected, JSONRPCNotification) and "id" in value:  # an id null, bool or float
        assert isinstance(parsed, Refused) and parsed.answer is not None
        assert (parsed.answer.id, parsed.answer.error.code) == (None, INVALID_REQUEST)
    else:
        # NaN (json.dumps writes it, both read it) is never equal to itself: compare reprs.
        assert parsed == expected or repr(parsed) == repr(expected)


@pytest.mark.anyio
async def test_the_finds_an_answer_passed_by_are_counted(project: Path) -> None:
    messages = [
        {"role": "user", "content": "Never push to main."},
        {"role": "assistant", "content": "The staging run took 420 ms at p95."},
    ]
    answer = [{"kind": "constraint", "content": "Never push to main."}]
    async with Client(build_server()) as client:
        result = await call(client, "inspect", {"messages": messages, "answer": answer})
        text = await call(client, "guidance", {"messages": messages, "answer": answer})
    assert result["mode"] == "provider" and result["provider_passed"] == 1
    assert "provider_rejected" not in result
    assert text.startswith("contextward guidance for the compaction summary")
    assert text.rstrip().endswith(
        "contextward: 1 unsure find of the rules that the answer passed by dropped as noise "
        "(of the owner's words, only plain remarks)"
    )


@pytest.mark.anyio
async def test_an_empty_constraint_is_refused_over_mcp(project: Path) -> None:
    async with Client(build_server()) as client:
        result = await client.call_tool("contract", {"add": ""})
    assert result.is_error and "the constraint text is empty" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "args", "problem"),
    [
        ("journal", {"limit": -5}, "limit: greater_than_equal 1"),
        ("journal", {"limit": 0}, "limit: greater_than_equal 1"),
        ("journal", {"limit": 1000}, "limit: less_than_equal 200"),
        ("evidence", {"limit": -3}, "limit: greater_than_equal 1"),
        ("recall", {"query": "x", "limit": 0}, "limit: greater_than_equal 1"),
        ("recall", {"query": "x", "limit": -1}, "limit: greater_than_equal 1"),
        ("intent", {"limit": 51}, "limit: less_than_equal 50"),
        ("verify", {"command": "true", "timeout_s": -1}, "timeout_s: greater_than_equal 1"),
        ("verify", {"command": "true", "timeout_s": 1e9}, "timeout_s: less_than_equal 900"),
        ("budget", {"used_tokens": -1}, "used_tokens: greater_than_equal 0"),
        ("budget", {"window_tokens": 0}, "window_tokens: greater_than_equal 1"),
        ("decide", {"text": "Use Postgres.", "rejected": "yes"}, "rejected: bool_type"),
        # Recall's cap (docs/limits.md), stated by the schema rather than past it.
        ("recall", {"query": "x", "limit": 21}, "limit: less_than_equal 20"),
    ],
)
async def test_out_of_range_arguments_are_refused_with_their_bound(
    project: Path, name: str, args: dict[str, Any], problem: str
) -> None:
    async with Client(build_server()) as client:
        result = await client.call_tool(name, args)
    assert result.is_error
    assert result.content[0].text == f"invalid_arguments for {name}: {problem}"  # type: ignore[union-attr]
    with Store.open(project) as store:  # nothing ran, nothing was recorded
        assert store.evidence.list(limit=5) == []
        assert store.journal.counts()["total"] == 0


@pytest.mark.anyio
async def test_an_unknown_evidence_id_is_an_error_not_an_empty_list(project: Path) -> None:
    async with Client(build_server()) as client:
        ran = await call(client, "verify", {"command": "true", "timeout_s": 30})
        found = await call(client, "evidence", {"evidence_id": ran["id"]})
        bogus = await client.call_tool("evidence", {"evidence_id": "bogus-sk-live-0123"})
    assert [run["id"] for run in found] == [ran["id"]]
    assert bogus.is_error
    text = bogus.content[0].text  # type: ignore[union-attr]
    assert text == "not_found for evidence: no evidence run has that id (ev-NNNN)"
    assert "bogus" not in text


@pytest.mark.anyio
async def test_an_unknown_argument_is_refused_not_dropped_in_silence(project: Path) -> None:
    async with Client(build_server()) as client:
        result = await client.call_tool("contract", {"action": "add"})
        typo = await client.call_tool("recall", {"querry": "postgres"})
        await call(client, "recall", {"query": "postgres"})  # raises on an error result
    assert result.is_error
    assert result.content[0].text == "invalid_arguments for contract: action: unknown_argument"  # type: ignore[union-attr]
    assert typo.is_error and "querry: unknown_argument" in typo.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_an_answer_of_another_type_is_refused_naming_every_type_accepted(
    project: Path,
) -> None:
    async with Client(build_server()) as client:
        results = [
            await client.call_tool("inspect", {"messages": PLAN, "answer": value})
            for value in (42, True, 1.5)
        ]
    for result in results:
        assert result.is_error
        assert result.content[0].text == (  # type: ignore[union-attr]
            "invalid_arguments for inspect: answer: string_object_or_array_type"
        )


@pytest.mark.anyio
@pytest.mark.parametrize("summary", ["", "  \n\t "])
async def test_an_empty_summary_is_refused_and_the_stored_report_stays(
    project: Path, summary: str
) -> None:
    async with Client(build_server()) as client:
        await call(client, "snapshot", {"messages": PLAN})
        await call(client, "check", {"summary": PLAN[0]["content"]})
        refused = await client.call_tool("check", {"summary": summary})
        passed = await client.call_tool(
            "check", {"summary": summary, "snapshot": {"schemaVersion": 1, "items": []}}
        )
    for result in (refused, passed):
        assert result.is_error
        assert result.content[0].text == (  # type: ignore[union-attr]
            "invalid_arguments for check: summary: empty (nothing to check)"
        )
    with Store.open(project) as store:  # the report of the summary written stays the latest
        assert len(store.check_reports.list(limit=10)) == 1
