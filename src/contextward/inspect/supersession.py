"""Supersession: a later statement that replaces an earlier decision, constraint or value.

"Actually use X instead", "switch to", "no longer", "改用" mark the earlier
candidate on the same subject as superseded. The subject is the one the new
statement names ("instead of X"), else the plan the assistant stated just
before a user's replacing reply, else the earlier candidate of
a compatible kind that shares the most content words. Never deletes: it
only links the two.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .classifier import replaced_subject
from .draft import Draft

_GROUPS: dict[str, str] = {
    "decision": "choice",
    "rejected": "choice",
    "constraint": "rule",
    "requirement": "rule",
    "preference": "rule",
    "correction": "any",
    "fact": "value",
    "state": "value",
    "goal": "goal",
    "todo": "work",
}
_REPLACEABLE = frozenset(
    {"decision", "constraint", "requirement", "preference", "fact", "goal", "state"}
)
_WORD = re.compile(r"[a-z0-9_./-]{3,}|\d+|[\u4e00-\u9fff]{2,}")
# "I first tried X" tells history; it does not retire the current choice.
_HISTORY = re.compile(r"\b(?:tried|attempted|first used|experimented)\b|试过|尝试过|试了", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_SUFFIX = re.compile(r"(?:ing|ed|es|e|s)$")
#: A correction without a named subject reaches back at most this many messages.
CORRECTION_REACH = 6
#: A reply answers the assistant's messages at most this many messages back.
ADJACENT = 2
_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "are",
        "was",
        "were",
        "will",
        "use",
        "using",
        "used",
        "instead",
        "rather",
        "than",
        "not",
        "now",
        "our",
        "you",
        "your",
        "can",
        "should",
        "must",
        "actually",
        "let's",
        "lets",
        "switch",
        "switched",
        "back",
        "any",
        "all",
        "its",
        "have",
        "has",
        "had",
        "been",
        "but",
        "just",
        "only",
        "also",
        "then",
        "them",
        "they",
        "there",
        "what",
        "when",
        "which",
        "who",
        "why",
        "how",
        "don't",
        "dont",
        "never",
        "always",
        "longer",
        "anymore",
    ]
)


def link(drafts: Sequence[Draft]) -> None:
    """Mark superseded drafts in place (``supersedes`` / ``superseded_by``)."""
    memory = [d for d in drafts if d.kind in _GROUPS]
    for index, new in enumerate(memory):
        if not new.replaces and (new.kind != "rejected" or _HISTORY.search(new.content)):
            continue
        earlier = [
            old
            for old in memory[:index]
            if old.kind in _REPLACEABLE
            and old.superseded_by is None
            and old.position < new.position
            and _compatible(new.kind, old.kind)
            and (new.replaces or old.kind == "decision" or _proposal(new, old))
            # The user's word outranks the assistant's: an assistant cannot retire it.
            and not (old.role == "user" and new.role == "assistant")
        ]
        target = _named(new, earlier) or _answered(new, earlier) or _closest(new, earlier)
        if target is not None:
            target.superseded_by = new.id
            new.supersedes.append(target.id)


def _proposal(new: Draft, old: Draft) -> bool:
    """An assistant's proposal stated as a fact, which the user's rejection may retire."""
    return new.kind == "rejected" and new.role == "user" and old.role == "assistant"


def _compatible(new: str, old: str) -> bool:
    a, b = _GROUPS[new], _GROUPS[old]
    return a == b or "any" in (a, b) or {a, b} <= {"choice", "rule", "value"}


def _named(new: Draft, earlier: list[Draft]) -> Draft | None:
    subject = replaced_subject(new.content)
    if not subject:
        return None
    needle = subject.casefold()
    for old in reversed(earlier):
        if needle in old.content.casefold():
            return old
    return None


def _answered(new: Draft, earlier: list[Draft]) -> Draft | None:
    """A user's replacing reply retires the plan the assistant stated just before it.

    A correction retires the assistant's last decision; a rejection retires
    the assistant's proposal it names ("WebSockets won't work for us").
    """
    if new.role != "user":
        return None
    replacing = new.kind == "correction"
    named = _latin(_words(new.content)) if new.kind == "rejected" else set()
    if not replacing and not named:
        return None
    for old in reversed(earlier):
        if new.position - old.position > ADJACENT:
            return None
        if old.role != "assistant":
            continue
        if replacing and old.kind == "decision":
            return old
        if named and old.kind in ("decision", "fact") and named & _words(old.content):
            return old
    return None


def _latin(words: set[str]) -> set[str]:
    return {w for w in words if w.isascii()}


def _closest(new: Draft, earlier: list[Draft]) -> Draft | None:
    words = _words(new.content)
    if new.kind == "rejected":
        # What a rejection retires must name the same thing: compare Latin words only, as
        # shared Chinese bigrams say little about the subject.
        words = _latin(words)
    best: Draft | None = None
    # A correction (or a rejection of a recent choice) says outright that it replaces
    # something: one shared word is enough, but only within a short reach.
    near = new.kind in ("correction", "rejected")
    best_score = 0 if new.kind == "correction" else 1
    if new.kind == "rejected" and _CJK.search(new.content):
        best_score = 0
    for old in reversed(earlier):
        if _GROUPS[old.kind] != _GROUPS[new.kind] and new.kind != "correction":
            continue
        # A correction of a detail shares words with the session's goal; only a
        # correction that names a goal may retire one (through its named subject).
        if near and old.kind == "goal":
            continue
        if near and new.position - old.position > CORRECTION_REACH:
            break
        score = len(words & _words(old.content))
        if score > best_score:
            best, best_score = old, score
    return best


def _words(text: str) -> set[str]:
    out: set[str] = set()
    for word in _WORD.findall(text.casefold()):
        if word in _STOP:
            continue
        if "\u4e00" <= word[0] <= "\u9fff":
            out.update(word[i : i + 2] for i in range(len(word) - 1))
        else:
            bare = word.strip("./-")
            out.add(_SUFFIX.sub("", bare) if len(bare) > 4 else bare)
    return out
