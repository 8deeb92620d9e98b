"""The process entry points: the ``contextward`` script and the installed hooks.

A hook must never break its host, even when contextward itself cannot be
loaded: an upgrade under a running session (``pip install -U``, an editable
checkout mid-edit) can leave any module raising at import. So this module
imports nothing of contextward at module level (its package ``__init__`` holds
only the version) and wraps every import and run of a hook in one boundary:
any exception is one line on stderr naming its type (never a traceback or
payload content), nothing on stdout, exit 0. One exception fails closed,
as for a damaged store: a shell command about to run that the risky-command
guard, loaded on its own, finds risky is still put to the owner (Claude Code,
Codex: ``ask``; Gemini CLI, which cannot ask: refused, saying to ask first).

``contextward hook HOST`` is answered here without loading the command line
(click, every command module), so a module only a command imports cannot
break a hook; any other command goes to ``contextward.cli``, and a command
line that cannot be loaded is one line, exit 2.

Must never: import contextward at module level, print to stdout anything but a
host's answer, or let an exception out of ``run_hook``.
"""

from __future__ import annotations

import io
import os
import sys

# No contextlib, json or importlib at module level: this module is on every hook's path.

#: ``contextward hook HOST`` -> the adapter module under ``contextward.hosts``.
ADAPTERS = {"claude": "claude_code", "codex": "codex", "gemini": "gemini"}
#: The events and tools of a shell command about to run, per host.
_PRE_SHELL = {
    "claude": ("PreToolUse", frozenset({"Bash"})),
    "codex": ("PreToolUse", frozenset({"Bash"})),
    "gemini": ("BeforeTool", frozenset({"run_shell_command", "shell", "Bash"})),
}
#: What Gemini CLI is told besides why (``guard.confirm.ASK_FIRST``, which may not load).
_ASK_FIRST = "Ask the owner first; if they agree, run the same command again"
#: A payload larger than this is not read here either (``hosts.hookio.MAX_PAYLOAD``).
_MAX_PAYLOAD = 8 * 1024 * 1024


def run_hook(host: str, data: bytes | None = None) -> int:
    """Answer one hook payload (``data``, else stdin) for ``host``; always 0."""
    try:
        if data is None:
            data = sys.stdin.buffer.read() if sys.stdin is not None else b""
    except Exception:
        data = b""
    try:
        from contextward.fastpath import answer

        if answer(data) is not None:
            return 0  # recorded; nothing to inject
    except Exception:  # the full path below decides, and fails open itself
        pass
    try:
        import importlib

        adapter = importlib.import_module("contextward.hosts." + ADAPTERS.get(host, "claude_code"))
        adapter.run(stdin=io.BytesIO(data))
    except Exception as exc:
        _failed(host, data, exc)
    return 0


def _failed(host: str, data: bytes, exc: Exception) -> None:
    """contextward could not answer: one line, and the question of a risky shell command."""
    payload = _payload(data)
    event = payload.get("hook_event_name")
    name = "".join(ch for ch in event[:40] if ch.isalnum()) if isinstance(event, str) else ""
    try:  # noqa: SIM105 (contextlib costs a hook's start more than the rest of this module)
        sys.stderr.write(
            f"contextward: {name or 'unknown'} hook failed ({type(exc).__name__}); continuing\n"
        )
    except Exception:
        pass
    try:
        answer = _still_ask(host, payload)
        if answer and sys.stdout is not None:
            sys.stdout.buffer.write(answer.encode("utf-8", "replace"))
            sys.stdout.flush()
    except Exception:  # the guard itself cannot load: nothing more to say
        pass


def _payload(data: bytes) -> dict[str, object]:
    import json

    if len(data) > _MAX_PAYLOAD:
        return {}  # not read (``hookio.MAX_PAYLOAD``, which may not load)
    try:
        payload = json.loads(data.decode("utf-8-sig"))
    except Exception:
        return {}
    return payload if isinstance(payload, dict) else {}


def _still_ask(host: str, payload: dict[str, object]) -> str:
    """The host's answer putting a risky shell command to the owner, or ""."""
    import json

    event, tools = _PRE_SHELL.get(host, _PRE_SHELL["claude"])
    off = {p.strip().lower() for p in os.environ.get("CONTEXTWARD_HOOKS_OFF", "").split(",")}
    if payload.get("hook_event_name") != event or "all" in off or event.lower() in off:
        return ""
    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, dict) else None
    if isinstance(command, list):  # Codex may send argv
        import shlex

        command = shlex.join(w for w in command if isinstance(w, str))
    if payload.get("tool_name") not in tools or not isinstance(command, str):
        return ""
    from contextward.guard.confirm import question

    why = question(command)
    if not why:
        return ""
    if host == "gemini":
        return json.dumps({"decision": "deny", "reason": f"{why}. {_ASK_FIRST}."}) + "\n"
    specific = {
        "hookEventName": event,
        "permissionDecision": "ask",
        "permissionDecisionReason": why,
    }
    return json.dumps({"hookSpecificOutput": specific}, ensure_ascii=False) + "\n"


def main() -> None:
    """The ``contextward`` script: a hook answered directly, any other command by the CLI."""
    argv = sys.argv[1:]
    if len(argv) == 2 and argv[0] == "hook" and argv[1] in ADAPTERS:
        sys.exit(run_hook(argv[1]))
    try:
        from contextward.cli import main as cli
    except Exception as exc:
        sys.stderr.write(
            f"contextward: error: contextward could not be loaded ({type(exc).__name__});"
            " reinstall it\n"
        )
        sys.exit(2)
    cli()


__all__ = ["ADAPTERS", "main", "run_hook"]
