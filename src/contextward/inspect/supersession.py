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
from itertools import pairwise

from .classifier import replaced_subject
from .draft import Draft
from .lexicon import ADDITIVE, SUPERSEDE

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
    {"decision", "constraint", "requirement", "preference", "fact", "goal", "state", "todo"}
)
_WORD = re.compile(r"[a-z0-9_./-]{3,}|\d+|[\u4e00-\u9fff]{2,}")
# "I first tried X" tells history; it does not retire the current choice.
_HISTORY = re.compile(r"\b(?:tried|attempted|first used|experimented)\b|试过|尝试过|试了", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_TOKEN = re.compile(r"[a-z]+")
# A number and the unit after it: "30 days", "5 attempts", "15 min", "60 秒", "10 MB".
_VALUE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)[ -]?([a-z]{2,}|[\u4e00-\u9fff])")
# The replacing cue itself ("switch to", "改成") says nothing about the subject.
_CUES = SUPERSEDE
# "Also …", "也要…": an addition beside what was said, not a replacement of it.
_ADDITIVE = ADDITIVE
# "PG", "UI", "DB": short acronyms name things too.
_ACRONYM = re.compile(r"\b[A-Z]{2}\b")
_SUFFIX = re.compile(r"(?:ing|ed|es|e|s)$")
#: What the owner asks for: a new value in one of these replaces the old value.
_DIRECTIVE = frozenset({"decision", "requirement", "todo", "preference", "correction"})
#: A correction without a named subject reaches back at most this many speaker turns
#: (tool calls do not count, so the reach is the same in every transcript format).
CORRECTION_REACH = 4
#: A reply answers the assistant's messages at most this many speaker turns back.
ADJACENT = 1
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
    corrected_turn = -1
    for index, new in enumerate(memory):
        if new.role == "user" and new.kind in _DIRECTIVE and not new.replaces:
            # "bump the grace period to 30 seconds" retires "the grace period is 10 seconds".
            values = [
                old
                for old in memory[:index]
                if old.kind in _REPLACEABLE
                and old.superseded_by is None
                and old.position < new.position
                and not (old.role == "user" and old.kind == "constraint")
            ]
            for old in _same_value(new, values, same_subject=True):
                old.superseded_by = new.id
                new.supersedes.append(old.id)
        if not new.replaces and (new.kind != "rejected" or _HISTORY.search(new.content)):
            continue
        if new.kind != "correction" and _ADDITIVE.search(new.content):
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
        subject = replaced_subject(new.content)
        target = _named(subject, earlier)
        if target is None and subject and new.kind != "correction":
            # "X, not Y" names what it replaces: if no earlier statement mentions Y, it
            # contrasts rather than replaces, and guessing by shared words would retire
            # something unrelated.
            continue
        target = target or _answered(new, earlier)
        if target is None and not (new.kind == "correction" and new.turn == corrected_turn):
            # A correction that follows another in the same turn ("No — that loses data.
            # Write it to a new column instead.") elaborates it; it retires nothing more.
            target = _closest(new, earlier)
        if new.kind == "correction" and target is not None:
            corrected_turn = new.turn
        if target is not None:
            target.superseded_by = new.id
            new.supersedes.append(target.id)
        if new.kind == "correction" or (new.role == "user" and new.replaces):
            # "make it 90 days" retires every recent statement of the old "30 days".
            for old in _same_value(new, earlier):
                if old.superseded_by is None:
                    old.superseded_by = new.id
                    new.supersedes.append(old.id)


def _proposal(new: Draft, old: Draft) -> bool:
    """An assistant's proposal stated as a fact, which the user's rejection may retire."""
    return new.kind == "rejected" and new.role == "user" and old.role == "assistant"


def _values(text: str) -> dict[str, list[str]]:
    """Numbers by the unit that follows them, in order ("30 days" -> {"day": ["30"]})."""
    out: dict[str, list[str]] = {}
    for number, unit in _VALUE.findall(text.casefold()):
        out.setdefault(unit[:3], []).append(number)
    return out


def _same_value(new: Draft, earlier: list[Draft], *, same_subject: bool = False) -> list[Draft]:
    """Earlier statements within reach that give another number in a unit ``new`` sets.

    What ``new`` sets is its first number in that unit ("4 点, 2 点那边在做日切" sets 4).
    Without a correction's say-so (``same_subject``), they must also share a word
    that is not the number or the unit ("grace period"), so two timeouts of different
    things never retire each other.
    """
    values = {unit: numbers[0] for unit, numbers in _values(new.content).items()}
    if not values:
        return []
    words = {w for w in _words(new.content) if not w.isdigit() and w[:3] not in values}
    out: list[Draft] = []
    for old in reversed(earlier):
        if new.turn - old.turn > CORRECTION_REACH:
            break
        if old.kind == "goal" or (same_subject and old.kind == "constraint"):
            continue
        for unit, numbers in _values(old.content).items():
            if unit in values and values[unit] not in numbers:
                if not same_subject or words & _words(old.content):
                    out.append(old)
                break
    return out


def _compatible(new: str, old: str) -> bool:
    a, b = _GROUPS[new], _GROUPS[old]
    return a == b or "any" in (a, b) or {a, b} <= {"choice", "rule", "value"}


def _named(subject: str | None, earlier: list[Draft]) -> Draft | None:
    if not subject:
        return None
    # "instead of the Celery job" names "Celery job", which may have been said as "Celery".
    needles = [subject.casefold()]
    if " " in subject:
        needles.append(subject.split()[0].casefold())
    for needle in needles:
        for old in reversed(earlier):
            if needle in old.content.casefold():
                return old
    return None


def _answered(new: Draft, earlier: list[Draft]) -> Draft | None:
    """A user's replacing reply retires what the assistant said just before it.

    A correction retires the assistant's last plan (decision) in its previous
    turn, else the claim there it shares the most words with; a rejection retires
    the assistant's proposal it names ("WebSockets won't work for us").
    """
    if new.role != "user":
        return None
    replacing = new.kind == "correction"
    named = _latin(_words(new.content)) if new.kind == "rejected" else set()
    if not replacing and not named:
        return None
    words = _words(new.content)
    best: Draft | None = None
    best_score = 0
    for old in reversed(earlier):
        if new.turn - old.turn > ADJACENT:
            break
        if old.role != "assistant":
            continue
        if named:
            if old.kind in ("decision", "fact") and named & _words(old.content):
                return old
            continue
        if old.kind == "decision":
            return old
        if old.kind in ("fact", "state"):
            score = len(words & _words(old.content))
            if score > best_score:
                best, best_score = old, score
    return best


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
        # A correction of a detail shares words with the session's goal and standing
        # rules; only one that names them (its named subject) may retire them.
        if near and old.kind in ("goal", "constraint"):
            continue
        if near and old.kind in ("fact", "state") and old.role == "assistant":
            continue  # an assistant's finding is corrected outright (_answered), not by overlap
        if near and new.turn - old.turn > CORRECTION_REACH:
            break
        score = len(words & _words(old.content))
        if old.kind == "todo" and score < 2:
            continue  # open work is retired only by a correction clearly about it
        if score and new.kind == "correction" and (old.role == "user" or old.kind == "decision"):
            # What a correction overrides is usually a directive or a decision, not a finding.
            score += 1
        if score > best_score:
            best, best_score = old, score
    return best


def _words(text: str) -> set[str]:
    low = _CUES.sub(" ", text.casefold())
    out: set[str] = set()
    for word in _WORD.findall(low):
        if word in _STOP:
            continue
        if "\u4e00" <= word[0] <= "\u9fff":
            out.update(word[i : i + 2] for i in range(len(word) - 1))
        else:
            bare = word.strip("./-")
            out.add(_stem(bare))
            if "-" in bare:  # "scale-up" also names "scale" and "scaleup"
                out.update(_stem(part) for part in bare.split("-") if len(part) > 2)
                out.add(bare.replace("-", ""))
    out.update(a.casefold() for a in _ACRONYM.findall(text))
    # "roll back" and "rollback", "set up" and "setup" name the same thing.
    tokens = _TOKEN.findall(low)
    out.update(a + b for a, b in pairwise(tokens) if len(a + b) > 5)
    return out


def _stem(word: str) -> str:
    return _SUFFIX.sub("", word) if len(word) > 4 else word
