"""The inspection pipeline: messages -> atomic units -> classified, merged, linked, decided candidates.

Owns the order of the steps and the bounded treatment of tool output (one
candidate per tool message, its content a short verbatim prefix). Reads its
input once, as a stream. Never invents text: every candidate's content is a
verbatim span of one message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import BinaryIO

from . import supersession
from .candidate import Candidate, InspectionResult, candidate_id
from .classifier import CRITICAL_KINDS, IMPORTANCE, Classification, Context, classify
from .continuation import classify_summary, is_continuation, summary_units
from .draft import Draft
from .lexicon import REASON
from .message import Message
from .policy import PolicyConfig, decide
from .provider import CandidateProvider, propose
from .readers import open_transcript
from .segment import units

#: Noise content is a verbatim prefix of at most this many characters.
NOISE_PREVIEW = 160
_ERROR = re.compile(
    r"^.*(?:\b(?:error|exception|traceback|failed|fatal|panic|denied|refused|timed? ?out|locked)\b|错误|失败|异常).*$",
    re.I | re.M,
)
_ERROR_HINTS = (
    "error",
    "exception",
    "traceback",
    "fail",
    "fatal",
    "panic",
    "denied",
    "refused",
    "timed out",
    "timeout",
    "locked",
    "错误",
    "失败",
    "异常",
)


_QUOTES = "\"'`“”‘’「」『』 "


class _Builder:
    """Accumulates drafts, merging duplicates by their folded text."""

    def __init__(self) -> None:
        self.drafts: list[Draft] = []
        self._seen: dict[str, Draft] = {}

    def add(
        self, message: Message, position: int, text: str, c: Classification, turn: int = 0
    ) -> Draft:
        # A summary quoting the user ("\"Use Redis.\"") repeats the user's words: same key.
        key = " ".join(text.split()).strip(_QUOTES).rstrip(".。!！").casefold()
        old = self._seen.get(key)
        if old is not None:
            if message.id not in old.sources:
                old.sources.append(message.id)
            if c.importance > old.importance or (
                old.kind in ("tool_output", "transient")
                and c.kind not in ("tool_output", "transient")
            ):
                old.kind, old.importance, old.reason = c.kind, c.importance, c.reason
            old.confidence = max(old.confidence, c.confidence)
            old.replaces = old.replaces or c.replaces
            return old
        draft = Draft(
            id=candidate_id(message.id, c.kind, text),
            kind=c.kind,
            content=text,
            importance=c.importance,
            confidence=c.confidence,
            reason=c.reason,
            sources=[message.id],
            position=position,
            replaces=c.replaces,
            turn=turn,
            role=message.role,
        )
        self._seen[key] = draft
        self.drafts.append(draft)
        return draft


def inspect_messages(
    messages: Iterable[Message],
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
    format: str | None = None,
    skipped: dict[str, int] | None = None,
) -> InspectionResult:
    """Inspect messages (any iterable; read once). ``provider`` proposes extra candidates."""
    config = config or PolicyConfig()
    builder = _Builder()
    kept_messages: list[Message] | None = [] if provider is not None else None
    count = 0
    opening = True  # until the first user message with text has been read
    pending_error: tuple[Message, str] | None = None
    failed = False  # the last tool run failed
    turn, speaker = 0, ""
    for position, message in enumerate(messages):
        count += 1
        if kept_messages is not None:
            kept_messages.append(message)
        if message.role == "tool":
            error, failed = _tool(builder, message, position, turn)
            pending_error = error or pending_error
            continue
        if message.role != speaker:
            turn, speaker = turn + 1, message.role
        # A host's continuation message is a summary even when its reader did not flag it,
        # and then the host speaks, not the owner.
        summary = message.summary or (message.role == "user" and is_continuation(message.text))
        if summary:
            ctx = Context("system" if message.role == "user" else message.role, summary=True)
            pieces = summary_units(message.text)
        else:
            ctx = Context(
                message.role,
                opening=opening and message.role == "user",
                after_error=failed,
            )
            pieces = units(message.text)
            if message.role == "user" and message.text.strip():
                opening = False
        kinds = (
            classify_summary(pieces)
            if summary
            else [classify(unit, ctx, n) for n, unit in enumerate(pieces)]
        )
        added = [
            builder.add(message, position, unit.text, c, turn)
            for unit, c in zip(pieces, kinds, strict=True)
        ]
        if pending_error is not None:
            _explain(builder, pending_error, added, position, turn)
            pending_error = None
        failed = False
    mode: str = "rules"
    fallback: str | None = None
    rejected = 0
    if provider is not None and kept_messages is not None:
        proposals, rejected, fallback = propose(provider, kept_messages)
        if fallback is None:
            mode = "provider"
            where = {id(m): n for n, m in enumerate(kept_messages)}
            for message, text, c in proposals:
                builder.add(message, where[id(message)], text, c)
    supersession.link(builder.drafts)
    candidates = tuple(_freeze(d, config) for d in builder.drafts)
    return InspectionResult(
        candidates=candidates,
        messages=count,
        mode="provider" if mode == "provider" else "rules",
        format=format,
        skipped=dict(skipped or {}),
        fallback_reason=fallback,
        provider_rejected=rejected,
    )


def inspect_stream(
    stream: BinaryIO,
    format: str | None = None,
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
) -> InspectionResult:
    """Detect (or take) the format, read ``stream`` once and inspect it."""
    transcript = open_transcript(stream, format)
    result = inspect_messages(transcript.messages, config=config, provider=provider)
    return InspectionResult(
        candidates=result.candidates,
        messages=result.messages,
        mode=result.mode,
        format=transcript.format,
        skipped=dict(transcript.skips.counts),
        fallback_reason=result.fallback_reason,
        provider_rejected=result.provider_rejected,
    )


def _tool(
    builder: _Builder, message: Message, position: int, turn: int
) -> tuple[tuple[Message, str] | None, bool]:
    """One noise candidate per tool message; returns its error line and whether it failed."""
    text = message.text.strip()
    if not text:
        return None, False
    first = text.split("\n", 1)[0].strip()[:NOISE_PREVIEW] or text[:NOISE_PREVIEW]
    error = None
    probe = text if len(text) <= 4096 else text[:2048] + "\n" + text[-2048:]
    line = ""
    low = probe.lower()
    failed = message.is_error or any(hint in low for hint in _ERROR_HINTS)
    if failed:
        for match in _ERROR.finditer(probe):  # the last error line usually names the cause
            line = match.group().strip()
    if line and line in message.text:
        error = (message, line[: NOISE_PREVIEW * 2])
    reason = "tool output: command output, logs and test runs are noise"
    builder.add(
        message,
        position,
        first,
        Classification("tool_output", IMPORTANCE["tool_output"], 0.95, reason),
        turn,
    )
    return error, failed


def _explain(
    builder: _Builder,
    error: tuple[Message, str],
    added: list[Draft],
    position: int,
    turn: int,
) -> None:
    """Keep a tool error when the next turn abandons an approach without saying why."""
    turned = [d for d in added if d.kind == "rejected" or (d.kind == "decision" and d.replaces)]
    if not turned or any(REASON.search(d.content.lower()) for d in turned):
        return
    message, line = error
    builder.add(
        message,
        position,
        line,
        Classification(
            "rejected", 0.8, 0.8, "the error that made the next turn abandon an approach"
        ),
        turn,
    )


def _freeze(d: Draft, config: PolicyConfig) -> Candidate:
    if d.superseded_by is not None:
        action, reason = "drop", f"superseded by {d.superseded_by}"
        critical = False
    else:
        action, why = decide(d.kind, d.importance, d.confidence, config)
        reason = f"{d.reason}; {why}"
        critical = d.kind in CRITICAL_KINDS and action != "drop"
    return Candidate(
        id=d.id,
        kind=d.kind,
        content=d.content,
        importance=round(d.importance, 2),
        confidence=round(d.confidence, 2),
        action=action,  # type: ignore[arg-type]
        critical=critical,
        reason=reason,
        sources=tuple(d.sources),
        supersedes=tuple(d.supersedes),
        superseded_by=d.superseded_by,
        position=d.position,
    )
