"""Hardening (issue 9, item 5): no secret is ever stored, printed, injected or exported.

The corpus is ``SAMPLES`` of tests/test_redact_formats.py (every supported format,
more than 20: AWS, GitHub, GitLab, Slack, OpenAI, Anthropic and Google keys,
JWTs, PEM private keys, passwords in URLs, ``.env`` lines, bearer headers, ...).
One project lives through every way text gets in:

- prompts through the hooks, on the fast path (``fastpath.answer`` first, as
  ``hook_entry`` does) and the full path, for Claude, Codex and Gemini payloads;
- commands: ``contextward verify -- ...`` and MCP ``verify``; PostToolUse Bash
  commands (evidence and loop attempts), failing ones included;
- tool output: PostToolUse stdout/stderr of test commands (evidence digests);
- notes: CLI ``note``/``decide``/``log``/``checkpoint``/``contract add``, MCP
  ``note``/``decide``/``checkpoint``/``contract``;
- inspection: ``inspect --json``, ``guidance``, ``snapshot --json``, PreCompact
  guidance, SubagentStop/PostCompact summaries, the restore block;
- the bridge: ``inspect``, ``guidance``, ``command_outcome``, ``loop_check``, ``brief``.

Then every sink is searched for every secret: each printed or injected text, the
raw bytes of every file under the project and the personal layer (the SQLite
database, its WAL, the spool, STATE.md, contract.md, the hook caches), and
``contextward export``.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from contextward import fastpath
from contextward.cli import main
from contextward.hosts import claude_code, codex, gemini
from contextward.hosts.bridge import Bridge
from contextward.hosts.bridge_ops import default_registry
from contextward.store import Store
from test_redact_formats import SAMPLES


def _needles(text: str, masked: str) -> list[str]:
    """The secret part of ``text`` (what the mask replaced), and fragments of a long one."""
    start = 0
    while start < min(len(text), len(masked)) and text[start] == masked[start]:
        start += 1
    end = 0
    while end < min(len(text), len(masked)) - start and text[-1 - end] == masked[-1 - end]:
        end += 1
    secret = text[start : len(text) - end]
    secret = secret.strip("\"' ")
    out = [secret]
    if len(secret) >= 20:
        middle = len(secret) // 2
        out += [secret[middle - 6 : middle + 6], secret[-10:]]
    return out


CORPUS = [(kind, text, _needles(text, masked)) for kind, text, masked in SAMPLES]


def test_the_corpus_covers_at_least_twenty_formats() -> None:
    kinds = {kind for kind, _, _ in CORPUS}
    assert len(kinds) >= 20
    for wanted in ("aws-access-key", "github-token", "gitlab-token", "slack-token", "openai-key",
                   "anthropic-key", "google-key", "jwt", "private-key", "url-password",
                   "assignment", "bearer"):  # fmt: skip
        assert wanted in kinds


def _all_secrets_text() -> str:
    return "\n".join(f"note {n}: {text}" for n, (_, text, _) in enumerate(CORPUS))


def _transcript() -> bytes:
    messages = []
    for n, (_, text, _) in enumerate(CORPUS):
        messages.append(
            {"id": f"u{n}", "role": "user", "content": f"Never commit this credential:\n{text}"}
        )
        messages.append(
            {"id": f"a{n}", "role": "assistant", "content": f"Decision: keep {text} out of git."}
        )
        messages.append(
            {"id": f"t{n}", "role": "tool", "tool_name": "Bash", "content": f"env dump\n{text}\n"}
        )
    return json.dumps({"messages": messages}).encode()


class World:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home
        self.outputs: dict[str, str] = {}

    def keep(self, surface: str, text: str) -> None:
        self.outputs[surface] = self.outputs.get(surface, "") + text

    @property
    def env(self) -> dict[str, str]:
        return {"CONTEXTWARD_HOME": str(self.home), "PATH": os.environ.get("PATH", "")}

    def cli(self, surface: str, *argv: str) -> str:
        result = CliRunner().invoke(main, list(argv))
        text = result.output + (result.stderr if result.stderr_bytes is not None else "")
        self.keep(surface, text)
        assert "Traceback" not in text
        return result.output

    def hook(self, run: Any, surface: str, payload: dict[str, Any], *, fast: bool = False) -> str:
        data = json.dumps({"cwd": str(self.root), **payload}).encode()
        if fast and fastpath.answer(data) is not None:
            return ""  # spooled: what hook_entry does
        out, err = io.StringIO(), io.StringIO()
        assert run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=self.env) == 0
        assert "hook failed" not in err.getvalue(), (surface, err.getvalue())
        self.keep(surface, out.getvalue() + err.getvalue())
        return out.getvalue()

    def snap(self, label: str) -> None:
        """Keep the raw bytes of every file now (the spool and WAL come and go)."""
        for base in (self.root, self.home):
            for path in sorted(base.rglob("*")):
                if path.is_file() and ".git" not in path.relative_to(base).parts[:1]:
                    name = f"file@{label}:{path.relative_to(base.parent)}"
                    self.outputs[name] = path.read_bytes().decode("latin-1")

    def bridge(self, surface: str, frames: list[dict[str, Any]]) -> None:
        out, log = io.BytesIO(), io.StringIO()
        Bridge(default_registry(), out, log=log).serve(
            io.BytesIO(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
        )
        self.keep(surface, out.getvalue().decode() + log.getvalue())

    def mcp(self, surface: str, calls: list[tuple[str, dict[str, Any]]]) -> None:
        from mcp import Client

        from contextward.hosts.mcp import build_server

        async def go() -> None:
            async with Client(build_server()) as client:
                for name, args in calls:
                    result = await client.call_tool(name, args)
                    self.keep(
                        f"{surface}:{name}", json.dumps([c.model_dump() for c in result.content])
                    )
                    if result.structured_content is not None:
                        self.keep(f"{surface}:{name}", json.dumps(result.structured_content))

        anyio.run(go)


def _request(rid: str, operation: str, **fields: Any) -> dict[str, Any]:
    return {
        "protocol_version": 1,
        "type": "request",
        "request_id": rid,
        "operation": operation,
        **fields,
    }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    base = tmp_path_factory.mktemp("secrets")
    root = base / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    home = base / "home"
    w = World(root, home)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("CONTEXTWARD_HOME", str(home))
        mp.setenv("CONTEXTWARD_PROJECT_DIR", str(root))
        mp.setenv("CONTEXTWARD_SESSION_ID", "mcp-session")
        mp.delenv("CLAUDE_PROJECT_DIR", raising=False)
        _live(w)
        yield w


def _live(w: World) -> None:
    w.cli("init", "init")
    secrets = [text for _, text, _ in CORPUS]
    transcript = w.root.parent / "transcript.json"
    transcript.write_bytes(_transcript())

    # Prompts: the fast path (a cached session) and the full path, three hosts.
    w.hook(
        claude_code.run,
        "claude:start",
        {"hook_event_name": "SessionStart", "session_id": "fast", "source": "startup"},
    )
    w.hook(claude_code.run, "claude:prompt", {"hook_event_name": "UserPromptSubmit", "session_id": "fast",
                                              "prompt": "a harmless warm up prompt"}, fast=True)  # fmt: skip
    for n, text in enumerate(secrets):
        w.hook(claude_code.run, "claude:prompt", {"hook_event_name": "UserPromptSubmit", "session_id": "fast",
                                                  "prompt": f"remember:\n{text}\nthanks {n}"}, fast=True)  # fmt: skip
        w.hook(codex.run, "codex:prompt", {"hook_event_name": "UserPromptSubmit", "session_id": "cx",
                                           "prompt": f"codex {n}: {text}"}, fast=True)  # fmt: skip
        w.hook(gemini.run, "gemini:prompt", {"hook_event_name": "BeforeAgent", "session_id": "gm",
                                             "prompt": f"gemini {n}: {text}"}, fast=True)  # fmt: skip

    w.snap("prompts")  # the fast path's spool and caches, before anything drains them

    # Commands and tool output through PostToolUse (evidence, attempts, failures).
    for n, text in enumerate(secrets):
        flat = text.replace("\n", " ")
        w.hook(claude_code.run, "claude:tool", {
            "hook_event_name": "PostToolUse", "session_id": "fast", "tool_name": "Bash", "tool_use_id": f"ok{n}",
            "tool_input": {"command": f"pytest -q --env '{flat}'"},
            "tool_response": {"stdout": f"1 passed\n{text}\n", "stderr": text}})  # fmt: skip
        w.hook(claude_code.run, "claude:tool", {
            "hook_event_name": "PostToolUseFailure", "session_id": "fast", "tool_name": "Bash",
            "tool_use_id": f"bad{n}", "tool_input": {"command": f"curl -sf '{flat}'"},
            "error": f"Exit code 7\n{text}"})  # fmt: skip
        w.hook(claude_code.run, "claude:pretool", {
            "hook_event_name": "PreToolUse", "session_id": "fast", "tool_name": "Bash",
            "tool_input": {"command": f"curl -sf '{flat}'"}})  # fmt: skip

    # Compaction: guidance, the summary check, the restore block.
    w.hook(claude_code.run, "claude:precompact", {"hook_event_name": "PreCompact", "session_id": "fast",
                                                  "transcript_path": str(transcript), "trigger": "manual"})  # fmt: skip
    w.hook(claude_code.run, "claude:summary", {"hook_event_name": "SubagentStop", "session_id": "fast",
                                               "last_assistant_message": "Summary:\n" + _all_secrets_text()})  # fmt: skip
    w.hook(claude_code.run, "claude:postcompact", {"hook_event_name": "PostCompact", "session_id": "fast",
                                                   "compact_summary": "Summary:\n" + _all_secrets_text()})  # fmt: skip
    w.hook(
        claude_code.run,
        "claude:restore",
        {"hook_event_name": "SessionStart", "session_id": "fast", "source": "compact"},
    )
    w.hook(
        codex.run,
        "codex:precompact",
        {"hook_event_name": "PreCompact", "session_id": "cx", "transcript_path": str(transcript)},
    )
    w.hook(
        codex.run,
        "codex:restore",
        {"hook_event_name": "SessionStart", "session_id": "cx", "source": "compact"},
    )
    w.hook(
        gemini.run,
        "gemini:precompress",
        {"hook_event_name": "PreCompress", "session_id": "gm", "transcript_path": str(transcript)},
    )
    w.hook(
        gemini.run,
        "gemini:restore",
        {"hook_event_name": "BeforeAgent", "session_id": "gm", "prompt": "go on"},
    )

    # The CLI: notes, state, contract, verify, inspection.
    for n, text in enumerate(secrets[:12]):  # CLI calls cost more; the rest go through MCP
        w.cli("cli:note", "note", "note", f"n{n} {text}", "--tag", "t")
        w.cli("cli:verify", "verify", "--", f"echo '{text.replace(chr(10), ' ')}'; true")
    for text in secrets[12:]:
        w.cli("cli:note", "note", "risk", text)
    w.cli("cli:decide", "decide", secrets[2], "--why", secrets[3])
    w.cli("cli:notedecision", "note", "decision", secrets[4])
    w.cli("cli:log", "log", secrets[5])
    w.cli(
        "cli:checkpoint",
        "checkpoint",
        "--focus",
        secrets[6],
        "--next",
        secrets[7].replace("\n", " "),
    )
    w.cli("cli:contract", "contract", "add", f"Never paste {secrets[8]}")
    w.cli("cli:inspect", "inspect", str(transcript), "--json")
    w.cli("cli:guidance", "guidance", str(transcript))
    w.cli("cli:snapshot", "snapshot", str(transcript), "--json")
    for command in ("brief", "status", "restore", "intent", "state"):
        w.cli(f"cli:{command}", command)
    w.cli("cli:journal", "journal", "--limit", "200")
    w.cli("cli:evidence", "evidence")
    w.cli("cli:recall", "recall", "credential")
    w.cli("cli:recall", "recall", "note")

    # MCP: notes, decisions, contract, checkpoint, verify, reads.
    calls: list[tuple[str, dict[str, Any]]] = []
    for n, text in enumerate(secrets):
        calls.append(("note", {"type": "note", "text": f"m{n} {text}"}))
        calls.append(("decide", {"text": text, "why": text}))
    calls += [
        ("contract", {"add": f"Never paste {secrets[9]}"}),
        ("checkpoint", {"focus": secrets[10], "blockers": secrets[11]}),
        ("verify", {"command": f"echo '{secrets[12]}'"}),
        ("inspect", {"messages": json.loads(_transcript())["messages"][:30]}),
        ("guidance", {"messages": json.loads(_transcript())["messages"][:30]}),
        ("snapshot", {"messages": json.loads(_transcript())["messages"][:30]}),
        ("check", {"summary": _all_secrets_text()}),
    ]
    calls += [
        (name, {})
        for name in ("brief", "restore", "status", "intent", "journal", "evidence", "loops")
    ]
    calls.append(("recall", {"query": "note"}))
    w.mcp("mcp", calls)

    # The bridge.
    messages = json.loads(_transcript())["messages"]
    w.bridge("bridge", [
        _request("i", "inspect", messages=messages),
        _request("g", "guidance", messages=messages),
        _request("it", "inspect", transcript_path=str(transcript)),
        *[_request(f"c{n}", "command_outcome", command=f"deploy {t}", exit_code=1, session_id="br")
          for n, t in enumerate(secrets)],
        *[_request(f"l{n}", "loop_check", command=f"deploy {t}", session_id="br") for n, t in enumerate(secrets)],
        _request("b", "brief", session_id="br"),
        _request("s", "state_block", session_id="br"),
        _request("e", "record_event", event="session_end", session_id="br"),
    ])  # fmt: skip

    # Finally what leaves the store on purpose.
    w.cli("export", "export")
    export_file = w.root.parent / "export.jsonl"
    w.cli("export:file", "export", "--output", str(export_file))
    w.keep("export:file", export_file.read_text(encoding="utf-8"))
    with Store.open(w.root) as store:
        store.journal.add("note", "one more row so the WAL holds pages", provenance="agent")
        w.snap("end")  # the database and its WAL while a connection is open
    w.snap("closed")


def _leaks(w: World, needles: list[str]) -> list[str]:
    forms = needles + [json.dumps(n)[1:-1] for n in needles]
    return [surface for surface, text in w.outputs.items() if any(n in text for n in forms)]


@pytest.mark.parametrize(
    ("kind", "text", "needles"), CORPUS, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(CORPUS)]
)
def test_no_secret_reaches_any_sink(world: World, kind: str, text: str, needles: list[str]) -> None:
    assert _leaks(world, needles) == [], f"{kind} leaked"


def test_the_scenario_really_went_through_every_surface(world: World) -> None:
    """Guards the test itself: each surface ran and the store holds what came in."""
    with Store.open(world.root) as store:
        prompts = store.query("SELECT COUNT(*) FROM prompts")[0][0]
        evidence = store.query("SELECT COUNT(*) FROM evidence")[0][0]
        journal = store.query("SELECT COUNT(*) FROM journal")[0][0]
        snapshots = store.query("SELECT COUNT(*) FROM snapshots")[0][0]
        checks = store.query("SELECT COUNT(*) FROM check_reports")[0][0]
    assert prompts >= 3 * len(CORPUS)
    assert evidence >= len(CORPUS)
    assert journal >= 2 * len(CORPUS)
    assert snapshots >= 3 and checks >= 2
    assert "[secret:" in world.outputs["export"]
    assert (
        "[secret:" in world.outputs["claude:restore"]
        or "[secret:" in world.outputs["claude:precompact"]
    )
    assert "[secret:" in world.outputs["cli:inspect"]
    assert "[secret:" in world.outputs["bridge"]
    files = [k for k in world.outputs if k.startswith("file@")]
    assert any(k.endswith("contextward.db-wal") and k.startswith("file@end") for k in files)
    assert any(k.endswith("STATE.md") for k in files)
    assert any("hook-cache" in k for k in files)


def test_mcp_text_arguments_that_look_like_json_stay_text(world: World) -> None:
    """Forced fix: the SDK json-decoded ``why='{"client_secret": ...}'`` into a dict, failed
    validation and echoed the secret in its error; every MCP call above must succeed."""
    mcp_text = "".join(v for k, v in world.outputs.items() if k.startswith("mcp:"))
    assert "validation error" not in mcp_text
    assert "Error executing tool" not in mcp_text
