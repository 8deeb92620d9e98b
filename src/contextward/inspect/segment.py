"""Atomic splitting: a message's text into verbatim units that each carry one meaning.

Owns the rules that keep meaning whole: a sentence that gives the reason for
the one before it stays with it; bullets become units; fenced code blocks and
command lines are never split inside; Chinese and Japanese sentence
punctuation splits without spaces. Every unit is a verbatim substring of the
input. Never classifies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A unit longer than this is still kept whole; only its splitting stops.
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.M | re.S)
_BULLET = re.compile(
    r"^[ \t]*(?:[-*+•·]|\d{1,3}[.)]|[（(]?\d{1,3}[)）]|[一二三四五六七八九十]+、)[ \t]+"
)
_COMMAND = re.compile(r"^[ \t]*(?:\$|>|#!|PS>|C:\\>)[ \t]")
_HEADING = re.compile(r"^[ \t]*#{1,6}[ \t]")
# A line of a log or a stack trace pasted into a message: a timestamp or a level first,
# "Traceback (most recent call last):", "  File "x.py", line 3", "    at com.Foo.bar(".
_LOG_LINE = re.compile(
    r"^[ \t]*(?:\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?\d{2}:\d{2}:\d{2}[.,]\d|"
    r"\[?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL)\]?[ \t:]|"
    r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d|at [\w.$<>]+\()"
)
_INDENTED = re.compile(r"^(?: {4}|\t)")
# An English boundary: end punctuation, space, then something that starts a sentence.
# Terse owners start sentences in lowercase ("incident. checkout p99 went up"): a
# lowercase start ends a sentence too, unless the word before is an abbreviation.
# The end mark is matched, not looked behind for: re then skips ahead to the marks instead
# of trying every position. A boundary starts one past the match's start.
_EN_END = re.compile(r"[.!?][\"')\]]*[ \t\n]+(?=[\"'(\[`*_A-Za-z0-9\u4e00-\u9fff])")
# An ASCII "!" or "?" ends a sentence with no space after it only in CJK text ("好的!下一步");
# elsewhere it is inside a URL ("/cb?redirect=…") or a password ("Zebra!Plum42").
# The end mark is matched first, then looked behind for: re skips ahead to the marks instead
# of looking behind at every position. A sentence ends one past the match's start.
_CJK_END = re.compile(
    r"[。！？!?](?:(?<=[。！？])|(?<=[\u3000-\u9fff\uff00-\uffef][!?]))[”」』）)]*[ \t]*"
)
# A URL is never cut, whatever it holds ("postgres://admin:Pa?ss@db", "…?a=1. b").
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s<>\"'`]+", re.I)
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|Mr|Mrs|Dr|No|Fig|al)|\b[A-Z])\.$")
_ACK_LEAD = re.compile(
    r"^\s*(?:ok(?:ay)?|k|great|cool(?: cool)?|nice|thanks|thank you|thx|ty|perfect|good|yes|yep|yeah|"
    r"sure|done|fine|lgtm|noted|got it|right|hmm|ah|oh)[.!]+[ \t]+(?=[a-z])",
    re.I,
)
_INLINE_CODE = re.compile(r"`[^`\n]+`")
# A sentence that gives the reason or consequence of the previous one belongs to it.
_REASON_START = re.compile(
    r"^(?:because|since|as a result|that'?s why|this is because|the reason|due to|so (?:we|i)\b|"
    r"which (?:is|was|caused|meant|broke|locked)|it (?:kept|was too|caused|locked|failed|broke|"
    r"didn'?t|doesn'?t|does not|did not|couldn'?t|can'?t|won'?t|would)|they (?:kept|caused|locked|failed)|"
    r"this (?:caused|broke|locked|failed)|"
    r"因为|由于|原因是|原因在于|所以|因此|它(?:会|总是|一直|导致|不支持)|这(?:会|导致))",
    re.I,
)
# "use pnpm not npm pls, and host it on netlify": two directives joined by ", and". The
# cut is after the spaces (group 1); the comma is matched, not looked behind for, so re
# skips ahead to the commas instead of trying every position.
_AND_DIRECTIVE = re.compile(
    r"[,;]([ \t]+)(?=and (?:also |then |please )?(?:use|host|add|make|put|keep|move|deploy|"
    r"run|set|switch|write|drop|remove|delete|rename|send|open|ping|tag|tell|ask|create|bump|"
    r"pin|cap|limit|log|store|skip|leave|change|give|turn|ship|merge|push|commit)\b)",
    re.I,
)
_LEADING_JOINER = re.compile(r"^(?:and|also|plus)[, ]+(?=\S)", re.I)
_JOINER_STARTS = "aApP"


@dataclass(frozen=True, slots=True)
class Unit:
    """One verbatim span. ``code`` for code blocks and command lines, ``heading`` for titles,
    ``boilerplate`` for a sentence a host wrote around a compaction summary."""

    text: str
    code: bool = False
    heading: bool = False
    bullet: bool = False
    boilerplate: bool = False
    #: The number of a numbered list item ("2." "(3)" "三、"): owners answer by it.
    number: int | None = None
    #: The owner message a compaction summary quotes ("All user messages"), counted from 1
    #: in the order quoted (0: not a quote).
    quoted: int = 0
    #: Led in by "Also" or "Plus", which is cut from its text: an addition.
    also: bool = False


_DIGITS = re.compile(r"\d{1,3}")
_CJK_NUMERALS = "一二三四五六七八九十"


def list_number(marker: str) -> int | None:
    """The number a list marker or reference carries: "2." -> 2, "（3）" -> 3, "三、" -> 3."""
    digits = _DIGITS.search(marker)
    if digits:
        return int(digits.group())
    numeral = next((c for c in marker if c in _CJK_NUMERALS), None)
    return _CJK_NUMERALS.index(numeral) + 1 if numeral else None


def units(text: str) -> list[Unit]:
    """Split ``text`` into atomic units, in order."""
    out: list[Unit] = []
    last = 0
    # Most messages hold no fence: the pattern, tried at every line start, is not run.
    for fence in _FENCE.finditer(text) if "```" in text or "~~~" in text else ():
        _lines(text[last : fence.start()], out)
        out.append(Unit(fence.group().strip("\n"), code=True))
        last = fence.end()
    _lines(text[last:], out)
    return out


def _lines(text: str, out: list[Unit]) -> None:
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            _sentences("\n".join(paragraph), out)
            paragraph.clear()

    log: list[str] = []
    for line in text.split("\n"):
        if log and not _LOG_LINE.match(line):
            out.append(Unit("\n".join(log), code=True))  # a pasted log is one block
            log.clear()
        if not line.strip():
            flush()
            continue
        if _LOG_LINE.match(line):
            flush()
            log.append(line.strip())
        elif _COMMAND.match(line) or _INDENTED.match(line):
            flush()
            out.append(Unit(line.strip(), code=True))
        elif _HEADING.match(line):
            flush()
            out.append(Unit(line.strip(), heading=True))
        elif bullet := _BULLET.match(line):
            flush()
            start = len(out)
            number = list_number(bullet.group())
            _sentences(line[bullet.end() :], out)
            # A bullet is one item unless its sentences are long enough to stand alone.
            if len(out) - start > 1 and len(line) < 240:
                del out[start:]
                out.append(Unit(line[bullet.end() :].strip(), bullet=True, number=number))
            else:
                out[start:] = [Unit(u.text, bullet=True, number=number) for u in out[start:]]
        else:
            paragraph.append(line)
    flush()
    if log:
        out.append(Unit("\n".join(log), code=True))


def _sentences(text: str, out: list[Unit]) -> None:
    pieces = _split(text)
    merged: list[str] = []
    for piece in pieces:
        if merged and _belongs_to_previous(piece, merged[-1]):
            merged[-1] = _join(text, merged[-1], piece)
        else:
            merged.append(piece)
    for piece in merged:
        # Only a piece that starts as a joiner does ("And", "also", "plus") is searched.
        joiner = _LEADING_JOINER.match(piece) if piece[:1] in _JOINER_STARTS else None
        trimmed = (piece[joiner.end() :] if joiner else piece).strip()
        if trimmed:
            # "Also make phase 2 …": the "also" is cut, the addition it says is kept.
            also = joiner is not None and not joiner[0].casefold().startswith("and")
            out.append(Unit(trimmed, also=also))


def _split(text: str) -> list[str]:
    protected = [m.span() for m in _INLINE_CODE.finditer(text)] if "`" in text else []
    if "://" in text:
        protected += [m.span() for m in _URL.finditer(text)]
    cuts: list[int] = []
    for match in _EN_END.finditer(text):
        at, start = match.end(), match.start() + 1  # past the end mark
        if at >= len(text) or any(a < start < b for a, b in protected):
            continue
        if _ABBREV.search(text[max(0, start - 8) : start]):
            continue
        if text[max(0, start - 4) : start] == " ...":
            continue  # "SELECT ... FOR UPDATE": an ellipsis inside the sentence
        cuts.append(at)
    # A Chinese sentence end follows a Chinese character, which ASCII text lacks.
    if not text.isascii():
        for match in _CJK_END.finditer(text):
            at = match.end()
            if at < len(text) and not any(a < match.start() + 1 < b for a, b in protected):
                cuts.append(at)
    for match in _AND_DIRECTIVE.finditer(text):
        if not any(a < match.start(1) < b for a, b in protected):
            cuts.append(match.end())
    # Terse owners write "great. deleted projects get purged after 30 days" in lowercase.
    lead = _ACK_LEAD.match(text)
    if lead and lead.end() < len(text):
        cuts.append(lead.end())
    if not cuts:
        return [text.strip()] if text.strip() else []
    pieces: list[str] = []
    last = 0
    for cut in sorted(set(cuts)):
        piece = text[last:cut].strip()
        if piece:
            pieces.append(piece)
        last = cut
    tail = text[last:].strip()
    if tail:
        pieces.append(tail)
    return pieces


_TRIED = re.compile(
    r"\b(?:tried|attempted|experimented|first used|started with)\b|试过|尝试|试了", re.I
)

_PRONOUN_START = re.compile(r"^(?:it|that|this|they|它|这)\b", re.I)
# "之前试过 SQLite。并发写的时候一直锁表，所以放弃了。": a Chinese sentence that drops what
# the one before tried names it only there, with no "it" to point back.
_ZH_TRIED = re.compile(r"试过|用过|试了|尝试过|尝试了")
_ZH_DROPPED = re.compile(r"(?:放弃|不用|弃用|换掉|去掉|停用|撤掉|回滚)了[。！!…]*$|就算了[。！!]*$")


def _belongs_to_previous(piece: str, previous: str) -> bool:
    if _REASON_START.match(piece):
        return True
    if _PRONOUN_START.match(piece):
        return bool(_TRIED.search(previous))
    return (
        not piece.isascii() and bool(_ZH_DROPPED.search(piece)) and bool(_ZH_TRIED.search(previous))
    )


def _join(text: str, first: str, second: str) -> str:
    """The verbatim span of ``text`` from ``first`` through ``second``."""
    start = text.find(first)
    end = text.find(second, start + len(first))
    if start < 0 or end < 0:
        return first
    return text[start : end + len(second)]
