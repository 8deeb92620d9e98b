"""Provider mode: a host's model proposes candidates; its output is untrusted.

Owns the ``CandidateProvider`` protocol and the validation of what it
returns. A proposal is accepted only when its kind is known and its content
is found verbatim in the transcript (in the message it names, if it names
one); importance comes from our own kind table and confidence is capped, so
the same policy re-decides every proposal. Any failure of the provider is
reported as a reason and the caller falls back to rules. Never trusts a
score, an id or a text it cannot find.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from .classifier import ALL_KINDS, IMPORTANCE, Classification
from .message import Message

#: A provider may raise our confidence in a proposal to at most this.
MAX_CONFIDENCE = 0.9
DEFAULT_CONFIDENCE = 0.8
MAX_PROPOSALS = 2000
MAX_CONTENT = 4000


@runtime_checkable
class CandidateProvider(Protocol):
    """Anything that proposes candidates for messages.

    ``propose`` returns a list of mappings ``{"kind", "content", "source"?,
    "confidence"?}`` (or ``{"candidates": [...]}``).
    """

    def propose(self, messages: Sequence[Message]) -> object: ...


Proposal = tuple[Message, str, Classification]


def propose(
    provider: CandidateProvider, messages: Sequence[Message]
) -> tuple[list[Proposal], int, str | None]:
    """Validated proposals, how many were rejected, and a fallback reason if the provider failed."""
    try:
        raw = provider.propose(messages)
    except Exception as exc:  # a foreign model bridge: any failure means "use rules"
        return [], 0, f"provider raised {type(exc).__name__}"
    if isinstance(raw, Mapping):
        raw = raw.get("candidates")
    if not isinstance(raw, list):
        return [], 0, "provider output is not a list of candidates"
    if len(raw) > MAX_PROPOSALS:
        return [], 0, f"provider proposed more than {MAX_PROPOSALS} candidates"
    by_id = {m.id: m for m in messages}
    accepted: list[Proposal] = []
    rejected = 0
    for item in raw:
        proposal = _validate(item, messages, by_id)
        if proposal is None:
            rejected += 1
        else:
            accepted.append(proposal)
    return accepted, rejected, None


def _validate(
    item: object, messages: Sequence[Message], by_id: Mapping[str, Message]
) -> Proposal | None:
    if not isinstance(item, Mapping):
        return None
    kind, content = item.get("kind"), item.get("content")
    if kind not in ALL_KINDS or not isinstance(content, str):
        return None
    text = content.strip()
    if not text or len(text) > MAX_CONTENT:
        return None
    source = item.get("source")
    if source is not None:
        message = by_id.get(source) if isinstance(source, str) else None
        if message is None or text not in message.text:
            return None
    else:
        message = next((m for m in messages if text in m.text), None)
        if message is None:
            return None
    confidence = item.get("confidence", DEFAULT_CONFIDENCE)
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, int | float)
        or not math.isfinite(confidence)
    ):
        confidence = DEFAULT_CONFIDENCE
    confidence = min(max(float(confidence), 0.0), MAX_CONFIDENCE)
    assert isinstance(kind, str)
    reason = f"proposed by the provider as {kind}, found verbatim in {message.id}"
    return message, text, Classification(kind, IMPORTANCE[kind], confidence, reason)
