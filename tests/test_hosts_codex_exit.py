"""Codex's PostToolUse: the exit code comes from the rollout, and an unknown one is unproven.

Payloads and rollout lines are shaped as Codex 0.171.0 sent and wrote them in the e2e run
(tests/e2e/test_e2e_codex.py): ``tool_response`` is the output string, and the rollout
already holds the command's ``item_completed`` event when the hook runs.
"""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contextward.hosts import codex
from contextward.store import Store

COMMAND = "echo ran >> attempts.txt; exit 1"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def entry(kind: str, payload: dict[str, Any]) -> str:
    row = {"timestamp": "2026-11-30T12:09:31.304Z", "ordinal": 0, "type": kind, "payload": payload}
    return json.dumps(row, separators=(",", ":")) + "\n"


def call(call_id: str, command: str = COMMAND) -> str:
    arguments = json.dumps({"cmd": command})
    return entry(
        "response_item",
        {
            "type": "function_call",
            "name": "exec_command",
            "arguments": arguments,
            "call_id": call_id,
        },
    )


def completed(call_id: str, exit_code: int | None, command: str = COMMAND) -> str:
    item = {
        "type": "CommandExecution",
        "id": call_id,
        "command": ["/bin/bash", "-lc", command],
        "status": "failed" if exit_code else "completed",
        "aggregated_output": "",
        "exit_code": exit_code,
    }
    return entry("event_msg", {"type": "item_completed", "item": item})


def output(call_id: str, code: int) -> str:
    text = (
        f"Chunk ID: bce0fa\nWall time: 0.0000 seconds\nProcess exited with code {code}\nOutput:\n"
    )
    return entry(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": text}
    )


def fire(project: Path, event: str, **fields: Any) -> str:
    payload = {
        "session_id": "019d-session",
        "turn_id": "019d-turn",
        "cwd": str(project),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "bypassPermissions",
        **fields,
    }
    out, err = io.StringIO(), io.StringIO()
    assert codex.run(io.BytesIO(json.dumps(payload).encode()), out, err, env={}) == 0
    assert err.getvalue() == ""
    return out.getvalue()


def post(project: Path, call_id: str, rollout: Path | None, command: str = COMMAND) -> None:
    fire(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": command},
        tool_response="",
        tool_use_id=call_id,
        transcript_path=str(rollout) if rollout else None,
    )


def pre(project: Path, command: str = COMMAND) -> str | None:
    out = fire(project, "PreToolUse", tool_name="Bash", tool_input={"command": command})
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else None


def attempts(project: Path) -> list[tuple[str, int | None]]:
    with Store.open(project) as store:
        rows = store.query("SELECT outcome, exit_code FROM attempts ORDER BY seq")
    return [(row["outcome"], row["exit_code"]) for row in rows]


def test_failures_from_the_rollout_stop_the_third_identical_command(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    text = ""
    for n in (1, 2):
        assert pre(project) is None
        text += call(f"call_{n}") + completed(f"call_{n}", 1)
        rollout.write_text(text)
        post(project, f"call_{n}", rollout)

    assert attempts(project) == [("fail", 1), ("fail", 1)]
    assert pre(project) == "deny"


def test_a_success_in_the_rollout_resets_the_streak(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    rollout.write_text(call("call_1") + completed("call_1", 1))
    post(project, "call_1", rollout)
    with rollout.open("a") as handle:
        handle.write(call("call_2") + completed("call_2", 0) + output("call_1", 1))
    post(project, "call_2", rollout)

    assert attempts(project) == [("fail", 1), ("success", 0)]
    assert pre(project) is None


def test_the_tool_output_line_is_a_second_source(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    rollout.write_text(call("call_1") + output("call_1", 2))
    post(project, "call_1", rollout)

    assert attempts(project) == [("fail", 2)]


def test_an_unknown_exit_code_is_unproven_and_never_resets_a_streak(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    rollout.write_text(call("call_1") + completed("call_1", 1))
    post(project, "call_1", rollout)
    # The rollout holds the call but no outcome yet; then no transcript at all.
    with rollout.open("a") as handle:
        handle.write(call("call_2"))
    post(project, "call_2", rollout)
    post(project, "call_2", rollout)  # the same call reported twice counts once

    assert attempts(project) == [("fail", 1), ("unproven", None)]
    assert pre(project) == "deny"


def test_no_transcript_and_a_missing_one_are_unproven(project: Path) -> None:
    post(project, "call_1", None)
    post(project, "call_2", project / "gone.jsonl")

    assert attempts(project) == [("unproven", None), ("unproven", None)]


def test_an_object_response_with_an_exit_code_needs_no_rollout(project: Path) -> None:
    fire(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "cargo build"},
        tool_use_id="c1",
        tool_response={"exit_code": 101, "stdout": "", "stderr": "error"},
    )
    assert attempts(project) == [("fail", 101)]


def test_rollout_exit_code_reads_only_that_calls_outcome(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    half = completed("call_1", 1)
    torn = half[: half.index('"command"')]
    # Another call's outcome after ours, a torn line being written, and an older
    # outcome of the same id before the call (never read: the call bounds the search).
    rollout.write_text(
        completed("call_1", 9) + call("call_1") + call("call_2") + completed("call_2", 0) + torn
    )
    assert codex.rollout_exit_code(str(rollout), "call_1") is None
    assert codex.rollout_exit_code(str(rollout), "call_2") == 0
    assert codex.rollout_exit_code(None, "call_2") is None


def test_rollout_exit_code_finds_an_outcome_beyond_the_first_window(tmp_path: Path) -> None:
    rollout = tmp_path / "rollout.jsonl"
    big = completed("call_1", 4).replace(
        '"aggregated_output":""', f'"aggregated_output":"{"x" * 70_000}"'
    )
    rollout.write_text(call("call_1") + big + entry("event_msg", {"type": "token_count"}))

    assert codex.rollout_exit_code(str(rollout), "call_1") == 4


KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
PREAMBLE = (
    "Another language model started to solve this problem and produced a summary of its "
    "thinking process. Here is the summary produced by the other language model, use the "
    "information in this summary to assist with your own analysis:\n"
)


def user(text: str) -> str:
    content = [{"type": "input_text", "text": text}]
    meta = {"turn_id": "019d-turn", "content_item_kinds": ["user.text"]}
    return entry(
        "response_item",
        {
            "type": "message",
            "id": "msg_u1",
            "role": "user",
            "content": content,
            "internal_chat_message_metadata_passthrough": meta,
        },
    )


def compaction(summary: str) -> str:
    return entry("compacted", {"message": PREAMBLE + summary, "replacement_history": []})


def restored(project: Path) -> str:
    out = fire(project, "SessionStart", source="compact")
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return str(context).split("## contextward brief", 1)[0]


def test_post_compact_checks_the_summary_written_since_pre_compact(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    rollout.write_text(user(f"We are building the OAuth login. {KEPT} {DROPPED}"))
    assert fire(project, "PreCompact", trigger="auto", transcript_path=str(rollout)) == ""
    with rollout.open("a") as handle:
        handle.write(compaction(f"Goal: build the OAuth login. Constraint: {KEPT}"))
    assert fire(project, "PostCompact", trigger="auto", transcript_path=str(rollout)) == ""

    block = restored(project)
    assert f"(lost) {DROPPED}" in block
    assert KEPT not in block  # the check found it preserved
    # The mark is used once: a second PostCompact (no PreCompact before it) checks nothing.
    fire(project, "PostCompact", trigger="auto", transcript_path=str(rollout))
    with Store.open(project) as store:
        assert store.query("SELECT COUNT(*) AS n FROM check_reports")[0]["n"] == 1


def test_without_a_new_summary_every_critical_item_is_restored(project: Path) -> None:
    rollout = project / "rollout.jsonl"
    # An earlier compaction's summary (it kept everything) sits before PreCompact's mark.
    rollout.write_text(
        user(f"We are building the OAuth login. {KEPT} {DROPPED}") + compaction(f"{KEPT} {DROPPED}")
    )
    fire(project, "PreCompact", trigger="manual", transcript_path=str(rollout))
    fire(project, "PostCompact", trigger="manual", transcript_path=str(rollout))

    block = restored(project)
    assert "could not be checked" in block
    assert KEPT in block and DROPPED in block


def test_runs_whose_exit_no_one_saw_never_start_a_streak(project: Path) -> None:
    """Forced fix: with no transcript, the third `git status` was refused as having "failed
    2 time(s) in a row" though nothing failed."""
    for n in range(3):
        assert pre(project, "git status") is None
        post(project, f"call_{n}", None, command="git status")
    assert pre(project, "git status") is None
    assert attempts(project) == [("unproven", None)] * 3
