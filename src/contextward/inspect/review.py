"""Review decisions: a person's keep/drop for a candidate, addressed by its id.

Owns parsing decisions (untrusted JSON) and resolving each candidate's final
action. Never guesses by position: an unknown id is an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from ..redact import mask
from .candidate import Action, InspectionResult
from .errors import InspectError

Decision = Literal["keep", "drop"]


@dataclass(frozen=True, slots=True)
class ReviewDecision:
    candidate_id: str
    action: Decision

    def to_dict(self) -> dict[str, str]:
        return {"candidate_id": self.candidate_id, "action": self.action}


def parse_decisions(data: object) -> tuple[ReviewDecision, ...]:
    """Decisions from ``[{"candidate_id", "action"}]``, ``{"decisions": [...]}`` or ``{id: action}``."""
    if isinstance(data, Mapping) and "decisions" in data:
        data = data["decisions"]
    items: list[tuple[object, object]]
    if isinstance(data, Mapping):
        items = list(data.items())
    elif isinstance(data, list):
        items = []
        for entry in data:
            if not isinstance(entry, Mapping):
                raise InspectError("invalid_decision", "a decision must be an object")
            items.append((entry.get("candidate_id"), entry.get("action")))
    else:
        raise InspectError("invalid_decision", "decisions must be a list or an object")
    out: list[ReviewDecision] = []
    said: dict[str, object] = {}
    for cid, said_action in items:
        if not isinstance(cid, str) or not cid:
            raise InspectError("invalid_decision", "a decision needs a candidate_id string")
        # "KEEP", as the terminal review accepts it.
        action = said_action.strip().lower() if isinstance(said_action, str) else said_action
        if action not in ("keep", "drop"):
            raise InspectError(
                "invalid_decision", f"decision for {shown(cid)} must be keep or drop"
            )
        if said.setdefault(cid, action) != action:
            raise InspectError("invalid_decision", f"decisions for {shown(cid)} disagree")
        out.append(ReviewDecision(cid, action))
    return tuple(out)


def shown(cid: str) -> str:
    """A decision's id as an error may print it: quoted (so a stray space shows), when it is
    shaped like an id (one word, at most 40 characters); anything else (a sentence sent
    where an id belongs) is never repeated."""
    if not _ID_SHAPED.fullmatch(cid) or mask(cid) != cid:
        return "with that id (ids look like constraint-1a2b3c4d5e)"
    return f"'{cid}'"


_ID_SHAPED = re.compile(r"\s{0,2}[\w.:~-]{1,40}\s{0,2}", re.ASCII)


def final_actions(
    result: InspectionResult, decisions: Iterable[ReviewDecision] = ()
) -> dict[str, Action]:
    """Each candidate's action after the decisions (which may override any automatic action)."""
    actions: dict[str, Action] = {c.id: c.action for c in result.candidates}
    for decision in decisions:
        if decision.candidate_id not in actions:
            raise InspectError("unknown_candidate", f"no candidate {shown(decision.candidate_id)}")
        actions[decision.candidate_id] = decision.action
    return actions


def keep_unresolved(result: InspectionResult) -> tuple[ReviewDecision, ...]:
    """The conservative answer when nobody can review: keep every review item."""
    return tuple(ReviewDecision(c.id, "keep") for c in result.candidates if c.action == "review")
