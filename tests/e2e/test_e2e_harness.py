"""The harness proven with the real Claude Code CLI and a tiny recording hook of its own.

These tests pin the facts every contextward scenario builds on: the namespace has no way
out, hook output reaches the model's next request, compaction (manual and both automatic
routes) runs with our PreCompact text in the summariser's prompt, and the real payloads
(PostCompact's ``compact_summary``, SubagentStop's ``last_assistant_message``) carry the
fake's summary. If Claude Code changes any of this, these fail before the product's do.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from capture_hook import PRECOMPACT_MARKER, PROMPT_MARKER, SESSION_MARKER
from harness import (
    CAPTURE_HOOK,
    Scenario,
    compaction_instructions,
    hook_settings,
    injected,
    prompt_of,
    tool_results,
)

pytestmark = pytest.mark.e2e

ALL_EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "SubagentStop",
    "PostCompact",
    "Stop",
    "SessionEnd",
)
SUMMARY = (
    "<analysis>harness analysis</analysis>\n<summary>\n1. Primary Request and Intent: "
    "small shell tasks. HARNESS_SUMMARY_MARKER.\n</summary>"
)


def captured(s: Scenario) -> tuple[Path, list[dict[str, Any]]]:
    log = s.folder / "hooks.jsonl"
    command = f"/usr/bin/python3 -S {CAPTURE_HOOK} {log}"
    s.settings(hook_settings(command, ALL_EVENTS))
    return log, []


def payloads(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line)["payload"] for line in log.read_text("utf-8").splitlines()]


def names(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for p in events:
        extra = p.get("source") or p.get("trigger") or ""
        out.append(f"{p['hook_event_name']}({extra})" if extra else p["hook_event_name"])
    return out


def test_hook_output_reaches_the_api_and_manual_compaction_is_observable(
    scenario: Callable[..., Scenario],
) -> None:
    s = scenario(summary=SUMMARY)
    log, _ = captured(s)
    s.prompt("say hello").prompt("BASH: echo hi", tools=True).prompt("/compact")
    s.prompt("after the compaction")
    outcome = s.run()

    assert "errno 101" in outcome.isolation  # ENETUNREACH, at once
    for step in outcome.steps:
        assert step["rc"] == 0, step["stderr"]
        assert step["result"] is not None and step["result"]["is_error"] is False
    assert all(r.exit_code == 0 for r in outcome.hook_runs()), outcome.hook_runs()

    first = outcome.step_requests(0)[0]
    assert prompt_of(first) == "say hello"
    assert f"{SESSION_MARKER} (source=startup)" in injected(first)
    assert f"{PROMPT_MARKER} (source=-)" in injected(first)

    events = payloads(log)
    assert names(events)[:4] == ["SessionStart(startup)", "UserPromptSubmit", "Stop", "SessionEnd"]
    pre = next(p for p in events if p["hook_event_name"] == "PreToolUse")
    post = next(p for p in events if p["hook_event_name"] == "PostToolUse")
    assert pre["tool_input"]["command"] == "echo hi"
    assert post["tool_response"]["stdout"] == "hi"
    assert post["tool_use_id"] == pre["tool_use_id"]

    # Manual compaction: the real order, our PreCompact text in the summariser's prompt,
    # and the fake's summary in both payloads that carry it.
    order = names(events)
    start = order.index("PreCompact(manual)")
    assert order[start : start + 4] == [
        "PreCompact(manual)",
        "SubagentStop",
        "SessionStart(compact)",
        "PostCompact(manual)",
    ]
    (compaction,) = outcome.compactions()
    assert PRECOMPACT_MARKER in compaction_instructions(compaction)
    by_name = {p["hook_event_name"]: p for p in events}
    assert "HARNESS_SUMMARY_MARKER" in by_name["PostCompact"]["compact_summary"]
    assert "HARNESS_SUMMARY_MARKER" in by_name["SubagentStop"]["last_assistant_message"]
    assert by_name["PreCompact"]["custom_instructions"] in (None, "")

    # The first request after compaction: the summary, then SessionStart(compact) context.
    following = outcome.after(compaction)
    assert prompt_of(following) == "after the compaction"
    assert f"{SESSION_MARKER} (source=compact)" in injected(following)
    body = json.dumps(following["body"])
    assert "This session is being continued" in body and "HARNESS_SUMMARY_MARKER" in body

    transcript = outcome.transcript()
    boundaries = [e for e in transcript if e.get("subtype") == "compact_boundary"]
    assert [b["compactMetadata"]["trigger"] for b in boundaries] == ["manual"]
    assert any(e.get("isCompactSummary") for e in transcript)


def test_tool_failures_denials_and_asks_are_observable(
    scenario: Callable[..., Scenario],
) -> None:
    s = scenario()
    log, _ = captured(s)
    s.prompt("BASHx3: echo ran >> ran.txt; exit 1", tools=True)
    s.prompt("BASH: echo HARNESS_DENY >> denied.txt", tools=True)
    s.prompt("BASH: echo HARNESS_ASK >> asked.txt", tools=True)
    outcome = s.run()

    for step in outcome.steps:
        assert step["rc"] == 0, step["stderr"]
    events = payloads(log)
    failures = [p for p in events if p["hook_event_name"] == "PostToolUseFailure"]
    # A failing command fires PostToolUseFailure (never PostToolUse), once per run.
    assert len(failures) == 3
    assert not [p for p in events if p["hook_event_name"] == "PostToolUse"]
    assert (s.project / "ran.txt").read_text().splitlines() == ["ran"] * 3

    # deny: the command never runs and the model sees the reason as an error result.
    assert not (s.project / "denied.txt").exists()
    denied = tool_results(outcome.step_requests(1)[-1])[-1]
    assert denied["is_error"] is True and "harness deny" in json.dumps(denied)
    # ask in print mode: nobody can answer, so the command does not run either.
    assert not (s.project / "asked.txt").exists()
    asked = tool_results(outcome.step_requests(2)[-1])[-1]
    assert asked["is_error"] is True


def test_both_automatic_compaction_routes_run_precompact_and_restore(
    scenario: Callable[..., Scenario],
) -> None:
    s = scenario(summary=SUMMARY)
    log, _ = captured(s)
    window = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}
    s.prompt("say hello")
    s.prompt("HUGE_USAGE BASH: echo one", tools=True, env=window)  # threshold route
    s.prompt("TOO_LONG then answer")  # reactive route: one 400 "prompt is too long"
    outcome = s.run()

    for step in outcome.steps:
        assert step["rc"] == 0, step["stderr"]
        assert step["result"]["is_error"] is False
    assert all(r.exit_code == 0 for r in outcome.hook_runs()), outcome.hook_runs()
    events = payloads(log)
    triggers = [p["trigger"] for p in events if p["hook_event_name"] == "PreCompact"]
    assert triggers == ["auto", "auto"]
    threshold, reactive = outcome.compactions()
    assert threshold["n"] in {r["n"] for r in outcome.step_requests(1)}
    assert reactive["n"] in {r["n"] for r in outcome.step_requests(2)}
    assert [r["kind"] for r in outcome.step_requests(2)][:2] == ["too_long", "summary"]
    for compaction in (threshold, reactive):
        assert PRECOMPACT_MARKER in compaction_instructions(compaction)
        assert f"{SESSION_MARKER} (source=compact)" in injected(outcome.after(compaction))
    summaries = [p["compact_summary"] for p in events if p["hook_event_name"] == "PostCompact"]
    assert len(summaries) == 2 and all("HARNESS_SUMMARY_MARKER" in x for x in summaries)
