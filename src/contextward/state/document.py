"""The STATE.md text model: a tolerant reader and line edits that keep what they did not write.

STATE.md has three sections — Current (key: value fields), Decisions (an
append-only list of locked decisions and ``[REJECTED]`` approaches, a line marked
``[SUPERSEDED]`` once a later decision replaces it) and Log
(milestones and automatic entries, capped, oldest trimmed). People edit it by
hand, so reading accepts any key case, bullets and bold around keys, extra
prose, other sections, duplicate keys (the first wins) and junk bytes.

This module owns parsing and editing text. It never touches the file
system, and an edit never drops or rewrites a line it did not understand:
the only lines removed are superseded duplicates of a field it rewrites and
log entries beyond the cap.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

#: The Current fields a checkpoint writes, in the order they are written.
FIELDS: tuple[str, ...] = ("focus", "phase", "blockers", "next", "handoff", "task")
#: The Current key holding the time of the last checkpoint (ISO 8601, UTC).
UPDATED = "updated"
#: What a fresh STATE.md looks like.
TEMPLATE = "# State\n\n## Current\n\n## Decisions\n\n## Log\n"

SECTIONS = ("current", "decisions", "log")
_SECTION_ALIASES = {
    "current": "current",
    "current state": "current",
    "decisions": "decisions",
    "decision": "decisions",
    "log": "log",
    "session log": "log",
}
_KEY_ALIASES = {
    "blocker": "blockers",
    "next step": "next",
    "next steps": "next",
    "hand off": "handoff",
    "hand-off": "handoff",
    "last updated": UPDATED,
    "updated at": UPDATED,
}
_KNOWN_KEYS = frozenset((*FIELDS, UPDATED))

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$")
# "focus: x", "- Focus: x", "**Focus**: x", "**Focus:** x", "FOCUS : x"
_FIELD = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?([A-Za-z][A-Za-z _-]{0,24}?)[ \t]*(?:\*\*|__)?[ \t]*:"
    r"(?:\*\*|__)?[ \t]*(.*?)[ \t]*$"
)
_BULLET = re.compile(r"^[ \t]*[-*+][ \t]+(.*?)[ \t]*$")
_BULLET_LEAD = re.compile(r"^[ \t]*[-*+][ \t]+")
_REJECTED = re.compile(r"^\[rejected\][ \t]*:?[ \t]*", re.IGNORECASE)
_SUPERSEDED = re.compile(r"^\[superseded\][ \t]*:?[ \t]*", re.IGNORECASE)
#: The mark a replaced decision's line carries, before its text.
SUPERSEDED_MARK = "[SUPERSEDED] "
_TRAILING_DATE = re.compile(r"[ \t]*\[(\d{4}-\d{2}-\d{2})[^\]]*\][ \t]*$")
# One pattern for a whole log line: it runs on every line of a possibly huge Log.
_LOG_LINE = re.compile(
    r"^[ \t]*[-*+][ \t]+((?i:\[auto\])[ \t]*)?"
    r"(?:\[(\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?Z?)?)\][ \t]*)?(.*)$"
)
_REASON_SEPARATORS = (" — ", " -- ", " – ")


@dataclass(frozen=True)
class Decision:
    """One line of the Decisions section."""

    text: str
    rejected: bool = False
    reason: str = ""
    date: str = ""
    #: A later decision replaced it: it stays in the record, no longer in force.
    superseded: bool = False

    @property
    def kind(self) -> str:
        if self.superseded:
            return "superseded"
        return "rejected" if self.rejected else "decision"

    @property
    def current(self) -> bool:
        """A locked decision still in force (neither rejected nor replaced)."""
        return not (self.rejected or self.superseded)


@dataclass(frozen=True)
class LogEntry:
    """One line of the Log section."""

    text: str
    when: str = ""
    auto: bool = False


@dataclass(frozen=True)
class StateView:
    """What a STATE.md says, as far as the reader understood it."""

    fields: Mapping[str, str] = field(default_factory=dict)
    decisions: tuple[Decision, ...] = ()
    log: tuple[LogEntry, ...] = ()
    sections: tuple[str, ...] = ()
    #: The line (1-based) of an unresolved git merge conflict's ``<<<<<<<``; 0: none.
    conflict_line: int = 0

    @property
    def updated(self) -> str:
        return self.fields.get(UPDATED, "")

    @property
    def locked(self) -> int:
        return sum(1 for d in self.decisions if d.current)

    @property
    def rejected(self) -> int:
        return sum(1 for d in self.decisions if d.rejected and not d.superseded)

    @property
    def superseded(self) -> int:
        return sum(1 for d in self.decisions if d.superseded)


@dataclass(frozen=True)
class _Span:
    name: str | None  # a known section name, or None for the preamble and other sections
    heading: int  # index of the heading line; -1 for the preamble
    end: int  # exclusive


def section_name(title: str) -> str | None:
    """The known section a heading title names (any case, trailing colon ignored), if any."""
    key = " ".join(title.strip().strip(":").lower().split())
    return _SECTION_ALIASES.get(key)


def field_key(raw: str) -> str:
    key = " ".join(raw.lower().replace("_", " ").split())
    key = _KEY_ALIASES.get(key, key)
    return key.replace(" ", "_")


def parse_decision(line: str) -> Decision | None:
    """A Decisions bullet line as a Decision, or None for prose."""
    bullet = _BULLET.match(line)
    if bullet is None or not bullet.group(1):
        return None
    text = bullet.group(1)
    superseded = rejected = False
    if (mark := _SUPERSEDED.match(text)) is not None:
        superseded = True
        text = text[mark.end() :]
    if (mark := _REJECTED.match(text)) is not None:
        rejected = True
        text = text[mark.end() :]
    date = ""
    if (stamp := _TRAILING_DATE.search(text)) is not None:
        date = stamp.group(1)
        text = text[: stamp.start()]
    reason = ""
    for separator in _REASON_SEPARATORS:
        head, found, tail = text.rpartition(separator)
        if found and head.strip():
            text, reason = head, tail
            break
    return Decision(text.strip(), rejected, reason.strip(), date, superseded)


def parse_log_entry(line: str) -> LogEntry | None:
    """A Log bullet line as a LogEntry, or None for prose."""
    match = _LOG_LINE.match(line)
    if match is None:
        return None
    auto, when, text = match.groups()
    text = text.strip()
    if not text and not when and not auto:
        return None
    return LogEntry(text, when or "", auto is not None)


def _is_bullet(line: str) -> bool:
    stripped = line.lstrip(" \t")
    return (
        stripped[:1] in ("-", "*", "+")
        and stripped[1:2] in (" ", "\t")
        and bool(stripped[2:].strip())
    )


def parse_field(line: str) -> tuple[str, str] | None:
    match = _FIELD.match(line)
    if match is None:
        return None
    key = field_key(match.group(1))
    if key not in _KNOWN_KEYS:
        return None
    return key, match.group(2)


def _marker(line: str, char: str) -> bool:
    return line.startswith(char * 7) and (len(line) == 7 or line[7] == " ")


@dataclass(frozen=True)
class StateDocument:
    """The lines of a STATE.md (split on ``\\n`` only, so ``text()`` round-trips byte for byte)."""

    lines: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> StateDocument:
        return cls(tuple(text.split("\n")))

    @classmethod
    def empty(cls) -> StateDocument:
        return cls.parse(TEMPLATE)

    def text(self) -> str:
        return "\n".join(self.lines)

    # -- reading -------------------------------------------------------

    def spans(self) -> list[_Span]:
        spans: list[_Span] = []
        name: str | None = None
        start, level = -1, 0
        for index, raw in enumerate(self.lines):
            if raw[:4].lstrip(" ")[:1] != "#":
                continue
            heading = _HEADING.match(raw)
            if heading is None:
                continue
            this_level, this_name = len(heading.group(1)), section_name(heading.group(2))
            # A sub-heading inside a known section is part of its prose.
            if name is not None and this_name is None and this_level > level:
                continue
            spans.append(_Span(name, start, index))
            name, start, level = this_name, index, this_level
        spans.append(_Span(name, start, len(self.lines)))
        return spans

    def _body(self, span: _Span) -> Iterator[tuple[int, str]]:
        for index in range(span.heading + 1, span.end):
            yield index, self.lines[index].rstrip("\r")

    def view(self) -> StateView:
        fields: dict[str, str] = {}
        decisions: list[Decision] = []
        log: list[LogEntry] = []
        names: list[str] = []
        for span in self.spans():
            if span.name is None:
                continue
            names.append(span.name)
            for _, line in self._body(span):
                if span.name == "current":
                    parsed = parse_field(line)
                    if parsed is not None and parsed[0] not in fields:
                        fields[parsed[0]] = parsed[1]
                elif span.name == "decisions":
                    if (decision := parse_decision(line)) is not None:
                        decisions.append(decision)
                elif (entry := parse_log_entry(line)) is not None:
                    log.append(entry)
        return StateView(
            fields,
            tuple(decisions),
            tuple(log),
            tuple(dict.fromkeys(names)),
            self.conflict_line(),
        )

    def conflict_line(self) -> int:
        """Where git left an unresolved merge conflict: the line (1-based) of a
        ``<<<<<<<`` marker that a ``>>>>>>>`` marker follows; 0 when there is none.
        (A lone ``=======`` is a Markdown heading underline, not a conflict.)"""
        opened = 0
        for number, raw in enumerate(self.lines, start=1):
            line = raw.rstrip("\r")
            if not opened and _marker(line, "<"):
                opened = number
            elif opened and _marker(line, ">"):
                return opened
        return 0

    # -- editing -------------------------------------------------------

    def _eol(self) -> str:
        # Keep a CRLF file CRLF: new lines copy the ending of the first line.
        return "\r" if self.lines and self.lines[0].endswith("\r") else ""

    def _first(self, name: str) -> _Span | None:
        return next((s for s in self.spans() if s.name == name), None)

    def _ensure(self, name: str) -> tuple[StateDocument, _Span]:
        """This document with a ``## Name`` section (added in the canonical order when missing)."""
        span = self._first(name)
        if span is not None:
            return self, span
        spans = self.spans()
        later = SECTIONS[SECTIONS.index(name) + 1 :]
        at = next((s.heading for s in spans if s.name in later), None)
        lines = list(self.lines)
        eol = self._eol()
        if at is None:
            heading = f"## {name.capitalize()}{eol}"
            if lines and lines[-1] == "":
                lines.pop()  # the empty string after the final newline
            if lines and lines[-1].rstrip("\r") != "":
                lines.append(eol)
            lines += [heading, ""]
        else:
            lines[at:at] = [f"## {name.capitalize()}{eol}", eol]
        document = StateDocument(tuple(lines))
        found = document._first(name)
        assert found is not None  # just added
        return document, found

    def _insertion_point(self, span: _Span) -> int:
        """After the last non-blank line of the section's body, or right after its heading."""
        at = span.heading + 1
        for index, line in self._body(span):
            if line.strip():
                at = index + 1
        return at

    def with_fields(self, values: Mapping[str, str]) -> StateDocument:
        """Set Current fields (canonical ``key: value`` lines); later duplicates of a set key go."""
        document, span = self._ensure("current")
        lines = list(document.lines)
        eol = document._eol()
        first: dict[str, int] = {}
        drop: set[int] = set()
        last_field = span.heading
        for index, line in document._body(span):
            parsed = parse_field(line)
            if parsed is None:
                continue
            last_field = index
            key = parsed[0]
            if key in values:
                if key in first:
                    drop.add(index)
                else:
                    first[key] = index
        for key, index in first.items():
            lines[index] = f"{key}: {values[key]}{eol}"
        missing = [f"{key}: {values[key]}{eol}" for key in values if key not in first]
        kept = [line for index, line in enumerate(lines) if index not in drop]
        at = last_field + 1 - sum(1 for index in drop if index <= last_field)
        kept[at:at] = missing
        return StateDocument(tuple(kept)).with_final_newline()

    def with_decision(self, line: str) -> StateDocument:
        """Append one Decisions line (already formatted, without bullet or line end)."""
        return self._append("decisions", line)

    def with_superseded(self, numbers: Iterable[int]) -> StateDocument:
        """Mark the decisions at these positions of ``view().decisions`` ``[SUPERSEDED]``.

        Only the mark goes in, after the bullet: the line keeps its words, its reason
        and its date, and a line already marked is left as it is.
        """
        wanted = set(numbers)
        if not wanted:
            return self
        lines = list(self.lines)
        seen = 0
        for span in self.spans():
            if span.name != "decisions":
                continue
            for index, line in self._body(span):
                decision = parse_decision(line)
                if decision is None:
                    continue
                if seen in wanted and not decision.superseded:
                    bullet = _BULLET_LEAD.match(line)
                    assert bullet is not None  # parse_decision read a bullet
                    at = bullet.end()
                    lines[index] = self.lines[index][:at] + SUPERSEDED_MARK + self.lines[index][at:]
                seen += 1
        return StateDocument(tuple(lines))

    def with_log(self, line: str, *, cap: int) -> StateDocument:
        """Append one Log line, then trim the oldest entries so at most ``cap`` remain."""
        document = self._append("log", line)
        span = document._first("log")
        assert span is not None
        entries = [i for i, text in document._body(span) if _is_bullet(text)]
        excess = len(entries) - cap
        if excess <= 0:
            return document
        drop = set(entries[:excess])
        return StateDocument(tuple(t for i, t in enumerate(document.lines) if i not in drop))

    def _append(self, name: str, line: str) -> StateDocument:
        document, span = self._ensure(name)
        lines = list(document.lines)
        at = document._insertion_point(span)
        lines[at:at] = [f"- {line}{document._eol()}"]
        return StateDocument(tuple(lines)).with_final_newline()

    def with_final_newline(self) -> StateDocument:
        if self.lines and self.lines[-1] != "":
            return StateDocument((*self.lines, ""))
        return self
