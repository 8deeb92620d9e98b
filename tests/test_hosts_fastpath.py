"""The hook fast path: a prompt that changes nothing, answered without loading contextward."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward import minijson
from contextward.hosts.claude_install import ENTRY_SCRIPT
from contextward.spool import SPOOL_NAME
from contextward.store import Store


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def hook(
    project: Path, event: str, *, session: str = "s1", host: str = "claude", **fields: object
) -> str:
    payload = {"session_id": session, "cwd": str(project), "hook_event_name": event, **fields}
    done = subprocess.run(
        [sys.executable, "-S", str(ENTRY_SCRIPT), host],
        input=json.dumps(payload).encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stderr == b""
    return done.stdout.decode()


def spooled(project: Path) -> list[str]:
    path = project / ".contextward" / SPOOL_NAME
    return path.read_text().splitlines() if path.exists() else []


def test_an_unchanged_record_spools_the_prompt_and_says_nothing(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    assert hook(project, "UserPromptSubmit", prompt="please go on", prompt_id="p1") == ""
    assert [json.loads(line)["text"] for line in spooled(project)] == ["please go on"]
    with Store.open(project) as store:  # opening drains the spool into the ledger
        assert [p.text for p in store.prompts.list()] == ["please go on"]
    assert spooled(project) == []


def test_a_spooled_prompt_is_timed_as_the_store_times_rows(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    assert hook(project, "UserPromptSubmit", prompt="please go on", prompt_id="p1") == ""
    with Store.open(project) as store:
        spooled_at = store.prompts.list()[0].created_at
        store.prompts.record("and then this", session_id="s1")
        full_path_at = store.prompts.list()[-1].created_at
    # Milliseconds both: "…:33Z" sorted after "…:33.913Z" of the same second.
    stamp = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
    assert stamp.fullmatch(spooled_at) and stamp.fullmatch(full_path_at)


def test_a_change_to_the_record_takes_the_full_path(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    with Store.open(project) as store:
        store.journal.add("correction", "The API port is 8443, not 8080.")
    out = hook(project, "UserPromptSubmit", prompt="go on", prompt_id="p2")
    assert "The API port is 8443, not 8080." in out
    assert spooled(project) == []  # the full path stored it directly
    assert hook(project, "UserPromptSubmit", prompt="next", prompt_id="p3") == ""
    assert len(spooled(project)) == 1


def test_a_contract_edit_takes_the_full_path(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    contract = project / ".contextward" / "contract.md"
    contract.write_text("# contract\n\n## Owner\n- no-friday: Never deploy on Fridays.\n")
    out = hook(project, "UserPromptSubmit", prompt="go on", prompt_id="p4")
    assert "Never deploy on Fridays." in out


def test_a_prompt_that_may_hold_a_secret_is_masked_by_the_full_path(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    secret = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
    assert hook(project, "UserPromptSubmit", prompt=f"use {secret}", prompt_id="p5") == ""
    assert spooled(project) == []
    with Store.open(project) as store:
        assert [p.text for p in store.prompts.list()] == ["use [secret:openai-key]"]


def test_env_pass_lines_never_reach_the_spool_or_the_store_unmasked(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    said = "Never commit .env; staging uses DB_PASS=Hunter2Staging and REDIS_PASS=Tr0ub4dor99"
    assert hook(project, "UserPromptSubmit", prompt=said, prompt_id="p7") == ""
    assert spooled(project) == []  # may hold a secret: the full path masked and stored it
    hook(
        project,
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="t1",
        tool_input={"command": "pytest -q"},
        tool_response={"stdout": "could not connect with PGPASS=Hunter2Staging", "stderr": ""},
    )
    with Store.open(project) as store:
        assert [p.text for p in store.prompts.list()] == [
            "Never commit .env; staging uses DB_PASS=[secret:assignment] and"
            " REDIS_PASS=[secret:assignment]"
        ]
        assert [run.digest for run in store.evidence.list()] == [
            "could not connect with PGPASS=[secret:assignment]\n"
        ]
    for path in (project / ".contextward").rglob("*"):
        if path.is_file():
            assert b"Hunter2Staging" not in path.read_bytes(), path.name
            assert b"Tr0ub4dor99" not in path.read_bytes(), path.name


def test_without_a_cached_session_the_full_path_answers(project: Path) -> None:
    hook(project, "UserPromptSubmit", prompt="hello", prompt_id="p6")
    assert spooled(project) == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300)
@given(json_values)
def test_minijson_round_trips_like_json(value: object) -> None:
    assert minijson.loads(json.dumps(value)) == value
    assert minijson.loads(json.dumps(value, indent=2)) == value
    assert json.loads(minijson.dumps(value)) == value


@pytest.mark.parametrize(
    "bad", ["", "{", '{"a" 1}', "[1,]", "tru", '"unterminated', "{} x", "[" * 100]
)
def test_minijson_rejects_what_it_cannot_read(bad: str) -> None:
    with pytest.raises(ValueError):
        minijson.loads(bad)


def test_outside_git_a_prompt_from_a_subfolder_reaches_the_host_project_store(
    tmp_path: Path,
) -> None:
    sub = tmp_path / "src"
    sub.mkdir()
    env = {**os.environ, "CLAUDE_PROJECT_DIR": str(tmp_path)}

    def hook_in(cwd: Path, event: str, **fields: object) -> str:
        payload = {"session_id": "s1", "cwd": str(cwd), "hook_event_name": event, **fields}
        done = subprocess.run(
            [sys.executable, "-S", str(ENTRY_SCRIPT), "claude"],
            input=json.dumps(payload).encode(),
            capture_output=True,
            env=env,
            timeout=60,
            check=True,
        )
        return done.stdout.decode()

    hook_in(tmp_path, "SessionStart", source="startup")
    assert hook_in(sub, "UserPromptSubmit", prompt="please go on", prompt_id="p1") == ""
    # The fast path answered for the project's store: the prompt waits in its spool.
    assert [json.loads(line)["text"] for line in spooled(tmp_path)] == ["please go on"]
    assert not (sub / ".contextward").exists()


def test_another_sessions_tool_calls_leave_a_prompt_on_the_fast_path(project: Path) -> None:
    # Session b's test runs, passing and failing (its own open loop), change nothing
    # session s1's prompt would inject: s1's prompts stay spooled, not re-rendered.
    hook(project, "SessionStart", source="startup")
    hook(project, "UserPromptSubmit", prompt="warm up", prompt_id="p0")
    hook(project, "SessionStart", session="b", source="startup")
    for n in range(3):
        hook(
            project,
            "PostToolUse" if n == 0 else "PostToolUseFailure",
            session="b",
            tool_name="Bash",
            tool_use_id=f"b{n}",
            tool_input={"command": "pytest -q"},
            tool_response={"stdout": "1 passed", "stderr": ""},
            error="Exit code 1",
        )
        assert hook(project, "UserPromptSubmit", prompt=f"next {n}", prompt_id=f"p{n + 1}") == ""
        # Spooled: the fast path answered (b's next hook stores it, draining the spool).
        assert [json.loads(line)["text"] for line in spooled(project)] == [f"next {n}"]
    with Store.open(project) as store:
        assert [run.exit_code for run in store.evidence.list()] == [1, 1, 0]
        assert [p.text for p in store.prompts.list(session_id="s1")][:3] == [
            "next 2",
            "next 1",
            "next 0",
        ]


def test_a_change_a_sessions_prompt_would_show_still_takes_the_full_path(project: Path) -> None:
    hook(project, "SessionStart", source="startup")
    hook(project, "UserPromptSubmit", prompt="warm up", prompt_id="p0")
    # Its own failing runs: an open loop of its own, shown on its next prompt.
    for n in range(3):
        hook(
            project,
            "PostToolUseFailure",
            tool_name="Bash",
            tool_use_id=f"t{n}",
            tool_input={"command": "make lint"},
            error="Exit code 2",
        )
    out = hook(project, "UserPromptSubmit", prompt="go on", prompt_id="p1")
    assert "make lint" in out and "open loops" in out
    assert spooled(project) == []
    assert hook(project, "UserPromptSubmit", prompt="next", prompt_id="p2") == ""
    # Another session's journal entry reaches every session's brief.
    with Store.open(project) as store:
        store.journal.add("correction", "The API port is 8443, not 8080.", session_id="b")
    out = hook(project, "UserPromptSubmit", prompt="and now", prompt_id="p3")
    assert "The API port is 8443, not 8080." in out


def test_a_hook_cache_of_the_version_before_is_not_trusted(project: Path) -> None:
    # Version 1 watched no session generation: it would miss the session's own loops.
    hook(project, "SessionStart", source="startup")
    cache = project / ".contextward" / "hook-cache" / "s1.json"
    body = json.loads(cache.read_text())
    cache.write_text(json.dumps({**body, "schema_version": 1}))
    hook(project, "UserPromptSubmit", prompt="please go on", prompt_id="p1")
    assert spooled(project) == []  # the full path answered, and stored it itself


def test_gemini_brings_the_restore_block_on_the_first_prompt_after_a_compression(
    project: Path,
) -> None:
    hook(project, "SessionStart", host="gemini", source="startup")
    said = "Never push to main; the API port is 8443."
    hook(project, "BeforeAgent", host="gemini", prompt=said, timestamp="1")
    hook(project, "BeforeAgent", host="gemini", prompt="go on", timestamp="2")
    hook(project, "PreCompress", host="gemini", trigger="auto")
    out = hook(project, "BeforeAgent", host="gemini", prompt="continue please", timestamp="3")
    assert "contextward restore" in out and said in out
