"""contextward's OpenCode plugin driven by the real OpenCode CLI, offline.

OpenCode (``opencode-ai``, pinned at the version the plugin's types come from; its native
binary is the registry package ``opencode-linux-x64``, which the postinstall only links)
runs ``opencode run`` steps inside the loopback-only namespace. A custom provider in the
project's ``opencode.json`` (``@ai-sdk/openai-compatible``, bundled in the binary) points
``baseURL`` at the fake of tests/e2e/fake_openai.py. The plugin is installed as
docs/hosts/opencode.md tells a user: one line in ``.opencode/plugins/contextward.ts``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import FAKE_BASE_URL, REPO, HostOutcome, HostScenario, host_binary, request_text

pytestmark = pytest.mark.e2e

OPENCODE_PACKAGE = "opencode-ai"
#: The version of @opencode-ai/plugin in integrations/package-lock.json.
OPENCODE_VERSION = "1.18.33"
PLUGIN = REPO / "integrations" / "opencode" / "src" / "index.ts"
STATE_BLOCK = "## Project state (contextward)"
GUIDANCE = "contextward guidance for the compaction summary"

KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
OWNER_PROMPT = f"We are building the OAuth login. {KEPT} {DROPPED}"
SUMMARY = f"## Objective\n- Build the OAuth login.\n\n## Important Details\n- {KEPT}\n"
#: OpenCode's own compaction prompt (1.18.33) and the message that follows a compaction.
SUMMARY_MARKER = "Create a new anchored summary"
OFFLINE_ENV = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
    "OPENCODE_DISABLE_SHARE": "1",
}
RESTORE = "contextward restore:"


@pytest.fixture(scope="module")
def opencode_bin() -> Path:
    return host_binary(OPENCODE_PACKAGE, OPENCODE_VERSION, "opencode")


@pytest.fixture
def opencode(tmp_path: Path, opencode_bin: Path) -> Callable[..., OpenCodeRun]:
    count = 0

    def make(**fake: object) -> OpenCodeRun:
        nonlocal count
        count += 1
        fake.setdefault("summary_markers", [SUMMARY_MARKER])
        return OpenCodeRun(HostScenario(tmp_path / f"s{count}", fake=dict(fake)), opencode_bin)

    return make


class OpenCodeRun:
    """``opencode run`` steps with the contextward plugin, as a user would install it."""

    def __init__(self, scenario: HostScenario, binary: Path) -> None:
        self.s = scenario
        self.binary = binary
        self.expected: list[int] = []
        scenario.env.update(OFFLINE_ENV)
        provider = {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Fake",
            "options": {"baseURL": FAKE_BASE_URL, "apiKey": "sk-fake-e2e"},
            # A small window, so a reported 190,000 input tokens overflows it.
            "models": {
                "fake-model": {"name": "Fake", "limit": {"context": 100_000, "output": 8_000}}
            },
        }
        config = {"autoupdate": False, "share": "disabled", "model": "fake/fake-model"}
        scenario.write("project/opencode.json", {**config, "provider": {"fake": provider}})
        scenario.write(
            "project/.opencode/plugins/contextward.ts",
            f'export {{ ContextwardPlugin }} from "{PLUGIN}"\n',
        )
        # OpenCode installs @opencode-ai/plugin into each config folder from the npm
        # registry in the background; offline that only waits out its retries (about 70 s).
        # A lock that already lists it makes OpenCode skip the install. The plugin
        # imports only types from that package, so nothing is missing at run time.
        lock = {"packages": {"": {"dependencies": {"@opencode-ai/plugin": OPENCODE_VERSION}}}}
        for folder in ("project/.opencode", "home/.config/opencode"):
            (scenario.folder / folder / "node_modules").mkdir(parents=True, exist_ok=True)
            scenario.write(f"{folder}/package-lock.json", lock)

    def prompt(self, text: str, *, rc: int = 0) -> OpenCodeRun:
        """One ``opencode run`` step; ``rc`` is the exit code it must end with."""
        self.expected.append(rc)
        more = ["--continue"] if self.s.steps else []
        argv = [str(self.binary), "run", *more, "--print-logs", "--format", "json", text]
        self.s.command(argv, timeout=90)
        return self

    def run(self) -> HostOutcome:
        outcome = self.s.run()
        assert outcome.isolation.startswith("connect 1.1.1.1:443 -> errno 101")
        for step, rc in zip(outcome.steps, self.expected, strict=True):
            assert step["rc"] == rc, step["stderr"][-1500:]
            assert "Traceback" not in step["stderr"]
        return outcome


def main_requests(outcome: HostOutcome) -> list[dict[str, Any]]:
    """The agent's own requests (not the title or summary side requests)."""
    return [
        r for r in outcome.model_requests() if r["kind"] != "summary" and r["body"].get("tools")
    ]


def tool_events(outcome: HostOutcome) -> list[dict[str, Any]]:
    found = []
    for step in outcome.steps:
        for line in step["stdout"].splitlines():
            if line.startswith("{"):
                event = json.loads(line)
                if event.get("type") == "tool_use":
                    found.append(event["part"])
    return found


def store_rows(s: HostScenario, table: str) -> list[dict[str, Any]]:
    path = s.project / ".contextward" / "contextward.db"
    assert path.exists(), "the project store was never created"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        db.row_factory = sqlite3.Row
        return [dict(row) for row in db.execute(f"SELECT * FROM {table} ORDER BY rowid")]


def test_plugin_loads_and_the_state_block_reaches_every_model_call(
    opencode: Callable[..., OpenCodeRun],
) -> None:
    run = opencode()
    outcome = run.prompt("say hello").prompt("say hello again").run()

    requests = main_requests(outcome)
    assert len(requests) == 2
    for request in requests:
        systems = [m for m in request["body"]["messages"] if m.get("role") == "system"]
        assert any(str(m["content"]).startswith(STATE_BLOCK) for m in systems)
        # The session's brief too (walk13 #9), in every call: OpenCode never stores it.
        assert "\n## contextward brief" in "\n".join(str(m["content"]) for m in systems)
    sessions = store_rows(run.s, "sessions")
    assert len(sessions) == 1 and "opencode" in json.dumps(sessions[0]), sessions
    # The owner's prompts are recorded (chat.message), for later sessions' briefs.
    # (`opencode run` quotes an argument with a space in the message it sends.)
    prompts = store_rows(run.s, "prompts")
    assert [p["text"].strip('"') for p in prompts] == ["say hello", "say hello again"], prompts
    assert all(p["key"].startswith("id:msg_") for p in prompts), "by OpenCode's message id"


def test_loop_brake_refuses_the_third_identical_failing_bash_command(
    opencode: Callable[..., OpenCodeRun],
) -> None:
    run = opencode()
    outcome = run.prompt("BASHx3: echo ran >> attempts.txt; exit 1").run()

    assert (run.s.project / "attempts.txt").read_text().splitlines() == ["ran", "ran"]
    tools = tool_events(outcome)
    assert [t["state"]["status"] for t in tools][-1] == "error"
    refusal = tools[-1]["state"]["error"]
    assert "failed 2 time(s) in a row" in refusal, refusal
    # The model saw the refusal as the third call's result.
    last = main_requests(outcome)[-1]
    results = [m for m in last["body"]["messages"] if m.get("role") == "tool"]
    assert len(results) == 3 and "failed 2 time(s)" in str(results[2]["content"])


def guided_compaction(outcome: HostOutcome) -> dict[str, Any]:
    (compaction,) = outcome.summaries()
    text = request_text(compaction)
    assert GUIDANCE in text, "contextward's guidance is not in the compaction prompt"
    must = text.split(GUIDANCE, 1)[1].split("Can discard", 1)[0]
    assert KEPT in must and DROPPED in must, must[:800]
    return compaction


def test_automatic_compaction_gets_the_guidance(opencode: Callable[..., OpenCodeRun]) -> None:
    run = opencode(summary=SUMMARY)
    outcome = run.prompt(OWNER_PROMPT).prompt("HUGE_USAGE BASH: echo one").run()

    compaction = guided_compaction(outcome)
    assert STATE_BLOCK in request_text(compaction)
    following = outcome.after(compaction)
    assert KEPT in request_text(following)  # OpenCode carries its summary on


def system_text(request: dict[str, Any]) -> str:
    messages = request["body"].get("messages") or []
    return "\n".join(str(m.get("content")) for m in messages if m.get("role") == "system")


def test_after_compaction_what_the_summary_dropped_comes_back(
    opencode: Callable[..., OpenCodeRun],
) -> None:
    run = opencode(summary=SUMMARY)
    outcome = run.prompt(OWNER_PROMPT).prompt("HUGE_USAGE BASH: echo one").run()

    compaction = guided_compaction(outcome)
    following = outcome.after(compaction)
    system = system_text(following)
    assert RESTORE in system, "no restore block in the system prompt after compaction"
    restore = system.split(RESTORE, 1)[1]
    assert DROPPED in restore, "the dropped constraint did not come back"
    assert KEPT not in restore, "a kept constraint was restored"
    assert RESTORE not in system_text(compaction), "restored before the summary was checked"
    # The check was stored against the snapshot the guidance came from.
    (report,) = store_rows(run.s, "check_reports")
    (snapshot,) = store_rows(run.s, "snapshots")
    assert json.loads(report["data"])["snapshot_seq"] == snapshot["seq"], report


def test_session_idle_is_recorded_before_the_plugin_is_disposed(
    opencode: Callable[..., OpenCodeRun],
) -> None:
    run = opencode()
    outcome = run.prompt("say hello").run()

    # `opencode run` disposes the plugin while the last session.idle is being recorded;
    # the plugin lets that request finish before it closes the bridge, and then ends the
    # owner's session (OpenCode sends no end of its own), so the next session's brief may
    # carry what this one's summary lost.
    assert "bridge_closed" not in outcome.steps[0]["stderr"]
    assert "contextward:" not in outcome.steps[0]["stderr"]
    (session,) = store_rows(run.s, "sessions")
    assert session["status"] == "ended", session
    assert session["ended_at"], session


def test_overflow_error_compaction_gets_the_guidance(opencode: Callable[..., OpenCodeRun]) -> None:
    run = opencode(summary=SUMMARY)
    # `opencode run` exits 1 when the session saw an error event, even a recovered one.
    outcome = run.prompt(OWNER_PROMPT).prompt("TOO_LONG then go on", rc=1).run()

    assert '"ContextOverflowError"' in outcome.steps[1]["stdout"]
    compaction = guided_compaction(outcome)
    too_long = [r for r in outcome.model_requests() if r["kind"] == "too_long"]
    assert too_long and too_long[0]["n"] < compaction["n"]
    retried = outcome.after(compaction)  # OpenCode retries the prompt after compacting
    assert "TOO_LONG then go on" in retried["prompt"] and retried["kind"] == "text"
    # The retried prompt already carries what the summary dropped.
    assert RESTORE in system_text(retried)
    assert DROPPED in system_text(retried).split(RESTORE, 1)[1]
