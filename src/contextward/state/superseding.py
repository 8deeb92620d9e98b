"""Which recorded decisions a new one replaces, and whether it only repeats one.

STATE.md's Decisions are append-only, so a decision the owner changed would
stay "locked" beside its replacement, and every brief, restore and recall
would hand both to the agent. When a decision is recorded, the ones it
replaces are found here and marked ``[SUPERSEDED]``:

- the same approach turned down (``decide X --rejected`` after ``decide X``),
  or taken up again after it was turned down;
- the same sentence with one name in another's place ("Use MySQL for the
  primary datastore" after "Use PostgreSQL for the primary datastore");
- anything inspection's supersession reads as replaced when the decisions are
  said in order: "Switch the primary datastore to MySQL", "Set the HTTP
  timeout to 90 seconds", "Actually, use MySQL instead of PostgreSQL".

Deterministic, no model. A decision recorded again word for word is a repeat.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.textnorm import words
from .document import Decision

#: Inspection reads the first message as the session's goal, which no later
#: statement retires by guesswork: the decisions come after an opening of their own.
_OPENING = "These are the project's recorded decisions, oldest first."
#: A word, its inner dots kept ("us-east-1", "v2.1") and a full stop after it left out.
_WORD = re.compile(r"[\w+#/-]+(?:\.[\w+#/-]+)*")
_NOISE = frozenset(("transient", "tool_output"))


@dataclass(frozen=True)
class Replacing:
    """What recording a decision does to the ones before it."""

    #: Positions (in ``StateView.decisions``) of the decisions it replaces.
    replaces: tuple[int, ...] = ()
    #: The position of an identical decision still in force: nothing to append.
    repeats: int | None = None


def replacing(decisions: Sequence[Decision], text: str, *, rejected: bool) -> Replacing:
    """What a new decision (or ``rejected`` approach) ``text`` does to ``decisions``."""
    key = _key(text)
    for number, old in enumerate(decisions):
        if not old.superseded and old.rejected == rejected and _key(old.text) == key:
            return Replacing(repeats=number)
    same = [
        number
        for number, old in enumerate(decisions)
        if not old.superseded and old.rejected != rejected and _key(old.text) == key
    ]
    if rejected:
        return Replacing(tuple(same))
    current = [(number, old) for number, old in enumerate(decisions) if old.current]
    swapped = [
        number
        for number, old in current
        if _one_name_swapped(old.text, text)
        or _turned_from(old.text, text)
        or _new_number(old.text, text)
    ]
    found = set(same) | set(swapped) | _read_as_replaced(current, text)
    return Replacing(tuple(sorted(found)))


def _key(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".")


def _one_name_swapped(old: str, new: str) -> bool:
    """The same words but one, and that one a name in both ("PostgreSQL" / "MySQL",
    "us-east-1" / "eu-west-1"): "Use Redis for the cache" and "… for the queue" name
    two uses, not one choice made twice."""
    a, b = _WORD.findall(old), _WORD.findall(new)
    if len(a) != len(b) or len(a) < 3:
        return False
    apart = [(x, y) for x, y in zip(a, b, strict=True) if x.casefold() != y.casefold()]
    return len(apart) == 1 and all(_name_shaped(word) for word in apart[0])


#: What a new decision says it leaves: "…, not S3", "Drop Celery;", "from S3 to GCS",
#: "不用 S3 了".
_LEAVES = re.compile(
    r"(?:\bnot|\binstead of|\brather than|\bno longer(?: use)?|\bdrop|\bditch)\s+"
    r"(?:the\s+)?([a-z0-9][\w+#/-]*(?:\.[\w+#/-]+)*)"
    r"|\bfrom\s+(?:the\s+)?([a-z0-9][\w+#/-]*(?:\.[\w+#/-]+)*)\s+(?:to|onto)\b"
    r"|(?:不用|不再用|弃用|别用)\s*([a-z0-9][\w+#.-]*)"
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\d)")
#: Words that say nothing of what a decision is about.
_FILLER = words(
    """a an the is are be been to of for on in at by it its make set use keep now from with and
    or yet only all any every this that so too very just also"""
)


def _turned_from(old: str, new: str) -> bool:
    """The new decision names, as what it leaves, a thing the old one chose: "Uploads go
    to GCS now, not S3." after "Store uploads on S3."; "上传改存 GCS，不用 S3 了。"."""
    words = {w.casefold() for w in _WORD.findall(old)} - _FILLER
    left = {a or b or c for a, b, c in _LEAVES.findall(new.casefold())}
    return bool(left & words)


def _new_number(old: str, new: str) -> bool:
    """One number each, another one now, about the same words: "Make the page size 200."
    after "Page size is 50."."""
    a, b = _NUMBER.findall(old), _NUMBER.findall(new)
    if len(a) != 1 or len(b) != 1 or a == b:
        return False
    said = {w.casefold() for w in _WORD.findall(old) if not w[0].isdigit()} - _FILLER
    # Two words at least: "decision 2" after "decision 1" names no subject.
    return len(said) >= 2 and said <= {w.casefold() for w in _WORD.findall(new)}


def _name_shaped(word: str) -> bool:
    return any(c.isupper() for c in word[1:]) or any(c in word for c in "0123456789.-_/")


def _read_as_replaced(current: list[tuple[int, Decision]], text: str) -> set[int]:
    """The decisions inspection's supersession retires when ``text`` is said after them."""
    if not current:
        return set()
    from ..inspect import Message, inspect_messages

    messages = [Message("opening", "user", _OPENING)]
    messages += [Message(f"d{number}", "user", old.text) for number, old in current]
    messages.append(Message("new", "user", text))
    result = inspect_messages(messages)
    by_id = {candidate.id: candidate for candidate in result.candidates}
    out: set[int] = set()
    for candidate in result.candidates:
        successor = by_id.get(candidate.superseded_by or "")
        if candidate.kind in _NOISE or successor is None or "new" not in successor.sources:
            continue
        out.update(int(source[1:]) for source in candidate.sources if source.startswith("d"))
    return out


__all__ = ["Replacing", "replacing"]
