"""Codex CLI hooks: Claude-compatible payloads, with Codex's limits.

Codex's PreCompact and PostCompact accept no context and ignore plain stdout,
and no compaction summary reaches a hook; so PreCompact only stores the
snapshot, and SessionStart(source=compact) restores every critical item of
it (the conservative answer when no check could run). Everything else is
answered exactly as for Claude Code.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from typing import IO, Any

from . import claude_code, hooks
from .hookio import run_adapter
from .hooks import Reply, Session

HOST = "codex"


def _command(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """Codex may send the shell command as an argv list; the engine wants one string."""
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, Mapping) and isinstance(tool_input.get("command"), list):
        words = [w for w in tool_input["command"] if isinstance(w, str)]
        return {**payload, "tool_input": {**tool_input, "command": shlex.join(words)}}
    return payload


def _pre_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    hooks.pre_compact(session, payload.get("transcript_path"), trigger="codex")
    return hooks.SILENT  # Codex rejects context on compact events


def _post_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    return hooks.SILENT  # no summary is given; SessionStart(compact) restores conservatively


def _post_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    response = payload.get("tool_response")
    failed = False
    if isinstance(response, Mapping):
        code = response.get("exit_code", response.get("exitCode"))
        failed = isinstance(code, int) and code != 0
        if failed:
            payload = {**payload, "error": f"Exit code {code}"}
    return claude_code.HANDLERS["PostToolUseFailure" if failed else "PostToolUse"](
        session, {**payload, "hook_event_name": "PostToolUseFailure" if failed else "PostToolUse"}
    )


_HANDLERS: dict[str, Callable[[Session, Mapping[str, Any]], Reply]] = {
    **claude_code.HANDLERS,
    "PreCompact": _pre_compact,
    "PostCompact": _post_compact,
    "PostToolUse": _post_tool,
}


def handle(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    event = payload["hook_event_name"]
    handler = _HANDLERS.get(event)
    if handler is None or hooks.switched_off(event, env):
        return ""
    payload = _command(payload)
    session = Session.locate(payload.get("cwd"), payload.get("session_id"), HOST, env)
    return claude_code.render(event, handler(session, payload))


def run(
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """``contextward hook codex``."""
    return run_adapter(handle, stdin=stdin, stdout=stdout, stderr=stderr, env=env)
