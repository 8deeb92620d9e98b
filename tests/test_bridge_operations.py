"""The bridge's library operations through a real ``contextward bridge --stdio`` subprocess:
inspection and guidance (rules and provider mode), the loop brake, the brief, the state
block and the session lifecycle."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contextward.hosts.bridge_ops import default_registry
from contextward.inspect.guidance import TITLES
from test_bridge_harness import BridgeProcess, request

SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
MESSAGES = [
    {"id": "u1", "role": "user", "content": "Goal: ship OAuth login. Never change the public API."},
    {"id": "a1", "role": "assistant", "content": "We chose PostgreSQL as the final database."},
    {"id": "u2", "role": "user", "content": f"Use the key {SECRET} for staging."},
    {"id": "t1", "role": "tool", "tool_name": "bash", "content": "src/a.py:1: OAuth"},
]


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[BridgeProcess]:
    process = BridgeProcess(tmp_path)
    yield process
    process.kill()


def ok(answer: dict[str, Any]) -> Any:
    assert answer["type"] == "result", answer
    assert answer["ok"] is True, answer
    return answer["result"]


def test_every_operation_of_the_issue_is_registered() -> None:
    assert default_registry().names() == [
        "brief",
        "check_summary",
        "command_outcome",
        "guidance",
        "inspect",
        "loop_check",
        "ping",
        "record_event",
        "record_prompt",
        "restore",
        "snapshot",
        "state_block",
        "version",
    ]


def test_inspect_follows_the_inspect_json_contract_and_masks(bridge: BridgeProcess) -> None:
    result = ok(bridge.call(request("i", "inspect", messages=MESSAGES)))
    assert result["schema_version"] == 1 and result["mode"] == "rules"
    assert result["messages"] == 4
    contents = [c["content"] for c in result["candidates"]]
    assert "Never change the public API." in contents
    assert SECRET not in json.dumps(result)
    assert isinstance(result["inspection_id"], str)
    assert sum(result["counts"].values()) == len(result["candidates"])


def test_guidance_reuses_the_reviewed_inspection(bridge: BridgeProcess) -> None:
    inspected = ok(bridge.call(request("i", "inspect", messages=MESSAGES)))
    first = inspected["candidates"][0]
    guidance = ok(
        bridge.call(
            request(
                "g",
                "guidance",
                inspection_id=inspected["inspection_id"],
                decisions=[{"candidate_id": first["id"], "action": "drop"}],
            )
        )
    )
    assert guidance["text"].startswith("contextward guidance")
    assert TITLES["must_preserve"] in guidance["text"]
    assert first["id"] not in {c["id"] for c in guidance["must_preserve"]}
    assert guidance["reviewed"] is True
    assert SECRET not in guidance["text"]


def test_guidance_from_messages_and_bad_arguments(bridge: BridgeProcess) -> None:
    guidance = ok(bridge.call(request("g", "guidance", messages=MESSAGES)))
    assert "Never change the public API." in guidance["text"]
    # Nothing was left to review, so nothing awaits a review that did not happen.
    assert guidance["counts"]["review"] == 0 and guidance["reviewed"] is True
    for fields, code in (
        ({}, "invalid_request"),
        ({"messages": "not a list"}, "invalid_request"),
        ({"inspection_id": "nope"}, "invalid_request"),
        (
            {"messages": MESSAGES, "decisions": [{"candidate_id": "x", "action": "keep"}]},
            "unknown_candidate",
        ),
        ({"transcript_path": "/no/such/transcript.jsonl"}, "invalid_request"),
    ):
        answer = bridge.call(request("bad", "guidance", **fields))
        assert (answer["ok"], answer["code"]) == (False, code), fields


def test_inspect_reads_a_host_transcript_where_it_is(bridge: BridgeProcess, tmp_path: Path) -> None:
    transcript = tmp_path / "elsewhere" / "t.json"
    transcript.parent.mkdir()
    transcript.write_text(json.dumps(MESSAGES))
    result = ok(bridge.call(request("i", "inspect", transcript_path=str(transcript))))
    assert result["messages"] == 4


def test_a_transcript_path_that_is_no_regular_file_is_refused_at_once(
    bridge: BridgeProcess, tmp_path: Path
) -> None:
    # "/dev/zero" was read without end (10 GB in 14 s) and a FIFO waited for a writer,
    # each holding a worker until its timeout; neither is read now.
    fifo = tmp_path / "t.fifo"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo), str(tmp_path)):
        answer = bridge.call(request("bad", "inspect", transcript_path=path))
        assert (answer["ok"], answer["code"]) == (False, "invalid_request"), path
        assert "transcript cannot be read" in answer["error"]
    assert bridge.call(request("p", "ping"))["ok"]


def test_a_transcript_is_read_in_pieces_and_its_inspection_id_is_its_content(
    bridge: BridgeProcess, tmp_path: Path
) -> None:
    # The same transcript (inline or on disk) keeps its id; another one gets another.
    on_disk = tmp_path / "t.json"
    on_disk.write_text(json.dumps(MESSAGES, ensure_ascii=False))
    first = ok(bridge.call(request("a", "inspect", transcript_path=str(on_disk))))
    again = ok(bridge.call(request("b", "inspect", transcript_path=str(on_disk))))
    assert first["inspection_id"] == again["inspection_id"]
    on_disk.write_text(json.dumps(MESSAGES[:2], ensure_ascii=False))
    other = ok(bridge.call(request("c", "inspect", transcript_path=str(on_disk))))
    assert other["inspection_id"] != first["inspection_id"] and other["messages"] == 2
    inline = ok(bridge.call(request("d", "inspect", messages=MESSAGES)))
    assert inline["inspection_id"] != first["inspection_id"]  # another source, another id


def test_provider_mode_asks_the_hosts_model_and_validates_its_answer(
    bridge: BridgeProcess,
) -> None:
    bridge.send(request("i", "inspect", messages=MESSAGES, provider=True))
    asked = bridge.recv()
    assert asked["type"] == "provider_request" and asked["parent_request_id"] == "i"
    assert asked["task"] == "complete"
    assert set(asked["input"]) == {"system", "prompt"}
    assert "[a1] assistant: We chose PostgreSQL" in asked["input"]["prompt"]
    assert SECRET not in asked["input"]["prompt"]  # the host's model never sees a secret
    answer = {
        "candidates": [
            {"kind": "decision", "content": "We chose PostgreSQL", "source": "a1"},
            {"kind": "goal", "content": "an invented fact", "source": "u1"},
        ]
    }
    bridge.send(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            "ok": True,
            "data": {"text": "```json\n" + json.dumps(answer) + "\n```"},
        }
    )
    result = ok(bridge.recv())
    assert result["mode"] == "provider"
    contents = [c["content"] for c in result["candidates"]]
    # The proposal names the rules' candidate that holds it: no second copy.
    chosen = [c for c in result["candidates"] if "We chose PostgreSQL" in c["content"]]
    assert [(c["kind"], c["action"]) for c in chosen] == [("decision", "keep")]
    assert "an invented fact" not in contents


def test_provider_mode_falls_back_to_rules_when_the_host_is_silent(
    bridge: BridgeProcess,
) -> None:
    bridge.send(request("i", "inspect", messages=MESSAGES, provider=True, provider_timeout_ms=50))
    assert bridge.recv()["type"] == "provider_request"
    result = ok(bridge.recv())
    assert result["mode"] == "rules"
    # Why, in contextward's own words: the timeout, not the exception's type.
    assert result["fallback_reason"] == "no provider_response within 0.05 s"


def test_provider_mode_falls_back_when_the_model_answers_prose(bridge: BridgeProcess) -> None:
    bridge.send(request("i", "inspect", messages=MESSAGES, provider=True))
    asked = bridge.recv()
    bridge.send(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            "ok": True,
            "data": {"text": "I cannot help with that."},
        }
    )
    result = ok(bridge.recv())
    assert result["mode"] == "rules"
    assert "JSON" in result["fallback_reason"]  # the reason, not "provider raised …"


def test_loop_brake_blocks_the_third_identical_failure(bridge: BridgeProcess) -> None:
    assert ok(bridge.call(request("c0", "loop_check", command="npm test")))["action"] == "allow"
    for n in range(2):
        outcome = ok(
            bridge.call(request(f"o{n}", "command_outcome", command="npm test", exit_code=1))
        )
        assert outcome == {"recorded": True, "outcome": "fail"}
    blocked = ok(bridge.call(request("c1", "loop_check", command="npm  test || true")))
    assert blocked["action"] == "block"
    assert blocked["prior_failures"] == 2 and blocked["threshold"] == 3
    assert "npm test" in blocked["reason"]
    assert ok(bridge.call(request("c2", "loop_check", command="pytest -q")))["action"] == "allow"
    bad = bridge.call(request("c3", "command_outcome", command="x", exit_code="1"))
    assert bad["code"] == "invalid_request"


def test_brief_and_state_block(bridge: BridgeProcess) -> None:
    brief = ok(bridge.call(request("b", "brief", session_id="s1")))
    assert brief["changed"] is True and brief["text"].startswith("## contextward brief")
    again = ok(bridge.call(request("b2", "brief", session_id="s1", digest=brief["digest"])))
    assert again == {"text": "", "digest": brief["digest"], "changed": False}
    state = ok(bridge.call(request("s", "state_block", session_id="s1")))
    assert state["text"].startswith("## Project state")


def test_session_lifecycle_events(bridge: BridgeProcess, tmp_path: Path) -> None:
    start = request("e1", "record_event", event="session_start", session_id="s1", host="pi")
    assert ok(bridge.call(start)) == {"recorded": True}
    tool = request("e2", "record_event", event="tool_call", session_id="s1", key="call-1")
    assert ok(bridge.call(tool)) == {"recorded": True}
    assert ok(bridge.call({**tool, "request_id": "e3"})) == {"recorded": False}
    idle = ok(bridge.call(request("e4", "record_event", event="session_idle", session_id="s1")))
    assert idle["recorded"] is True and isinstance(idle["logged"], bool)
    for fields in ({"event": "nope", "session_id": "s1"}, {"event": "session_end"}):
        assert bridge.call(request("bad", "record_event", **fields))["code"] == "invalid_request"
    assert (tmp_path / ".contextward").is_dir()


def test_provider_notes_count_what_the_answer_refused_and_passed_by() -> None:
    from contextward.inspect import InspectionResult

    passed = InspectionResult((), 2, "provider", provider_passed=3)
    assert passed.provider_notes() == {"provider_passed": 3}
    both = InspectionResult((), 2, "provider", provider_rejected=1, provider_passed=2)
    assert both.provider_notes() == {"provider_rejected": 1, "provider_passed": 2}
    assert InspectionResult((), 2, "provider").provider_notes() == {}


def test_loop_check_refuses_a_risky_command_once_per_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced fix: pi and OpenCode let `rm -rf /` through (the bridge only braked loops)."""
    from contextward.hosts.bridge_library import loop_check

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    ask = {"command": "rm -rf /", "session_id": "p1"}
    first = loop_check(ask, None)  # type: ignore[arg-type]
    assert first["action"] == "block" and "risky command" in first["reason"]
    assert "Ask the owner first" in first["reason"]
    assert loop_check(ask, None)["action"] == "allow"  # type: ignore[arg-type]
    assert loop_check({"command": "ls", "session_id": "p1"}, None)["action"] == "allow"  # type: ignore[arg-type]


def test_malformed_fields_are_named_not_read_as_nothing(bridge: BridgeProcess) -> None:
    """walk13 #10: an unknown role or a message without content gave empty guidance, a
    numeric digest and a decisions object were taken, and provider_timeout_ms was checked
    only in provider mode."""
    for operation, fields, named in (
        ("guidance", {"messages": [{"role": "wizard", "content": "x"}]}, "messages[0]"),
        ("guidance", {"messages": [*MESSAGES, {"role": "user"}]}, "messages[4]"),
        ("snapshot", {"messages": ["hi"]}, "messages[0]"),
        ("guidance", {"messages": MESSAGES, "decisions": {"a": 1}}, "decisions"),
        ("guidance", {"messages": MESSAGES, "provider_timeout_ms": -1}, "provider_timeout_ms"),
        ("inspect", {"messages": MESSAGES, "provider_timeout_ms": "x"}, "provider_timeout_ms"),
        ("brief", {"digest": 5}, "digest"),
        ("record_event", {"event": "session_start", "session_id": "s", "host": "h" * 5000}, "host"),
    ):
        answer = bridge.call(request("bad", operation, **fields))
        assert (answer["ok"], answer["code"]) == (False, "invalid_request"), (operation, fields)
        assert named in answer["error"]
    # OpenAI's assistant message with tool calls and no content is still a message.
    calls = [{"id": "c1", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]
    openai = [*MESSAGES, {"role": "assistant", "content": None, "tool_calls": calls}]
    assert ok(bridge.call(request("g", "guidance", messages=openai)))["text"]


def test_loop_check_asks_a_host_that_can_ask(bridge: BridgeProcess) -> None:
    """walk13 #7: pi can ask its owner (ctx.ui.confirm); the agent repeating a command is
    no owner's consent."""
    asked = ok(bridge.call(request("c", "loop_check", command="rm -rf /", can_ask=True)))
    assert asked["action"] == "ask" and "risky command" in asked["reason"]
    assert "run the same command again" not in asked["reason"]
    # Asked every time: the owner's earlier yes is no standing permission.
    again = ok(bridge.call(request("c2", "loop_check", command="rm -rf /", can_ask=True)))
    assert again["action"] == "ask"
    plain = ok(bridge.call(request("c3", "loop_check", command="ls", can_ask=True)))
    assert plain["action"] == "allow"
    bad = bridge.call(request("c4", "loop_check", command="ls", can_ask="yes"))
    assert bad["code"] == "invalid_request"


@pytest.mark.parametrize("can_ask", [False, True])
def test_loop_check_still_guards_risky_commands_when_the_store_is_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, can_ask: bool
) -> None:
    """walk13 #6: with a damaged store loop_check answered store_damaged and the shims
    failed open, letting `rm -rf /` through. The risky check needs no store."""
    from contextward.hosts.bridge_library import command_outcome, loop_check

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    command_outcome({"command": "ls", "exit_code": 0}, None)  # type: ignore[arg-type]
    database = tmp_path / ".contextward" / "contextward.db"
    assert database.is_file()
    with database.open("r+b") as raw:
        raw.write(b"this is no SQLite database at all")
    ask = {"command": "rm -rf /", "session_id": "p1", "can_ask": can_ask}
    for _ in range(2):  # never let through on a second try: nothing remembers the first
        verdict = loop_check(ask, None)  # type: ignore[arg-type]
        assert verdict["action"] == ("ask" if can_ask else "block")
        assert "risky command" in verdict["reason"]
    # A benign command still needs the brake, which needs the store: the error stands.
    with pytest.raises(Exception) as failed:
        loop_check({"command": "ls", "session_id": "p1"}, None)  # type: ignore[arg-type]
    assert getattr(failed.value, "code", "") == "store_damaged"


def test_record_prompt_feeds_the_next_sessions_owner_said(bridge: BridgeProcess) -> None:
    """walk13 #2: pi and OpenCode recorded no owner prompt, so a new session's brief had
    no "owner said" of earlier sessions (Claude Code's UserPromptSubmit records them)."""
    rule = "Never push directly to main."
    said = request("p", "record_prompt", text=f"{rule} Use the key {SECRET}.", session_id="s1")
    assert ok(bridge.call(said)) == {"recorded": True}
    # The same prompt again (the host fired twice): recorded once.
    assert ok(bridge.call({**said, "request_id": "p2"})) == {"recorded": False}
    blank = request("p3", "record_prompt", text="  \n", session_id="s1")
    assert ok(bridge.call(blank)) == {"recorded": False}
    by_id = request("p4", "record_prompt", text="ok", session_id="s1", prompt_id="msg_1")
    assert ok(bridge.call(by_id)) == {"recorded": True}
    assert ok(bridge.call({**by_id, "request_id": "p5", "text": "ok!"})) == {"recorded": False}
    brief = ok(bridge.call(request("b", "brief", session_id="s2")))["text"]
    assert "owner said" in brief and rule in brief and "(earlier session)" in brief
    assert SECRET not in brief
    for fields in (
        {"text": 5, "session_id": "s1"},
        {"text": "x"},
        {"text": "x", "session_id": "s1", "prompt_id": 7},
    ):
        answer = bridge.call(request("bad", "record_prompt", **fields))
        assert (answer["ok"], answer["code"]) == (False, "invalid_request"), fields


def test_the_bridge_records_the_calls_a_hook_spooled_before_it_reads(tmp_path: Path) -> None:
    # A Claude Code session's hook spooled two failures while the store was busy: an
    # OpenCode or pi session's loop brake, through the bridge, counts them, as a hook would.
    from contextward import spool
    from contextward.hosts import toolcall
    from contextward.store import Store, store_dir

    with Store.open(tmp_path):
        pass
    for n in range(2):
        call = toolcall.observe(
            session_id="s", host="claude", root=tmp_path, tool_name="Bash",
            tool_use_id=f"t{n}", tool_input={"command": "make lint"}, failed=True,
            error="Exit code 2",
        )  # fmt: skip
        assert toolcall.spool_call(tmp_path, call)
    bridge = BridgeProcess(tmp_path)
    try:
        checked = ok(bridge.call(request("c", "loop_check", command="make lint", session_id="s")))
    finally:
        bridge.kill()
    assert checked["action"] == "block" and checked["prior_failures"] == 2
    assert (store_dir(tmp_path) / spool.TOOL_SPOOL_NAME).read_text() == ""
