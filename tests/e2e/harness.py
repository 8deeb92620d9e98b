"""The pytest side of the end-to-end harness: install the real CLI, run a scenario, read it.

Owns: the pinned Claude Code version and its install into a cache folder outside the
repo, the check that this machine can run the suite (node, npm, unshare, ip, a network
namespace), laying out one scenario (fresh HOME, a git project with one commit, private
TMPDIR), running it through ``runner.py`` inside ``unshare --net --fork``, and reading
back what happened (steps, hook events, hook exit codes, the fake API's request log, the
transcript).
Must never: run ``claude`` outside the namespace, write into the repo, or hold an
absolute machine path (everything is found relative to this file or from the env).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fake_api import SUMMARY_REQUEST, last_user_text, read_log

CLAUDE_PACKAGE = "@anthropic-ai/claude-code"
#: The version whose behaviour shared/reference/claude-code-offline.md records.
CLAUDE_VERSION = "2.1.197"
#: Pinned so that the context window (and so the compaction threshold) is fixed.
MODEL = "claude-sonnet-4-5"

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
RUNNER = HERE / "runner.py"
CAPTURE_HOOK = HERE / "capture_hook.py"
#: contextward as a user has it: the checkout's own virtual environment.
VENV_BIN = REPO / ".venv" / "bin"

#: Claude Code caps hook output at 10,000 characters; contextward promises less.
INJECTED_LIMIT = 9_500
#: A scenario that takes longer is stuck; the runner's own per-step timeout is lower.
SCENARIO_TIMEOUT = 240

_DEBUG_STATUS = re.compile(r"\] (\w+)(?::[\w|]+)? \[(.*)\] completed with status (-?\d+)")
_INJECTED = re.compile(
    r"(?:hook additional context|hook success): (.*?)(?:\n</system-reminder>|$)", re.S
)
_ADDITIONAL = re.compile(r"Additional Instructions:\s*(.*?)(?:\n\s*REMINDER:|$)", re.S)


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "contextward-e2e"


def missing_prerequisite() -> str | None:
    """Why this machine cannot run the suite, or None when it can."""
    for tool in ("node", "npm", "unshare", "ip", "git"):
        if shutil.which(tool) is None:
            return f"{tool} not found on PATH"
    try:
        probe = subprocess.run(
            ["unshare", "--net", "--fork", "--", "true"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unshare --net failed: {exc}"
    if probe.returncode != 0:
        return f"unshare --net not permitted here: {probe.stderr.strip()[:200]}"
    if not (VENV_BIN / "python").exists():
        return "the project venv (.venv) is missing: run make test once"
    return None


def install_claude(root: Path) -> Path:
    """The pinned CLI's binary, installed once under ``root`` with npm and reused after."""
    prefix = root / f"claude-code-{CLAUDE_VERSION}"
    binary = prefix / "node_modules" / ".bin" / "claude"
    manifest = prefix / "node_modules" / "@anthropic-ai" / "claude-code" / "package.json"
    if binary.exists() and _version(manifest) == CLAUDE_VERSION:
        return binary
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            "npm",
            "install",
            "--prefix",
            str(prefix),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"{CLAUDE_PACKAGE}@{CLAUDE_VERSION}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 or not binary.exists() or _version(manifest) != CLAUDE_VERSION:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"npm install {CLAUDE_PACKAGE}@{CLAUDE_VERSION} failed: {tail}")
    return binary


def _version(manifest: Path) -> str:
    try:
        return str(json.loads(manifest.read_text(encoding="utf-8")).get("version", ""))
    except (OSError, json.JSONDecodeError):
        return ""


def clean_env(home: Path) -> dict[str, str]:
    """An environment for helper commands run as the scenario's user (not inside claude)."""
    return {
        "PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


@dataclass
class Scenario:
    """One session's worth of ``claude -p`` steps in a fresh HOME and project."""

    folder: Path
    claude: Path
    fake: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for sub in (self.home, self.project, self.tmpdir):
            sub.mkdir(parents=True, exist_ok=True)
        git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
        env = clean_env(self.home)
        (self.project / "README.md").write_text("# e2e project\n", encoding="utf-8")
        for args in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "init"]):
            subprocess.run([*git, *args], cwd=self.project, env=env, check=True)

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def project(self) -> Path:
        return self.folder / "project"

    @property
    def tmpdir(self) -> Path:
        return self.folder / "tmp"

    def settings(self, hooks: Mapping[str, Any]) -> None:
        """Write the project's ``.claude/settings.json`` (for the harness's own hooks)."""
        path = self.project / ".claude" / "settings.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"hooks": dict(hooks)}, indent=2) + "\n", encoding="utf-8")

    def prompt(
        self,
        text: str,
        *,
        new: bool = False,
        resume: bool = False,
        tools: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> Scenario:
        """Add one ``claude -p`` step; after the first, steps ``--continue`` unless told."""
        index = len(self.steps)
        args = ["-p", text, "--model", MODEL, "--output-format", "stream-json", "--verbose"]
        args += ["--include-hook-events", "--debug-file", str(self.folder / f"debug-{index}.txt")]
        if resume:
            args += ["--resume", "{session_id}"]
        elif self.steps and not new:
            args.append("--continue")
        if tools:
            args += ["--allowedTools", "Bash"]
        self.steps.append({"args": args, "env": dict(env or {}), "timeout": 60})
        return self

    def run(self) -> Outcome:
        spec = {
            "claude": str(self.claude),
            "folder": str(self.folder),
            "home": str(self.home),
            "project": str(self.project),
            "tmpdir": str(self.tmpdir),
            "fake": self.fake,
            "env": self.env,
            "steps": self.steps,
        }
        return Outcome(self.folder, run_isolated(RUNNER, spec, self.folder))


@dataclass(frozen=True)
class HookRun:
    """One hook process as Claude Code reported it (stream events or the debug file)."""

    step: int
    name: str
    exit_code: int
    stdout: str = ""
    stderr: str = ""


@dataclass
class Outcome:
    folder: Path
    data: dict[str, Any]

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data["steps"])

    @property
    def isolation(self) -> str:
        return str(self.data["isolation"])

    def requests(self) -> list[dict[str, Any]]:
        return read_log(self.folder / "requests.jsonl")

    def message_requests(self) -> list[dict[str, Any]]:
        """Every ``POST /v1/messages`` the fake received, oldest first."""
        return [r for r in self.requests() if "body" in r]

    def step_requests(self, step: int) -> list[dict[str, Any]]:
        """The message requests made during one step."""
        before = self.steps[step - 1]["request_count"] if step else 0
        upto = self.steps[step]["request_count"]
        return [r for r in self.message_requests() if before < r["n"] <= upto]

    def compactions(self) -> list[dict[str, Any]]:
        return [r for r in self.message_requests() if r["kind"] == "summary"]

    def after(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The first model request after ``request`` that is not itself a compaction."""
        later = [
            r
            for r in self.message_requests()
            if r["n"] > request["n"] and r["kind"] not in ("summary", "title")
        ]
        assert later, f"no model request after request {request['n']}"
        return later[0]

    def hook_runs(self) -> list[HookRun]:
        """Every hook run: from stream-json hook events, and for the events the stream does
        not report (PreCompact, PostCompact, SessionEnd), the debug file's status lines."""
        runs: list[HookRun] = []
        for index, step in enumerate(self.steps):
            reported: set[str] = set()
            for event in step["events"]:
                if event.get("type") == "system" and event.get("subtype") == "hook_response":
                    name = str(event.get("hook_name", ""))
                    reported.add(name.split(":", 1)[0])
                    code = event.get("exit_code")
                    runs.append(
                        HookRun(
                            index,
                            name,
                            int(code) if code is not None else -1,
                            str(event.get("stdout", "")),
                            str(event.get("stderr", "")),
                        )
                    )
            debug = self.folder / f"debug-{index}.txt"
            text = debug.read_text(encoding="utf-8", errors="replace") if debug.exists() else ""
            for match in _DEBUG_STATUS.finditer(text):
                if match.group(1) not in reported:
                    runs.append(HookRun(index, match.group(1), int(match.group(3))))
        return runs

    def debug_text(self) -> str:
        return "\n".join(
            p.read_text(encoding="utf-8", errors="replace")
            for p in sorted(self.folder.glob("debug-*.txt"))
        )

    def transcript(self) -> list[dict[str, Any]]:
        path = self.data.get("transcript")
        if not path:
            return []
        entries = []
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            try:
                entries.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # the format is internal to Claude Code: skip what we cannot read
        return entries


def texts(body: Mapping[str, Any]) -> Iterator[str]:
    """Every text a request carries: system prompt blocks and all message text blocks."""
    system = body.get("system")
    if isinstance(system, str):
        yield system
    elif isinstance(system, list):
        yield from (str(b.get("text", "")) for b in system if isinstance(b, dict))
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            yield content
        elif isinstance(content, list):
            for block in content:
                if isinstance(block, dict) and block.get("type") == "text":
                    yield str(block.get("text", ""))
                elif isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    if isinstance(inner, str):
                        yield inner
                    elif isinstance(inner, list):
                        yield from (str(b.get("text", "")) for b in inner if isinstance(b, dict))


def injected(request: Mapping[str, Any]) -> list[str]:
    """The hook-injected texts in one request (``… hook additional context: <text>``)."""
    found: list[str] = []
    for text in texts(request["body"]):
        found.extend(m.group(1) for m in _INJECTED.finditer(text))
    return found


def tool_results(request: Mapping[str, Any]) -> list[dict[str, Any]]:
    results = []
    for message in request["body"].get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            results += [
                b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"
            ]
    return results


def prompt_of(request: Mapping[str, Any]) -> str:
    """The request's own last user text (what the fake scripted its answer on)."""
    return last_user_text(list(request["body"].get("messages") or []))[1]


def compaction_instructions(request: Mapping[str, Any]) -> str:
    """The "Additional Instructions" of a compaction request: PreCompact stdout goes there."""
    prompt = prompt_of(request)
    assert SUMMARY_REQUEST in prompt, "not a compaction request"
    match = _ADDITIONAL.search(prompt)
    return match.group(1).strip() if match else ""


def hook_output_text(stdout: str) -> str:
    """What a hook's stdout injects: ``additionalContext`` (or a reason) of JSON, else the text."""
    stripped = stdout.strip()
    if not stripped.startswith("{"):
        return stripped
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        return stripped
    specific = data.get("hookSpecificOutput") or {}
    parts = [
        specific.get("additionalContext"),
        specific.get("permissionDecisionReason"),
        data.get("reason"),
        data.get("systemMessage"),
    ]
    return "\n".join(str(p) for p in parts if p)


def hook_settings(command: str, events: tuple[str, ...]) -> dict[str, Any]:
    """A settings ``hooks`` object running ``command`` on every event in ``events``."""
    return {
        e: [{"hooks": [{"type": "command", "command": command, "timeout": 10}]}] for e in events
    }


# --- pi, OpenCode and Codex: the same isolation, a fake of the OpenAI APIs ------------------

HOST_RUNNER = HERE / "fake_openai.py"
#: Every port is free in a fresh namespace: a fixed one lets the hosts' config files name it.
FAKE_PORT = 47800
FAKE_BASE_URL = f"http://127.0.0.1:{FAKE_PORT}/v1"


def install_npm(root: Path, package: str, version: str, binary: str) -> Path:
    """``package@version`` installed once under ``root`` with npm; the path of its ``binary``.

    npm runs the packages' install scripts: the hosts ship their native binaries as
    registry packages (optional dependencies), which a postinstall only links.
    """
    folder = package.rsplit("/", 1)[-1]
    prefix = root / f"{folder}-{version}"
    path = prefix / "node_modules" / ".bin" / binary
    manifest = prefix / "node_modules" / package / "package.json"
    if path.exists() and _version(manifest) == version:
        return path
    prefix.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [
            *("npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund"),
            *("--loglevel=error", f"{package}@{version}"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0 or not path.exists() or _version(manifest) != version:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"npm install {package}@{version} failed: {tail}")
    return path


def host_binary(package: str, version: str, binary: str) -> Path:
    """The installed host, or a pytest skip with the reason printed (never a failure)."""
    import pytest  # the harness is imported by pytest only; keep the import local

    reason = missing_prerequisite()
    if reason is None:
        try:
            return install_npm(cache_root(), package, version, binary)
        except (OSError, RuntimeError, subprocess.TimeoutExpired) as exc:
            reason = str(exc)
    print(f"\n{package} end-to-end tests skipped: {reason}", file=sys.stderr)
    pytest.skip(reason)


@dataclass
class HostScenario:
    """One pi / OpenCode / Codex scenario: fresh HOME, a git project, the fake's script."""

    folder: Path
    fake: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    steps: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        # The same layout as Claude's Scenario: fresh HOME, TMPDIR, a git project.
        for sub in (self.home, self.project, self.tmpdir):
            sub.mkdir(parents=True, exist_ok=True)
        git = ["git", "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid"]
        env = clean_env(self.home)
        (self.project / "README.md").write_text("# e2e project\n", encoding="utf-8")
        for args in (["init", "-q"], ["add", "README.md"], ["commit", "-q", "-m", "init"]):
            subprocess.run([*git, *args], cwd=self.project, env=env, check=True)
        self.env.setdefault("CONTEXTWARD_HOME", str(self.folder / "contextward-home"))

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def project(self) -> Path:
        return self.folder / "project"

    @property
    def tmpdir(self) -> Path:
        return self.folder / "tmp"

    def write(self, relative: str, data: object) -> Path:
        """Write a JSON (dict/list) or text file under the scenario folder."""
        path = self.folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        text = data if isinstance(data, str) else json.dumps(data, indent=2) + "\n"
        path.write_text(text, encoding="utf-8")
        return path

    def command(self, argv: list[str], *, timeout: float = 90, **env: str) -> HostScenario:
        self.steps.append({"argv": [str(a) for a in argv], "env": env, "timeout": timeout})
        return self

    def rpc(
        self, argv: list[str], commands: list[dict[str, Any]], *, timeout: float = 120
    ) -> HostScenario:
        """One process driven over stdin (pi's RPC mode): each command waits for its end."""
        self.steps.append({"argv": [str(a) for a in argv], "commands": commands, "env": {}})
        self.steps[-1]["timeout"] = timeout
        return self

    def run(self) -> HostOutcome:
        spec = {
            "folder": str(self.folder),
            "home": str(self.home),
            "project": str(self.project),
            "tmpdir": str(self.tmpdir),
            "port": FAKE_PORT,
            "path_prefix": f"{VENV_BIN}:",
            "fake": self.fake,
            "env": self.env,
            "steps": self.steps,
        }
        return HostOutcome(self.folder, run_isolated(HOST_RUNNER, spec, self.folder))


@dataclass
class HostOutcome:
    folder: Path
    data: dict[str, Any]

    @property
    def steps(self) -> list[dict[str, Any]]:
        return list(self.data["steps"])

    @property
    def isolation(self) -> str:
        return str(self.data["isolation"])

    def model_requests(self) -> list[dict[str, Any]]:
        """Every chat-completions or Responses request the fake answered, oldest first."""
        return [r for r in read_log(self.folder / "requests.jsonl") if "body" in r]

    def summaries(self) -> list[dict[str, Any]]:
        return [r for r in self.model_requests() if r["kind"] == "summary"]

    def after(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The first model request after ``request`` that is not itself a compaction."""
        later = [
            r for r in self.model_requests() if r["n"] > request["n"] and r["kind"] != "summary"
        ]
        assert later, f"no model request after request {request['n']}"
        return later[0]

    def answered(self, marker: str) -> list[dict[str, Any]]:
        """The model requests whose owner prompt holds ``marker``."""
        return [r for r in self.model_requests() if marker in r.get("prompt", "")]


def request_text(request: Mapping[str, Any]) -> str:
    """Every text of one chat-completions or Responses request body, joined."""
    body = request["body"]
    parts: list[str] = [str(body.get("instructions") or "")]
    for item in list(body.get("messages") or []) + list(body.get("input") or []):
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(p.get("text", "")) for p in content if isinstance(p, dict)]
        if isinstance(item.get("output"), str):
            parts.append(item["output"])
    for system in body.get("system") or []:
        if isinstance(system, str):
            parts.append(system)
    return "\n".join(parts)


def run_isolated(runner: Path, spec: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Run ``runner`` with ``spec`` inside a fresh loopback-only network namespace."""
    spec_path = folder / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    done = subprocess.run(
        ["unshare", "--net", "--fork", "--", sys.executable, str(runner), str(spec_path)],
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(f"runner aborted (rc={done.returncode}): {done.stderr[-2000:]}")
    data: dict[str, Any] = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    return data
