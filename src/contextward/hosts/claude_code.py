"""Claude Code hooks: one payload on stdin, the answer in Claude Code's own fields.

Event -> engine (``hooks``) -> output:

    SessionStart        additionalContext: brief + state (on source=compact: restore block first)
    UserPromptSubmit    additionalContext: only what is new since the last injection
    PreToolUse (Bash)   permissionDecision deny (loop brake) / ask (risky); benign: no output
    PostToolUse(+Failure) nothing; the outcome is recorded once per tool_use_id
    PreCompact          plain stdout: guidance (Claude Code passes it to the summariser)
    SubagentStop        nothing; the summariser's answer is checked (it is the first place
                        the new summary exists, before SessionStart(compact) runs)
    PostCompact         nothing; compact_summary is checked again and the compaction closed
    Stop / SessionEnd   nothing; the automatic log entry when no checkpoint was written

Fail-open: any internal error exits 0 with no stdout and one line on stderr.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import IO, Any

from . import hooks
from .hookio import run_adapter
from .hooks import Reply, Session

HOST = "claude"


def handle(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The stdout for one payload ('' for none)."""
    return hooks.dispatch(payload, env, host=HOST, handlers=HANDLERS, render=render)


def render(event: str, reply: Reply) -> str:
    if reply.empty:
        return ""
    if reply.plain:
        return reply.plain + "\n"
    specific: dict[str, Any] = {"hookEventName": event}
    if reply.decision is not None:
        specific["permissionDecision"] = reply.decision
        specific["permissionDecisionReason"] = reply.reason
    if reply.context:
        specific["additionalContext"] = reply.context
    return json.dumps({"hookSpecificOutput": specific}, ensure_ascii=False) + "\n"


def oversized(event: str, tool: str) -> str:
    """A payload too large to read: a shell command (or a tool the bytes do not name)
    about to run is asked about, never let through unread."""
    if event != "PreToolUse" or tool not in ("", "Bash"):
        return ""
    return render(event, Reply(decision="ask", reason=hooks.UNREAD))


def run(
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """``contextward hook claude``: one payload in, Claude Code's fields out, always exit 0."""
    return run_adapter(
        handle, stdin=stdin, stdout=stdout, stderr=stderr, env=env, oversized=oversized
    )


def _session_start(session: Session, payload: Mapping[str, Any]) -> Reply:
    source = hooks.text_field(payload, "source")
    if source == "compact":
        hooks.summary_from_transcript(
            session, payload.get("transcript_path"), transcript_format="claude-code"
        )
    return hooks.session_start(session, source=source)


def _prompt(session: Session, payload: Mapping[str, Any]) -> Reply:
    text = hooks.text_field(payload, "prompt")
    if not text.strip():
        return hooks.SILENT
    return hooks.prompt(session, text, payload.get("prompt_id"))


def _pre_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    tool_input = payload.get("tool_input")
    if payload.get("tool_name") != "Bash" or not isinstance(tool_input, Mapping):
        return hooks.SILENT
    command = tool_input.get("command")
    return hooks.pre_shell(session, command) if isinstance(command, str) else hooks.SILENT


def _post_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    output = ""
    size = None
    unfinished = ""
    if isinstance(response, Mapping):
        # Claude Code's Bash reports a background start and an interrupted run as done.
        if response.get("backgroundTaskId"):
            unfinished = hooks.BACKGROUND
        elif response.get("interrupted") is True:
            unfinished = hooks.INTERRUPTED
    if isinstance(response, Mapping) and ("stdout" in response or "stderr" in response):
        parts = [v for v in (response.get("stdout"), response.get("stderr")) if isinstance(v, str)]
        output, size = "\n".join(parts), sum(map(len, parts))
    elif isinstance(response, str):
        size = len(response)
    elif response is not None:  # a file read, a search: what the model got back, as JSON
        size = len(json.dumps(response, ensure_ascii=False, default=str))
    return hooks.post_tool(
        session,
        tool_name=hooks.text_field(payload, "tool_name"),
        tool_use_id=hooks.text_field(payload, "tool_use_id"),
        tool_input=tool_input if isinstance(tool_input, Mapping) else {},
        failed=payload["hook_event_name"] == "PostToolUseFailure",
        error=hooks.text_field(payload, "error"),
        output=output,
        output_chars=size,
        unfinished=unfinished,
    )


def _pre_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    return hooks.pre_compact(
        session,
        payload.get("transcript_path"),
        trigger=hooks.text_field(payload, "trigger") or "auto",
        transcript_format="claude-code",
    )


def _subagent_stop(session: Session, payload: Mapping[str, Any]) -> Reply:
    if hooks.text_field(payload, "agent_type"):
        # A named subagent ("Explore", "general-purpose") stopping while a compaction is
        # pending is no summary: Claude Code's summariser has an empty agent type.
        return hooks.SILENT
    return hooks.summary_seen(
        session, hooks.text_field(payload, "last_assistant_message"), source="subagent"
    )


def _post_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    reply = hooks.summary_seen(
        session, hooks.text_field(payload, "compact_summary"), source="post_compact"
    )
    hooks.compaction_done(session)
    return reply


def _stop(session: Session, payload: Mapping[str, Any]) -> Reply:
    return hooks.stop(session, final=payload["hook_event_name"] == "SessionEnd")


HANDLERS: dict[str, Callable[[Session, Mapping[str, Any]], Reply]] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _prompt,
    "PreToolUse": _pre_tool,
    "PostToolUse": _post_tool,
    "PostToolUseFailure": _post_tool,
    "PreCompact": _pre_compact,
    "SubagentStop": _subagent_stop,
    "PostCompact": _post_compact,
    "Stop": _stop,
    "SessionEnd": _stop,
}
