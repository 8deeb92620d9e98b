"""Several host sessions on one project at once: what one session compacted, lost,
checkpointed or said reaches the sessions it belongs to, and no other.

Through the real entry points: Claude Code's hooks in process, the CLI through click's
runner, the MCP server through the SDK's client."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from contextward.cli import main
from contextward.hosts.claude_install import ENTRY_SCRIPT
from contextward.hosts.mcp import build_server
from contextward.store import Store
from hook_helpers import fire

RULE = "Never touch the payments schema."
GOAL = "I want you to add the B-only export feature in export_b.py."


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setenv("CONTEXTWARD_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "personal"))
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def hook(project: Path, session: str, event: str, **fields: Any) -> str:
    """Fire a Claude Code hook for ``session``: the text it injects ("" for none)."""
    code, out, err = fire(project, event, session_id=session, **fields)
    assert (code, err) == (0, "")
    if not out.startswith("{"):
        return out
    return str(json.loads(out)["hookSpecificOutput"].get("additionalContext", ""))


def transcript(path: Path, *said: str) -> str:
    rows = [
        {
            "type": "user",
            "uuid": f"u{n}",
            "parentUuid": f"u{n - 1}" if n else None,
            "message": {"role": "user", "content": text},
        }
        for n, text in enumerate(said)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


def compact(project: Path, session: str, summary: str, *said: str) -> None:
    """``session`` compacts a conversation of ``said``; the summary is ``summary``."""
    path = transcript(project / f"{session}.jsonl", *said)
    hook(project, session, "PreCompact", trigger="auto", transcript_path=path)
    hook(project, session, "PostCompact", trigger="auto", compact_summary=summary)


def test_what_a_compaction_lost_is_restored_into_its_own_session_only(project: Path) -> None:
    """A walkthrough of parallel sessions: B's compaction lost B's rule and goal, and
    session A, which never heard of either, was told at its next prompt that they were
    "still in force", as was a brand-new session and the MCP server's."""
    hook(project, "A", "SessionStart", source="startup")
    hook(project, "A", "UserPromptSubmit", prompt="Refactor the logging module in A.")
    hook(project, "B", "SessionStart", source="startup")
    compact(project, "B", "We talked about exports.", f"{RULE} {GOAL}")
    # B itself gets them back, first thing after its compaction.
    mine = hook(project, "B", "SessionStart", source="compact")
    assert RULE in mine.split("\n\n")[0] and GOAL in mine.split("\n\n")[0]
    # A is running beside B: nothing of B's compaction.
    assert hook(project, "A", "UserPromptSubmit", prompt="Continue with the logging.") == ""
    # Neither is a session starting while B runs: B's losses are B's.
    new = hook(project, "E", "SessionStart", source="startup")
    assert "still in force" not in new and RULE not in new
    # The command line names whose compaction its lines come from.
    cli = CliRunner().invoke(main, ["brief"])
    assert "still in force (session B's last summary lost them):" in cli.output
    assert f"- [constraint] {RULE}" in cli.output


@pytest.mark.anyio
async def test_an_mcp_session_is_not_briefed_with_another_sessions_losses(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook(project, "B", "SessionStart", source="startup")
    compact(project, "B", "We talked about exports.", f"{RULE} {GOAL}")
    monkeypatch.setenv("CONTEXTWARD_SESSION_ID", "editor-1")
    async with Client(build_server()) as client:
        brief = (await client.call_tool("brief", {})).structured_content
        restore = (await client.call_tool("restore", {})).structured_content
    assert brief is not None and restore is not None
    assert RULE not in brief["result"] and "still in force" not in brief["result"]
    assert restore["result"] == "nothing to restore"


def test_a_new_session_gets_what_an_ended_sessions_compaction_lost(project: Path) -> None:
    """The documented behaviour for a session that starts after the last one ended."""
    hook(project, "A", "SessionStart", source="startup")
    hook(project, "B", "SessionStart", source="startup")
    compact(project, "B", "We talked about exports.", f"{RULE} {GOAL}")
    hook(project, "B", "SessionEnd", reason="other")
    new = hook(project, "F", "SessionStart", source="startup")
    assert "still in force (the last summary of an earlier session lost them):" in new
    assert f"- [constraint] {RULE}" in new
    # A ran beside B: resumed after B ended, it still gets nothing of B's.
    resumed = hook(project, "A", "SessionStart", source="resume")
    assert RULE not in resumed and GOAL not in resumed


def test_a_session_after_its_own_compaction_is_not_shown_a_concurrent_ones_work(
    project: Path,
) -> None:
    """C compacted, then A (running beside it) did: C, after its own compaction, was
    shown A's goal as "last session's work"."""
    theirs = "Goal: migrate the billing service to Stripe webhooks in billing/webhooks.py."
    mine = "Goal: fix the flaky date parser in utils/dates.py."
    for session in ("A", "C"):
        hook(project, session, "SessionStart", source="startup")
    path = transcript(project / "C.jsonl", mine)
    hook(project, "C", "PreCompact", trigger="auto", transcript_path=path)
    compact(project, "A", theirs, theirs)
    hook(project, "C", "PostCompact", trigger="auto", compact_summary=mine)
    after = hook(project, "C", "SessionStart", source="compact")
    assert "last session's work" not in after and "Stripe" not in after
    # A session started after both compacted learns the last one's work (A's), the
    # documented fallback while no session has ended.
    new = hook(project, "N", "SessionStart", source="startup")
    assert f"- [goal] {theirs}" in new.split("contract:")[0]
    # Once C ended, a new session is shown C's work: an ended session's comes first.
    hook(project, "C", "SessionEnd", reason="other")
    later = hook(project, "M", "SessionStart", source="startup")
    assert f"- [goal] {mine}" in later.split("contract:")[0] and "Stripe" not in later


@pytest.mark.anyio
async def test_mcp_check_of_a_session_without_a_snapshot_says_whose_is_missing(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other sessions' snapshots are there: "no snapshot stored yet" sent the agent to
    look for one that exists. The id is said as the store keeps it, never a secret."""
    hook(project, "B", "SessionStart", source="startup")
    compact(project, "B", "We talked about exports.", f"{RULE} {GOAL}")
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz123456"
    said = {}
    for session in ("editor-1", secret):
        monkeypatch.setenv("CONTEXTWARD_SESSION_ID", session)
        async with Client(build_server()) as client:
            result = await client.call_tool("check", {"summary": "We talked."})
        assert result.is_error
        said[session] = result.content[0].text  # type: ignore[union-attr]
    assert said["editor-1"] == (
        "not_found for check: no snapshot of this session (CONTEXTWARD_SESSION_ID=editor-1)"
        " yet; call snapshot first or pass one"
    )
    assert secret not in said[secret] and "CONTEXTWARD_SESSION_ID=masked-" in said[secret]
    # A snapshot taken under a secret-holding id is stored under the same masked id.
    async with Client(build_server()) as client:
        await client.call_tool("snapshot", {"messages": [{"role": "user", "content": RULE}]})
        checked = await client.call_tool("check", {"summary": "We talked."})
    assert not checked.is_error
    stored = b"".join(p.read_bytes() for p in (project / ".contextward").glob("contextward.db*"))
    assert secret.encode() not in stored


def _snapshots(project: Path) -> list[int]:
    with Store.open(project) as store:
        return [record.seq for record in store.snapshots.list()]


def test_a_pre_compact_fired_again_stores_one_snapshot(project: Path) -> None:
    """Claude Code fires PreCompact two to four times per /compact: one compaction, one
    snapshot, and the guidance the same each time."""
    path = transcript(project / "D.jsonl", "Never push to main. Use pnpm, not npm.")
    hook(project, "D", "SessionStart", source="startup")
    said = [
        hook(project, "D", "PreCompact", trigger="manual", transcript_path=path) for _ in range(3)
    ]
    assert said[0] == said[1] == said[2] and "Use pnpm, not npm." in said[0]
    assert _snapshots(project) == [1]
    # The restore does not say the rule replaced itself.
    hook(project, "D", "PostCompact", trigger="manual", compact_summary="We set up the repo.")
    restore = hook(project, "D", "SessionStart", source="compact").split("\n\n")[0]
    assert "- [decision] (lost) Use pnpm, not npm.\n" in restore + "\n"
    # Another compaction that has something new to keep is a snapshot of its own.
    path = transcript(project / "D.jsonl", "We set up the repo.", "Also keep the API stable.")
    hook(project, "D", "PreCompact", trigger="auto", transcript_path=path)
    assert _snapshots(project) == [2, 1]


def test_pre_compact_fired_at_once_by_three_processes_stores_one_snapshot(
    project: Path,
) -> None:
    path = transcript(project / "D.jsonl", "Never push to main. Use pnpm, not npm.")
    hook(project, "D", "SessionStart", source="startup")
    payload = json.dumps(
        {
            "session_id": "D",
            "cwd": str(project),
            "hook_event_name": "PreCompact",
            "trigger": "manual",
            "transcript_path": path,
        }
    ).encode()
    fired = [
        subprocess.Popen(
            [sys.executable, "-S", str(ENTRY_SCRIPT), "claude"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    done = [process.communicate(payload, timeout=120) for process in fired]
    assert [process.returncode for process in fired] == [0, 0, 0]
    assert all(b"Never push to main." in out for out, _ in done)
    assert len(_snapshots(project)) == 1


def _auto_logged(project: Path) -> int:
    return (project / "STATE.md").read_text().count("without a checkpoint")


def test_a_checkpoint_cancels_the_automatic_log_entry_of_its_own_session_only(
    project: Path,
) -> None:
    """B's checkpoint (its shell ran ``contextward checkpoint``) left A, running beside
    it, ending without one and without its automatic Log entry."""
    for session in ("A", "B"):
        hook(project, session, "SessionStart", source="startup")
    time.sleep(1.1)  # a checkpoint in a session's first second is taken for an earlier one
    ran = "contextward checkpoint --focus 'export'"
    assert CliRunner().invoke(main, ["checkpoint", "--focus", "export"]).exit_code == 0
    tool = {"tool_name": "Bash", "tool_input": {"command": ran}, "tool_use_id": "t1"}
    hook(project, "B", "PostToolUse", tool_response={"stdout": "checkpoint written"}, **tool)
    hook(project, "B", "SessionEnd", reason="other")
    assert _auto_logged(project) == 0  # B checkpointed
    hook(project, "A", "SessionEnd", reason="other")
    assert _auto_logged(project) == 1  # A did not


@pytest.mark.anyio
async def test_an_mcp_sessions_checkpoint_is_its_own(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hook(project, "A", "SessionStart", source="startup")
    time.sleep(1.1)
    monkeypatch.setenv("CONTEXTWARD_SESSION_ID", "mcp-editor")
    async with Client(build_server()) as client:
        assert not (await client.call_tool("checkpoint", {"focus": "editor"})).is_error
    hook(project, "A", "SessionEnd", reason="other")
    assert _auto_logged(project) == 1
    # A checkpoint no session is named for may be the session's own: it still counts.
    hook(project, "C", "SessionStart", source="startup")
    time.sleep(1.1)
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID")
    assert CliRunner().invoke(main, ["checkpoint", "--focus", "owner"]).exit_code == 0
    hook(project, "C", "SessionEnd", reason="other")
    assert _auto_logged(project) == 1


def test_a_checkpoint_from_the_command_line_is_the_named_sessions(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for session in ("A", "B"):
        hook(project, session, "SessionStart", source="startup")
    time.sleep(1.1)
    monkeypatch.setenv("CONTEXTWARD_SESSION_ID", "B")
    assert CliRunner().invoke(main, ["checkpoint", "--next", "ship"]).exit_code == 0
    hook(project, "A", "SessionEnd", reason="other")
    hook(project, "B", "SessionEnd", reason="other")
    assert _auto_logged(project) == 1


def test_an_owner_rule_reaches_new_sessions_however_busy_the_parallel_ones_are(
    project: Path,
) -> None:
    """The standing rules were read among the project's last 200 prompts: three sessions
    in parallel sending 200 between them, and a rule said in a fourth no longer reached a
    new session."""
    rule = "Never push directly to main; always open a PR."
    lifted = "Never run the migrations on staging."
    hook(project, "A", "SessionStart", source="startup")
    with Store.open(project) as store:
        store.prompts.record(rule, session_id="A")
        store.prompts.record(lifted, session_id="A")
        store.prompts.record("Go on with the date parser.", session_id="A")
        store.prompts.record("Running the migrations on staging is fine now.", session_id="A")
        for n in range(240):
            store.prompts.record(
                f"Continue with step {n} of the parser work.", session_id="BCD"[n % 3]
            )
    new = hook(project, "E", "SessionStart", source="startup")
    assert f"- constraint (earlier session): {rule}" in new
    # What the owner lifted since stays lifted, however far back.
    assert "migrations" not in new


def test_the_report_shows_the_last_compaction_of_each_session(project: Path) -> None:
    """It showed the project's single latest compaction: with sessions in parallel, what
    the others' summaries lost was nowhere in it."""
    hook(project, "A", "SessionStart", source="startup")
    compact(project, "A", "We set up the repo.", "Never push to main.", "Use pnpm, not npm.")
    hook(project, "B", "SessionStart", source="startup")
    compact(project, "B", "We talked about exports.", f"{RULE} {GOAL}")
    hook(project, "C", "SessionStart", source="startup")
    path = transcript(project / "C.jsonl", "Goal: fix the date parser.")
    hook(project, "C", "PreCompact", trigger="auto", transcript_path=path)
    text = CliRunner().invoke(main, ["report"]).output
    assert text.splitlines()[4:7] == [
        "last compaction (session C): snapshot #3: 1 items, not checked; 1 restored",
        "other sessions' last compactions:",
        "  session B: snapshot #2: 0 preserved, 0 changed, 2 lost, 0 unknown; 2 restored",
    ]
    assert text.splitlines()[7].startswith("  session A: snapshot #1: ")
    page = CliRunner().invoke(main, ["report", "--html", "-"]).output
    assert "Other sessions&#x27; last compactions" in page and "<td>B</td>" in page
