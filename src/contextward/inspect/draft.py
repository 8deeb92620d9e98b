"""A candidate under construction: mutable while one inspection merges and links it.

Owned by the inspector; frozen into a ``Candidate`` at the end. Never escapes
an inspection.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.textnorm import arabic
from .lexicon import narrow


@dataclass(slots=True)
class Draft:
    id: str
    kind: str
    content: str
    importance: float
    confidence: float
    reason: str
    #: The messages that said it: a tuple while one did (the candidate's own, shared with
    #: it), a list once copies merge into it.
    sources: tuple[str, ...] | list[str]
    position: int
    replaces: bool = False
    #: Speaker turns before this one: tool calls do not count, so distances mean the
    #: same in every transcript format.
    turn: int = 0
    role: str = "user"
    #: Said by a compaction summary in its own words (an owner message it quotes is not).
    summary: bool = False
    #: Its number in a numbered list ("2. Retry twice"), which a reply may name.
    item: int | None = None
    #: The ids it replaces, a tuple: most drafts replace nothing and share the empty one.
    supersedes: tuple[str, ...] = ()
    superseded_by: str | None = None
    #: ``content`` as the rules read it: fullwidth letters and digits as ASCII, Chinese
    #: numerals in digits ("两万" as "20000"); offsets do not hold.
    text: str = ""
    #: Its place among the inspection's drafts (the candidates' order) and whether it is
    #: settled: linked as it is, so a copy that changes its kind now comes too late.
    ordinal: int = -1
    settled: bool = False
    #: ``content`` and its message's id were found to hold no secret where they were
    #: read (``inspector._Read``): its candidate's JSON need not mask them again.
    clean: bool = False
    #: Led in by "Also" or "Plus", cut from ``content``: an addition to what was said.
    also: bool = False

    def __post_init__(self) -> None:
        self.text = arabic(narrow(self.content))
