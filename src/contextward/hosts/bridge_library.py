"""Bridge operations backed by the library: inspection, guidance, the compaction loop
(snapshot, check, restore), the loop brake, the brief, the state block, the owner's
prompts and the session lifecycle.

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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, BinaryIO, Final, cast

from ..brief import render_brief
from ..brief.restore import plan_restore, render_restore
from ..brief.state_block import state_block as render_state_block
from ..compaction import capture_inspection
from ..compaction import check_summary as check_against_snapshot
from ..errors import StoreError
from ..fsutil import open_regular
from ..guard.confirm import ASK_FIRST, question, refusal
from ..guard.loops import check, record_outcome
from ..inspect import (
    InspectionResult,
    Message,
    ReviewDecision,
    build_guidance,
    inspect_stream,
    parse_decisions,
)
from ..inspect.message import role_of
from ..inspect.provider import SCHEMA, SYSTEM, ProviderAnswerError, parse_answer, prompt
from ..redact import mask
from ..state import session_end, session_start, tool_called
from ..state.project import StateProject
from ..store import Store, project_root
from ..store.config import Config, load_config
from ..store.text import storable_id
from ..thresholds import policy_for
from . import toolcall
from .bridge import OperationContext, Provider
from .bridge_errors import OperationError, ProviderError

#: Inspections kept for a following ``guidance`` call, most recent last.
CACHE_SIZE: Final = 8
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
        **result.provider_notes(),
    }


def guidance(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Guidance for the host's summarizer, after the host's review ``decisions`` if any."""
    result, inspection_id = _inspection(request, context)
    decisions = _decisions(request)
    built = build_guidance(result, decisions)  # reviewed: nothing left to review
    return {
        **built.to_dict(),
        "inspection_id": inspection_id,
        "mode": result.mode,
        "counts": result.counts(),
        **result.provider_notes(),
    }


# -- the compaction loop: snapshot before, check after, restore what was lost ----


def snapshot(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Before a compaction: store the snapshot of what must survive; return the guidance.

    Takes what ``guidance`` takes (``messages``, ``transcript_path`` or the
    ``inspection_id`` the host reviewed, and its ``decisions``), plus ``session_id``.
    Items nobody decided are kept, the conservative answer.
    """
    result, inspection_id = _inspection(request, context)
    decisions = _decisions(request)
    session_id = _session(request)
    with _open() as store:
        taken = capture_inspection(
            store,
            result,
            decisions,
            session_id=session_id,
            label=_label(request),
        )
    return {
        "text": mask(taken.guidance),
        "snapshot_seq": taken.record.seq,
        "items": len(taken.snapshot.items),
        "critical": sum(1 for item in taken.snapshot.items if item.critical),
        "inspection_id": inspection_id,
        "mode": result.mode,
        "counts": result.counts(),
        **result.provider_notes(),
    }


def check_summary(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """After a compaction: check the host's summary against the snapshot; the report is stored.

    The snapshot is ``snapshot_seq`` when given (it must be the session's), else the
    session's latest. ``checked`` is false when there is no snapshot to check against,
    and when there is no summary (empty or blank): nothing is checked or stored then.
    """
    summary = request.get("summary")
    if not isinstance(summary, str):
        raise OperationError("invalid_request", "field 'summary' must be a string")
    seq = request.get("snapshot_seq")
    if seq is not None and (type(seq) is not int or not 0 <= seq < 2**63):
        raise OperationError("invalid_request", "field 'snapshot_seq' must be a 64-bit integer")
    session_id = _session(request)
    if not summary.strip():
        # No summary (a compaction that failed, a host bug): every item would be "lost",
        # and that report would make the restore block claim the summary dropped them.
        return {"checked": False}
    with _open() as store:
        record = store.snapshots.get(seq) if seq is not None else None
        if seq is not None and record is None:
            raise OperationError("invalid_request", "unknown snapshot_seq")
        if record is not None and session_id is not None and record.session_id != session_id:
            # Sessions never mix: the report would be stored against the other session's
            # snapshot and change what its restore block says.
            raise OperationError("invalid_request", "snapshot_seq names another session's snapshot")
        if record is None and session_id is not None:
            # Never check one session's summary against another session's snapshot.
            record = store.snapshots.latest(session_id=session_id)
            if record is None:
                return {"checked": False}
        outcome = check_against_snapshot(
            store,
            summary,
            session_id=session_id,
            source=_label(request) or "bridge",
            snapshot_record=record,
        )
    if outcome is None:
        return {"checked": False}
    return {"checked": True, "snapshot_seq": outcome.snapshot_seq, **outcome.report.to_dict()}


def restore(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The restore block of the session's latest snapshot: empty when nothing was lost.

    When the snapshot was never checked, every critical item is restated (the
    conservative answer). A session without a snapshot gets nothing.
    """
    session_id = _session(request)
    with _open() as store:
        if session_id is not None and store.snapshots.latest(session_id=session_id) is None:
            return {"text": "", "items": 0, "checked": False, "snapshot_seq": None}
        plan = plan_restore(store, session_id=session_id)
    return {
        "text": mask(render_restore(plan)),
        "items": len(plan.items),
        "checked": plan.checked,
        "snapshot_seq": plan.snapshot_seq,
    }


def _compacted_before(request: Mapping[str, Any]) -> bool:
    """Whether the request's session was compacted before (a snapshot of it is stored):
    then its messages go on from there and the owner's first one is no opening request."""
    session = request.get("session_id")
    if not isinstance(session, str) or not session:
        return False
    try:
        with _open(create=False) as store:
            return store.snapshots.latest(session_id=session) is not None
    except StoreError:
        return False  # no store yet: nothing was compacted


def _inspection(
    request: Mapping[str, Any], context: OperationContext
) -> tuple[InspectionResult, str]:
    # Checked whether or not the host offers its model: a bad value is a host bug either way.
    provider_timeout = _seconds(request, "provider_timeout_ms")
    cached = request.get("inspection_id")
    if cached is not None:
        with _cache_lock:
            found = _cache.get(cached) if isinstance(cached, str) else None
        if found is None:
            raise OperationError("invalid_request", "unknown or expired inspection_id")
        return found, cached
    fmt = request.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise OperationError("invalid_request", "field 'format' must be a string")
    provider = (
        HostCandidates(context.provider, provider_timeout) if context.provider is not None else None
    )
    continued = _compacted_before(request)
    with _transcript(request) as stream:
        result = inspect_stream(
            cast(BinaryIO, stream),  # read by ``read`` alone
            fmt,
            config=policy_for(project_root()),
            provider=provider,
            continued=continued,
        )
        stream.digest.update(bytes([continued]))
        inspection_id = f"{stream.digest.hexdigest()[:16]}-{result.mode}"
    with _cache_lock:
        _cache[inspection_id] = result
        _cache.move_to_end(inspection_id)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return result, inspection_id


class _Digested:
    """A transcript read once, as inspection reads it, its SHA-256 taken on the way (the
    inspection's id: the same transcript, the same id). Never held whole: a host's
    ``transcript_path`` of any length is inspected in bounded memory."""

    def __init__(self, stream: BinaryIO, source: bytes) -> None:
        self._stream = stream
        self.digest = hashlib.sha256(source)

    def read(self, size: int = -1) -> bytes:
        data = self._stream.read(size)
        self.digest.update(data)
        return data


@contextmanager
def _transcript(request: Mapping[str, Any]) -> Iterator[_Digested]:
    """The transcript to inspect: ``messages`` inline, or a host's ``transcript_path`` (a
    regular file: a FIFO or a device is refused, never waited on or read without end)."""
    messages = request.get("messages")
    path = request.get("transcript_path")
    if messages is not None:
        if not isinstance(messages, list):
            raise OperationError("invalid_request", "field 'messages' must be a JSON array")
        for index, message in enumerate(messages):
            _check_message(index, message)
        data = json.dumps(messages, ensure_ascii=False).encode("utf-8")
        yield _Digested(io.BytesIO(data), b"messages")
        return
    if not (isinstance(path, str) and path):
        raise OperationError("invalid_request", "give 'messages' (an array) or 'transcript_path'")
    try:
        opened = open_regular(path)
    except OSError as exc:
        reason = exc.strerror or str(exc) or "I/O error"
        raise OperationError("invalid_request", f"transcript cannot be read ({reason})") from None
    with opened:
        yield _Digested(opened, b"path")


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
        """The model's parsed answer. Any failure is a ``ProviderAnswerError`` whose
        message (always contextward's own words) becomes the fallback reason: "no
        provider_response within 30 s", "transcript too large …", "… holds no JSON"."""
        asked = prompt(messages)
        try:
            data = self._provider.ask(
                "complete",
                {"system": SYSTEM, "prompt": asked},
                schema=SCHEMA,
                timeout=self._timeout,
            )
        except ProviderError as exc:
            raise ProviderAnswerError(str(exc)) from None
        text = data.get("text") if isinstance(data, Mapping) else None
        if not isinstance(text, str):
            raise ProviderAnswerError("provider data has no string 'text'")
        return parse_answer(text)


# -- the loop brake ------------------------------------------------------------


def loop_check(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Allow or block a shell command by its failing streak (the loop brake); a risky one
    is put to the owner.

    A host that can ask its owner (``can_ask: true``) gets ``action: "ask"`` and the
    question as ``reason``. One that cannot gets the first attempt in a session blocked,
    the same command let through the next time (``guard.confirm``). The risky check needs
    no store: when the store cannot be opened (damaged, busy, read-only) a risky command
    is still asked about, or blocked every time, as the Claude Code hook does.
    """
    command = _text(request, "command")
    session = _session(request)
    can_ask = request.get("can_ask", False)
    if not isinstance(can_ask, bool):
        raise OperationError("invalid_request", "field 'can_ask' must be a boolean")
    try:
        config = load_config(project_root())
    except Exception:
        config = Config()  # a config that cannot be read: the defaults, asking included
    why = question(command) if config.risk_confirm else ""
    try:
        # The calls a hook spooled while the store was busy count in the streak.
        decision = check(command, session_id=session, prepare=toolcall.drain)
    except Exception:
        if not why:
            raise  # the brake needs the store; nothing else to say
        # The store cannot say whether this command was refused before: ask, or refuse.
        reason = why if can_ask else f"{why}. {ASK_FIRST}."
        return {
            "action": "ask" if can_ask else "block",
            "reason": mask(reason),
            "prior_failures": 0,
            "threshold": config.loop_block_after,
        }
    action, reason = ("allow" if decision.allowed else "block"), decision.reason
    if why and decision.allowed:
        if can_ask:
            action, reason = "ask", why
        else:
            try:
                with _open() as store:
                    refused = refusal(store, command, why, session_id=session)
            except Exception:
                refused = f"{why}. {ASK_FIRST}."  # a store that cannot say refuses
            if refused:
                action, reason = "block", refused
    return {
        "action": action,
        "reason": mask(reason),
        "prior_failures": decision.prior_failures,
        "threshold": decision.threshold,
    }


def command_outcome(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Record how a shell command ended, so the loop brake sees failing streaks."""
    command = _text(request, "command")
    exit_code = request.get("exit_code")
    if type(exit_code) is not int or not -(2**63) <= exit_code < 2**63:  # SQLite's INTEGER
        raise OperationError("invalid_request", "field 'exit_code' must be a 64-bit integer")
    with _open() as store:
        attempt = record_outcome(
            store, command, exit_code, source="bridge", session_id=_session(request)
        )
    return {"recorded": True, "outcome": attempt.outcome}


# -- brief, state, lifecycle ---------------------------------------------------


def brief(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The session brief (bounded, masked); ``changed`` is false when ``digest`` still matches.

    With ``after_compaction`` the restore and owner-statement sections are left
    out, as after a Claude Code compaction: the restore block and the summary
    carry them, and an item must not come back twice.
    """
    previous = request.get("digest")
    if previous is not None and not isinstance(previous, str):
        raise OperationError("invalid_request", "field 'digest' must be a string")
    after = request.get("after_compaction", False)
    if not isinstance(after, bool):
        raise OperationError("invalid_request", "field 'after_compaction' must be a boolean")
    with _open() as store:
        rendered = render_brief(store, session_id=_session(request), earlier_sessions=True)
    changed = rendered.digest != previous
    text = rendered.without("owner_statements", "restore") if after else rendered.text
    return {
        "text": mask(text) if changed else "",
        "digest": rendered.digest,
        "changed": changed,
    }


def state_block(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The short state block (STATE.md current, decisions, git) injected each turn."""
    with _open() as store:
        text = render_state_block(StateProject.open(), store=store, session_id=_session(request))
    return {"text": mask(text)}


def record_prompt(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """The owner's prompt, recorded as Claude Code's UserPromptSubmit hook records it
    (masked, bounded, once per ``prompt_id`` or per session and text): the brief's "owner
    said" of later sessions and ``contextward intent`` read it. A blank prompt is skipped."""
    text = request.get("text")
    if not isinstance(text, str):
        raise OperationError("invalid_request", "field 'text' must be a string")
    session_id = _session(request)
    if session_id is None:
        raise OperationError("invalid_request", "field 'session_id' must be a non-empty string")
    prompt_id = _short(request, "prompt_id") or None
    if not text.strip():
        return {"recorded": False}
    with _open() as store:
        recorded = store.prompts.record(text, session_id=session_id, prompt_id=prompt_id)
    return {"recorded": recorded is not None}


def record_event(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """A session lifecycle event: start, a tool call, idle (auto-log) or end (auto-log)."""
    event = request.get("event")
    if event not in EVENTS:
        raise OperationError("invalid_request", f"field 'event' must be one of {', '.join(EVENTS)}")
    session_id = _session(request)
    if session_id is None:
        raise OperationError("invalid_request", "field 'session_id' must be a non-empty string")
    host = _short(request, "host")
    with _open() as store:
        if event == "session_start":
            session_start(store, session_id, host=host)
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


@contextmanager
def _open(*, create: bool = True) -> Iterator[Store]:
    """The project's store, the tool calls a hook spooled while it was busy recorded first,
    as every hook, command and MCP call opens it (a bridge host's brief and loop brake
    must see them too, and the spool must not wait for a hook to be emptied)."""
    with Store.open(project_root(), create=create) as store:
        toolcall.drain(store)
        yield store


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


def _decisions(request: Mapping[str, Any]) -> tuple[ReviewDecision, ...]:
    raw = request.get("decisions")
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise OperationError(
            "invalid_request", "field 'decisions' must be an array of {candidate_id, action}"
        )
    return parse_decisions(raw)


def _check_message(index: int, message: object) -> None:
    """One of the inline ``messages``: an object with a known role and something said (a
    ``content`` string or block list, or OpenAI's ``tool_calls``). A host bug that sends
    anything else is named, never read as an empty conversation."""
    where = f"messages[{index}]"
    if not isinstance(message, Mapping):
        raise OperationError("invalid_request", f"{where} must be an object")
    if role_of(message.get("role")) is None:
        raise OperationError(
            "invalid_request", f"{where}: field 'role' must be user, assistant, system or tool"
        )
    content = message.get("content")
    if not isinstance(content, str | list) and not isinstance(message.get("tool_calls"), list):
        raise OperationError(
            "invalid_request", f"{where}: field 'content' must be a string or a list of blocks"
        )


def _label(request: Mapping[str, Any]) -> str:
    value = request.get("label")
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 100:
        raise OperationError("invalid_request", "field 'label' must be a short string")
    return value


def _short(request: Mapping[str, Any], name: str) -> str:
    value = request.get(name)
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 200:
        raise OperationError("invalid_request", f"field '{name}' must be a short string")
    return value


def _session(request: Mapping[str, Any]) -> str | None:
    value = request.get("session_id")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > 200:
        raise OperationError("invalid_request", "field 'session_id' must be a short string")
    return storable_id(value)  # as the hooks keep it: a secret-holding id is hashed
