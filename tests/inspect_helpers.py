"""Shared by the inspection tests: classify one unit, run the pipeline, find one candidate."""

from __future__ import annotations

from contextward.inspect import Candidate, InspectionResult, Message, inspect_messages
from contextward.inspect.classifier import Context, classify
from contextward.inspect.segment import Unit


def kind(text: str, role: str = "user", *, opening: bool = False) -> str:
    return classify(Unit(text), Context(role, opening=opening)).kind  # type: ignore[arg-type]


def run(*messages: Message) -> InspectionResult:
    return inspect_messages(messages)


def only(result: InspectionResult, content: str) -> Candidate:
    found = [c for c in result.candidates if c.content == content]
    assert len(found) == 1, [c.content for c in result.candidates]
    return found[0]


def retired(result: InspectionResult, content: str) -> bool:
    """Whether the one candidate with ``content`` was superseded."""
    return only(result, content).superseded_by is not None
