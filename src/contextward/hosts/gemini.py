"""Gemini CLI hooks: Gemini's events and its JSON-only stdout.

    SessionStart   additionalContext: brief + state
    BeforeAgent    additionalContext: the prompt's delta; after a compression, the restore block
    BeforeTool     shell commands: {"decision": "deny"} for the loop brake and for risky
                   commands (Gemini has no "ask": the reason tells the agent to ask the owner)
    AfterTool      the outcome, once per call
    PreCompress    the snapshot (advisory: Gemini lets nothing shape its compression)
    SessionEnd     the automatic log entry

Gemini's SessionStart has no ``compact`` source, so the restore block rides on
the first prompt after a compression.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import IO, Any

from . import hooks
from .hookio import run_adapter
from .hooks import Reply, Session

HOST = "gemini"
_SHELL_TOOLS = frozenset({"run_shell_command", "shell", "Bash"})


def _session_start(session: Session, payload: Mapping[str, Any]) -> Reply:
    return hooks.session_start(session, source=hooks.text_field(payload, "source"))


def _before_agent(session: Session, payload: Mapping[str, Any]) -> Reply:
    text = hooks.text_field(payload, "prompt")
    prompt_id = hashlib.sha256(
        f"{hooks.text_field(payload, 'timestamp')}\0{text}".encode()
    ).hexdigest()
    delta = hooks.prompt(session, text, prompt_id) if text.strip() else hooks.SILENT
    restore = hooks.restore_after_compaction(session)
    context = "\n\n".join(part for part in (restore, delta.context) if part)
    return Reply(context=hooks.bounded(context)) if context else hooks.SILENT


def _before_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    tool_input = payload.get("tool_input")
    if hooks.text_field(payload, "tool_name") not in _SHELL_TOOLS or not isinstance(
        tool_input, Mapping
    ):
        return hooks.SILENT
    command = tool_input.get("command")
    if not isinstance(command, str):
        return hooks.SILENT
    reply = hooks.pre_shell(session, command)
    if reply.decision != "ask":
        return reply
    # Gemini cannot ask the owner: refused once, then let through when the agent comes
    # back with the same command (after asking). A store that cannot say refuses.
    from ..guard.confirm import ASK_FIRST, refusal

    try:
        with session.open() as store:
            refused = refusal(store, command, reply.reason, session_id=session.session_id)
    except Exception:
        refused = f"{reply.reason}. {ASK_FIRST}."
    return Reply(decision="deny", reason=refused) if refused else hooks.SILENT


#: How Gemini CLI's shell tool reports its outcome in ``llmContent``: "Exit Code: 1",
#: "Error: …" and "Signal: …" (each "(none)" when there was none).
_EXIT_LINE = re.compile(r"^Exit Code: (\d{1,3})\s*$", re.M)
_FAILED_LINE = re.compile(r"^(?:Error|Signal): (?!\(none\))\S", re.M)


def _exit_code(response: Mapping[str, Any], output: str) -> int:
    """The exit status of a shell call: a field if the host gives one, else what the tool's
    text says, else 1 when it reports an error; 0 only when nothing says it failed."""
    raw = response.get("exit_code", response.get("exitCode"))
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if (line := _EXIT_LINE.search(output)) is not None:
        return int(line.group(1))
    if response.get("error") or _FAILED_LINE.search(output):
        return 1
    return 0


def _after_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    tool_input = payload.get("tool_input")
    response = payload.get("tool_response")
    code = 0
    output = ""
    if isinstance(response, Mapping):
        output = "\n".join(
            v for v in (response.get("output"), response.get("llmContent")) if isinstance(v, str)
        )
        code = _exit_code(response, output)
    name = hooks.text_field(payload, "tool_name")
    call_id = hashlib.sha256(
        f"{hooks.text_field(payload, 'timestamp')}\0{json.dumps(tool_input, sort_keys=True, default=str)}".encode(
            "utf-8", "surrogatepass"
        )
    ).hexdigest()[:24]
    return hooks.post_tool(
        session,
        tool_name="Bash" if name in _SHELL_TOOLS else name,
        tool_use_id=call_id,
        tool_input=tool_input if isinstance(tool_input, Mapping) else {},
        failed=code != 0,
        error=f"Exit code {code}" if code else "",
        output=output,
    )


def _pre_compress(session: Session, payload: Mapping[str, Any]) -> Reply:
    hooks.pre_compact(
        session,
        payload.get("transcript_path"),
        trigger=hooks.text_field(payload, "trigger") or "auto",
    )
    hooks.mark_restore_due(session)
    return hooks.SILENT


def _session_end(session: Session, payload: Mapping[str, Any]) -> Reply:
    return hooks.stop(session, final=True)


_HANDLERS: dict[str, Callable[[Session, Mapping[str, Any]], Reply]] = {
    "SessionStart": _session_start,
    "BeforeAgent": _before_agent,
    "BeforeTool": _before_tool,
    "AfterTool": _after_tool,
    "PreCompress": _pre_compress,
    "SessionEnd": _session_end,
}


def render(event: str, reply: Reply) -> str:
    if reply.empty:
        return ""
    if reply.decision is not None:
        return json.dumps({"decision": "deny", "reason": reply.reason}, ensure_ascii=False) + "\n"
    body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": reply.context}}
    return json.dumps(body, ensure_ascii=False) + "\n"


def oversized(event: str, tool: str) -> str:
    """A shell command in a payload too large to read is refused: Gemini cannot ask, and
    a payload that is not read cannot be recognised when the agent comes back with it."""
    if event != "BeforeTool" or tool not in _SHELL_TOOLS | {""}:
        return ""
    reason = f"{hooks.UNREAD}; ask the owner to run it, or send a shorter command"
    return render(event, Reply(decision="deny", reason=reason))


def handle(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The stdout for one payload ('' for none)."""
    return hooks.dispatch(payload, env, host=HOST, handlers=_HANDLERS, render=render)


def run(
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """``contextward hook gemini``."""
    return run_adapter(
        handle, stdin=stdin, stdout=stdout, stderr=stderr, env=env, oversized=oversized
    )
