"""Preflight: are the tools the project relies on present, and which versions?

Owns: probing each configured executable with ``--version`` (stdin closed,
a per-tool timeout, one overall deadline shared by all probes, at most
:data:`MAX_OUTPUT` bytes decoded), detecting the git worktree, and the
verdict: ``ok`` only when every tool answered and the project is a worktree.
A probe that timed out means "present, version unavailable", never missing.

Must never: run a tool with any argument but ``--version``, wait past the
deadline, or report more than :data:`MAX_TOOLS` tools (the rest are counted).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..redact import mask

__all__ = ["DEFAULT_TOOLS", "MAX_TOOLS", "Preflight", "ToolCheck", "preflight"]

DEFAULT_TOOLS: tuple[str, ...] = ("git", "python3", "pip", "node", "npm", "rg", "pytest")
MAX_TOOLS = 20
MAX_OUTPUT = 4096
_VERSION_CHARS = 120

Status = Literal["ok", "missing", "no-version"]


@dataclass(frozen=True)
class ToolCheck:
    name: str
    status: Status
    version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "version": self.version}


@dataclass(frozen=True)
class Preflight:
    tools: tuple[ToolCheck, ...]
    worktree: bool
    omitted: int = 0
    elapsed_ms: int = 0

    @property
    def verdict(self) -> Literal["ok", "warn"]:
        complete = all(t.status == "ok" for t in self.tools)
        return "ok" if complete and self.worktree and not self.omitted else "warn"

    @property
    def problems(self) -> tuple[str, ...]:
        out = [f"{t.name}: {t.status}" for t in self.tools if t.status != "ok"]
        if not self.worktree:
            # Without git nothing can tell: say what is missing, not what it implies.
            git = next((t for t in self.tools if t.name == "git"), None)
            no_git = (git is not None and git.status == "missing") or shutil.which("git") is None
            out.append(
                "git worktree: unknown (git is missing)" if no_git else "not inside a git worktree"
            )
        if self.omitted:
            out.append(f"{self.omitted} more tools configured than checked (max {MAX_TOOLS})")
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "verdict": self.verdict,
            "worktree": self.worktree,
            "tools": [t.to_dict() for t in self.tools],
            "omitted": self.omitted,
            "problems": list(self.problems),
            "elapsed_ms": self.elapsed_ms,
        }


def preflight(
    tools: Sequence[str] = DEFAULT_TOOLS,
    *,
    cwd: Path | None = None,
    per_tool_timeout: float = 2.0,
    deadline: float = 15.0,
) -> Preflight:
    """Probe ``tools`` (first :data:`MAX_TOOLS`, duplicates dropped) within ``deadline`` seconds."""
    start = time.monotonic()
    names = list(dict.fromkeys(t.strip() for t in tools if t.strip()))
    omitted = max(0, len(names) - MAX_TOOLS)
    names = names[:MAX_TOOLS]
    end = start + deadline

    def probe(name: str) -> ToolCheck:
        return _probe(name, per_tool_timeout, end)

    with ThreadPoolExecutor(max_workers=max(1, min(8, len(names)))) as pool:
        checks = tuple(pool.map(probe, names))
    worktree = _in_worktree(
        cwd or Path.cwd(), min(per_tool_timeout, max(0.1, end - time.monotonic()))
    )
    elapsed = int((time.monotonic() - start) * 1000)
    return Preflight(checks, worktree, omitted, elapsed)


def _probe(name: str, per_tool: float, end: float) -> ToolCheck:
    path = shutil.which(name)
    if path is None:
        return ToolCheck(name, "missing")
    budget = min(per_tool, end - time.monotonic())
    if budget <= 0:
        return ToolCheck(name, "no-version", "(deadline reached)")
    try:
        proc = subprocess.Popen(
            [path, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            # Its own process group, so a timeout can end the children that hold the pipe.
            start_new_session=True,
        )
    except OSError:
        return ToolCheck(name, "no-version", "(could not start)")
    try:
        out, _ = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return ToolCheck(name, "no-version", "(version unavailable: timed out)")
    text = out[:MAX_OUTPUT].decode("utf-8", "replace")
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not first:
        return ToolCheck(name, "no-version", "(no version output)")
    return ToolCheck(name, "ok", mask(first)[:_VERSION_CHARS])


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    if hasattr(os, "killpg"):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()


def _in_worktree(cwd: Path, timeout: float) -> bool:
    if shutil.which("git") is None:
        return False
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == b"true"
