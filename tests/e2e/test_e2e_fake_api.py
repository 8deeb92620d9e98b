"""The scripted fake Messages API on its own: its script and its wire format over loopback.

These need no Claude Code install; they pin what the scenarios rely on the fake to do.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from fake_api import (
    HUGE_INPUT_TOKENS,
    SUMMARY_REQUEST,
    TOO_LONG_MESSAGE,
    FakeApi,
    Script,
    _State,
    decide,
    read_log,
)

pytestmark = pytest.mark.e2e
#: Straight to loopback: never through a proxy the environment may name.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def user(*texts: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": t} for t in texts]}


def tool_turn(command: str) -> list[dict[str, Any]]:
    use = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
    return [{"role": "assistant", "content": [use]}, {"role": "user", "content": [result]}]


def test_bash_directive_repeats_the_call_then_answers_text() -> None:
    state, script = _State(), Script()
    messages: list[dict[str, Any]] = [user("BASHx2: false")]
    first = decide({"messages": messages}, script, state)
    assert first.kind == "tool_use" and first.blocks[0]["input"]["command"] == "false"
    messages += tool_turn("false")
    # A mid-conversation system message after the tool result must not hide the prompt.
    messages.append({"role": "system", "content": "reminder"})
    assert decide({"messages": messages}, script, state).kind == "tool_use"
    messages += tool_turn("false")
    assert decide({"messages": messages}, script, state).kind == "text"


def test_directives_inside_hook_context_are_ignored() -> None:
    body = {"messages": [user("<system-reminder>\nctx BASH: rm -rf x\n</system-reminder>", "hi")]}
    assert decide(body, Script(), _State()).kind == "text"


def test_summary_too_long_and_huge_usage_are_scripted() -> None:
    state, script = _State(), Script(summary="SUMMARY_X", input_tokens=7)
    asked = decide({"messages": [user(f"please {SUMMARY_REQUEST} now")]}, script, state)
    assert asked.kind == "summary" and asked.blocks[0]["text"] == "SUMMARY_X"
    body = {"messages": [user("TOO_LONG HUGE_USAGE go")]}
    refused = decide(body, script, state)
    assert (refused.status, refused.error) == (400, TOO_LONG_MESSAGE)
    assert decide(body, script, state).input_tokens == HUGE_INPUT_TOKENS  # after the retry
    assert decide(body, script, state).input_tokens == 7  # each one fires once


def test_server_streams_logs_and_answers_other_paths(tmp_path: Path) -> None:
    api = FakeApi(tmp_path / "log.jsonl", Script()).start()
    base = f"http://127.0.0.1:{api.port}"
    try:
        body = json.dumps({"stream": True, "model": "m", "messages": [user("hi")]}).encode()
        with OPENER.open(urllib.request.Request(f"{base}/v1/messages", body)) as r:
            stream = r.read().decode()
        events = [line[7:] for line in stream.splitlines() if line.startswith("event: ")]
        assert events == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        plain = json.dumps({"messages": [user("hi")]}).encode()
        with OPENER.open(urllib.request.Request(f"{base}/v1/messages", plain)) as r:
            assert json.load(r)["content"][0]["type"] == "text"
        with pytest.raises(urllib.error.HTTPError) as missing:
            OPENER.open(urllib.request.Request(f"{base}/v1/other", b"{}"))
        assert missing.value.code == 404
        with OPENER.open(f"{base}/") as r:
            assert json.load(r) == {}
    finally:
        api.stop()
    kinds = [entry.get("kind") for entry in read_log(tmp_path / "log.jsonl")]
    assert kinds == ["text", "text", "not_found", None]
