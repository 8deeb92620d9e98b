"""A host's compaction continuation message: recognising it and its boilerplate.

After compacting, Claude Code starts the next request with a user message
("This session is being continued from a previous conversation that ran out
of context. …") that carries the summary of the earlier conversation between
sentences the host writes itself ("If you need specific details from before
compaction … read the full transcript at: <path>", "Please continue the
conversation … without asking the user any further questions."). The
transcript stores it with ``isCompactSummary`` — but not always, so it is
also recognised by its opening words.

Owns those host phrasings and the split of such a message into boilerplate
spans and summary text. The summary text is still inspected (it carries the
earlier context); the boilerplate is the host talking, never the owner, so
it must never become a constraint. Never classifies the summary text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .classifier import IMPORTANCE, Classification, Context, classify
from .segment import Unit, units

_PREAMBLE = "this session is being continued from a previous conversation"
_PREAMBLE_PEEK = len(_PREAMBLE) + 8

# Sentences the host writes around the summary. Each alternative matches one whole
# sentence (or line) starting where it starts; matched case-insensitively.
_BOILERPLATE = re.compile(
    r"(?:"
    r"this session is being continued from a previous conversation[^\n]*?(?:[.!](?=\s|$)|$)"
    r"|the summary below covers the earlier portion of the conversation[^\n]*?(?:[.:](?=\s|$)|$)"
    r"|the conversation is summari[sz]ed below[^\n]*?(?:[.:](?=\s|$)|$)"
    r"|if you need (?:specific |more )?details from before (?:the )?compaction[^\n]*?"
    r"(?:transcript at:?[ \t]*\S+|$)"
    r"|(?:please )?continue the conversation from where (?:we|it|you) left (?:it )?off[^\n]*?"
    r"(?:[.!](?=\s|$)|$)"
    r"|continue with the last task[^\n]*?(?:[.!](?=\s|$)|$)"
    r"|resume directly\b[^\n]*?(?:[.!](?=\s|$)|$)"
    r"|pick up the last task[^\n]*?(?:[.!](?=\s|$)|$)"
    r"|recent messages are preserved verbatim[^\n]*?(?:[.!](?=\s|$)|$)"
    r"|let me chronologically analy[sz]e[^\n]*?(?:[.!](?=\s|$)|$)"
    # pi's branch summary opens with it.
    r"|the user explored a different conversation branch before returning here[^\n]*?"
    r"(?:[.!](?=\s|$)|$)"
    r"|</?(?:analysis|summary)>"
    r"|(?:analysis|summary)[ \t]*:[ \t]*$"
    r")",
    re.I | re.M,
)
_NONSPACE = re.compile(r"\S")
# Section titles of the hosts' summaries (Claude Code's nine sections, pi's headings) and
# what the items under them are.
_SECTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(rf"^\W*(?:\d+[.)]\s*)?(?:{words})\b[^:\n]{{0,30}}:?\s*$", re.I))
    for kind, words in (
        ("user", r"all user messages|user messages"),
        ("goal", r"primary request|goals?|intent|objective"),
        (
            "todo",
            r"pending tasks?|next steps?|optional next step|todo|in progress|open items?|blocked",
        ),
        ("state", r"current work|progress|done|status|current state"),
        ("decision", r"key decisions?|decisions?"),
        ("constraint", r"constraints?(?: (?:&|and) preferences?)?"),
        ("fact", r"critical context|key context|key facts"),
    )
)
#: Under these sections an item with no cue of its own takes the section's kind.
_TAKES_SECTION = frozenset({"transient", "fact", "state", "todo"})


def is_continuation(text: str) -> bool:
    """Whether ``text`` is a host's continuation message (recognised by its first words)."""
    return text[: _PREAMBLE_PEEK + 64].lstrip().lower().startswith(_PREAMBLE)


def classify_summary(units_: list[Unit]) -> list[Classification]:
    """Classify a summary's units, aware of the section each one sits in."""
    ctx = Context("system", summary=True)
    quoted = Context("user")
    section: str | None = None
    out: list[Classification] = []
    for n, unit in enumerate(units_):
        title = not unit.code and not unit.boilerplate and _is_title(unit)
        if title:
            section = _section(unit.text)
            out.append(classify(unit, ctx, n))
            continue
        if _EMPTY_SECTION.fullmatch(unit.text.strip()):
            # pi's "- (none)" under "## Constraints & Preferences": nothing was said.
            out.append(Classification("transient", IMPORTANCE["transient"], 0.95, _NONE_SAID))
            continue
        if section == "user" and not unit.boilerplate:
            # "All user messages" quotes the owner: the owner's word, said again.
            c = classify(unit, quoted, n)
        else:
            c = classify(unit, ctx, n)
        if (
            section not in (None, "user")
            and c.kind in _TAKES_SECTION
            and c.kind != section
            and not (unit.code or unit.boilerplate or unit.heading)
            and c.confidence < 0.9
        ):
            kind = str(section)
            c = Classification(
                kind, IMPORTANCE[kind], 0.85, f"listed under the summary's {kind} section"
            )
        out.append(c)
    return out


#: What a summary writes under a section with nothing in it ("(none)", "- None.", "无").
_EMPTY_SECTION = re.compile(
    r"[-*•\s]*[(\[（]?\s*(?:none|n/?a|nothing|empty|—|-|无|暂无|没有)\s*[)\]）]?[.。]?", re.I
)
_NONE_SAID = "a summary's placeholder for a section with nothing in it"


def _is_title(unit: Unit) -> bool:
    """A heading, or a short line ending in a colon ("7. Pending Tasks:")."""
    text = unit.text.rstrip()
    return unit.heading or (len(text) <= 60 and text.endswith((":", "：")))


def _section(text: str) -> str | None:
    if len(text) > 60:
        return None
    for kind, pattern in _SECTIONS:
        if pattern.match(text):
            return kind
    return None


def summary_units(text: str) -> list[Unit]:
    """Units of a compaction summary: host boilerplate marked, the rest split as usual,
    and each owner message quoted under "All user messages" split as the message was."""
    return _split_quotes(_units(text))


def _split_quotes(pieces: list[Unit]) -> list[Unit]:
    """A section title with its text on one line ("1. Primary Request and Intent: Goal:
    migrate …") as the title and the text, so the text is kept without the title's words;
    and a quoted owner message ("- We're building the release tooling. Never push to
    main.") in the sentences its message was cut into, so each merges with its original:
    a rule the owner lifted later is retired in the quote too, never restored from it."""
    out: list[Unit] = []
    section: str | None = None
    quotes = 0
    for whole in pieces:
        for unit in _title_apart(whole):
            title = not (unit.code or unit.boilerplate) and _is_title(unit)
            if title:
                section = _section(unit.text)
            if section == "user" and unit.bullet and not unit.code and not title:
                quotes = min(quotes + 1, MAX_QUOTES)
                out.extend(replace(p, quoted=quotes) for p in units(_unquoted(unit.text)))
            else:
                out.append(unit)
    return out


#: How many quoted owner messages of one summary stand apart (the rest share the last).
MAX_QUOTES = 1023


#: The quotation marks a summary puts around an owner message it quotes.
_QUOTES = {'"': '"', "“": "”", "「": "」", "『": "』", "'": "'"}


def _unquoted(text: str) -> str:
    """``text`` without the quotation marks around it: "\"Use Postgres.\"" is the owner's
    "Use Postgres.", and a message of two sentences keeps no stray mark on either."""
    text = text.strip()
    close = _QUOTES.get(text[:1])
    if close and len(text) > 1 and text.endswith(close) and text.count(text[0]) <= 2:
        return text[1:-1].strip()
    return text


def _title_apart(unit: Unit) -> list[Unit]:
    """``unit`` as a known section title and the text after it, when it is a numbered
    section opening with one (Claude Code's "1. Primary Request and Intent: …"). A label
    ("Goal: ship it.") stays one item: its section would take the lines after it."""
    if unit.code or unit.boilerplate or unit.number is None:
        return [unit]
    head, colon, rest = unit.text.partition(":")
    if not colon or not rest.strip() or _section(f"{head}:") is None:
        return [unit]
    title = Unit(f"{head}:", bullet=unit.bullet, number=unit.number)
    return [title, *units(rest.strip())]


def _units(text: str) -> list[Unit]:
    if not _BOILERPLATE.search(text):
        return units(text)
    out: list[Unit] = []
    last = 0
    at = _skip_space(text, 0)
    while at < len(text):
        # A boilerplate sentence starts a line or follows another boilerplate sentence.
        match = _BOILERPLATE.match(text, at)
        if match is None or match.end() == match.start():
            newline = text.find("\n", at)
            if newline < 0:
                break
            at = _skip_space(text, newline + 1)
            continue
        out.extend(units(text[last : match.start()]))
        out.append(Unit(match.group().strip(), boilerplate=True))
        last = match.end()
        at = _skip_space(text, last)
    out.extend(units(text[last:]))
    return out


def _skip_space(text: str, at: int) -> int:
    found = _NONSPACE.search(text, at)
    return found.start() if found else len(text)
