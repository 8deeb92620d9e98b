"""Memory candidates and the inspection result: the JSON contract of ``inspect``.

Owns the candidate value, its stable id and the result's JSON form (masked).
Never classifies or decides.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..redact import mask

Action = Literal["keep", "drop", "review"]
ACTIONS: tuple[Action, ...] = ("keep", "drop", "review")
SCHEMA_VERSION = 1


def candidate_id(source: str, kind: str, text: str) -> str:
    """A stable id: the same source message, kind and text always give the same id."""
    digest = hashlib.sha1(f"{source}\x1f{kind}\x1f{text}".encode(), usedforsecurity=False)
    return f"{kind}-{digest.hexdigest()[:10]}"


@dataclass(frozen=True, slots=True)
class Candidate:
    """One verbatim span that may be worth remembering, with the policy's verdict."""

    id: str
    kind: str
    content: str
    importance: float
    confidence: float
    action: Action
    critical: bool
    reason: str
    sources: tuple[str, ...]
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    position: int = 0
    #: Who said it first (``user``, ``assistant``, ``system``, ``tool``; ``""``: not known)
    #: and in which speaker turn. Not part of the JSON contract: they order what a bounded
    #: guidance keeps first and let a later inspection's items retire a snapshot's.
    role: str = ""
    turn: int = 0
    #: Said by a compaction summary in its own words, not by the owner (the owner's
    #: messages a summary quotes are theirs): never presented as the owner's word.
    summary: bool = False
    #: ``content`` and the id of the message it was read from (its first source) hold
    #: no secret, as masking found where they were read (in the process that read the
    #: transcript): not masked again. Never compared: how it was found changes nothing
    #: of the candidate.
    clean: bool = field(default=False, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The contract's candidate object, with secrets masked (a transcript's message ids
        are its own strings too, and the reason may name one)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "content": self.content if self.clean else mask(self.content),
            "importance": self.importance,
            "confidence": self.confidence,
            "action": self.action,
            "critical": self.critical,
            "reason": mask(self.reason),
            "sources": (
                list(self.sources)
                if self.clean and len(self.sources) == 1
                else [mask(source) for source in self.sources]
            ),
            "supersedes": list(self.supersedes),
        }


@dataclass(frozen=True, slots=True)
class InspectionResult:
    """All candidates of one inspection, in transcript order, and how they were found."""

    candidates: tuple[Candidate, ...]
    messages: int
    mode: Literal["rules", "provider"] = "rules"
    format: str | None = None
    skipped: Mapping[str, int] = field(default_factory=dict)
    fallback_reason: str | None = None
    provider_rejected: int = 0
    #: Provider mode: the proposals that repeated an earlier one word for word, left out.
    provider_repeated: int = 0
    #: Provider mode: the rules' unsure memories the model passed by, now noise.
    provider_passed: int = 0
    #: Provider mode: the proposals whose ``replaces`` was not followed (the owner's word
    #: retired by the agent's or a tool's, or a standing rule by a statement unrelated to it).
    provider_refused: int = 0

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = dict.fromkeys(ACTIONS, 0)
        for candidate in self.candidates:
            out[candidate.action] += 1
        return out

    def by_id(self) -> dict[str, Candidate]:
        return {candidate.id: candidate for candidate in self.candidates}

    def with_action(self, action: Action) -> list[Candidate]:
        return [c for c in self.candidates if c.action == action]

    def provider_notes(self) -> dict[str, Any]:
        """Provider mode's notes beside the JSON contract: why it fell back
        (``fallback_reason``), else how many of the model's proposals were refused
        (``provider_rejected``) or left out as repeats of an earlier one
        (``provider_repeated``), how many of the rules' unsure finds it passed by
        (``provider_passed``) and how many of its ``replaces`` were not followed
        (``provider_refused``), each only when there is one."""
        if self.fallback_reason:
            return {"fallback_reason": self.fallback_reason}
        notes = {
            "provider_rejected": self.provider_rejected,
            "provider_repeated": self.provider_repeated,
            "provider_passed": self.provider_passed,
            "provider_refused": self.provider_refused,
        }
        return {key: n for key, n in notes.items() if n}

    def to_dict(self) -> dict[str, Any]:
        """Exactly the ``contextward inspect --json`` contract of DESIGN.md."""
        return {
            "schema_version": SCHEMA_VERSION,
            "mode": self.mode,
            "messages": self.messages,
            "candidates": [candidate.to_dict() for candidate in self.candidates],
            "counts": self.counts(),
        }
