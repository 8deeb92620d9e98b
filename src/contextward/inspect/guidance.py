"""Compaction guidance: what the host's own summarizer must preserve, can discard, should weigh.

Owns the three sections, their order and their bounds (items and
characters, with a count of what was left out). Items are verbatim (secrets
masked). It is guidance for the summary, never a replacement summary.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..printable import one_line
from ..redact import mask
from .candidate import Candidate, InspectionResult
from .review import ReviewDecision, final_actions

HEADER = (
    "contextward guidance for the compaction summary. "
    "This guides the host's own summary; it is not a replacement summary."
)
SECTIONS = ("must_preserve", "can_discard", "unresolved")
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
        def section(items: tuple[Candidate, ...]) -> list[dict[str, Any]]:
            return [
                {
                    "id": c.id,
                    "kind": c.kind,
                    "content": mask(c.content),
                    "critical": c.critical,
                    **({"superseded_by": c.superseded_by} if c.superseded_by else {}),
                }
                for c in items
            ]

        return {
            "schema_version": 1,
            "must_preserve": section(self.must_preserve),
            "can_discard": section(self.can_discard),
            "unresolved": section(self.unresolved),
            "omitted": {name: self.omitted.get(name, 0) for name in SECTIONS},
            "reviewed": self.reviewed,
            "text": self.text(),
        }


def build_guidance(
    result: InspectionResult,
    decisions: Iterable[ReviewDecision] = (),
    *,
    limits: Limits | None = None,
    reviewed: bool = True,
) -> Guidance:
    """Guidance from an inspection and the review decisions made so far."""
    limits = limits or Limits()
    actions = final_actions(result, decisions)
    keep = [c for c in result.candidates if actions[c.id] == "keep"]
    keep.sort(key=lambda c: (not c.critical, c.position))
    drop = [c for c in result.candidates if actions[c.id] == "drop"]
    drop.sort(key=lambda c: (c.superseded_by is None, c.kind == "tool_output", c.position))
    review = [c for c in result.candidates if actions[c.id] == "review"]
    review.sort(key=lambda c: (not c.critical, c.position))
    budget = limits.max_chars - len(HEADER) - 200
    omitted: dict[str, int] = {}
    chosen: dict[str, tuple[Candidate, ...]] = {}
    # Must-preserve gets the budget first, then unresolved, then discardable.
    for name, items, cap in (
        ("must_preserve", keep, limits.must_preserve),
        ("unresolved", review, limits.unresolved),
        ("can_discard", drop, limits.can_discard),
    ):
        taken: list[Candidate] = []
        for candidate in items:
            size = len(_line(candidate, name)) + 1
            if len(taken) >= cap or size > budget:
                break
            taken.append(candidate)
            budget -= size
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


def _line(c: Candidate, section: str) -> str:
    label = f"superseded {c.kind}" if c.superseded_by and section == "can_discard" else c.kind
    text = one_line(mask(c.content))
    return f"- [{label}] {text}"
