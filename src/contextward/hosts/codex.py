"""Codex CLI hooks: Claude-compatible payloads, with Codex's limits.

Codex's PreCompact and PostCompact accept no context and ignore plain stdout,
and no compaction summary reaches a hook's payload. So PreCompact stores the
snapshot (read from the rollout JSONL at ``transcript_path``) and notes where
the rollout ends; PostCompact checks the summary Codex has written to the
rollout since then; SessionStart(source=compact) restores what that check
found lost or changed, or every critical item of the snapshot when no
summary could be found (the conservative answer when no check could run).

Codex's PostToolUse for ``Bash`` carries the command's output as a string and
no exit code (0.171.0). The exit code is taken from the rollout instead: by
the time the hook runs, Codex has written the command's ``item_completed``
event (``CommandExecution`` with ``exit_code``) for that ``call_id``. When no
exit code can be established, the attempt is recorded as *unproven*, never
as a success, so a failure Codex does not report cannot reset a loop streak.
Codex sends no SessionEnd, so a Codex session would never end and what its
last compaction lost would never reach the next session. A SessionStart ends
the earlier Codex sessions of the project that are over: one whose Codex
process has exited, or (a new conversation: ``startup``, ``clear``) one the
same Codex process ran before. Where the process cannot be told (no
``/proc``, no ``codex`` process above the hook), a new conversation ends the
earlier Codex sessions that went idle (their last turn's Stop) and did
nothing since. A session ended wrongly comes back with its next event.
Everything else is answered exactly as for Claude Code.

Must never: write to the rollout, treat an unknown outcome as a success, or
end a session whose Codex process is running another conversation.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, TypeGuard

from ..errors import StoreError
from ..fsutil import open_regular
from . import claude_code, hooks
from .hookio import run_adapter
from .hooks import Reply, Session

HOST = "codex"
#: Session data key: the rollout's size when PreCompact ran.
OFFSET_KEY = "codex_rollout_offset"
#: How far back from the rollout's end the outcome of a call is looked for (bytes).
TAIL_WINDOWS = (64 * 1024, 4 * 1024 * 1024)
#: Pauses before looking again: Codex's rollout writer may lag the hook a moment.
RETRY_PAUSES = (0.05, 0.1)
#: Session data key: ``[pid, start time]`` of the Codex process that ran the session.
PROCESS_KEY = "codex_process"
#: SessionStart sources that begin a new conversation (``resume``, ``compact`` go on one).
NEW_CONVERSATION = frozenset({"startup", "clear"})
#: How many processes above a hook are looked at for the Codex process.
_ANCESTORS = 8


def _command(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """Codex may send the shell command as an argv list; the engine wants one string."""
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, Mapping) and isinstance(tool_input.get("command"), list):
        words = [w for w in tool_input["command"] if isinstance(w, str)]
        return {**payload, "tool_input": {**tool_input, "command": shlex.join(words)}}
    return payload


def _session_start(session: Session, payload: Mapping[str, Any]) -> Reply:
    """End the Codex sessions this start shows are over, then answer as Claude Code's."""
    source = hooks.text_field(payload, "source")
    # A store that cannot be written now (busy, damaged) must not cost the brief: the
    # sessions end at a later start.
    with contextlib.suppress(StoreError):
        end_earlier(session, new=source in NEW_CONVERSATION, process=host_process())
    return claude_code.HANDLERS["SessionStart"](session, payload)


def end_earlier(session: Session, *, new: bool, process: list[int] | None) -> list[str]:
    """End the project's other Codex sessions that are over (see the module docstring) and
    note ``process`` as this session's; the ids ended, oldest first.

    Runs before the session's brief, so a session ended here counts as one that ended
    before this one started: what its last compaction lost reaches this session's brief.
    """
    from ..state import StateError, StateProject, session_end
    from ..state.session import ENDED, IDLE

    ended: list[str] = []
    with session.open() as store:
        others = [
            row
            for row in store.sessions.list(limit=store.retention.sessions)
            if row.host == HOST and row.status != ENDED and row.id != session.session_id
        ]
        for row in reversed(others):
            theirs = row.data.get(PROCESS_KEY)
            if _is_process(theirs):
                over = not _running(theirs) or (new and theirs == process)
            else:  # nothing tells its process: a new conversation ends an idle one
                over = new and row.status == IDLE
            if not over:
                continue
            try:
                session_end(store, row.id, project=StateProject.open(session.root))
            except StateError:  # no STATE.md to log to: the session still ends
                store.sessions.end(row.id)
            ended.append(row.id)
        if process is not None:
            if store.sessions.get(session.session_id) is None:
                store.sessions.start(session.session_id, host=HOST)
            store.sessions.update(session.session_id, {PROCESS_KEY: process})
    return ended


def _is_process(value: object) -> TypeGuard[list[int]]:
    return (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )


def host_process() -> list[int] | None:
    """``[pid, start time]`` of the Codex process that runs this hook: the nearest process
    above it named ``codex…`` (Linux ``/proc``); None when there is none to be found."""
    pid = os.getppid()
    for _ in range(_ANCESTORS):
        found = _proc_stat(pid)
        if found is None:
            return None
        name, parent, started = found
        if name.startswith("codex"):
            return [pid, started]
        if parent <= 1:
            return None
        pid = parent
    return None


def _running(process: list[int]) -> bool:
    """Whether the process is still the one recorded (same pid, same start time)."""
    found = _proc_stat(process[0])
    return found is not None and found[2] == process[1]


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """``(name, parent pid, start time in clock ticks)`` of a process from ``/proc``."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as handle:
            raw = handle.read()
        # "pid (name) state ppid …": the name may hold spaces and parentheses.
        name = raw[raw.index("(") + 1 : raw.rindex(")")]
        fields = raw[raw.rindex(")") + 2 :].split()
        return name, int(fields[1]), int(fields[19])
    except (OSError, ValueError, IndexError):
        return None


def _pre_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    path = payload.get("transcript_path")
    # Where the rollout ends before it is read: this compaction's summary comes after it.
    size: int | None = None
    with contextlib.suppress(OSError, ValueError):  # ValueError: a NUL byte in the path
        size = Path(path).stat().st_size if isinstance(path, str) and path else None
    trigger = payload.get("trigger")
    hooks.pre_compact(
        session, path, trigger=trigger if isinstance(trigger, str) and trigger else "auto"
    )
    if size is not None:
        with session.open() as store:
            if store.sessions.get(session.session_id) is None:
                store.sessions.start(session.session_id, host=session.host)
            store.sessions.update(session.session_id, {OFFSET_KEY: size})
    return hooks.SILENT  # Codex rejects context on compact events


def _post_compact(session: Session, payload: Mapping[str, Any]) -> Reply:
    """Check the summary Codex wrote to the rollout since PreCompact, when there is one.

    No summary reaches the hook itself; Codex 0.171.0 has written it to the rollout
    (``compacted``) by the time PostCompact runs. When it cannot be found, nothing is
    checked and SessionStart(compact) restores every critical item of the snapshot.
    """
    summary = _summary_since(session, payload.get("transcript_path"))
    if summary:
        hooks.summary_seen(session, summary, source="post_compact")
    hooks.compaction_done(session)
    return hooks.SILENT


def _summary_since(session: Session, path: object) -> str:
    """The last host summary in the rollout after the offset PreCompact recorded ('' if none)."""
    from ..inspect import InspectError, open_transcript

    if not isinstance(path, str) or not path:
        return ""
    with session.open() as store:
        known = store.sessions.get(session.session_id)
        offset = known.data.get(OFFSET_KEY) if known is not None else None
        if offset is not None:
            store.sessions.update(session.session_id, {OFFSET_KEY: None})  # one use per mark
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        return ""  # without PreCompact's mark an older compaction's summary could be taken
    summary = ""
    try:
        with open_regular(path) as stream:  # a FIFO must not hang the hook
            stream.seek(offset)
            for message in open_transcript(stream, "codex").messages:
                if message.summary:
                    summary = message.text
    except (OSError, InspectError):
        return ""
    return summary


def _post_tool(session: Session, payload: Mapping[str, Any]) -> Reply:
    code = _response_exit_code(payload.get("tool_response"))
    if code is None and payload.get("tool_name") == "Bash":
        call_id = payload.get("tool_use_id")
        if isinstance(call_id, str) and call_id:
            code = rollout_exit_code(payload.get("transcript_path"), call_id)
        if code is None:
            return _unproven(session, payload)
    failed = code is not None and code != 0
    if failed:
        payload = {**payload, "error": f"Exit code {code}"}
    event = "PostToolUseFailure" if failed else "PostToolUse"
    return claude_code.HANDLERS[event](session, {**payload, "hook_event_name": event})


def _response_exit_code(response: object) -> int | None:
    """The exit code when the payload carries one (an object ``tool_response``)."""
    if not isinstance(response, Mapping):
        return None
    code = response.get("exit_code", response.get("exitCode"))
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _unproven(session: Session, payload: Mapping[str, Any]) -> Reply:
    """A shell command whose exit code is unknown: an unproven attempt, once per call."""
    from ..guard.fingerprint import assess
    from ..state import tool_called
    from ..store import storable

    tool_input = payload.get("tool_input")
    command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
    if not isinstance(command, str) or not command.strip():
        return hooks.SILENT
    call_id = payload.get("tool_use_id")
    key = call_id if isinstance(call_id, str) and call_id else None
    with session.open() as store:
        if not tool_called(store, session.session_id, key=key, tool="Bash"):
            return hooks.SILENT  # the same tool call reported twice
        found = assess(storable(command))
        # No evidence row either: a test run whose result is unknown proves nothing.
        store.attempts.record(
            streak_key=found.streak_key,
            fingerprint=found.fingerprint,
            outcome="unproven",
            source=session.host,
            session_id=session.session_id,
        )
    return hooks.SILENT


def rollout_exit_code(path: object, call_id: str) -> int | None:
    """The exit code Codex wrote to its rollout for ``call_id``, or None when there is none."""
    if not isinstance(path, str) or not path or not call_id:
        return None
    rollout = Path(path)
    for pause in (0.0, *RETRY_PAUSES):
        if pause:
            time.sleep(pause)
        try:
            code = _scan(rollout, call_id)
        except OSError:
            return None
        if code is not None:
            return code
    return None


def _scan(rollout: Path, call_id: str) -> int | None:
    """Read the rollout backwards from its end until the call's outcome or the call itself."""
    needle = json.dumps(call_id).encode()
    with open_regular(rollout) as stream:  # a FIFO must not hang the hook
        size = stream.seek(0, 2)
        for window in TAIL_WINDOWS:
            start = max(0, size - window)
            stream.seek(start)
            lines = stream.read(size - start).split(b"\n")
            if start:
                lines = lines[1:]  # cut mid-line by the window
            for line in reversed(lines):
                if needle not in line:
                    continue
                code, is_call = _outcome(line, call_id)
                if code is not None:
                    return code
                if is_call:
                    return None  # nothing before the call can hold its outcome
            if not start:
                return None
    return None


def _outcome(line: bytes, call_id: str) -> tuple[int | None, bool]:
    """``(exit code, is the call itself)`` for one rollout line that names ``call_id``."""
    try:
        entry = json.loads(line)
    except (ValueError, RecursionError):
        return None, False  # a line being written (torn) or not JSON
    payload = entry.get("payload") if isinstance(entry, dict) else None
    if not isinstance(payload, dict):
        return None, False
    kind = payload.get("type")
    value: object = None
    if entry.get("type") == "event_msg":
        item = payload.get("item")
        if kind == "item_completed" and isinstance(item, dict):
            # 0.171.0: {"type": "CommandExecution", "id": call_id, "exit_code": N, ...}
            if item.get("type") == "CommandExecution" and item.get("id") == call_id:
                value = item.get("exit_code")
        elif kind == "exec_command_end" and payload.get("call_id") == call_id:
            value = payload.get("exit_code")  # the event older releases wrote
    elif entry.get("type") == "response_item" and payload.get("call_id") == call_id:
        if kind == "function_call_output":
            from ..inspect.readers.codex import exit_code_of

            value = exit_code_of(payload.get("output"))
        elif kind in ("function_call", "local_shell_call", "custom_tool_call"):
            return None, True
    if isinstance(value, int) and not isinstance(value, bool):
        return value, False
    return None, False


_HANDLERS: dict[str, Callable[[Session, Mapping[str, Any]], Reply]] = {
    **claude_code.HANDLERS,
    "SessionStart": _session_start,
    "PreCompact": _pre_compact,
    "PostCompact": _post_compact,
    "PostToolUse": _post_tool,
}


def handle(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    return hooks.dispatch(
        _command(payload), env, host=HOST, handlers=_HANDLERS, render=claude_code.render
    )


def run(
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """``contextward hook codex``."""
    return run_adapter(
        handle,
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        env=env,
        oversized=claude_code.oversized,
    )
