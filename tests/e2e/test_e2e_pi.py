"""contextward's pi extension driven by the real pi coding agent, offline.

pi (``@mariozechner/pi-coding-agent``, pinned at the version integrations/package-lock.json
types the extension against) runs in RPC mode inside the loopback-only namespace, with a
custom provider (``~/.pi/agent/models.json``, ``api: openai-completions``) whose base URL is
the fake of tests/e2e/fake_openai.py. The extension is loaded exactly as docs/hosts/pi.md
tells a user: ``pi -e <checkout>/integrations/pi/src/index.ts``, with ``contextward`` on
PATH. Each test asserts on what the fake received and on the project's files.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import (
    FAKE_BASE_URL,
    REPO,
    HostOutcome,
    HostScenario,
    host_binary,
    request_text,
)

pytestmark = pytest.mark.e2e

PI_PACKAGE = "@mariozechner/pi-coding-agent"
#: The version integrations/package-lock.json locks (the extension's types come from it).
PI_VERSION = "0.73.1"
EXTENSION = REPO / "integrations" / "pi" / "src" / "index.ts"
MODEL = "fake/fake-model"
BRIEF = "## contextward brief"
GUIDANCE = "Additional focus: contextward guidance for the compaction summary"

KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
OWNER_PROMPT = f"We are building the OAuth login. {KEPT} {DROPPED}"
#: pi's own summary format; the fake keeps one constraint and drops the other on purpose.
SUMMARY = (
    "## Goal\nBuild the OAuth login.\n\n## Constraints & Preferences\n"
    f"- {KEPT}\n\n## Progress\n### Done\n- [x] shell checks\n"
)
AFTER_COMPACTION = "The conversation history before this point was compacted"
#: The restore block opens the extension's message after a compaction; the brief follows.
RESTORE = "contextward restore:"


@pytest.fixture(scope="module")
def pi_bin() -> Path:
    return host_binary(PI_PACKAGE, PI_VERSION, "pi")


@pytest.fixture
def pi(tmp_path: Path, pi_bin: Path) -> Callable[..., PiRun]:
    count = 0

    def make(**fake: object) -> PiRun:
        nonlocal count
        count += 1
        # pi puts an extension's message after the owner's prompt; the fake must still
        # read the owner's prompt when that message opens with the restore block.
        fake.setdefault("skip_prefixes", ["## contextward", RESTORE])
        return PiRun(HostScenario(tmp_path / f"s{count}", fake=dict(fake)), pi_bin)

    return make


class PiRun:
    """One pi RPC session with the contextward extension, as a user would run it."""

    def __init__(self, scenario: HostScenario, binary: Path) -> None:
        self.s = scenario
        self.binary = binary
        self.commands: list[dict[str, Any]] = []
        scenario.env.update({"PI_OFFLINE": "1", "PI_SKIP_VERSION_CHECK": "1", "PI_TELEMETRY": "0"})
        provider = {
            "baseUrl": FAKE_BASE_URL,
            "api": "openai-completions",
            "apiKey": "sk-fake-e2e",
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": "fake-model", "contextWindow": 200_000, "maxTokens": 8_000}],
        }
        scenario.write("home/.pi/agent/models.json", {"providers": {"fake": provider}})
        # Keep almost nothing verbatim, so a compaction summarises the owner's prompt.
        scenario.write("project/.pi/settings.json", {"compaction": {"keepRecentTokens": 1}})

    def prompt(self, text: str) -> PiRun:
        self.commands.append({"type": "prompt", "message": text})
        return self

    def compact(self) -> PiRun:
        self.commands.append({"type": "compact"})
        return self

    def wait(self, event: str) -> PiRun:
        self.commands.append({"type": "wait", "event": event})
        return self

    def run(self) -> HostOutcome:
        argv = [str(self.binary), "--mode", "rpc", "--model", MODEL, "-e", str(EXTENSION)]
        outcome = self.s.rpc(argv, self.commands).run()
        assert outcome.isolation.startswith("connect 1.1.1.1:443 -> errno 101")
        (step,) = outcome.steps
        assert step["rc"] == 0, step["stderr"][-1500:]
        assert "Traceback" not in step["stderr"]
        assert "contextward:" not in step["stderr"], step["stderr"][-1500:]  # nothing skipped
        failed = [e for e in step["events"] if e.get("type") == "response" and not e["success"]]
        assert not failed, failed
        return outcome


def events(outcome: HostOutcome, kind: str) -> list[dict[str, Any]]:
    return [e for e in outcome.steps[0]["events"] if e.get("type") == kind]


def injected(request: dict[str, Any]) -> list[str]:
    """The extension's messages in a request: the brief, or the restore block then the brief."""
    return [t for t in user_texts(request) if t.startswith((BRIEF, RESTORE))]


def user_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["body"].get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            texts.append(content)
        else:
            texts.append("\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict)))
    return texts


def store_rows(s: HostScenario, table: str) -> list[dict[str, Any]]:
    path = s.project / ".contextward" / "contextward.db"
    assert path.exists(), "the project store was never created"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")]


def test_extension_loads_brief_reaches_the_model_once_and_session_end_logs(
    pi: Callable[..., PiRun],
) -> None:
    run = pi()
    outcome = run.prompt("say hello").prompt("say hello again").run()

    first, second = outcome.answered("say hello")[0], outcome.answered("say hello again")[0]
    briefs = [t for t in user_texts(first) if t.startswith(BRIEF)]
    assert len(briefs) == 1, "the brief did not reach the model's first request"
    assert "09-no-retry-loops" in briefs[0]
    # The next prompt gets no second copy: the brief is due once per session.
    assert sum(t.startswith(BRIEF) for t in user_texts(second)) == 1
    # The extension recorded the session (host pi) and, at shutdown, the automatic Log entry.
    sessions = store_rows(run.s, "sessions")
    assert len(sessions) == 1 and "pi" in json.dumps(sessions[0]), sessions
    # The owner's prompts are recorded (pi's input event), for later sessions' briefs.
    prompts = store_rows(run.s, "prompts")
    assert [p["text"] for p in prompts] == ["say hello", "say hello again"], prompts
    state = (run.s.project / "STATE.md").read_text(encoding="utf-8")
    log = state.split("## Log", 1)[1] if "## Log" in state else ""
    assert "[auto]" in log.lower(), state[-600:]


def test_loop_brake_blocks_the_third_identical_failing_bash_command(
    pi: Callable[..., PiRun],
) -> None:
    run = pi()
    outcome = run.prompt("BASHx3: echo ran >> attempts.txt; exit 1").run()

    # Ran twice, failed twice; the third identical call was blocked before it ran.
    assert (run.s.project / "attempts.txt").read_text().splitlines() == ["ran", "ran"]
    ends = events(outcome, "tool_execution_end")
    assert [e["toolName"] for e in ends] == ["bash", "bash", "bash"]
    assert all(e["isError"] for e in ends)
    refusal = ends[2]["result"]["content"][0]["text"]
    assert "failed 2 time(s) in a row" in refusal, refusal
    # The model saw the refusal as the third call's tool result.
    last = outcome.answered("BASHx3")[-1]
    tool_messages = [m for m in last["body"]["messages"] if m.get("role") == "tool"]
    assert len(tool_messages) == 3 and "failed 2 time(s)" in str(tool_messages[2]["content"])


def assert_guided(outcome: HostOutcome) -> dict[str, Any]:
    """The compaction request carries contextward's guidance with both constraints."""
    guided = [r for r in outcome.summaries() if GUIDANCE in request_text(r)]
    assert guided, "no compaction request carried contextward's guidance"
    guidance = request_text(guided[0]).split(GUIDANCE, 1)[1]
    must = guidance.split("Can discard", 1)[0]
    assert KEPT in must and DROPPED in must, guidance[:800]
    return guided[0]


def test_manual_compaction_is_guided_and_the_brief_follows(pi: Callable[..., PiRun]) -> None:
    run = pi(summary=SUMMARY)
    run.prompt(OWNER_PROMPT).prompt("BASH: echo working").compact().prompt("what is next?")
    outcome = run.run()

    compaction = assert_guided(outcome)
    (end,) = events(outcome, "compaction_end")
    assert end["reason"] == "manual" and KEPT in end["result"]["summary"]
    following = outcome.after(compaction)
    texts = user_texts(following)
    assert any(t.startswith(AFTER_COMPACTION) for t in texts), "pi did not use the summary"
    assert any(BRIEF in t for t in injected(following)), "the brief was not re-sent"


def test_after_manual_compaction_what_the_summary_dropped_comes_back(
    pi: Callable[..., PiRun],
) -> None:
    run = pi(summary=SUMMARY)
    run.prompt(OWNER_PROMPT).prompt("BASH: echo working").compact().prompt("what is next?")
    outcome = run.run()

    following = outcome.after(assert_guided(outcome))
    ours = injected(following)
    assert any(DROPPED in t for t in ours), "the dropped constraint did not come back"
    assert not any(KEPT in t for t in ours), "a kept constraint was re-injected"
    (message,) = [t for t in ours if t.startswith(RESTORE)]
    assert "(lost)" in message and BRIEF in message
    # The check was stored against the snapshot the guidance came from.
    (report,) = store_rows(run.s, "check_reports")
    (snapshot,) = store_rows(run.s, "snapshots")
    assert json.loads(report["data"])["snapshot_seq"] == snapshot["seq"], report


def test_automatic_compaction_is_guided(pi: Callable[..., PiRun]) -> None:
    run = pi(summary=SUMMARY)
    run.prompt(OWNER_PROMPT).prompt("HUGE_USAGE BASH: echo one").wait("compaction_end")
    outcome = run.prompt("what is next?").run()

    (end,) = events(outcome, "compaction_end")
    assert end["reason"] == "threshold", end
    compaction = assert_guided(outcome)
    following = outcome.after(compaction)
    assert any(t.startswith(AFTER_COMPACTION) for t in user_texts(following))
    assert any(BRIEF in t for t in injected(following))
    assert any(DROPPED in t for t in injected(following)), "the dropped constraint is missing"


def test_overflow_compaction_is_guided_and_the_prompt_is_retried(
    pi: Callable[..., PiRun],
) -> None:
    run = pi(summary=SUMMARY)
    run.prompt(OWNER_PROMPT).prompt("TOO_LONG then go on")
    outcome = run.wait("compaction_end").wait("agent_end").prompt("what is next?").run()

    (end,) = events(outcome, "compaction_end")
    assert end["reason"] == "overflow" and end["willRetry"] is True, end
    compaction = assert_guided(outcome)
    retried = outcome.after(compaction)
    assert retried["prompt"] == "TOO_LONG then go on" and retried["kind"] == "text"
    assert any(t.startswith(AFTER_COMPACTION) for t in user_texts(retried))
    # pi retries with agent.continue(), which fires no before_agent_start: the brief
    # that is due after the compaction comes with the next prompt, but the restore
    # block is added to the retried request's context (not persisted).
    assert not any(t.startswith(BRIEF) for t in user_texts(retried))
    assert any(t.startswith(RESTORE) and DROPPED in t for t in user_texts(retried))
    following = outcome.answered("what is next?")[0]
    assert any(BRIEF in t and DROPPED in t for t in injected(following))
