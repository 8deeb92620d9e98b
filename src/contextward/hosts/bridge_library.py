"""Bridge operations backed by the library: inspection, guidance, the loop brake, the
brief, the state block and the session lifecycle.

Owns: checking each operation's arguments, calling one library function, and
making its value JSON-safe; the host-model adapter of provider mode
(`HostCandidates`); a small cache so ``guidance`` can reuse the inspection a
host just reviewed.

Must never: implement policy (that is the library's), read a project file a
request names outside the project (a host transcript is read where it is),
or put conversation content in an error. Imported on the first call of one of
its operations, so ``ping`` answers even when a library part is broken.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..brief import render_brief
from ..brief.state_block import state_block as render_state_block
from ..guard.loops import check, record_outcome
from ..inspect import (
    MEMORY_KINDS,
    InspectionResult,
    Message,
    build_guidance,
    inspect_stream,
    parse_decisions,
)
from ..redact import mask
from ..state import session_end, session_start, tool_called
from ..state.project import StateProject
from ..store import Store, project_root
from .bridge import OperationContext, Provider
from .bridge_errors import OperationError, ProviderError

#: Inspections kept for a following ``guidance`` call, most recent last.
CACHE_SIZE: Final = 8
#: The longest transcript text sent to the host's model in one provider request.
MAX_PROVIDER_CHARS: Final = 200_000
#: Lifecycle events a host may record.
EVENTS: Final = ("session_end", "session_idle", "session_start", "tool_call")

_cache: OrderedDict[str, InspectionResult] = OrderedDict()
_cache_lock = threading.Lock()


# -- inspection and guidance ---------------------------------------------------


def inspect(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The ``contextward inspect --json`` contract, plus an ``inspection_id`` for ``guidance``."""
    result, inspection_id = _inspection(request, context)
    return {
        **result.to_dict(),
        "inspection_id": inspection_id,
        **({"fallback_reason": result.fallback_reason} if result.fallback_reason else {}),
    }


def guidance(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Guidance for the host's summarizer, after the host's review ``decisions`` if any."""
    result, inspection_id = _inspection(request, context)
    raw = request.get("decisions")
    decisions = parse_decisions(raw) if raw is not None else ()
    built = build_guidance(result, decisions, reviewed=raw is not None)
    return {
        **built.to_dict(),
        "inspection_id": inspection_id,
        "mode": result.mode,
        "counts": result.counts(),
    }


def _inspection(
    request: Mapping[str, Any], context: OperationContext
) -> tuple[InspectionResult, str]:
    cached = request.get("inspection_id")
    if cached is not None:
        with _cache_lock:
            found = _cache.get(cached) if isinstance(cached, str) else None
        if found is None:
            raise OperationError("invalid_request", "unknown or expired inspection_id")
        return found, cached
    data, source = _transcript_bytes(request)
    fmt = request.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise OperationError("invalid_request", "field 'format' must be a string")
    provider = (
        HostCandidates(context.provider, _seconds(request, "provider_timeout_ms"))
        if context.provider is not None
        else None
    )
    result = inspect_stream(io.BytesIO(data), fmt, provider=provider)
    inspection_id = hashlib.sha256(source + data).hexdigest()[:16] + f"-{result.mode}"
    with _cache_lock:
        _cache[inspection_id] = result
        _cache.move_to_end(inspection_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return result, inspection_id


def _transcript_bytes(request: Mapping[str, Any]) -> tuple[bytes, bytes]:
    """The transcript to inspect: ``messages`` inline, or a host's ``transcript_path``."""
    messages = request.get("messages")
    path = request.get("transcript_path")
    if messages is not None:
        if not isinstance(messages, list):
            raise OperationError("invalid_request", "field 'messages' must be a JSON array")
        return json.dumps(messages, ensure_ascii=False).encode("utf-8"), b"messages"
    if isinstance(path, str) and path:
        try:
            return Path(path).read_bytes(), b"path"
        except OSError as exc:
            reason = exc.strerror or "I/O error"
            raise OperationError(
                "invalid_request", f"transcript cannot be read ({reason})"
            ) from None
    raise OperationError("invalid_request", "give 'messages' (an array) or 'transcript_path'")


class HostCandidates:
    """A `CandidateProvider` that asks the host's model through provider frames.

    The host runs one completion (``task: "complete"``, ``input: {"system",
    "prompt"}``) and answers ``data: {"text": ...}``; the text is parsed here
    and validated by the inspector like any untrusted proposal.
    """

    def __init__(self, provider: Provider, timeout: float | None = None) -> None:
        self._provider = provider
        self._timeout = timeout

    def propose(self, messages: Sequence[Message]) -> object:
        prompt = _provider_prompt(messages)
        data = self._provider.ask(
            "complete",
            {"system": PROVIDER_SYSTEM, "prompt": prompt},
            schema=CANDIDATES_SCHEMA,
            timeout=self._timeout,
        )
        text = data.get("text") if isinstance(data, Mapping) else None
        if not isinstance(text, str):
            raise ProviderError("provider_error", "provider data has no string 'text'")
        return _json_in(text)


PROVIDER_SYSTEM: Final = (
    "You extract memory candidates from a coding-agent conversation before it is "
    "compacted. Answer with JSON only."
)
CANDIDATES_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": [*MEMORY_KINDS, "tool_output", "transient"]},
                    "content": {"type": "string"},
                    "source": {"type": "string"},
                    "confidence": {"type": "number"},
                },
                "required": ["kind", "content"],
            },
        }
    },
    "required": ["candidates"],
}


def _provider_prompt(messages: Sequence[Message]) -> str:
    lines = [
        "List the facts worth keeping after compaction: goals, constraints, preferences, "
        "requirements, decisions, rejected approaches, todos, current state, corrections, "
        "risks, lessons. Each candidate's content must be copied VERBATIM from one message; "
        "name that message's id as source. Kinds: " + ", ".join(MEMORY_KINDS) + ".",
        'Answer: {"candidates": [{"kind": "...", "content": "...", "source": "..."}]}',
        "",
        "Messages:",
    ]
    size = sum(len(line) for line in lines)
    for message in messages:
        line = f"[{message.id}] {message.role}: {mask(message.text)}"
        size += len(line) + 1
        if size > MAX_PROVIDER_CHARS:
            raise ProviderError("provider_error", "transcript too large for the host's model")
        lines.append(line)
    return "\n".join(lines)


def _json_in(text: str) -> object:
    """The JSON value in a model's answer (a bare object, or one inside a code fence)."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise ProviderError("provider_error", "the host's model answered without JSON")
    try:
        return json.loads(text[start : end + 1])
    except (json.JSONDecodeError, RecursionError):
        raise ProviderError("provider_error", "the host's model answered malformed JSON") from None


# -- the loop brake ------------------------------------------------------------


def loop_check(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Allow or block a shell command by its failing streak (the loop brake)."""
    command = _text(request, "command")
    decision = check(command, session_id=_session(request))
    return {
        "action": "allow" if decision.allowed else "block",
        "reason": mask(decision.reason),
        "prior_failures": decision.prior_failures,
        "threshold": decision.threshold,
    }


def command_outcome(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Record how a shell command ended, so the loop brake sees failing streaks."""
    command = _text(request, "command")
    exit_code = request.get("exit_code")
    if type(exit_code) is not int:
        raise OperationError("invalid_request", "field 'exit_code' must be an integer")
    with Store.open(project_root()) as store:
        attempt = record_outcome(
            store, command, exit_code, source="bridge", session_id=_session(request)
        )
    return {"recorded": True, "outcome": attempt.outcome}


# -- brief, state, lifecycle ---------------------------------------------------


def brief(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The session brief (bounded, masked); ``changed`` is false when ``digest`` still matches."""
    previous = request.get("digest")
    with Store.open(project_root()) as store:
        rendered = render_brief(store, session_id=_session(request))
    changed = rendered.digest != previous
    return {
        "text": mask(rendered.text) if changed else "",
        "digest": rendered.digest,
        "changed": changed,
    }


def state_block(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The short state block (STATE.md current, decisions, git) injected each turn."""
    with Store.open(project_root()) as store:
        text = render_state_block(StateProject.open(), store=store, session_id=_session(request))
    return {"text": mask(text)}


def record_event(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """A session lifecycle event: start, a tool call, idle (auto-log) or end (auto-log)."""
    event = request.get("event")
    if event not in EVENTS:
        raise OperationError("invalid_request", f"field 'event' must be one of {', '.join(EVENTS)}")
    session_id = _session(request)
    if session_id is None:
        raise OperationError("invalid_request", "field 'session_id' must be a non-empty string")
    host = request.get("host")
    with Store.open(project_root()) as store:
        if event == "session_start":
            session_start(store, session_id, host=host if isinstance(host, str) else "")
            return {"recorded": True}
        if event == "tool_call":
            key, tool = request.get("key"), request.get("tool")
            counted = tool_called(
                store,
                session_id,
                key=key if isinstance(key, str) else None,
                tool=tool if isinstance(tool, str) else "",
            )
            return {"recorded": counted}
        ended = session_end(
            store, session_id, project=StateProject.open(), idle=event == "session_idle"
        )
        return {"recorded": True, "logged": ended.logged}


# -- arguments -----------------------------------------------------------------


def _text(request: Mapping[str, Any], name: str) -> str:
    value = request.get(name)
    if not isinstance(value, str) or not value.strip():
        raise OperationError("invalid_request", f"field '{name}' must be a non-empty string")
    return value


def _seconds(request: Mapping[str, Any], name: str) -> float | None:
    value = request.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise OperationError("invalid_request", f"field '{name}' must be a positive number")
    return float(value) / 1000.0


def _session(request: Mapping[str, Any]) -> str | None:
    value = request.get("session_id")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise OperationError("invalid_request", "field 'session_id' must be a short string")
    return value
