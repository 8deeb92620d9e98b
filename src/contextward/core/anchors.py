"""Anchors and cues: what the facts verifier compares between an item and a context region.

Anchors are the critical, checkable parts of a text: values (numbers with
units and currency, dates), identifiers, paths, quoted strings and names.
Cues are the words that carry a text's polarity and force: negation,
obligation (strong, medium, weak) and revocation, plus the markers that make
a value stale ("was", "previously", "from ... to", "原为", "改为").

``analyse`` turns a text into clauses carrying all of this. Pure and
deterministic; never raises on any string; holds no text beyond the values
it returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise
from operator import itemgetter

from .textnorm import (
    CJK_RANGE,
    TOKEN_RE,
    WEEKDAYS_MONTHS,
    ZH_CUE_RE,
    ZH_NOT_CUES,
    ZH_SPLIT_RE,
    arabic,
    classify_word,
    clause_spans,
    nfkc,
    parse_value,
    token_keys,
    words,
)

CueClass = str  # "neg" | "strong" | "medium" | "weak" | "hedge" | "revoke" | "reject" | "except" | "successor" | "lapse" | "struck"

_EN_CUES: tuple[tuple[CueClass, str], ...] = (
    # What names the thing that came in the item's place: "Use Redis for caching —
    # rejected in favour of Memcached" turns Redis down, not Memcached.
    ("revoke successor", r"replaced (?:by|with)|superseded by"),
    ("successor", r"in favou?r of|swapped (?:out )?for|switched (?:over )?to"),
    (
        "revoke",
        r"no longer|not any ?more|any ?longer|does(?: not|n't) apply|do(?: not|n't) apply"
        r"|revoked|revoke|rescinded|lifted|cancell?ed|withdrawn|withdrew|retracted|reverted"
        r"|overridden|overruled|superseded|obsolete"
        r"|called off|(?:was|were|been|is|are) removed|void",
    ),
    # A rule said to have lapsed: "Previously: never push to main", "(was the rule until
    # Tuesday)", "that was the old idea" ("as previously agreed" restates it).
    (
        "revoke lapse",
        # ("previously $500" marks a stale value, read as one).
        r"(?:(?<!as )previously|formerly)(?![:\s]*[$€£¥\d])|used to be"
        r"|(?:was|were) the (?:rule|policy|plan|idea)"
        r"|(?:the |an? |that )?old (?:rule|idea|plan|policy|approach)|struck out|out of date",
    ),
    # An item that lifts a rule itself: "Forget the no-push rule." agrees with "the
    # no-push rule is lifted".
    (
        "revoke",
        r"(?:forget|ignore|drop|scrap|lift)(?= (?:about )?(?:the|that|my) (?:[\w-]+ ){0,3}?"
        r"(?:rule|constraint|restriction|requirement)\b)",
    ),
    # Words that turn a thing down: they revoke a choice, but agree with a prohibition
    # ("no pandas" and "Pandas was ruled out").
    (
        "revoke reject",
        r"abandoned|scrapped|discarded|dropped|rejected|ruled out|declined|vetoed|turned down"
        r"|decided against|shot down|nixed",
    ),
    (
        "weak",
        r"no need to|need not|needn't|(?:do|does|did)(?: not|n't) (?:need|have) to"
        r"|not (?:required|mandatory|necessary|needed|obligatory)"
        # A permission in a negative word: "pushing to main is no problem".
        r"|(?:is |it's |that's )?(?:no|not an?) (?:problem|issue|big deal|worries)",
    ),
    # A reminder is an obligation, whatever its "don't": "Don't forget to push to main".
    ("strong", r"(?:do not|don't|never) forget(?: to)?|remember to|make sure(?: to)?|be sure to"),
    # A hedge weakens a requirement: "would be nice to have", "where practical".
    (
        "weak hedge",
        r"nice to have|would be nice|where (?:practical|feasible|reasonable)"
        r"|if (?:practical|feasible|time permits)|best[- ]effort|as far as (?:possible|practical)",
    ),
    ("neg strong", r"must not|mustn't|shall not|shan't"),
    ("neg medium", r"should not|shouldn't|ought not"),
    (
        "neg",
        r"(?:not|n't|never) (?:be )?(?:allowed|permitted|ok|okay|fine|acceptable|possible)"
        r"|may not|might not|cannot|can't|can not|could not|couldn't|never|not|no|none|nobody"
        r"|instead of|rather than"
        r"|nothing|neither|nor|without|forbidden|forbids?|prohibited|prohibits?|banned|bans?"
        r"|disallowed|disallows?|avoid(?:s|ed|ing)?|refrain|\w+n't",
    ),
    (
        "strong",
        r"must|shall|always|required|requires?|mandatory|obligatory|ha(?:ve|s|d) to|needs? to"
        r"|at all times|every (?:single )?time|without exception|essential|necessary|is to|are to",
    ),
    ("medium", r"should|ought to|recommended|expected to|is expected"),
    (
        "weak",
        r"may|might|can|could|optional(?:ly)?|allowed|allows?|permitted|permits?|fine|okay|ok"
        r"|acceptable|free to|up to you|if (?:possible|needed|convenient)|where possible"
        r"|when possible|sometimes|occasionally|preferably|ideally|feel free",
    ),
    # An exception to a rule: "no new dependencies, except pydantic".
    (
        "except",
        r"except(?: for)?|unless|other than|apart from|aside from|with the exception of"
        r"|excepted|exempt(?:ed)?",
    ),
)
# Every cue opens with a word character: one "\b(?=\w)" up front lets the engine pass
# over the other positions once, not once per cue class (three times faster).
_EN_CUE_RE = re.compile(
    r"\b(?=\w)(?:"
    + "|".join(rf"(?P<g{index}>(?:{pattern})\b)" for index, (_cls, pattern) in enumerate(_EN_CUES))
    + ")"
)
#: Any revocation cue, English or Chinese: a cheap test before a full analysis.
# Each side behind a lookahead on its first characters, so the engine passes over the
# other positions at once (a quarter faster over the windows it tests).
REVOKE_RE = re.compile(
    r"\b(?=[a-z])(?:"
    + "|".join(pattern for classes, pattern in _EN_CUES if "revoke" in classes.split())
    + r")\b|(?=[取撤废作不失解推放否~])(?:取消|撤销|撤回|废除|作废|不再|失效|解除|推翻|放弃|否决|~~)"
)
#: Markdown strikethrough ("~~Never push to main.~~"): what it strikes no longer holds, and
#: only that (``analyse`` gives the struck clauses their cue).
_STRUCK = re.compile(r"~~[^~\n]+~~")
_EN_GROUP_CLASSES = {f"g{index}": tuple(cls.split()) for index, (cls, _p) in enumerate(_EN_CUES)}

_ZH_CLASSES: dict[str, tuple[CueClass, ...]] = {}
for _classes, _words in (
    (
        ("neg",),
        "不 没 没有 别 勿 切勿 禁止 严禁 不得 不能 不可 不要 不准 不许 绝不 从不 永不 决不 避免 未 并非 无法",
    ),
    (("strong",), "必须 务必 一定要 一定 始终 总是 永远 须 需要 要求 必需"),
    (("medium",), "应当 应该 应 尽量 最好"),
    (("weak",), "可以 允许 可选 随意 也行 也可以 不必 无需 不需要 不用 酌情 视情况 可自行"),
    (("revoke",), "取消 撤销 撤回 废除 作废 不再 失效 解除 推翻 放弃 否决 已取消 已撤销"),
    # "main 上直接 push 没问题" permits; "别忘了直接 push 到 main" obliges.
    (("weak",), "没问题 没关系 无所谓"),
    (("strong",), "别忘了 别忘记 不要忘了 不要忘记 记得 记住"),
):
    for _word in _words.split():
        _ZH_CLASSES[_word] = _classes

#: Words after which a value is an old one ("was $500", "from 5 to 8", "原为500元").
_STALE_BEFORE = words(
    "was were previously formerly earlier old originally initially from prior former instead rather "
    "原为 原来 原先 原本 之前 以前 此前 旧 从"
)
#: Words after which a value is the current one.
_CURRENT_BEFORE = words(
    "now currently new to is are becomes became be set 改为 调整为 改成 变为 变成 提高到 降低到 "
    "提高至 降至 升至 现在 目前 现为 到 至"
)
#: A transition after a value that announces its replacement ("$500, now $800").
_TRANSITION = words("to now replaced became becomes 改为 调整为 改成 变为 变成 到 至 现在 现为")
_ARROWS = re.compile(r"\s*(?:->|=>|→|⟶)\s*")

_QUOTE_RE = re.compile(
    r"\"([^\"\n]{1,300})\"|(?<![a-z0-9])'([^'\n]{1,300})'(?![a-z0-9])|`([^`\n]{1,300})`"
    r"|“([^”\n]{1,300})”|「([^」\n]{1,300})」|『([^』\n]{1,300})』"
)
_CJK_RUN = re.compile(f"[{CJK_RANGE}]+")


@dataclass(frozen=True, slots=True)
class Value:
    number: str
    unit: str
    kind: str  # currency | percent | duration | size | number | date
    stale: bool
    #: "max" for "under 200ms", "at most 5", "500美元以内"; "min" for "over", "at least",
    #: "以上"; "" when the value is stated without a bound.
    bound: str = ""


@dataclass(frozen=True, slots=True)
class Ident:
    key: str
    kind: str  # identifier | path
    stale: bool


@dataclass(frozen=True, slots=True)
class Clause:
    """What one clause says, structurally: term keys, anchors, cue counts."""

    keys: frozenset[str]
    values: tuple[Value, ...]
    idents: tuple[Ident, ...]
    names: frozenset[str]
    quotes: tuple[tuple[str, ...], ...]
    surface: tuple[str, ...]
    cues: tuple[tuple[CueClass, int], ...]

    def cue(self, cls: CueClass) -> int:
        return dict(self.cues).get(cls, 0)


_UNIT_KINDS = {
    "usd": "currency",
    "eur": "currency",
    "gbp": "currency",
    "cny": "currency",
    "pct": "percent",
    "ms": "duration",
    "s": "duration",
    "min": "duration",
    "h": "duration",
    "day": "duration",
    "week": "duration",
    "month": "duration",
    "year": "duration",
    "kb": "size",
    "mb": "size",
    "gb": "size",
    "tb": "size",
}


def prepare(text: str) -> tuple[str, str]:
    """``(cased, lowered)``: NFKC with straight quotes, Chinese numerals as digits and
    arrows as ``to``, the two of one length."""
    cased = arabic(nfkc(text).replace("\u2019", "'").replace("\u2018", "'"))
    if ">" in cased or "→" in cased or "⟶" in cased:  # most texts have no arrow: no regex pass
        cased = _ARROWS.sub(" to ", cased)
    lowered = cased.lower()
    if len(lowered) != len(cased):  # a rare case-mapping that changes length: no name detection
        cased = lowered
    return cased, lowered


#: Work said to be still open: "not written yet" and "TODO:" say the same of it.
_PENDING = re.compile(
    r"(?=[tpnso待还尚])"  # the first characters, as in TOKEN_RE
    r"(?:\b(?:todo|to-do|pending|not (?:\w+ ){0,2}yet|still (?:open|to do)|open item)\b|待办|还没|尚未)"
)


def cue_counts(lowered: str) -> dict[CueClass, int]:
    counts: dict[CueClass, int] = {}
    if pending := len(_PENDING.findall(lowered)):
        counts["pending"] = pending
    for match in _EN_CUE_RE.finditer(lowered):
        for cls in _EN_GROUP_CLASSES[match.lastgroup or ""]:
            counts[cls] = counts.get(cls, 0) + 1
    for run in _CJK_RUN.findall(lowered):  # one pass: no search before it
        for match in ZH_CUE_RE.finditer(run):
            for cls in _ZH_CLASSES.get(match.group(), ()):
                counts[cls] = counts.get(cls, 0) + 1
    return counts


def _tokens(lowered: str) -> list[tuple[str, int]]:
    """Tokens with start offsets; Chinese runs split into cue phrases and the rest."""
    out: list[tuple[str, int]] = []
    for match in TOKEN_RE.finditer(lowered):
        token = match.group()
        # A token opening at or past U+3400 is a Chinese run: TOKEN_RE's other tokens open
        # with an ASCII character or a currency sign (no regex call per token).
        if token[0] >= "\u3400":
            last = 0
            for cue in ZH_SPLIT_RE.finditer(token):
                if cue.group() in ZH_NOT_CUES:
                    continue
                if cue.start() > last:
                    out.append((token[last : cue.start()], match.start() + last))
                out.append((cue.group(), match.start() + cue.start()))
                last = cue.end()
            if last < len(token):
                out.append((token[last:], match.start() + last))
        else:
            out.append((token, match.start()))
    if not NUMBER_WORDS.isdisjoint(map(itemgetter(0), out)):
        out = _counted(out)
    return out


#: English number words, read as the number before a counted noun: "two replicas".
_NUMBER_WORDS = {
    word: str(number)
    for number, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "ninety": "90"}


#: The number words, as a set the hot loops test a segment's tokens against.
NUMBER_WORDS = frozenset(_NUMBER_WORDS)


def _counted(tokens: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """ "Keep two replicas" as "Keep 2 replicas": a number word and the noun it counts
    make one value token, as the digits do. "one of them", "the other one" stay words."""
    out: list[tuple[str, int]] = []
    skip = False
    for index, (token, start) in enumerate(tokens):
        if skip:
            skip = False
            continue
        value = _count(token, tokens[index + 1][0] if index + 1 < len(tokens) else "")
        out.append((token, start) if value is None else (value, start))
        skip = value is not None
    return out


def counted_words(tokens: list[str]) -> list[str]:
    """Plain tokens with "two replicas" read as "2 replicas" (the context index's form)."""
    if NUMBER_WORDS.isdisjoint(tokens):
        return tokens
    out: list[str] = []
    skip = False
    for index, token in enumerate(tokens):
        if skip:
            skip = False
            continue
        value = _count(token, tokens[index + 1] if index + 1 < len(tokens) else "")
        out.append(token if value is None else value)
        skip = value is not None
    return out


def _count(token: str, after: str) -> str | None:
    number = _NUMBER_WORDS.get(token)
    if number is None or not (after[:1].isalpha() and after.isascii() and token_keys(after)):
        return None
    return f"{number} {after}"


def _value_kind(token: str, unit: str) -> str:
    if token[0] in "$€£¥":
        return "currency"
    if unit in _UNIT_KINDS:
        return _UNIT_KINDS[unit]
    if re.fullmatch(r"\d+(?:[-/]\d+){2}|\d+:\d+", token):
        return "date"
    return "number"


# The words before a value that bound it, the negated ones first ("no more than 5" is
# a most, "不少于 3" a least), and the symbols and Chinese words right beside it.
_BOUND_BEFORE = (
    ("max", re.compile(r"(?:\bno more than|\bnot more than|不超过|不多于|不高于|不大于)$")),
    (
        "min",
        re.compile(r"(?:\bno less than|\bnot less than|\bno fewer than|不少于|不低于|不小于)$"),
    ),
    (
        "max",
        re.compile(
            r"(?:\b(?:under|below|within|less than|fewer than|lower than|at most|up to|max|maximum"
            r"|capped at)|低于|少于|小于|最多|不到)$"
        ),
    ),
    (
        "min",
        re.compile(
            r"(?:\b(?:over|above|more than|greater than|higher than|at least|min|minimum"
            r"|exceeds?|exceeding)|超过|高于|多于|大于|至少|最少)$"
        ),
    ),
)
_BOUND_SYMBOL = {"<": "max", "≤": "max", ">": "min", "≥": "min"}
_BOUND_AFTER = {"以内": "max", "以下": "max", "之内": "max", "以上": "min", "之上": "min"}


def _bound(surface: list[str], index: int, text: str, start: int) -> str:
    """Whether the value at ``index`` (at ``start`` in ``text``) is bounded: "max", "min"
    or ""."""
    near = text[max(0, start - 3) : start].rstrip(" =")
    if near[-1:] in _BOUND_SYMBOL:
        return _BOUND_SYMBOL[near[-1]]
    if index + 1 < len(surface) and surface[index + 1] in _BOUND_AFTER:
        return _BOUND_AFTER[surface[index + 1]]
    lead = " ".join(surface[max(0, index - 3) : index])
    joined = lead.replace(" ", "")  # "不 超过": Chinese words are cut apart
    for bound, pattern in _BOUND_BEFORE:
        if pattern.search(lead) or pattern.search(joined):
            return bound
    return ""


def _is_stale(surface: list[str], index: int, anchors: dict[int, str]) -> bool:
    """Is the anchor at ``index`` an old one: "$500 -> $800", "was $500", "原为500元".

    A transition only counts when an anchor of the same class follows it: in
    "within 2 hours and write to /srv" the path does not replace the duration.
    """
    own = anchors[index]
    # "100 is too high", "100 太高了": a value faulted where it is named is the old one.
    if surface[index + 1 : index + 3] in (["is", "too"], ["are", "too"], ["was", "too"]) or (
        index + 1 < len(surface) and surface[index + 1].startswith("太")
    ):
        return True
    for ahead in range(index + 1, min(len(surface), index + 4)):
        if ahead in anchors:
            break
        if surface[ahead] in _TRANSITION:
            if any(anchors.get(later) == own for later in range(ahead + 1, ahead + 4)):
                return True
            break
    for back in range(index - 1, max(-1, index - 4), -1):
        if back in anchors:
            break
        if surface[back] in _STALE_BEFORE:
            return True
        if surface[back] in _CURRENT_BEFORE:
            return False
    return False


def analyse(text: str) -> list[Clause]:
    """Clauses of ``text`` (one segment or a whole item), each analysed.

    Staleness is decided over the whole text, since "$500, now $800" puts the
    transition in the next clause.
    """
    cased, lowered = prepare(text)
    tokens = _tokens(lowered)
    surface = [token for token, _ in tokens]
    anchors: dict[int, str] = {}  # token index -> "value" | "ident"
    for index, token in enumerate(surface):
        if token[0].isdigit() or token[0] in "$€£¥" or token in WEEKDAYS_MONTHS:
            anchors[index] = "value"
        elif token[0] in "/~._" or ("a" <= token[0] <= "z" and classify_word(token) != "word"):
            anchors[index] = "ident"  # identifiers take part in "from X to Y" as well
    quote_starts = [
        (match.start(), tuple(TOKEN_RE.findall(next(group for group in match.groups() if group))))
        for match in _QUOTE_RE.finditer(lowered)
    ]
    out: list[Clause] = []
    cursor = 0
    spans = clause_spans(lowered)
    struck = [match.span() for match in _STRUCK.finditer(lowered)] if "~~" in lowered else []
    if struck:
        spans = _cut_at_strikes(lowered, spans, struck)
    for start, end in spans:
        first = cursor
        while cursor < len(tokens) and tokens[cursor][1] < end:
            cursor += 1
        members = range(first, cursor)
        quotes = tuple(quote for at, quote in quote_starts if start <= at < end and quote)
        out.append(
            _clause(
                cased,
                lowered[start:end],
                tokens=tokens,
                surface=surface,
                members=members,
                anchors=anchors,
                quotes=quotes,
                struck=any(s <= start and end <= e for s, e in struck),
            )
        )
    return out


def _cut_at_strikes(
    lowered: str, spans: list[tuple[int, int]], struck: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """``spans`` cut where a strike opens and closes, so a clause is struck through whole
    or not at all: "~~Use Redis~~ and set the timeout to 30s" strikes the first part only."""
    edges = sorted({edge for span in struck for edge in span})
    out: list[tuple[int, int]] = []
    for start, end in spans:
        cuts = [start, *(edge for edge in edges if start < edge < end), end]
        out.extend((a, b) for a, b in pairwise(cuts) if not lowered[a:b].isspace())
    return out


def _clause(
    cased: str,
    text: str,
    *,
    tokens: list[tuple[str, int]],
    surface: list[str],
    members: range,
    anchors: dict[int, str],
    quotes: tuple[tuple[str, ...], ...],
    struck: bool = False,
) -> Clause:
    keys: set[str] = set()
    values: list[Value] = []
    idents: list[Ident] = []
    names: set[str] = set()
    for index in members:
        token, start = tokens[index]
        token_key = token_keys(token)
        keys.update(token_key)
        if anchors.get(index) == "value":
            stale = _is_stale(surface, index, anchors)
            if token in WEEKDAYS_MONTHS:
                values.append(Value(token, "", "date", stale))
                continue
            parsed = parse_value(token)
            if parsed is not None:
                bound = _bound(surface, index, cased, start)
                kind = _value_kind(token, parsed[1])
                values.append(Value(parsed[0], parsed[1], kind, stale, bound))
            continue
        if not "a" <= token[0] <= "z" and token[0] not in "/~._":
            continue
        kind = classify_word(token)
        if kind in ("path", "identifier"):
            stale = _is_stale(surface, index, anchors)
            idents.append(Ident(token.rstrip("./"), kind, stale))
            continue
        # Most words are lowercase: the first letter is tested before the word is cut out.
        if (
            token_key
            and cased[start].isupper()
            and _is_name(cased[start : start + len(token)], cased, start)
        ):
            names.add(token_key[0])
    return Clause(
        keys=frozenset(keys),
        values=tuple(values),
        idents=tuple(idents),
        names=frozenset(names),
        quotes=quotes,
        surface=tuple(surface[members.start : members.stop]),
        cues=tuple(sorted(_struck(cue_counts(text)) if struck else cue_counts(text).items())),
    )


def _struck(counts: dict[CueClass, int]) -> Iterable[tuple[CueClass, int]]:
    """A struck-through clause's cues: its own, and it no longer holds ("revoke"; "struck"
    says how, for what the strike speaks of: its own words only)."""
    counts["revoke"] = counts.get("revoke", 0) + 1
    counts["struck"] = 1
    return counts.items()


#: Capitalised labels of a note, not names of anything: "Remaining TODO: write the PR
#: description" is kept by "Next: write the PR description".
_LABELS = frozenset(("TODO", "FIXME", "NOTE", "NOTES", "WIP", "TBD", "XXX", "HACK", "DONE"))


def _is_name(raw: str, cased: str, start: int) -> bool:
    """A capitalised word that is not merely sentence-initial, or one with inner capitals.

    Short all-capital words (PR, API, CI) are common abbreviations that
    summaries spell out, so they stay plain terms.
    """
    if not raw[:1].isupper():
        return False
    if (raw.isupper() and len(raw) <= 3) or raw in _LABELS:
        return False
    if any(ch.isupper() for ch in raw[1:]):
        return len(raw) > 1
    before = cased[:start].rstrip()
    return bool(before) and before[-1] not in ".!?:;\n\"'(“「-*#>•"
