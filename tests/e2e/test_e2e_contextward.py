"""contextward's Claude Code hooks driven by the real CLI, installed exactly as a user would.

Each scenario runs ``contextward install claude --project`` (from this checkout's venv)
in a fresh project, then drives ``claude -p`` against the scripted fake API and asserts on
what the model was sent, on the transcript, and on the project's store. Every scenario
also checks that every hook exited 0 without a traceback and that each injected text
stays under 9,500 characters.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from harness import (
    INJECTED_LIMIT,
    VENV_BIN,
    HookRun,
    Outcome,
    Scenario,
    clean_env,
    compaction_instructions,
    hook_output_text,
    injected,
    tool_results,
)

pytestmark = pytest.mark.e2e

FOCUS = "Ship the OAuth login flow (E2E_FOCUS_MARKER)"
DECISION = "Use PKCE for every OAuth client (E2E_DECISION_MARKER)"
KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
OWNER_PROMPT = f"We are building the OAuth login. {KEPT} {DROPPED}"
#: The fake's summary keeps one constraint verbatim and drops the other on purpose.
SUMMARY = (
    "<analysis>the owner set two constraints</analysis>\n<summary>\n"
    "1. Primary Request and Intent: build the OAuth login.\n"
    f"2. Constraints: {KEPT}\n"
    "3. Current Work: shell checks.\n</summary>"
)
#: Boilerplate of Claude Code's post-compaction message (not the owner's words).
CONTINUATION = "read the full transcript at"
AUTO_WINDOW = {"CLAUDE_CODE_AUTO_COMPACT_WINDOW": "200000"}


def contextward(s: Scenario, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**clean_env(s.home), **s.env}
    done = subprocess.run(
        [str(VENV_BIN / "contextward"), *args],
        cwd=s.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"contextward {args[0]} failed: {done.stderr.strip()}"
    return done


def guarded(make: Callable[..., Scenario], **fake: object) -> Scenario:
    """A scenario with contextward installed into the project as a user would."""
    s = make(**fake)
    s.env["CONTEXTWARD_HOME"] = str(s.folder / "contextward-home")
    contextward(s, "install", "claude", "--project")
    settings = json.loads((s.project / ".claude" / "settings.json").read_text("utf-8"))
    assert "SessionStart" in settings["hooks"] and "PreCompact" in settings["hooks"]
    return s


def assert_hooks_healthy(outcome: Outcome) -> list[HookRun]:
    """Every hook exited 0 with no traceback; every injected text is under the limit."""
    runs = outcome.hook_runs()
    assert runs, "no hook ran"
    bad = [(r.step, r.name, r.exit_code, r.stderr[-300:]) for r in runs if r.exit_code != 0]
    assert not bad, f"hooks that did not exit 0: {bad}"
    assert not [r.name for r in runs if "Traceback" in r.stderr]
    assert "Traceback (most recent call last)" not in outcome.debug_text()
    too_long = [(r.name, len(hook_output_text(r.stdout))) for r in runs]
    assert all(size < INJECTED_LIMIT for _, size in too_long), too_long
    for compaction in outcome.compactions():
        assert len(compaction_instructions(compaction)) < INJECTED_LIMIT
    for step in outcome.steps:
        assert step["rc"] == 0, step["stderr"][-500:]
        assert step["result"] is not None and step["result"]["is_error"] is False
    return runs


def outputs(runs: list[HookRun], name: str, step: int | None = None) -> list[str]:
    """The injected text of each run of the hook called ``name`` (e.g. SessionStart:compact)."""
    return [
        hook_output_text(r.stdout)
        for r in runs
        if r.name == name and (step is None or r.step == step)
    ]


def store_rows(s: Scenario, table: str) -> list[dict[str, Any]]:
    path = s.project / ".contextward" / "contextward.db"
    assert path.exists(), "the project store was never created"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")]


def assert_restored_after(
    outcome: Outcome, runs: list[HookRun], compaction: dict[str, Any]
) -> None:
    """Guidance went into the summariser's prompt, and after it only the dropped item came back."""
    guidance = compaction_instructions(compaction)
    assert DROPPED in guidance and KEPT in guidance, guidance[:500]
    following = outcome.after(compaction)
    restored = [t for t in injected(following) if DROPPED in t]
    assert restored, "the dropped constraint was not re-injected after compaction"
    compact_outputs = outputs(runs, "SessionStart:compact")
    assert any(DROPPED in text for text in compact_outputs), compact_outputs
    # Claude Code's own continuation text is not an owner constraint to restore.
    assert not any(CONTINUATION in text for text in compact_outputs), compact_outputs
    kept = [text for text in compact_outputs if KEPT in text]
    assert not kept, f"a kept item was re-injected: {kept[0][:200]!r}" if kept else ""


def test_brief_reaches_the_model_at_start_and_is_not_resent(
    scenario: Callable[..., Scenario],
) -> None:
    s = guarded(scenario)
    contextward(s, "checkpoint", "--focus", FOCUS)
    contextward(s, "decide", DECISION)
    s.prompt("say hello").prompt("say hello again")
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    first = outcome.step_requests(0)[0]
    sent = "\n".join(injected(first))
    assert "E2E_FOCUS_MARKER" in sent, "the state block did not reach the model"
    assert "E2E_DECISION_MARKER" in sent, "the brief carries no decision text"
    # The next prompt gets a small delta at most, never the whole brief again.
    for text in outputs(runs, "UserPromptSubmit"):
        assert "E2E_DECISION_MARKER" not in text
    later = "\n".join(injected(outcome.step_requests(1)[0]))
    assert later.count("E2E_DECISION_MARKER") <= 2  # the replayed brief, at most one refresh


def test_loop_brake_stops_the_third_identical_failure_and_risky_command_asks(
    scenario: Callable[..., Scenario],
) -> None:
    s = guarded(scenario)
    (s.project / "README.md").write_text("uncommitted work\n", encoding="utf-8")
    s.prompt("BASHx3: echo ran >> attempts.txt; exit 1", tools=True)
    s.prompt("BASH: git reset --hard", tools=True)
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    # Ran twice, failed twice; the third identical call was refused before it ran.
    assert (s.project / "attempts.txt").read_text().splitlines() == ["ran", "ran"]
    third = tool_results(outcome.step_requests(0)[-1])[-1]
    assert third["is_error"] is True
    pre = [r for r in runs if r.name == "PreToolUse:Bash" and r.step == 0]
    assert len(pre) == 3
    assert pre[0].stdout.strip() == "" and pre[1].stdout.strip() == ""  # benign: silent
    decision = json.loads(pre[2].stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny" and decision["permissionDecisionReason"]

    # The risky command asked (print mode has nobody to answer, so it did not run).
    asked = [r for r in runs if r.name == "PreToolUse:Bash" and r.step == 1]
    assert json.loads(asked[0].stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert (s.project / "README.md").read_text() == "uncommitted work\n"


def test_manual_compact_guides_checks_and_restores_only_what_was_dropped(
    scenario: Callable[..., Scenario],
) -> None:
    s = guarded(scenario, summary=SUMMARY)
    s.prompt(OWNER_PROMPT).prompt("BASH: echo working", tools=True)
    s.prompt("/compact").prompt("what is next?")
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    (compaction,) = outcome.compactions()
    assert_restored_after(outcome, runs, compaction)
    assert outcome.after(compaction)["n"] in {r["n"] for r in outcome.step_requests(3)}
    # PostCompact checked the real summary against the snapshot and stored the report.
    snapshots = [json.loads(r["data"]) for r in store_rows(s, "snapshots")]
    assert snapshots, "PreCompact stored no snapshot"
    ids = {i["content"]: i["id"] for i in snapshots[-1]["items"]}
    assert DROPPED in ids and KEPT in ids, sorted(ids)
    reports = [json.loads(r["data"]) for r in store_rows(s, "check_reports")]
    assert reports, "no check report was stored"
    report = reports[-1].get("report", reports[-1])
    assert report["ok"] is False
    assert ids[DROPPED] in report["lost"] and ids[KEPT] in report["preserved"], report


def test_a_second_compaction_guards_the_dropped_rule_and_forgets_the_replaced_decision(
    scenario: Callable[..., Scenario],
) -> None:
    stale = "Use SQLite for the job queue."
    s = guarded(scenario, summary=SUMMARY)  # each summary drops DROPPED and the decision
    s.prompt(f"{OWNER_PROMPT} {stale}").prompt("BASH: echo working", tools=True)
    s.prompt("/compact")
    s.prompt("Actually, use Postgres for the job queue instead of SQLite.")
    s.prompt("BASH: echo again", tools=True).prompt("/compact").prompt("what is next?")
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    _, second = outcome.compactions()
    guidance = compaction_instructions(second)
    # The rule the first summary dropped is carried into the second snapshot and guided...
    assert DROPPED in guidance, guidance[:500]
    # ...while the decision the owner replaced between the two is neither guided nor kept.
    assert stale not in guidance
    snapshots = [json.loads(r["data"]) for r in store_rows(s, "snapshots")]
    assert len(snapshots) == 2
    assert stale in {i["content"] for i in snapshots[0]["items"]}
    assert stale not in {i["content"] for i in snapshots[1]["items"]}
    after_second = outputs(runs, "SessionStart:compact")[-1]
    assert DROPPED in after_second and stale not in after_second


def test_automatic_compaction_both_routes_guides_and_restores(
    scenario: Callable[..., Scenario],
) -> None:
    s = guarded(scenario, summary=SUMMARY)
    s.prompt(OWNER_PROMPT)
    s.prompt("HUGE_USAGE BASH: echo one", tools=True, env=AUTO_WINDOW)  # threshold route
    s.prompt("TOO_LONG then go on")  # reactive route
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    threshold, reactive = outcome.compactions()
    assert threshold["n"] in {r["n"] for r in outcome.step_requests(1)}
    assert reactive["n"] in {r["n"] for r in outcome.step_requests(2)}
    for compaction in (threshold, reactive):
        assert_restored_after(outcome, runs, compaction)
    assert len(store_rows(s, "check_reports")) >= 2


def test_continue_and_resume_carry_state_and_session_end_auto_logs(
    scenario: Callable[..., Scenario],
) -> None:
    s = guarded(scenario)
    contextward(s, "checkpoint", "--focus", FOCUS)
    s.prompt("say hello").prompt("BASH: echo carried", tools=True)
    s.prompt("where were we?", resume=True)
    outcome = s.run()
    runs = assert_hooks_healthy(outcome)

    ids = {step["result"]["session_id"] for step in outcome.steps}
    assert ids == {outcome.data["session_id"]}
    resumed = outputs(runs, "SessionStart:resume", step=2)
    assert any("E2E_FOCUS_MARKER" in text for text in resumed), resumed
    sessions = [row["id"] for row in store_rows(s, "sessions")]
    assert sessions == [outcome.data["session_id"]]
    # No checkpoint while the session ran: SessionEnd wrote the automatic Log entry.
    state = (s.project / "STATE.md").read_text(encoding="utf-8")
    log = state.split("## Log", 1)[1] if "## Log" in state else ""
    assert "[auto]" in log.lower(), state[-600:]
