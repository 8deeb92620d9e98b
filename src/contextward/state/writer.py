"""The writes into STATE.md: checkpoints, decisions, log entries; and decisions as recall rows.

Owns the library calls behind ``contextward checkpoint``, ``decide`` (and
``note decision``), ``log`` and the automatic session log. STATE.md's
Decisions section is the single home of trusted decisions: ``record_decision``
is the one code path that writes there and ``decision_rows`` is how recall
reads them, so there is no second copy that could disagree. It never prints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from . import file
from .document import UPDATED, Decision, StateDocument, StateView, parse_decision
from .errors import StateError
from .fields import checkpoint_fields, decision_line, log_line, parse_stamp, stamp, utc_now
from .project import StateProject
from .task import task_folder

if TYPE_CHECKING:
    from .superseding import Replacing


def _project(project: StateProject | None) -> StateProject:
    return project if project is not None else StateProject.open()


def read_state(project: StateProject | None = None) -> StateView:
    """What STATE.md says now (re-parsed only when the file changed)."""
    return file.load(_project(project).state_path).view


def checkpoint(
    values: Mapping[str, str | None],
    *,
    project: StateProject | None = None,
    now: datetime | None = None,
) -> StateView:
    """Overwrite the given Current fields and stamp ``updated``; other lines stay as they were.

    Raises ``StateError`` (``field_too_long``, ``invalid_field``, ``path_escape`` for a
    task outside the plans folder) before touching the file.
    """
    where = _project(project)
    cleaned = checkpoint_fields(values)
    if cleaned.get("task"):
        # Here, not in a front end, so every caller (CLI, MCP, bridge) is confined alike.
        task_folder(where, cleaned["task"])
    cleaned[UPDATED] = stamp(now or utc_now())
    return file.update(where.state_path, lambda doc: doc.with_fields(cleaned)).view


def record_decision(
    text: str,
    *,
    rejected: bool = False,
    why: str | None = None,
    project: StateProject | None = None,
    now: datetime | None = None,
) -> Decision:
    """Append a locked decision (or a ``[REJECTED]`` approach) to STATE.md's Decisions.

    The one code path for owner decisions (``contextward decide`` and
    ``contextward note decision``). Text is collapsed to one line, bounded and
    secret-masked. Raises ``StateError`` (``field_too_long``, ``invalid_field``).
    """
    return decide(text, rejected=rejected, why=why, project=project, now=now).decision


#: Said when a decision's text starts with "[REJECTED]" and was not asked to be rejected.
MARKED_REJECTED = (
    "the text starts with [REJECTED], so STATE.md holds it as a rejected approach;"
    " reword it to record a decision"
)


@dataclass(frozen=True)
class Decided:
    """A decision recorded: the line as read back, and what it did to earlier ones."""

    decision: Decision
    #: The earlier decisions it replaced, now marked ``[SUPERSEDED]``.
    replaced: tuple[Decision, ...] = ()
    #: It repeated a decision still in force word for word, so nothing was appended.
    repeated: bool = False


def decide(
    text: str,
    *,
    rejected: bool = False,
    why: str | None = None,
    project: StateProject | None = None,
    now: datetime | None = None,
) -> Decided:
    """``record_decision``, saying what it replaced: the decisions it supersedes are
    marked ``[SUPERSEDED]`` in the same write (see ``superseding``), and a decision
    still in force recorded again word for word is not appended twice."""
    where = _project(project)
    line = decision_line(text, rejected=rejected, why=why, when=now or utc_now())
    said = parse_decision(f"- {line}")
    assert said is not None  # decision_line writes a non-empty bullet body
    # A text that starts with "[REJECTED]" is read back as a rejected approach whatever
    # the flag said: what replaces what is decided by what STATE.md will hold.
    rejected = said.rejected
    # Loaded here: the decision matcher and its text normalisation would cost every hook
    # that records a tool call (and so imports this package) a fifth of its start-up.
    from .superseding import replacing

    outcome: list[Replacing] = []

    def edit(document: StateDocument) -> StateDocument:
        conflict = document.conflict_line()
        if conflict:
            # Appended below a conflict, a decision lands on one side of it, or on neither.
            raise StateError(
                "state_conflict",
                f"{where.state_path.name}: unresolved git merge conflict at line {conflict}; "
                "resolve it first",
            )
        found = replacing(document.view().decisions, said.text, rejected=rejected)
        outcome.append(found)
        if found.repeats is not None:
            return document
        return document.with_superseded(found.replaces).with_decision(line)

    view = file.update(where.state_path, edit).view
    found = outcome[-1]
    if found.repeats is not None:
        return Decided(view.decisions[found.repeats], repeated=True)
    replaced = tuple(view.decisions[number] for number in found.replaces)
    return Decided(view.decisions[-1] if view.decisions else said, replaced)


def append_log(
    text: str,
    *,
    auto: bool = False,
    project: StateProject | None = None,
    now: datetime | None = None,
) -> StateView:
    """Append a Log entry (``[auto]`` when the tool wrote it), trimming the oldest beyond the cap."""
    where = _project(project)
    line = log_line(text, auto=auto, when=now or utc_now())
    cap = where.config.log_cap
    return file.update(where.state_path, lambda doc: doc.with_log(line, cap=cap)).view


def last_checkpoint(view: StateView) -> datetime | None:
    """When the last checkpoint was written (the ``updated`` field), if it says."""
    return parse_stamp(view.updated)


@dataclass(frozen=True)
class DecisionRow:
    """A decision as a recall document: stable id, text, kind, trust."""

    id: str
    text: str
    kind: str  # "decision" | "rejected" | "superseded"
    trust: str  # "owner": STATE.md is owner-authored
    date: str
    source: str  # the STATE.md path relative to the project root


def decision_rows(project: StateProject | None = None) -> Iterator[DecisionRow]:
    """STATE.md's decisions as recall rows, read from the file each time it changed.

    The id is a hash of the decision's text and position among identical texts,
    so it is stable while the append-only section only grows.
    """
    where = _project(project)
    view = file.load(where.state_path).view
    seen: dict[str, int] = {}
    source = where.relative(where.state_path)
    for decision in view.decisions:
        text = decision.text if not decision.reason else f"{decision.text} — {decision.reason}"
        # Its kind when written: a decision keeps its id once a later one supersedes it.
        key = f"{'rejected' if decision.rejected else 'decision'}\0{text}"
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha256(f"{key}\0{seen[key]}".encode("utf-8", "replace")).hexdigest()
        yield DecisionRow(
            f"state:{digest[:12]}", text, decision.kind, "owner", decision.date, source
        )


def state_path(project: StateProject | None = None) -> Path:
    return _project(project).state_path
