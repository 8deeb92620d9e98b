"""Hardening (issue 9, item 7): every resource cap holds (docs/limits.md lists them all).

Caps already pinned elsewhere are only referenced in docs/limits.md (bridge frame
cap, in-flight cap, request timeouts, result cap, STATE.md size, transcript
record cap, brief bound, verify timeout kill, evidence digest bound, retention
pruning in the store). This module proves the rest: hook payload and injection
sizes, the prompt delta, the spool line, stored prompt/journal/contract sizes,
guidance size, bridge id length, session id length, the command-analysis caps,
the write lock wait, CLI ranges, and that configured retention reaches every
store opener (hooks and bridge included).
"""

from __future__ import annotations

import io
import json
import shlex
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextward import spool
from contextward.brief.restore import MAX_CHARS as RESTORE_MAX_CHARS
from contextward.brief.restore import plan_restore, render_restore
from contextward.cli import main
from contextward.compaction import MAX_GUIDANCE_CHARS, capture
from contextward.errors import InputError
from contextward.guard.risky import MAX_COMMAND_CHARS, MAX_DEPTH
from contextward.hosts import claude_code
from contextward.hosts.bridge import Bridge
from contextward.hosts.bridge_frame import MAX_ID_CHARS
from contextward.hosts.bridge_ops import default_registry
from contextward.hosts.hookio import MAX_PAYLOAD
from contextward.hosts.hooks import MAX_DELTA, MAX_INJECT, UNREAD
from contextward.inspect import Message
from contextward.store import Store, database_path
from contextward.store.contract import MAX_CONSTRAINT, add_constraint
from contextward.store.database import PRUNE_EVERY
from contextward.store.journal import MAX_TEXT
from contextward.store.prompts import MAX_PROMPT


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    monkeypatch.chdir(root)
    with Store.open(root):
        pass
    return root


def _hook(root: Path, payload: dict[str, Any] | bytes) -> tuple[str, str]:
    data = (
        payload
        if isinstance(payload, bytes)
        else json.dumps({"cwd": str(root), "session_id": "s", **payload}).encode()
    )
    out, err = io.StringIO(), io.StringIO()
    env = {"CONTEXTWARD_HOME": str(root.parent / "home")}
    assert claude_code.run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=env) == 0
    return out.getvalue(), err.getvalue()


def _context(out: str) -> str:
    return str(json.loads(out)["hookSpecificOutput"].get("additionalContext", "")) if out else ""


def test_a_hook_payload_over_the_cap_is_ignored(project: Path) -> None:
    prompt = "a" * MAX_PAYLOAD
    data = json.dumps(
        {"hook_event_name": "UserPromptSubmit", "cwd": str(project), "prompt": prompt}
    ).encode()
    out, err = _hook(project, data)
    assert out == ""
    assert err == f"contextward: hook ignored: payload larger than {MAX_PAYLOAD} bytes\n"
    with Store.open(project) as store:
        assert store.query("SELECT COUNT(*) FROM prompts")[0][0] == 0


ASKED_UNREAD = {
    "hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "ask",
        "permissionDecisionReason": UNREAD,
    }
}


@pytest.mark.parametrize(
    ("fields", "answer"),
    [
        # A shell command too large to read is put to the owner, never let through unread.
        ({"hook_event_name": "PreToolUse", "tool_name": "Bash"}, ASKED_UNREAD),
        # The event read after the command's bytes; a tool the bytes do not name.
        ({"tool_name": "Bash", "hook_event_name": "PreToolUse"}, ASKED_UNREAD),
        ({"hook_event_name": "PreToolUse"}, ASKED_UNREAD),
        # Another tool, another event: nothing to ask.
        ({"hook_event_name": "PreToolUse", "tool_name": "Write"}, None),
        ({"hook_event_name": "PostToolUse", "tool_name": "Bash"}, None),
    ],
)
def test_a_shell_command_in_a_payload_over_the_cap_is_asked_about(
    project: Path, fields: dict[str, str], answer: dict[str, Any] | None
) -> None:
    command = "rm -rf / ; cat <<X\n" + "a" * MAX_PAYLOAD + "\nX"
    # A forged field inside the command's text is escaped JSON and never read as one.
    forged = '"hook_event_name": "PostToolUse", "tool_name": "Write"'
    payload = {"cwd": str(project), "tool_input": {"command": forged + command}}
    keys = list(fields)
    data = {keys[0]: fields[keys[0]], **payload, **fields}
    out, err = _hook(project, json.dumps(data).encode())
    assert (json.loads(out) if out else None) == answer
    verb = "asked" if answer else "ignored"
    assert err == f"contextward: hook {verb}: payload larger than {MAX_PAYLOAD} bytes\n"


def _flood(root: Path) -> None:
    with Store.open(root) as store:
        for n in range(120):
            store.journal.add("decision", f"decision {n}: " + "keep this exactly " * 100)
            store.journal.add("correction", f"correction {n}: " + "not that way " * 100)
            store.journal.add("note", f"agent note {n} " + "z " * 900, provenance="agent")
    for n in range(40):
        add_constraint(root, f"Rule {n}: never do thing {n} " + "w" * 300, layer="project")
    (root / "STATE.md").write_text(
        "# State\n\n## Current\nfocus: "
        + "f" * 150
        + "\n\n## Decisions\n"
        + "".join(f"- [LOCKED] 2026-01-01 choice {n} " + "d" * 400 + "\n" for n in range(300))
        + "\n## Log\n",
        encoding="utf-8",
    )


def test_every_injection_stays_under_the_host_cap(project: Path) -> None:
    _flood(project)
    for source in ("startup", "compact", "resume", "clear"):
        out, err = _hook(project, {"hook_event_name": "SessionStart", "source": source})
        assert err == ""
        assert 0 < len(_context(out)) <= MAX_INJECT


def test_a_prompt_injects_at_most_a_small_delta(project: Path) -> None:
    _hook(project, {"hook_event_name": "SessionStart", "source": "startup"})
    _flood(project)  # everything changed since the brief
    out, _ = _hook(project, {"hook_event_name": "UserPromptSubmit", "prompt": "go on"})
    delta = _context(out)
    assert 0 < len(delta) <= MAX_DELTA
    # Cut at a line's end and said so in contextward's own words (the cap is ours).
    kept, note = delta.rsplit("\n", 1)
    assert note == "(cut to stay short: run `contextward brief` for the rest)"
    assert all(line.strip() for line in kept.splitlines())


def test_precompact_guidance_and_the_restore_block_are_bounded(project: Path) -> None:
    messages = [
        Message(f"u{n}", "user", f"Never change module {n} without asking; " + "must " * 200)
        for n in range(400)
    ]
    with Store.open(project) as store:
        taken = capture(store, messages, session_id="s")
        restore = render_restore(plan_restore(store, session_id="s"))
    assert len(taken.guidance) <= MAX_GUIDANCE_CHARS
    assert len(taken.snapshot.items) > 100  # the snapshot keeps what the guidance could not show
    assert 0 < len(restore) <= RESTORE_MAX_CHARS


def test_the_spool_refuses_a_line_over_its_cap(project: Path) -> None:
    directory = str(project / ".contextward")
    big = {"text": "b" * spool.MAX_LINE, "session_id": "s", "prompt_id": None, "created_at": "x"}
    assert spool.append_prompt(directory, big) is False
    assert spool.append_prompt(directory, {**big, "text": "small"}) is True


def test_stored_texts_are_bounded(project: Path) -> None:
    with Store.open(project) as store:
        prompt = store.prompts.record("p " * (3 * MAX_PROMPT), session_id="s")
        entry = store.journal.add("note", "j " * (3 * MAX_TEXT), provenance="agent")
    assert prompt is not None and len(prompt.text) <= MAX_PROMPT
    assert len(entry.text) <= MAX_TEXT
    # A constraint is refused whole rather than cut: a rule cut short may say less.
    with pytest.raises(InputError, match=f"at most {MAX_CONSTRAINT} characters"):
        add_constraint(
            project, "Never " + "c" * (3 * MAX_CONSTRAINT), layer="project", provenance="agent"
        )
    longest = add_constraint(project, "Never " + "c" * (MAX_CONSTRAINT - 6), provenance="agent")
    assert len(longest.text) == MAX_CONSTRAINT


def test_a_long_session_id_is_cut(project: Path) -> None:
    _hook(
        project, {"hook_event_name": "SessionStart", "source": "startup", "session_id": "s" * 5000}
    )
    with Store.open(project) as store:
        assert [len(r[0]) for r in store.query("SELECT id FROM sessions")] == [200]


def test_a_bridge_request_id_over_the_cap_gets_an_error_frame() -> None:
    out = io.BytesIO()
    frames = [
        {
            "protocol_version": 1,
            "type": "request",
            "request_id": "r" * (MAX_ID_CHARS + 1),
            "operation": "ping",
        },
        {
            "protocol_version": 1,
            "type": "request",
            "request_id": "r" * MAX_ID_CHARS,
            "operation": "ping",
        },
    ]
    Bridge(default_registry(), out, log=io.StringIO()).serve(
        io.BytesIO(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
    )
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [a["type"] for a in answers] == ["error", "result"]
    assert "r" * 50 not in answers[0]["error"]  # never echoed


def _pre_tool(root: Path, command: str) -> dict[str, Any]:
    out, err = _hook(
        root,
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}},
    )
    assert "hook failed" not in err
    return json.loads(out)["hookSpecificOutput"] if out else {}


def test_a_command_padded_past_the_analysis_cap_is_put_to_the_owner(project: Path) -> None:
    """Forced fix: only the first MAX_COMMAND_CHARS were analysed, so padding hid `rm -rf /`."""
    padded = "echo " + "a " * MAX_COMMAND_CHARS + "; rm -rf /"
    assert _pre_tool(project, padded)["permissionDecision"] == "ask"
    assert _pre_tool(project, "echo " + "a " * 1000) == {}  # long but analysed: silent


def test_a_command_past_the_cap_is_asked_about_without_the_loop_brake(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced fix: a command of megabytes was fingerprinted for the brake (3 s per MB), and
    the host's 10 s timeout killed the hook before its ask."""

    consulted: list[str] = []
    monkeypatch.setattr(
        "contextward.guard.loops.decide", lambda _store, command, **_: consulted.append(command)
    )
    huge = "git push --force origin main; echo " + "a " * MAX_COMMAND_CHARS
    reply = _pre_tool(project, huge)
    assert reply["permissionDecision"] == "ask"
    assert "risky command" in reply["permissionDecisionReason"]
    assert consulted == []


def test_a_command_nested_past_the_depth_cap_is_put_to_the_owner(project: Path) -> None:
    """Forced fix: nesting deeper than MAX_DEPTH was skipped and reported as fully analysed."""
    command = "rm -rf /"
    for _ in range(MAX_DEPTH + 2):
        command = "bash -c " + shlex.quote(command)
    assert _pre_tool(project, command)["permissionDecision"] == "ask"
    benign = "echo hi"
    for _ in range(MAX_DEPTH - 1):
        benign = "bash -c " + shlex.quote(benign)
    assert _pre_tool(project, benign) == {}


def test_a_write_waits_for_another_writer_instead_of_failing(project: Path) -> None:
    holder = sqlite3.connect(database_path(project), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
    release.start()
    started = time.monotonic()
    try:
        with Store.open(project) as store:
            store.journal.add("note", "written after the other writer", provenance="agent")
        assert time.monotonic() - started >= 0.3  # it really waited for the lock
    finally:
        release.join()
        holder.close()


@pytest.mark.parametrize(
    "argv",
    [["verify", "--timeout", "0.5", "--", "true"], ["verify", "--timeout", "901", "--", "true"],
     ["recall", "x", "--limit", "21"], ["recall", "x", "--limit", "0"],
     ["journal", "--limit", "201"]],
)  # fmt: skip
def test_cli_ranges_are_refused_with_exit_2(project: Path, argv: list[str]) -> None:
    assert CliRunner().invoke(main, argv).exit_code == 2


def _prefill_prompts(root: Path, rows: int) -> None:
    with Store.open(root) as store, store.write() as conn:
        conn.executemany(
            "INSERT INTO prompts (created_at, session_id, key, text) VALUES ('x', 's', ?, 'old')",
            [(f"k{n}",) for n in range(rows)],
        )


def test_configured_retention_reaches_the_hooks(project: Path) -> None:
    """Forced fix: hooks (and the bridge) opened the store with default retention."""
    (project / ".contextward" / "config.toml").write_text(
        "retention_prompts = 100\n", encoding="utf-8"
    )
    _prefill_prompts(project, 4 * PRUNE_EVERY - 1)
    _hook(
        project, {"hook_event_name": "UserPromptSubmit", "prompt": "the next prompt"}
    )  # seq 4*PRUNE_EVERY
    with Store.open(project) as store:
        assert store.query("SELECT COUNT(*) FROM prompts")[0][0] == 100


def test_configured_retention_reaches_the_bridge(project: Path) -> None:
    (project / ".contextward" / "config.toml").write_text(
        "retention_attempts = 100\n", encoding="utf-8"
    )
    with Store.open(project) as store, store.write() as conn:
        conn.executemany(
            "INSERT INTO attempts (created_at, streak_key, fingerprint, outcome, source)"
            " VALUES ('x', ?, 'f', 'fail', 't')",
            [(f"k{n}",) for n in range(4 * PRUNE_EVERY - 1)],
        )
    out = io.BytesIO()
    frame = {"protocol_version": 1, "type": "request", "request_id": 1, "operation": "command_outcome",
             "command": "make", "exit_code": 1}  # fmt: skip
    Bridge(default_registry(), out, log=io.StringIO()).serve(
        io.BytesIO(json.dumps(frame).encode() + b"\n")
    )
    assert json.loads(out.getvalue())["ok"] is True
    with Store.open(project) as store:
        assert store.query("SELECT COUNT(*) FROM attempts")[0][0] == 100
