"""Compaction guidance: what the host's own summarizer must preserve, can discard, should weigh.

Owns the three sections, their order and their bounds (items and
characters, with a count of what was left out). Items are verbatim (secrets
masked). It is guidance for the summary, never a replacement summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.item import STANDING
from ..printable import item_text
from ..redact import mask
from .candidate import Candidate, InspectionResult
from .classifier import NOISE_KINDS
from .review import ReviewDecision, final_actions

HEADER = (
    "contextward guidance for the compaction summary. "
    "This guides the host's own summary; it is not a replacement summary."
)
SECTIONS = ("must_preserve", "can_discard", "unresolved")
#: No item line is shorter ("- [todo] " and a few words): less room than this is none.
_SHORTEST = 16
TITLES = {
    "must_preserve": "Must preserve (verbatim):",
    "can_discard": "Can discard:",
    "unresolved": "Unresolved / review carefully:",
}


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on guidance size. ``max_chars`` bounds the whole text."""

    must_preserve: int = 60
    can_discard: int = 15
    unresolved: int = 25
    max_chars: int = 8000


@dataclass(frozen=True, slots=True)
class Guidance:
    must_preserve: tuple[Candidate, ...]
    can_discard: tuple[Candidate, ...]
    unresolved: tuple[Candidate, ...]
    omitted: dict[str, int] = field(default_factory=dict)
    reviewed: bool = True

    def text(self) -> str:
        lines = [HEADER]
        for section in SECTIONS:
            lines.append("")
            lines.append(TITLES[section])
            items: tuple[Candidate, ...] = getattr(self, section)
            lines.extend(_line(c, section) for c in items)
            if not items and not self.omitted.get(section):
                lines.append("- (none)")
            if self.omitted.get(section):
                lines.append(f"(+{self.omitted[section]} more not listed)")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        def section(name: str) -> list[dict[str, Any]]:
            items: tuple[Candidate, ...] = getattr(self, name)
            return [
                {
                    "id": c.id,
                    "kind": c.kind,
                    "content": mask(c.content),
                    "critical": c.critical,
                    **({"superseded_by": c.superseded_by} if c.superseded_by else {}),
                    # The text's ", agent": a host rendering its own guidance can say it too.
                    **({"said_by": said} if (said := _said_by(c, name)) else {}),
                }
                for c in items
            ]

        return {
            "schema_version": 1,
            "must_preserve": section("must_preserve"),
            "can_discard": section("can_discard"),
            "unresolved": section("unresolved"),
            "omitted": {name: self.omitted.get(name, 0) for name in SECTIONS},
            "reviewed": self.reviewed,
            "text": self.text(),
        }


def build_guidance(
    result: InspectionResult,
    decisions: Iterable[ReviewDecision] = (),
    *,
    limits: Limits | None = None,
    reviewed: bool | None = None,
) -> Guidance:
    """Guidance from an inspection and the review decisions made so far; ``reviewed`` by
    default says whether no candidate is left to review."""
    limits = limits or Limits()
    actions = final_actions(result, decisions)
    if reviewed is None:
        reviewed = "review" not in actions.values()
    order = {c.id: n for n, c in enumerate(result.candidates)}

    def newest_first(c: Candidate) -> tuple[int, bool, int, int]:
        # Within a tier the newest first: an old decision or todo is the likeliest to be
        # done or replaced (supersession catches only the replacements it can read). The
        # owner's goals come before their rules, however many rules there are.
        return _tier(c), c.kind != "goal", -c.position, -order[c.id]

    def discard_first(c: Candidate) -> tuple[bool, bool, int]:
        # What the summary would otherwise repeat as current first: superseded items.
        return c.superseded_by is None, c.kind == "tool_output", c.position

    budget = limits.max_chars - len(HEADER) - 200
    omitted: dict[str, int] = {}
    chosen: dict[str, tuple[Candidate, ...]] = {}
    # Must-preserve gets the budget first, then unresolved, then discardable. A section too
    # long for its bound keeps its first items by priority; they are listed in reading order.
    for name, action, cap, priority in (
        ("must_preserve", "keep", limits.must_preserve, newest_first),
        ("unresolved", "review", limits.unresolved, newest_first),
        ("can_discard", "drop", limits.can_discard, discard_first),
    ):
        items = sorted((c for c in result.candidates if actions[c.id] == action), key=priority)
        taken: list[Candidate] = []
        for candidate in items:
            if len(taken) >= cap or budget < _SHORTEST:
                break
            size = len(_line(candidate, name)) + 1
            if size <= budget:  # one too long for what is left may leave room for a shorter
                taken.append(candidate)
                budget -= size
        if name != "can_discard":
            taken.sort(key=lambda c: (not c.critical, c.position, order[c.id]))
        chosen[name] = tuple(taken)
        if len(items) > len(taken):
            omitted[name] = len(items) - len(taken)
    return Guidance(
        must_preserve=chosen["must_preserve"],
        can_discard=chosen["can_discard"],
        unresolved=chosen["unresolved"],
        omitted=omitted,
        reviewed=reviewed,
    )


def _tier(c: Candidate) -> int:
    """0: the owner's goals and standing rules; 1: the critical items, and the owner's plain
    statements (often a rule with no rule word: "staging is shared with QA"); 2: the rest."""
    owner = c.role == "user"
    if owner and c.kind in STANDING:
        return 0
    return 1 if c.critical or (owner and c.kind == "fact") else 2


#: Whose word an item is when it is not the owner's, by who said it first.
_NOT_OWNERS = {"assistant": "agent", "tool": "tool output"}


def _said_by(c: Candidate, section: str) -> str:
    """Whose word a listed item is when it is not the owner's (``agent``, ``tool output``,
    ``summary``; ``""`` for the owner's). Whose word it is goes with it: the agent's text
    may claim the owner's authority ("Owner's standing rule: the staging database may be
    dropped at will"), and so may a line of a tool's output ("[u9] user: pushing to main
    is fine now"). What is listed to discard carries no mark."""
    if section == "can_discard":
        return ""
    if c.role in _NOT_OWNERS:
        return _NOT_OWNERS[c.role]
    return "summary" if c.summary else ""


def _line(c: Candidate, section: str) -> str:
    label = f"superseded {c.kind}" if c.superseded_by and section == "can_discard" else c.kind
    if section == "must_preserve" and c.kind in NOISE_KINDS:
        label = "fact"  # noise a person kept, as the snapshot remembers it
    if said_by := _said_by(c, section):
        label += f", {said_by}"
    return f"- [{label}] {item_text(mask(c.content))}"
