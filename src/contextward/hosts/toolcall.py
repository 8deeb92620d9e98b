"""One tool call a host reported (PostToolUse): what is recorded of it, now or later.

Owns: turning the host's report into the rows the store keeps (the tool event
that counts the call once per ``tool_use_id``, the evidence run of a test
command or the loop brake's attempt of another shell command, the files it
modified) without the store, so that a call the store is too busy to take
within the hook's wait is spooled (``spool.append_tool``, masked) instead of
lost, and recorded by the next hook or command that opens the store
(``drain``) exactly as it would have been at once. All of a call's rows go in
one transaction: a call is recorded whole or not at all, and once only.

Must never: put a secret on disk unmasked (a spooled command is masked and its
streak key salted as the store keeps it), or let one damaged spool line stop
the others.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .. import spool
from ..errors import StoreError
from ..redact import mask
from ..store import Store, store_dir
from ..store.salt import key_salt
from ..store.text import storable, storable_key

#: Format of a spooled tool call (``spool.TOOL_SPOOL_NAME``).
SPOOL_VERSION = 1
#: A hook-recorded run keeps the last this many characters of its output (masked).
DIGEST_CHARS = 2000
#: How long a drain waits for a lock another process holds: the calls can wait for the next
#: store open, the hook that found them must not.
DRAIN_WAIT_S = 0.25
_EXIT_CODE = re.compile(r"[Ee]xit code (\d{1,3})")
#: A shell call that writes a checkpoint (``contextward checkpoint --focus …``, also as
#: ``.venv/bin/contextward`` or ``python -m contextward``).
_CHECKPOINT_RUN = re.compile(r"\bcontextward\s+checkpoint\b")
#: A spooled call with no ``tool_use_id`` gets its own key, so a second drain of the same
#: line (a process killed before it emptied the spool) counts it once.
_SPOOL_KEY = "spooled-"


@dataclass(frozen=True, slots=True)
class ToolCall:
    """What is recorded of one tool call; ``key`` is the host's ``tool_use_id`` ('' none).

    ``evidence``: the evidence ledger's fields for a test run; ``attempt``: the attempts
    ledger's fields for any other shell command; ``paths``: files it modified.
    """

    session_id: str
    host: str
    key: str
    tool: str
    output_chars: int | None
    evidence: Mapping[str, Any] | None = None
    attempt: Mapping[str, Any] | None = None
    paths: tuple[str, ...] = ()
    #: A ``contextward checkpoint`` that succeeded: this session's checkpoint.
    checkpoint: bool = False


def observe(
    *,
    session_id: str,
    host: str,
    root: Path,
    tool_name: str,
    tool_use_id: str,
    tool_input: Mapping[str, object],
    failed: bool,
    error: str = "",
    output: str = "",
    output_chars: int | None = None,
    unfinished: str = "",
    patched: tuple[str, ...] = (),
) -> ToolCall:
    """The record of one reported tool call (see ``hooks.post_tool`` for the arguments)."""
    from ..guard.fingerprint import assess, is_test_run
    from ..guard.loops import outcome_for

    command = tool_input.get("command")
    shell = tool_name == "Bash" and isinstance(command, str) and bool(command.strip())
    tested = shell and isinstance(command, str) and is_test_run(command)
    if output_chars is None and failed and error:
        output_chars = len(error)  # what the model got back from a failed call
    evidence: dict[str, Any] | None = None
    attempt: dict[str, Any] | None = None
    if shell and isinstance(command, str):
        code = _exit_code(error) if failed else 0
        if tested:
            found = assess(command)
            if unfinished and not code:
                found = replace(found, untrusted_reasons=(unfinished, *found.untrusted_reasons))
            verdict = "fail" if code else ("ok" if found.trusted else "untrusted")
            text = output or error
            evidence = {
                "command": command,
                "fingerprint": found.fingerprint,
                "streak_key": found.streak_key,
                "cwd": str(root),
                "exit_code": code,
                "duration_ms": 0,
                "verdict": verdict,
                "reasons": found.untrusted_reasons if verdict == "untrusted" else (),
                "digest": mask(text[-DIGEST_CHARS:]),
                "output_bytes": len(text.encode("utf-8", "replace")),
                "attempt_outcome": outcome_for(found, code),
            }
        else:
            found = assess(storable(command))
            # An exit status no one saw extends a failing streak but never clears one.
            seen = None if unfinished and not failed else code
            attempt = {
                "streak_key": found.streak_key,
                "fingerprint": found.fingerprint,
                "outcome": "unproven" if seen is None else outcome_for(found, seen),
                "exit_code": seen,
            }
    path = tool_input.get("file_path") or tool_input.get("notebook_path")
    paths = (path,) if isinstance(path, str) and path else patched
    return ToolCall(
        session_id=session_id,
        host=host,
        key=tool_use_id,
        tool=tool_name,
        output_chars=None if tested else output_chars,
        evidence=evidence,
        attempt=attempt,
        paths=() if failed else paths,
        checkpoint=shell and not failed and bool(_CHECKPOINT_RUN.search(str(command))),
    )


def record(store: Store, call: ToolCall) -> bool:
    """Store every row of ``call`` in one transaction; False when it was recorded before."""
    from ..state import StateProject, checkpoint_written, file_modified, tool_called

    with store.write():
        if not tool_called(
            store,
            call.session_id,
            key=call.key or None,
            tool=call.tool,
            output_chars=call.output_chars,
            evidence=call.evidence is not None,
        ):
            return False  # the same tool call reported twice
        if call.evidence is not None:
            store.evidence.record(**call.evidence, session_id=call.session_id)
        elif call.attempt is not None:
            store.attempts.record(**call.attempt, source=call.host, session_id=call.session_id)
        if call.checkpoint and store.root is not None:
            # The agent's shell knows no session: the hook names it, so this checkpoint
            # is this session's and no other's.
            checkpoint_written(store, call.session_id, project=StateProject.open(store.root))
        if call.paths and store.root is not None:
            project = StateProject.open(store.root)
            for one in call.paths:
                file_modified(store, call.session_id, one, project=project)
    return True


def spool_call(root: Path, call: ToolCall) -> bool:
    """Keep ``call`` for the next store open, masked as the store would keep it; False when
    the spool cannot take it (too large, full, not writable)."""
    directory = store_dir(root)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False

    def salt() -> bytes:
        return key_salt(directory)

    body: dict[str, object] = {
        "v": SPOOL_VERSION,
        "session_id": call.session_id,
        "host": call.host,
        "key": call.key or _SPOOL_KEY + secrets.token_hex(8),
        "tool": mask(storable(call.tool)),
        "output_chars": call.output_chars,
        "paths": [mask(storable(p)) for p in call.paths],
        "checkpoint": call.checkpoint,
    }
    if call.evidence is not None:
        body["evidence"] = {
            **call.evidence,
            "command": mask(storable(call.evidence["command"])),
            "fingerprint": mask(storable(call.evidence["fingerprint"])),
            "streak_key": storable_key(call.evidence["streak_key"], salt),
            "reasons": [mask(storable(r)) for r in call.evidence["reasons"]],
            "digest": mask(storable(call.evidence["digest"])),
        }
    if call.attempt is not None:
        body["attempt"] = {
            **call.attempt,
            "streak_key": storable_key(call.attempt["streak_key"], salt),
            "fingerprint": mask(storable(call.attempt["fingerprint"])),
        }
    try:
        return spool.append_tool(str(directory), body)
    except (OSError, StoreError):  # the salt file could not be made
        return False


def drain(store: Store) -> int:
    """Record the tool calls spooled while the store was busy; returns how many were new.

    Under the spool's lock: each call in its own transaction, so a store busy again
    part-way keeps the rest spooled (calls already recorded are recorded once: their
    key is in the store). A line that is no spooled call is dropped.
    """
    if store.root is None:
        return 0
    claim = spool.claim_tools(str(store_dir(store.root)))
    if claim is None:
        return 0
    added = 0
    with claim, store.patience(DRAIN_WAIT_S):
        pending = list(claim.records)
        while pending:
            call = _from_spool(pending[0])
            if call is not None:
                try:
                    added += record(store, call)
                except StoreError:
                    claim.done(keep=pending)  # busy or damaged: the rest waits
                    return added
            pending.pop(0)
        claim.done()
    return added


def _from_spool(body: Mapping[str, object]) -> ToolCall | None:
    """The call a spool line holds, or None when it is none (another version, damaged)."""
    if body.get("v") != SPOOL_VERSION:
        return None
    session_id, host, key, tool = (body.get(k) for k in ("session_id", "host", "key", "tool"))
    output_chars = body.get("output_chars")
    paths = body.get("paths")
    evidence = _fields(body.get("evidence"), _EVIDENCE_FIELDS)
    attempt = _fields(body.get("attempt"), _ATTEMPT_FIELDS)
    if not (
        isinstance(session_id, str)
        and isinstance(host, str)
        and isinstance(key, str)
        and key
        and isinstance(tool, str)
        and (output_chars is None or type(output_chars) is int)
        and isinstance(paths, list)
        and all(isinstance(p, str) for p in paths)
        and (evidence is not None or "evidence" not in body)
        and (attempt is not None or "attempt" not in body)
    ):
        return None
    if evidence is not None:
        evidence["reasons"] = tuple(evidence["reasons"])
    checkpoint = body.get("checkpoint") is True
    return ToolCall(
        session_id, host, key, tool, output_chars, evidence, attempt, tuple(paths), checkpoint
    )


_EVIDENCE_FIELDS: dict[str, tuple[type, ...]] = {
    "command": (str,),
    "fingerprint": (str,),
    "streak_key": (str,),
    "cwd": (str,),
    "exit_code": (int,),
    "duration_ms": (int,),
    "verdict": (str,),
    "reasons": (list,),
    "digest": (str,),
    "output_bytes": (int,),
    "attempt_outcome": (str,),
}
_ATTEMPT_FIELDS: dict[str, tuple[type, ...]] = {
    "streak_key": (str,),
    "fingerprint": (str,),
    "outcome": (str,),
    "exit_code": (int, type(None)),
}
_VALUES = {
    "verdict": ("ok", "fail", "untrusted", "timeout"),
    "attempt_outcome": ("success", "fail", "unproven"),
    "outcome": ("success", "fail", "unproven"),
}


def _fields(value: object, types: Mapping[str, tuple[type, ...]]) -> dict[str, Any] | None:
    """``value`` when it is a mapping of exactly these fields, each of its type."""
    if not isinstance(value, dict) or set(value) != set(types):
        return None
    for name, allowed in types.items():
        item = value[name]
        if type(item) not in allowed or (name in _VALUES and item not in _VALUES[name]):
            return None
        if name == "reasons" and not all(isinstance(r, str) for r in item):
            return None
    return dict(value)


def _exit_code(error: str) -> int:
    found = _EXIT_CODE.search(error)
    code = int(found.group(1)) if found else 1
    return code or 1


__all__ = ["ToolCall", "drain", "observe", "record", "spool_call"]
