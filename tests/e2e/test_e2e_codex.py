"""contextward's Codex hooks driven by the real Codex CLI, offline.

Codex (``@openai/codex``; its native binary is the registry package
``@openai/codex-linux-x64``) runs ``codex exec`` steps inside the loopback-only namespace.
``config.toml`` in a fresh ``CODEX_HOME`` selects a ``model_provider`` whose ``base_url`` is
the fake Responses API of tests/e2e/fake_openai.py, and marks the project trusted. The
hooks are the ``.codex/hooks.json`` of docs/hosts/codex.md; ``--dangerously-bypass-hook-trust``
is Codex's documented switch for automation that vets its hooks itself.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import FAKE_BASE_URL, HostOutcome, HostScenario, host_binary, request_text

pytestmark = pytest.mark.e2e

CODEX_PACKAGE = "@openai/codex"
CODEX_VERSION = "0.171.0"
BRIEF = "## contextward brief"
HOOK = "contextward hook codex"
SUMMARY_MARKER = "CONTEXT CHECKPOINT COMPACTION"
#: The notices every `codex exec` step here prints as error items: the trust bypass and
#: the unknown model's fallback metadata.
EXPECTED_NOTICES = ("`--dangerously-bypass-hook-trust` is enabled", "Model metadata for")

KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
OWNER_PROMPT = f"We are building the OAuth login. {KEPT} {DROPPED}"
SUMMARY = f"Goal: build the OAuth login. Constraint: {KEPT}"


@pytest.fixture(scope="module")
def codex_bin() -> Path:
    return host_binary(CODEX_PACKAGE, CODEX_VERSION, "codex")


@pytest.fixture
def codex(tmp_path: Path, codex_bin: Path) -> Callable[..., CodexRun]:
    count = 0

    def make(**fake: object) -> CodexRun:
        nonlocal count
        count += 1
        fake.setdefault("summary_markers", [SUMMARY_MARKER])
        fake.update(tool_name="exec_command", tool_arg="cmd")
        return CodexRun(HostScenario(tmp_path / f"s{count}", fake=dict(fake)), codex_bin)

    return make


def _toml(value: object) -> str:
    return json.dumps(value)  # TOML basic strings and integers read the same as JSON's


class CodexRun:
    """``codex exec`` steps with contextward's hooks in the project's .codex/hooks.json."""

    def __init__(self, scenario: HostScenario, binary: Path) -> None:
        self.s = scenario
        self.binary = binary
        codex_home = scenario.home / ".codex"
        scenario.env.update({"CODEX_HOME": str(codex_home), "FAKE_API_KEY": "sk-fake-e2e"})
        config = [
            f"model = {_toml('fake-model')}",
            f"model_provider = {_toml('fake')}",
            f"approval_policy = {_toml('never')}",
            f"sandbox_mode = {_toml('danger-full-access')}",
            # A reported 190,000 input tokens crosses it: the automatic compaction route.
            "model_auto_compact_token_limit = 100000",
            "[model_providers.fake]",
            f"name = {_toml('Fake')}",
            f"base_url = {_toml(FAKE_BASE_URL)}",
            f"wire_api = {_toml('responses')}",
            f"env_key = {_toml('FAKE_API_KEY')}",
            "request_max_retries = 0",
            "stream_max_retries = 0",
            f"[projects.{_toml(str(scenario.project))}]",
            f"trust_level = {_toml('trusted')}",
        ]
        scenario.write("home/.codex/config.toml", "\n".join(config) + "\n")

        def entry(matcher: str | None = None) -> list[dict[str, Any]]:
            hooks = {"hooks": [{"type": "command", "command": HOOK}]}
            return [{"matcher": matcher, **hooks} if matcher else hooks]

        hooks = {
            "SessionStart": entry("startup|resume|clear|compact"),
            "UserPromptSubmit": entry(),
            "PreToolUse": entry("Bash"),
            "PostToolUse": entry("Bash|apply_patch"),
            "PreCompact": entry("manual|auto"),
            "PostCompact": entry("manual|auto"),
            "Stop": entry(),
        }
        scenario.write("project/.codex/hooks.json", {"hooks": hooks})

    def prompt(self, text: str, *, new: bool = False) -> CodexRun:
        """One ``codex exec`` step: the last conversation resumed, or with ``new`` (or as
        the first step) a new one."""
        resume = ["resume", "--last"] if self.s.steps and not new else []
        flags = ["--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"]
        self.s.command([str(self.binary), "exec", *resume, *flags, text], timeout=60)
        return self

    def run(self) -> HostOutcome:
        outcome = self.s.run()
        assert outcome.isolation.startswith("connect 1.1.1.1:443 -> errno 101")
        for step in outcome.steps:
            assert step["rc"] == 0, step["stderr"][-1500:]
            assert "Traceback" not in step["stdout"] + step["stderr"]
            # Codex reports problems (a failing hook among them) as error items; only the
            # two expected notices may appear.
            errors = [
                item["message"]
                for item in (
                    json.loads(line).get("item") or {} for line in step["stdout"].splitlines()
                )
                if item.get("type") == "error"
            ]
            assert all(e.startswith(EXPECTED_NOTICES) for e in errors), errors
        return outcome


def developer_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for item in request["body"].get("input") or []:
        if isinstance(item, dict) and item.get("role") == "developer":
            texts += [str(p.get("text", "")) for p in item.get("content") or []]
    return texts


def test_hooks_load_and_the_brief_reaches_the_model(codex: Callable[..., CodexRun]) -> None:
    outcome = codex().prompt("say hello").prompt("say hello again").run()

    first = outcome.answered("say hello")[0]
    briefs = [t for t in developer_texts(first) if BRIEF in t]
    assert briefs, "SessionStart's brief did not reach the model"
    assert "09-no-retry-loops" in briefs[0]


def test_loop_brake_stops_the_third_identical_failing_bash_command(
    codex: Callable[..., CodexRun],
) -> None:
    run = codex()
    run.prompt("BASHx3: echo ran >> attempts.txt; exit 1").run()

    assert (run.s.project / "attempts.txt").read_text().splitlines() == ["ran", "ran"]


def compacted(run: CodexRun) -> tuple[HostOutcome, dict[str, Any]]:
    outcome = run.prompt(OWNER_PROMPT).prompt("HUGE_USAGE BASH: echo one").run()
    (compaction,) = outcome.summaries()
    # Codex gives hooks no way to add to its summariser's prompt (reference/hosts.md 5.1).
    assert "contextward guidance" not in request_text(compaction)
    following = outcome.after(compaction)
    assert KEPT in request_text(following)  # Codex's summary carries on
    return outcome, following


def test_automatic_compaction_fires_the_hooks_and_the_brief_comes_back(
    codex: Callable[..., CodexRun],
) -> None:
    run = codex(summary=SUMMARY)
    _, following = compacted(run)
    # SessionStart(compact) ran: the brief is in the first request after compaction.
    assert any(BRIEF in t for t in developer_texts(following))
    # PreCompact ran and stored a snapshot for SessionStart(compact) to restore from.
    path = run.s.project / ".contextward" / "contextward.db"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] >= 1


def test_after_compaction_the_snapshot_restores_the_owner_constraints(
    codex: Callable[..., CodexRun],
) -> None:
    run = codex(summary=SUMMARY)
    _, following = compacted(run)
    restored = [t for t in developer_texts(following) if DROPPED in t]
    assert restored, "SessionStart(compact) did not restore the dropped constraint"
    # PostCompact found Codex's summary in the rollout and checked it: the restore block
    # names the dropped constraint as lost and leaves out the one the summary kept.
    block = restored[0].split(BRIEF, 1)[0]
    assert f"(lost) {DROPPED}" in block
    assert KEPT not in block
    path = run.s.project / ".contextward" / "contextward.db"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        assert db.execute("SELECT COUNT(*) FROM check_reports").fetchone()[0] == 1


def test_a_new_conversation_ends_the_last_and_carries_what_its_summary_lost(
    codex: Callable[..., CodexRun],
) -> None:
    # Codex sends no SessionEnd: the next conversation's SessionStart sees the first one's
    # Codex process gone and ends it, so what that compaction lost reaches the new brief.
    run = codex(summary=SUMMARY)
    run.prompt(OWNER_PROMPT).prompt("HUGE_USAGE BASH: echo one").prompt("say hi", new=True)
    outcome = run.run()
    first = outcome.answered("say hi")[0]
    briefs = [t for t in developer_texts(first) if BRIEF in t]
    assert briefs, "the new conversation's SessionStart brief did not reach the model"
    assert "the last summary of an earlier session lost them" in briefs[0]
    assert DROPPED in briefs[0]
    path = run.s.project / ".contextward" / "contextward.db"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        statuses = [
            row[0] for row in db.execute("SELECT status FROM sessions ORDER BY started_at, rowid")
        ]
    assert statuses[0] == "ended", statuses
