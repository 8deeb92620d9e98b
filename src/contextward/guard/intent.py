"""Owner intent: what the owner wants, needs, prefers, forbids and corrected.

Owns: classifying recorded owner prompts sentence by sentence (deterministic
patterns, no model call) into ``correction``, ``constraint``, ``need``,
``want``, ``preference`` or plain ``statement``; adding trusted journal
corrections; and the newest-first view with per-kind counts and an owner /
agent split. Agent journal prose counts only when it attributes the words to
the owner ("the owner wants …", "user asked …") and stays labelled agent.

Must never: call a model, treat the agent's own "I want to check" as owner
intent, or return text that has not been masked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..redact import mask

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["INTENT_KINDS", "IntentItem", "IntentView", "classify", "classify_each", "owner_intent"]

#: Strongest first: a sentence with several signals takes the first kind that matches.
INTENT_KINDS: tuple[str, ...] = (
    "correction",
    "constraint",
    "need",
    "want",
    "preference",
    "statement",
)
MAX_ITEM = 200
_SCAN_PROMPTS = 200
_SCAN_JOURNAL = 200

_LEAD = r"^(?:(?:please|now|then|also|and|but|ok(?:ay)?|so)[,\s]+)*"
_IMPERATIVES = [
    "add",
    "audit",
    "build",
    "change",
    "check",
    "clean",
    "create",
    "delete",
    "deploy",
    "document",
    "drop",
    "ensure",
    "explain",
    "fix",
    "implement",
    "improve",
    "install",
    "keep",
    "make",
    "merge",
    "migrate",
    "move",
    "refactor",
    "reinstall",
    "remove",
    "rename",
    "replace",
    "restore",
    "review",
    "revert",
    "rewrite",
    "run",
    "ship",
    "split",
    "stop",
    "test",
    "update",
    "upgrade",
    "use",
    "verify",
    "write",
]
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (
            "correction",
            r"^(?:no[,.!]|nope\b|wrong\b|actually\b)|\bthat'?s (?:not|wrong)\b|\bnot what i\b"
            r"|\bi (?:said|meant|told you)\b|\byou (?:broke|missed|forgot|ignored)\b"
            r"|\bthat is (?:not|wrong)\b|\binstead of what\b"
            r"|^(?:不对|不是|错了)|我(?:说的|指的)是|我的意思是|你(?:搞错|弄错|忘了|漏了|改错)|不是这个意思",
        ),
        (
            "constraint",
            _LEAD + r"(?:do not|don'?t|never|avoid|must not|mustn'?t|always|only)\b"
            r"|\b(?:do not|don'?t|never|must not)\s+(?:touch|change|edit|push|commit|delete|use)\b"
            r"|不要|不准|不许|不得|禁止|严禁|绝不|永远不|别(?:再|动|改|碰|删|用|推|提交)|只能|只用|一律|始终",
        ),
        (
            "need",
            r"\b(?:i|we) (?:really )?need\b|\bit (?:must|has to|needs to)\b|\brequired?\b"
            r"|需要|必须|一定要|务必|要求",
        ),
        (
            "want",
            r"\b(?:i|we) (?:want|would like|'d like)\b|\bi'd like\b|\bcan you\b|\bcould you\b"
            rf"|{_LEAD}(?:{'|'.join(_IMPERATIVES)})\b"
            r"|^(?:goal|objective|task)\s*:|^(?:目标|任务)\s*[:：]"
            r"|我(?:们)?想|希望|帮我|麻烦|能不能|可不可以|^请"
            r"|^(?:把|给|加|改|修|实现|添加|删除|重构|升级|迁移|部署|写|跑|检查)",
        ),
        (
            "preference",
            r"\b(?:i|we) prefer\b|\bprefer(?:ably)?\b|\brather than\b|\binstead of\b"
            r"|更喜欢|倾向于?|最好|宁可|而不是|优先用",
        ),
    )
)
_ATTRIBUTION = re.compile(
    r"\b(?:the )?(?:owner|user)\s+(?P<verb>wants?|needs?|asked|prefers?|said|says|requires?|"
    r"corrected|insists?)\b",
    re.IGNORECASE,
)
#: What an attributed verb says about the owner's words ("the owner wants" -> want).
_VERB_KIND = {
    "want": "want",
    "asked": "want",
    "need": "need",
    "require": "need",
    "prefer": "preference",
    "corrected": "correction",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")


@dataclass(frozen=True)
class IntentItem:
    """One statement of intent, with who stands behind it."""

    kind: str
    text: str
    created_at: str
    provenance: str
    ref: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "created_at": self.created_at,
            "provenance": self.provenance,
            "ref": self.ref,
        }


@dataclass(frozen=True)
class IntentView:
    """Newest-first items and the counts over everything scanned."""

    items: tuple[IntentItem, ...]
    counts: dict[str, int] = field(default_factory=dict)
    owner: int = 0
    agent: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "items": [i.to_dict() for i in self.items],
            "counts": dict(self.counts),
            "owner": self.owner,
            "agent": self.agent,
        }


def classify(text: str, *, bounded: bool = True) -> tuple[str, str]:
    """The strongest intent kind in ``text`` and the sentence(s) that carry it.

    ``bounded=False`` returns the sentences unmasked and uncut, for a caller that
    masks many texts at once (the brief); everyone else gets masked, bounded text.
    """
    finish = _bounded if bounded else str
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    for kind, pattern in _PATTERNS:
        hits = [s for s in sentences if pattern.search(s)]
        if hits:
            return kind, finish(" ".join(hits))
    return "statement", finish(" ".join(sentences))


def classify_each(text: str) -> list[tuple[str, str]]:
    """Every intent kind in ``text`` with the sentences that carry it, strongest first: a
    prompt that needs a CSV export, forbids pushing to main and sets a deadline says all
    three (``classify`` gives only the strongest). Plain sentences stand as a statement
    only when nothing else was said. Masked and bounded, as ``classify``."""
    sentences = [s.strip() for s in _SENTENCE.split(text) if s.strip()]
    said: dict[str, list[str]] = {}
    for sentence in sentences:
        kind = next((k for k, pattern in _PATTERNS if pattern.search(sentence)), "statement")
        said.setdefault(kind, []).append(sentence)
    if len(said) > 1:
        said.pop("statement", None)
    order = [kind for kind, _ in _PATTERNS]
    return [
        (kind, _bounded(" ".join(said[kind])))
        for kind in sorted(said, key=lambda k: order.index(k) if k in order else len(order))
    ]


def _bounded(text: str) -> str:
    flat = " ".join(mask(text).split())
    return flat if len(flat) <= MAX_ITEM else flat[: MAX_ITEM - 1].rstrip() + "…"


def owner_intent(store: Store, *, limit: int = 5, session_id: str | None = None) -> IntentView:
    """Owner prompts, owner corrections and owner-attributed agent notes, newest first."""
    items: list[IntentItem] = []
    for prompt in store.prompts.list(limit=_SCAN_PROMPTS, session_id=session_id):
        for kind, text in classify_each(prompt.text):
            items.append(IntentItem(kind, text, prompt.created_at, "owner", f"p-{prompt.seq}"))
    for entry in store.journal.list(limit=_SCAN_JOURNAL, session_id=session_id):
        if entry.trusted and entry.type == "correction":
            items.append(
                IntentItem("correction", _bounded(entry.text), entry.created_at, "owner", entry.id)
            )
        elif not entry.trusted and (said := _ATTRIBUTION.search(entry.text)):
            kind, text = classify(entry.text)
            verb = said.group("verb").lower().removesuffix("s")
            kind = "correction" if entry.type == "correction" else _VERB_KIND.get(verb, kind)
            items.append(IntentItem(kind, text, entry.created_at, "agent", entry.id))
    # Newest first; the sort is stable, so rows with one timestamp keep prompt-then-journal order.
    items.sort(key=lambda i: i.created_at, reverse=True)
    counts = dict.fromkeys(INTENT_KINDS, 0)
    for item in items:
        counts[item.kind] += 1
    owner = sum(1 for i in items if i.provenance == "owner")
    return IntentView(tuple(items[: max(0, limit)]), counts, owner, len(items) - owner)
