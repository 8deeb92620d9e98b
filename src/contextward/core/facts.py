"""The facts verifier: tells preserved, changed and lost apart, deterministically.

For each item it extracts anchors (values with units and currency, dates,
identifiers, paths, quoted strings, names), cues (negation, obligation,
revocation) and key content terms (stemmed, synonyms folded, Chinese
bigrams); finds the best matching region of the context through an index
built once per call (term -> segments); and compares the two. A critical
anchor that is missing or contradicted never yields ``preserved``.

Reasons are structural: they name the kind of change and the anchor type,
never item content or context text. Pure, stdlib only, no state kept
between calls.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple, TypeVar

from .anchors import (
    NUMBER_WORDS,
    REVOKE_RE,
    Clause,
    Ident,
    Value,
    analyse,
    counted_words,
    cue_counts,
    prepare,
)
from .item import ContextItem
from .shown import shown
from .textnorm import (
    CJK_RANGE,
    TOKEN_RE,
    VALUE_PREFIX,
    WEEKDAYS_MONTHS,
    classify_word,
    keys_of,
    normalize,
    parse_value,
    segments,
    stem,
    token_keys,
)

_T = TypeVar("_T")
_FOLLOW_UP_CHARS = 80
_LEADING_NOTE = re.compile(r"[(（][^()（）]{1,80}[)）]")
_SEP = "\x00"
_LATIN = re.compile(r"[a-z_/~.]")
_CLAUSE_BREAK = re.compile(r"[.!?;:,()\[\]。！？；：，、（）]")
_POINTER = re.compile(r"\b(?:this|that|it|these|those)\b|此|该|这")

#: Anchors weigh more than plain terms when measuring how much of an item a region holds.
ANCHOR_WEIGHT = 2.0
#: Words a summary leaves out of a rule without changing it, weighing this little: the
#: verb of "Don't use pandas in this project" ("No pandas."), of "Do not add any new
#: dependencies" ("No new dependencies"), and where it applies ("in this project").
GENERIC_WEIGHT = 0.2
_GENERIC = frozenset(
    stem(word)
    for word in [
        "use",
        "add",
        "introduce",
        "install",
        "create",
        "project",
        "repo",
        "repository",
        "codebase",
    ]
)
#: Below this share of an item's weighted keys a region is not the item at all.
MATCH_THRESHOLD = 0.5
#: At least this share is needed to call an unchanged item preserved.
PRESERVE_THRESHOLD = 0.7
#: Keys found in more segments than this are not used to look regions up.
_MAX_LOOKUP_POSTINGS = 250
#: At most this many candidate segments are measured exactly per item.
_POOL = 16
_CANDIDATES = 3
_MAX_WINDOW = 4
#: Words a short follow-up sentence may use besides the item's own terms ("This rule was lifted").
_FOLLOW_UP_WORDS = frozenset(
    keys_of(
        "rule constraint decision requirement plan item policy note guidance instruction "
        "user owner team applies apply valid holds effect force "
        "规定 规则 约束 决定 这条规定 该规定 此规定 这一条 这项要求 该要求 用户 这条规则 此条"
    )
)


@dataclass(frozen=True, slots=True)
class Region:
    """Where an item is best found: adjacent segments and how much of the item they hold."""

    window: list[int]
    coverage: float
    matched: int
    total: int
    verbatim: bool


#: A value the item itself names as the old one, in so many words: "instead of 8", "not
#: 8", "100 is too high", "100 太高了" (a bare transition, "0 to 500", may be a range).
_NAMED_OLD = re.compile(
    # "instead of 8", "404, not 403": a number named as the old one, not one end of a
    # range ("not 0 to $500" names no old value).
    r"(?=[irn$€£¥\d])"  # the first characters, as in TOKEN_RE
    r"(?:\b(?:instead of|rather than|not)\s+[$€£¥]?(\d+(?:[.,]\d+)*)(?![\w%]*\s*(?:to|-|–|~)\s*[$€£¥]?\d)|"
    r"(?<![\w.])[$€£¥]?(\d+(?:[.,]\d+)*)\s*[a-z%]*\s*(?:(?:is|are|was) (?:way |far )?too\b|太))"
)


#: Verbs whose "from X" names what an item leaves: "Switch the job state from Postgres to
#: SQLite", "migrated to SQLite from Postgres".
_MOVE_VERBS = frozenset(
    re.findall(
        r"\S+",
        "switch switched switching move moved moving migrate migrated migrating change changed "
        "changing swap swapped swapping port ported convert converted raise raised lower lowered "
        "increase increased decrease decreased reduce reduced bump bumped upgrade upgraded "
        "downgrade downgraded",
    )
)
#: Chinese words after which the thing named just before them is the old one: "从 Postgres
#: 改成 SQLite", "把 Redis 换成 Memcached", "每页 50 条改成 200 条".
_ZH_INTO = (
    *("改成", "改为", "换成", "换为", "改用", "换用", "变成", "变为"),
    *("迁到", "迁移到", "迁至", "切到", "切换到", "转到", "改到"),
)
#: Chinese words before a thing an item stops using: "不用 S3 了", "不再用 Redis", "弃用 Celery".
_ZH_STOPS = frozenset(("不用", "不再", "弃用", "停用"))
#: Words between a marker and the thing it names: "instead of the Redis idea", "不再用 Redis".
_LEADS = frozenset(("the", "a", "an", "用", "使用"))
_CJK_WORD = re.compile(f"[{CJK_RANGE}]")
#: The words either side of an arrow ("Heroku → Fly"), which ``prepare`` turns into "to".
_ARROW_FROM = re.compile(r"([^\s>→⟶]+?)\s*(?:->|=>|→|⟶)\s*(\S*)")


class _Retired(NamedTuple):
    """What an item replaces, in so many words (see ``_retired``)."""

    #: Keys of the old things and of the verbs that move them ("from Postgres", "switch").
    any: frozenset[str]
    #: Keys of old things that count only as a name or an identifier ("…, not S3").
    named: frozenset[str]
    #: Keys of what came in their place ("to SQLite", "改成 GBK", "存到 GCS，不用 S3 了").
    new: frozenset[str]


_NONE_RETIRED = _Retired(frozenset(), frozenset(), frozenset())
#: A cheap first test: every form ``_retired`` reads holds one of these (an arrow aside),
#: and most items none. No word boundaries: they make the search several times slower.
_RETIRING = re.compile(r"from|instead|rather|replac|not|不用|不再|弃用|停用|改|换|变|迁|切|转")


def _retired(parts: list[Clause], content: str, lowered: str) -> _Retired:
    """The things an item names as the ones it replaces. ``any`` holds the X of "switch …
    from X to Y", "X → Y", "instead of X", "rather than X", "replace X with Y" and "从 X 改成
    Y", with the verb of the move, which a summary of what holds need not repeat either
    ("Uploads are on GCS."). ``named`` holds the X of "…, not X" and "…，不用 X 了" beside
    another clause, which counts only where X is a name or an identifier ("Do not change
    the public API: …" retires no verb, and "on Friday, not Monday" is left to the values'
    own reading). ``new`` holds the Y, and for a Chinese "不用 X" the Latin words of the
    other clauses. A thing the item also names elsewhere is not retired ("Move uploads
    from S3 to GCS; keep S3 for backups")."""
    arrow = ">" in content or "→" in content or "⟶" in content
    if not arrow and not _RETIRING.search(lowered):
        return _NONE_RETIRED  # most items: one search
    retired: Counter[str] = Counter()
    named: set[str] = set()
    new: set[str] = set()
    beside: set[int] = set()  # the clauses of a "不用 X"
    for number, clause in enumerate(parts):
        words = clause.surface
        for at, only_named, then in _retired_at(words, len(parts) > 1):
            if at < len(words):
                keys = token_keys(words[at])
                retired.update(keys)
                if only_named:
                    named.update(keys)
                    beside.add(number)
            if then is not None and then < len(words):
                new.update(token_keys(words[then]))
    if beside and any(_CJK_WORD.match(word) for part in parts for word in part.surface):
        new.update(
            key
            for number, clause in enumerate(parts)
            if number not in beside
            for word in clause.surface
            if _LATIN.match(word)
            for key in token_keys(word)
        )
    if arrow:
        for match in _ARROW_FROM.finditer(content.lower()):
            before, after = TOKEN_RE.findall(match[1]), TOKEN_RE.findall(match[2])
            if before:
                retired.update(token_keys(before[-1]))
            if after:
                new.update(token_keys(after[0]))
    if not retired:
        return _Retired(frozenset(), frozenset(), frozenset(new))
    said = Counter(key for clause in parts for word in clause.surface for key in token_keys(word))
    gone = {key for key, count in retired.items() if count >= said[key]}
    return _Retired(frozenset(gone - named), frozenset(gone & named), frozenset(new - gone))


def _retired_at(words: tuple[str, ...], several: bool) -> Iterator[tuple[int, bool, int | None]]:
    """Where ``_retired``'s X stands in a clause's ``words``, whether it counts only as a
    name or an identifier, and where its Y stands (None when the clause does not say)."""
    for n, word in enumerate(words):
        if word == "from":
            start = max(0, n - 6)
            lead = words[start:n]
            # "Don't move uploads from S3" keeps them there.
            if _MOVE_VERBS.intersection(lead) and not cue_counts(" ".join(lead)).get("neg"):
                old = _past_leads(words, n + 1)
                # "from X to Y", or "migrated to Y from X".
                ahead = words[old + 1 : old + 2] in (("to",), ("into",), ("onto",))
                back = [start + k + 1 for k, lead_word in enumerate(lead) if lead_word == "to"]
                yield old, False, _past_leads(words, old + 2) if ahead else next(iter(back), None)
                for at in range(start, n):
                    if words[at] in _MOVE_VERBS:
                        yield at, False, None
        elif word in ("instead", "rather") and words[n + 1 : n + 2] in (("of",), ("than",)):
            yield _past_leads(words, n + 2), False, None
        elif word in ("replace", "replacing") and "with" in words[n + 2 : n + 6]:
            yield _past_leads(words, n + 1), False, _past_leads(words, words.index("with", n) + 1)
        elif several and (word == "not" or word in _ZH_STOPS):
            yield _past_leads(words, n + 1), True, None
        elif n and word.startswith(_ZH_INTO) and not cue_counts(" ".join(words[:n])).get("neg"):
            # The thing just before it ("导出编码改成 GBK" names no old encoding), past a
            # measure word ("50 条改成").
            before = n - 2 if n > 1 and len(words[n - 1]) == 1 else n - 1
            if not _CJK_WORD.match(words[before]):
                yield before, False, n + 1


def _past_leads(words: tuple[str, ...], at: int) -> int:
    """``at`` moved past an article ("from the Postgres setup")."""
    while at < len(words) - 1 and words[at] in _LEADS:
        at += 1
    return at


@dataclass(frozen=True, slots=True)
class Placed:
    """An item's best region in a context (segment numbers; empty when none), the item's
    keys the region lacks (``gone``) and the region's keys the item lacks (``put``: what
    a changed item was changed to)."""

    window: frozenset[int]
    gone: frozenset[str]
    put: frozenset[str]
    #: The region's own text, its segments joined by newlines.
    text: str = ""


@dataclass(frozen=True, slots=True)
class Profile:
    """An item's anchors, cues and weighted term keys."""

    weights: tuple[tuple[str, float], ...]
    values: tuple[Value, ...]
    idents: tuple[Ident, ...]
    names: frozenset[str]
    quotes: tuple[tuple[str, ...], ...]
    cues: tuple[tuple[str, int], ...]
    folded: str
    squashed: str
    sentences: int
    clauses: tuple[Clause, ...] = ()
    #: The old values the item names ("instead of 30"): a summary need not repeat them,
    #: but one naming another old value in their place changed the item.
    former: tuple[Value, ...] = ()
    #: The keys of the names and identifiers the item replaces ("from Postgres to
    #: SQLite"): no anchors a summary must repeat (``names`` and ``idents`` hold only the
    #: current ones), and a summary naming one where the current one should be changed it.
    retired: frozenset[str] = frozenset()
    #: The keys of what came in their place ("to SQLite"), when the item says.
    successors: frozenset[str] = frozenset()

    @classmethod
    def of(cls, content: str) -> Profile:
        parts = analyse(content)
        lowered = prepare(content)[1]
        values = tuple(value for part in parts for value in part.values)  # repeats count
        # An old value the item itself names ("instead of 8", "100 is too high", "from 500
        # to 800") is not one a summary must repeat: only the current ones are anchors.
        faulted = {(m[1] or m[2]).replace(",", "") for m in _NAMED_OLD.finditer(lowered)}
        set_aside, named, successors = _retired(parts, content, lowered)
        if set_aside:
            faulted.update(
                key[len(VALUE_PREFIX) :] for key in set_aside if key.startswith(VALUE_PREFIX)
            )
        # Only beside a current value of its kind: "not 0 to Friday" names no old count. A
        # bare number takes the unit of the value it stands against ("90 seconds, not 30").
        gone = {
            v.number
            for v in values
            if v.number in faulted
            and any(
                (h.kind == v.kind or bool(h.unit and not v.unit)) and h.number not in faulted
                for h in values
            )
        }
        held = {value.number for value in values if value.number not in gone}
        old = {VALUE_PREFIX + number for number in gone - held}
        former = tuple(value for value in values if value.number in gone) if held else ()
        values = tuple(value for value in values if value.number not in gone) if held else values
        idents = _unique(ident for part in parts for ident in part.idents)
        names = frozenset(name for part in parts for name in part.names)
        # The names and identifiers it replaces are no anchors; its values were read above.
        retired = (
            (set_aside | named) & names.union(ident.key for ident in idents)
            if set_aside or named
            else set_aside
        )
        if retired:
            names -= retired
            idents = tuple(ident for ident in idents if ident.key not in retired)
        anchor_keys = _anchor_keys(parts)
        keys = set().union(*(part.keys for part in parts)) - (old if held else set())
        cues: dict[str, int] = {}
        for part in parts:
            for cue, count in part.cues:
                cues[cue] = cues.get(cue, 0) + count
        # What the item sets aside ("Use pnpm instead of npm") weighs as a generic word: a
        # summary of what holds need not name it ("Use pnpm.").
        aside = _aside_keys(parts)
        if set_aside or retired:
            aside = aside.union(
                key for key in set_aside | retired if not key.startswith(VALUE_PREFIX)
            )
        return cls(
            weights=tuple(
                (key, GENERIC_WEIGHT if key in aside else _weight(key, anchor_keys))
                for key in sorted(keys)
            ),
            values=values,
            idents=idents,
            names=names,
            quotes=tuple(quote for part in parts for quote in part.quotes),
            cues=tuple(sorted(cues.items())),
            folded=" ".join(lowered.split()),
            squashed=f"{_SEP}{squash(lowered)}{_SEP}",
            sentences=max(1, len(segments(content))),
            clauses=tuple(parts),
            former=former,
            retired=retired,
            successors=successors - _GENERIC if retired else frozenset(),
        )


class _TokenKeys(dict[str, tuple[str, ...]]):
    """``token_keys`` memoised for one context: a plain dict lookup, with the miss handled
    inside the lookup, so the index needs no Python loop over its tokens."""

    def __missing__(self, token: str) -> tuple[str, ...]:
        keys = self[token] = token_keys(token)
        return keys


@dataclass
class ContextIndex:
    """The context cut into segments, with term -> segment postings; built once per check."""

    segments: list[str]
    keysets: list[frozenset[str]]
    postings: dict[str, list[int]]
    _clauses: dict[int, list[Clause]] = field(default_factory=dict)
    _folded: dict[int, str] = field(default_factory=dict)
    _squashed: dict[int, str] = field(default_factory=dict)

    @classmethod
    def build(cls, context: str) -> ContextIndex:
        # NFKC once for the whole text; each segment then only needs lowercasing.
        parts = segments(normalize(context, lower=False))
        keysets: list[frozenset[str]] = []
        findall = TOKEN_RE.findall
        number_words = NUMBER_WORDS
        keys_of_token = _TokenKeys().__getitem__  # per call: a context repeats its words
        for part in parts:
            tokens = findall(part.lower())
            if not number_words.isdisjoint(tokens):  # "two replicas": read as "2 replicas"
                tokens = counted_words(tokens)
            keysets.append(frozenset(chain.from_iterable(map(keys_of_token, tokens))))
        postings: defaultdict[str, list[int]] = defaultdict(list)
        for number, keys in enumerate(keysets):
            for key in keys:
                postings[key].append(number)
        return cls(parts, keysets, dict(postings))

    def clauses(self, number: int) -> list[Clause]:
        cached = self._clauses.get(number)
        if cached is None:
            cached = self._clauses[number] = analyse(self.segments[number])
        return cached

    def folded(self, number: int) -> str:
        """A segment lowercased, NFKC, whitespace folded."""
        cached = self._folded.get(number)
        if cached is None:
            cached = self._folded[number] = " ".join(prepare(self.segments[number])[1].split())
        return cached

    def squashed(self, number: int) -> str:
        """A segment's tokens joined by NUL: the form verbatim checks use.

        Whitespace and punctuation between tokens are left out (segments may be
        cut where the item had none, ``句。句``); token boundaries are kept, so
        ``1`` is not found in ``1000``.
        """
        cached = self._squashed.get(number)
        if cached is None:
            cached = self._squashed[number] = squash(self.folded(number))
        return cached

    def best_window(self, profile: Profile, *, after: int = -1) -> Region | None:
        """The region (a few adjacent segments, all past segment ``after``) that holds most
        of the item."""
        weights = dict(profile.weights)
        total = sum(weights.values())
        if not weights:
            return None
        # Candidates come from the rarest keys only, so a word that is in every
        # sentence costs nothing; then the best few are measured exactly.
        chosen: list[str] = []
        looked = 0
        for df, key in sorted((len(self.postings.get(key, ())), key) for key in weights):
            if df == 0:
                continue
            if chosen and looked + df > _MAX_LOOKUP_POSTINGS:
                break
            chosen.append(key)
            looked += df
        if not chosen:
            return None
        tails = []
        for key in chosen:
            postings = self.postings[key]  # in segment order: the ones past ``after`` are a tail
            tails.append(postings[bisect_right(postings, after) :])
        if len(tails) == 1:
            # One key: every segment holds it once, so the pool is its first segments.
            pool = tails[0][:_POOL]
            if not pool:
                return None
        else:
            counts = Counter(chain.from_iterable(tails))
            if not counts:
                return None
            # Ties are broken by position (Counter keeps first-seen order, and a stable
            # sort keeps it: what most_common does, without its heap).
            ranked = sorted(counts.items(), key=itemgetter(1), reverse=True)[:_POOL]
            floor = ranked[0][1] - 1
            pool = [number for number, hits in ranked if hits >= floor]
        wanted = frozenset(weights)  # intersections walk the smaller set: the item's
        anchors = frozenset(key for key, weight in weights.items() if weight == ANCHOR_WEIGHT)
        extra = ANCHOR_WEIGHT - 1.0
        keysets = self.keysets
        measured = [
            (len(wanted & keysets[number]) + extra * len(anchors & keysets[number]), -number)
            for number in pool
        ]
        measured.sort(reverse=True)
        top = measured[:_CANDIDATES]
        limit = min(_MAX_WINDOW, profile.sentences + 1)
        best: tuple[tuple[bool, float, int, int], Region] | None = None
        for _score, negative in top:
            window, matched = self._grow(-negative, weights, wanted, limit, after)
            # The item's words can only all be there when all its keys are, or, for
            # an item of several sentences, when they are a short widening away (a
            # sentence that only lends a value, "500美元.", stops growth by keys).
            complete = len(matched) == len(wanted)
            verbatim = complete and self._holds(window, profile.squashed)
            if not verbatim and (complete or limit > 2):
                extended = self._verbatim_window(window, profile.squashed, limit, after)
                if extended is not None:
                    window, verbatim = extended, True
                    matched = set().union(*(wanted & self.keysets[n] for n in window))
            coverage = sum(weights[key] for key in matched) / total
            # Equal coverage: the window holding the item's own words wins, then the
            # shorter, then the earlier one.
            rank = (verbatim, coverage, -len(window), -window[0])
            if best is None or rank > best[0]:
                # Counted as a person reads them: words of little weight left out.
                told = [key for key in weights if weights[key] != GENERIC_WEIGHT] or list(weights)
                shown = sum(1 for key in told if key in matched)
                best = (rank, Region(window, coverage, shown, len(told), verbatim))
        return best[1] if best is not None else None

    def _holds(self, window: list[int], squashed: str) -> bool:
        held = _SEP.join(filter(None, map(self.squashed, window)))
        return squashed in f"{_SEP}{held}{_SEP}"

    def _verbatim_window(
        self, window: list[int], squashed: str, limit: int, after: int = -1
    ) -> list[int] | None:
        """The smallest widening of ``window`` (within ``limit`` segments) holding the item verbatim.

        An item of several sentences may have sentences with no key of their own
        ("Push. Never."), which growth by keys does not reach.
        """
        spare = limit - len(window)
        for extra in range(1, spare + 1):
            for before in range(extra + 1):
                start, end = window[0] - before, window[-1] + (extra - before)
                if start <= after or start < 0 or end >= len(self.segments):
                    continue
                candidate = list(range(start, end + 1))
                if self._holds(candidate, squashed):
                    return candidate
        return None

    def _refers_back(self, number: int, new: frozenset[str], missing: frozenset[str]) -> bool:
        """Segment ``number`` says the rest of the item of what the segment before it
        named: "Main is protected. Never push there directly." for "Never push to main"."""
        if not new or new != missing:
            return False
        return any(word in _BACK for clause in self.clauses(number) for word in clause.surface)

    def _grow(
        self,
        start: int,
        weights: dict[str, float],
        wanted: frozenset[str],
        limit: int,
        after: int = -1,
    ) -> tuple[list[int], set[str]]:
        window = [start]
        matched = set(wanted.intersection(self.keysets[start]))
        while len(window) < limit:
            options = []
            for number in (window[0] - 1, window[-1] + 1):
                if after < number < len(self.segments) and number >= 0:
                    shared = wanted.intersection(self.keysets[number])
                    new = shared - matched
                    if not new:
                        continue  # it would add nothing (every weight is positive)
                    # A neighbour must speak about the item in words, not lend it a
                    # value; only an item of several sentences takes a thin one.
                    words = sum(1 for key in shared if not key.startswith(VALUE_PREFIX))
                    if (
                        words < 2
                        and (limit <= 2 or all(key.startswith(VALUE_PREFIX) for key in new))
                        and not self._refers_back(number, new, wanted - matched)
                    ):
                        continue
                    options.append((sum(weights[key] for key in new), -number, number, new))
            options = [option for option in options if option[0] > 0]
            if not options:
                break
            _gain, _neg, number, new = max(options)
            window = sorted([*window, number])
            matched |= new
        return window, matched


@dataclass(frozen=True, slots=True)
class FactsVerifier:
    """Deterministic meaning-level verifier: preserved, changed (with the kind of change) or lost."""

    match_threshold: float = MATCH_THRESHOLD
    preserve_threshold: float = PRESERVE_THRESHOLD

    def verify(self, items: list[ContextItem], context: str) -> list[dict[str, Any]]:
        # Both sides as they are shown: an item said with terminal escapes is printed
        # without them, so a faithful summary holds it without them.
        context = shown(context)
        index = ContextIndex.build(context)
        folded_context: list[str] = []  # computed only if an item has no keys at all
        findings = []
        for item in items:
            profile = Profile.of(shown(item.content))
            status, reason = self._judge(profile, index, context, folded_context)
            findings.append({"itemId": item.id, "status": status, "reason": reason})
        return findings

    def placed(self, items: list[ContextItem], context: str) -> dict[str, Placed]:
        """Where each item is best found in ``context``, and how that region differs from it."""
        index = ContextIndex.build(shown(context))
        found: dict[str, Placed] = {}
        for item in items:
            profile = Profile.of(shown(item.content))
            own = frozenset(key for key, _ in profile.weights)
            region = index.best_window(profile) if profile.weights else None
            window = frozenset(region.window) if region is not None else frozenset()
            there = frozenset().union(*(index.keysets[n] for n in window))
            text = "\n".join(index.segments[n] for n in sorted(window))
            found[item.id] = Placed(window, own - there, there - own, text)
        return found

    def _contradicted_after(self, profile: Profile, index: ContextIndex, end: int) -> str | None:
        """The change a region past segment ``end`` states of the item (revoked, a stale or
        swapped value), if one does; a region that only mentions it changes nothing."""
        found = index.best_window(profile, after=end)
        if found is None or found.verbatim or found.coverage < self.match_threshold:
            return None
        # Only a region that names the item in words speaks of it: numbers alone ("0;5"
        # after "$500 5") may be about anything.
        words = {key for key, _ in profile.weights if not key.startswith(VALUE_PREFIX)}
        if not any(words & index.keysets[n] for n in found.window):
            return None
        status, reason = _compare(
            profile,
            index=index,
            window=found.window,
            coverage=found.coverage,
            matched=found.matched,
            total=found.total,
            preserve_threshold=self.preserve_threshold,
            off_subject=False,
        )
        if status != "changed":
            return None
        if reason.startswith(_LATER_CHANGES):
            return reason
        # A rule's words without its "never" are a mention ("open a PR to main"), unless
        # they come with a permission: "pushing straight to main is fine for this fix".
        permitted = any(
            clause.cue("weak") or clause.cue("revoke")
            for number in found.window
            for clause in index.clauses(number)
        )
        return reason if reason == "changed: negation flipped (removed)" and permitted else None

    def _judge(
        self, profile: Profile, index: ContextIndex, context: str, folded_context: list[str]
    ) -> tuple[str, str]:
        """``(status, reason)`` for one item profile against an indexed context."""
        if not profile.weights:
            if not folded_context:
                folded_context.append(" ".join(prepare(context)[1].split()))
            if profile.folded and profile.folded in folded_context[0]:
                return "preserved", "preserved: verbatim"
            return "lost", "lost: no matching region"
        found = index.best_window(profile)
        if found is None:
            return "lost", "lost: no matching region"
        window, coverage, matched, total = found.window, found.coverage, found.matched, found.total
        if coverage < self.match_threshold:
            flipped = _clause_flip(profile, index, window) or _anchor_swap(profile, index, window)
            if flipped is not None:
                return "changed", flipped
            return "lost", f"lost: too few key terms matched ({matched} of {total})"
        if found.verbatim:
            status, reason = _verbatim(profile, index, window)
            if status == "preserved":
                # A summary that quotes the owner's messages word for word (Claude Code's
                # "All user messages") may still state the item changed further on.
                later = self._contradicted_after(profile, index, window[-1])
                if later is not None:
                    return "changed", f"{later} (after a verbatim copy)"
            return status, reason
        return _compare(
            profile,
            index=index,
            window=window,
            coverage=coverage,
            matched=matched,
            total=total,
            preserve_threshold=self.preserve_threshold,
        )


#: The changes a later region may show against a verbatim copy of the item: what it says
#: of the item in so many words, not a mention that leaves a word out.
_LATER_CHANGES = ("changed: revoked", "changed: stale value", "changed: value swapped")


def _verbatim(profile: Profile, index: ContextIndex, window: list[int]) -> tuple[str, str]:
    """The item's own words are there; only a revocation around them or a newer value can change it.

    Polarity and force come from the item's own words, so they cannot differ.
    """
    keyset = {key for key, _ in profile.weights}
    window_text = " ".join(index.folded(number) for number in window)
    if not dict(profile.cues).get("neg") and _negated_before(profile.folded, window_text):
        return "changed", "changed: negation flipped (added)"
    held = _held(profile)
    if REVOKE_RE.search(window_text) and _revokes(
        index, window, keyset, _prohibits(profile), held
    ) > dict(profile.cues).get("revoke", 0):
        return "changed", "changed: revoked"
    if _revoked_after(index, window, keyset):
        return "changed", "changed: revoked"
    if _excepted(profile, index, window):
        return "changed", EXCEPTED
    own = dict(profile.cues)
    # "All endpoints must have integration tests, where practical": a hedge beside a
    # verbatim rule makes it a wish.
    if (
        (own.get("strong") or own.get("neg"))
        and not own.get("hedge")
        and any(clause.cue("hedge") for number in window for clause in index.clauses(number))
    ):
        return "changed", "changed: obligation weakened"
    if profile.values or profile.idents:
        parts = [clause for number in window for clause in index.clauses(number)]
        stale, _swapped, _missing = _anchor_changes(profile, parts)
        if stale:
            return "changed", f"changed: stale value ({stale[0]})"
    return "preserved", "preserved: verbatim"


def key_sets(content: str) -> tuple[frozenset[str], frozenset[str]]:
    """A text's index keys: ``(all, terms)``; terms are the keys that are no anchor
    (values, identifiers, names)."""
    parts = analyse(content)
    keys = frozenset().union(*(part.keys for part in parts))
    return keys, keys - _anchor_keys(parts)


def _weight(key: str, anchors: frozenset[str]) -> float:
    return ANCHOR_WEIGHT if key in anchors else GENERIC_WEIGHT if key in _GENERIC else 1.0


def _anchor_keys(parts: Iterable[Clause]) -> frozenset[str]:
    keys: set[str] = set()
    for part in parts:
        keys.update(VALUE_PREFIX + value.number for value in part.values)
        keys.update(ident.key for ident in part.idents)
        keys.update(part.names)
    return frozenset(keys)


def squash(lowered: str) -> str:
    """The tokens of a normalised text joined by NUL (see ``ContextIndex.squashed``)."""
    return _SEP.join(TOKEN_RE.findall(lowered))


def _negated_before(needle: str, text: str) -> bool:
    """Is the verbatim occurrence led by a negation in its clause ("Do not <item>")?"""
    start = text.find(needle)
    if start < 0:  # found across a cut that folding keeps: no lead to read
        return False
    lead = _CLAUSE_BREAK.split(text[max(0, start - 80) : start])[-1]
    return bool(cue_counts(" ".join(lead.split()[-4:])).get("neg"))


def _revokes(
    index: ContextIndex,
    window: list[int],
    keyset: set[str],
    prohibition: bool = False,
    held: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
) -> int:
    """Revocation cues in the sentences that speak about the item, in any of their clauses.

    A whole sentence counts: "Revoked by the user: <item>" and "<item> (no
    longer applies)" put the cue in a clause of its own. For a ``prohibition`` ("no
    pandas"), words that turn a thing down ("Pandas was ruled out") agree with it. A
    clause that names another thing and none of the item's ``own`` anchors turns that
    thing down, not the item ("uses REST; the GraphQL suggestion was declined").
    """
    total = 0
    for number in window:
        parts = index.clauses(number)
        if _relevant(parts, keyset) is not parts or len(parts) == 1:
            total += sum(
                clause.cue("revoke") - (_turned_down(clause) if prohibition else 0)
                for n, clause in enumerate(parts)
                if not _about_another(parts[: n + 1], held, keyset)
            )
    return total


#: What an item turns down ("use RQ instead of Celery", "Forget Redis for the waitlist"):
#: a summary saying that thing was dropped agrees with the item.
_TURNS_DOWN = re.compile(
    r"(?=[irnfdso不弃去])"  # the first characters, as in TOKEN_RE
    r"(?:\b(?:instead of|rather than|not|no|forget(?: about)?|drop|ditch|scrap|over)\s+"
    r"(?:the\s+|a\s+|an\s+)?(?P<name>[a-z][\w.+-]*)|(?:不再用|不用|弃用|去掉)\s*(?P<zh>[a-z][\w.+-]*))"
)


def _held(profile: Profile) -> tuple[frozenset[str], frozenset[str]]:
    """``(held, down)``: the item's anchors but those it turns down (what a revocation must
    name to revoke it), and the words of what it turns down."""
    own = _anchor_keys(profile.clauses)
    down = frozenset(m["name"] or m["zh"] for m in _TURNS_DOWN.finditer(profile.folded))
    # The item's own words about what it turns down are the thing's, not the item's:
    # "Celery is overkill here" lends "overkill" to "(Celery was dropped as overkill)".
    about = (
        clause.keys
        for clause in profile.clauses
        if clause.keys & down and not _TURNS_DOWN.search(" ".join(clause.surface))
    )
    retired = profile.retired
    return (own - down - retired or own), down.union(*about) | retired


#: The first word of a marker of what came in an item's place (anchors' "successor" cue).
_SUCCESSOR_WORDS = frozenset({"favour", "favor", "replaced", "superseded", "swapped", "switched"})


def _about_another(
    clauses: list[Clause], held: tuple[frozenset[str], frozenset[str]], keyset: set[str]
) -> bool:
    """Whether the last clause turns down another thing than the item: it names another
    and none of the item's anchors; or it names nothing, shares no word with the item but
    what the item itself turns down, and the nearest clause before it that names anything
    names another thing ("试过 50 条，…，因此放弃"). "(Redis dropped)" is about "Use Redis
    for the waitlist", not about "Forget Redis for the waitlist"."""
    own, down = held
    last = clauses[-1]
    if last.cue("lapse"):
        return False  # "(was the rule until Tuesday)" speaks of the rule beside it
    if last.cue("struck"):
        # A strike revokes what it strikes, never a sentence beside it ("~~Use Redis for
        # caching.~~ Set the HTTP timeout to 30s."): the item only when it strikes the
        # item's own anchors, or some of its words and no anchor of another thing.
        anchors = _anchor_keys([last])
        if anchors:
            return not anchors & own
        return not (last.keys & keyset) - down - _GENERIC
    if last.cue("successor"):
        # "rejected in favour of Memcached": a thing named after the marker is what came
        # in, one named before it what was turned down ("the Memcached idea was rejected
        # in favour of it").
        marker = next(
            (n for n, word in enumerate(last.surface) if word in _SUCCESSOR_WORDS),
            len(last.surface),
        )
        others = last.names - own
        before = last.surface[:marker]
        return any(word.startswith(name) for word in before for name in others)
    anchors = _anchor_keys(clauses[-1:])
    reason = next((n for n, word in enumerate(last.surface) if word in _REASON_WORDS), None)
    if reason and anchors:
        # "PostgreSQL was rejected because the ops team only runs MySQL": what was turned
        # down is named before its reason, which may name what was kept.
        named = set(chain.from_iterable(token_keys(word) for word in last.surface[:reason]))
        anchors = frozenset(anchors & named) or anchors
    if anchors:
        return bool(anchors - own) and not anchors & own
    if (clauses[-1].keys & keyset) - down:
        return False
    if clauses[-1].keys & down:
        return True
    if _turns_down_its_own_subject(last, keyset):
        return True
    for clause in reversed(clauses[:-1]):
        anchors = _anchor_keys([clause])
        if anchors:
            return bool(anchors - own) and not anchors & own
    return False


def _turns_down_its_own_subject(clause: Clause, keyset: set[str]) -> bool:
    """Whether ``clause`` turns down a thing it names before its cue, sharing no word with
    the item: "Redis locks were rejected" beside "we use pg_advisory_xact_lock", where
    "This rule was lifted" and "Revoked by the user:" speak of the item beside them."""
    joined = " ".join(clause.surface)
    cue = REVOKE_RE.search(joined)
    if cue is None or not cue.start():
        return False
    # Latin words only: the characters before a Chinese cue ("此条已取消") are no subject
    # told apart from the item's by its keys.
    subject = {
        key
        for word in joined[: cue.start()].split()
        if _LATIN.match(word)
        for key in token_keys(word)
    }
    subject &= clause.keys
    return bool(subject) and not subject & keyset and not subject <= _REFERRING


#: Words by which a sentence points at a thing the sentence before it named.
_BACK = frozenset(("there", "it", "them", "那里", "它"))

#: Words that open the reason of a clause.
_REASON_WORDS = frozenset(("because", "since", "as", "因为", "由于"))


def _prohibits(profile: Profile) -> bool:
    """Whether the item forbids something ("no pandas", "never push to main")."""
    return dict(profile.cues).get("neg", 0) > 0


#: What a rule is called: turning one of these down revokes the rule ("We scrapped the
#: plan to follow this: never push to main"), where turning down the thing a rule
#: forbids agrees with it ("Pandas was ruled out").
_RULE_WORDS = frozenset(
    re.findall(
        r"\S+",
        "rule rules plan plans policy policies restriction restrictions ban constraint "
        "constraints requirement requirements guideline guidelines instruction instructions "
        "规定 规则 限制 要求 约定",
    )
)


#: Words that name no thing of their own, only an item said beside them ("This rule was
#: lifted", "the old approach was dropped", "that decision was reversed").
_REFERRING = frozenset(
    key
    for word in re.findall(
        r"\S+",
        "idea ideas approach approaches suggestion suggestions proposal proposals option "
        "options choice choices decision decisions item items user owner earlier old "
        "previous original former above following this that these those it everything",
    )
    + sorted(_RULE_WORDS)
    for key in token_keys(word)
)


def _turned_down(clause: Clause) -> int:
    """Words in ``clause`` that turn a thing down, unless the thing is a rule."""
    return 0 if _RULE_WORDS.intersection(clause.surface) else clause.cue("reject")


def _relevant(parts: list[Clause], keyset: set[str], own: tuple[Clause, ...] = ()) -> list[Clause]:
    """Clauses of a region that speak about the item, else all of them.

    A clause is about the item when it holds enough of its keys, or at least
    half the keys of one of the item's own clauses ("..., not Monday").
    """
    need = 1 if len(keyset) <= 4 else 2
    own_keys = [part.keys & keyset for part in own]
    return [
        clause
        for clause in parts
        if len(clause.keys & keyset) >= need
        or any(_half_of(clause.keys & keyset, keys) for keys in own_keys)
    ] or parts


def _half_of(shared: frozenset[str], keys: frozenset[str]) -> bool:
    """``shared`` is at least half of one item clause's keys ("never push to develop")."""
    return bool(shared) and shared <= keys and 2 * len(shared) >= len(keys)


def _compare(
    profile: Profile,
    *,
    index: ContextIndex,
    window: list[int],
    coverage: float,
    matched: int,
    total: int,
    preserve_threshold: float,
    off_subject: bool = True,
) -> tuple[str, str]:
    """Judge a region that holds the item's keys but not its exact words.

    The order is the order of certainty: revocation, anchors (stale, swapped),
    polarity and force, missing anchors, coverage, a word swapped in place. With
    ``off_subject`` false, a value away from the item's subject changes nothing (past a
    verbatim copy, where a summary's current state names other values of the same
    things: read there, it reported 7 of 97 faithful restore-probe summaries changed).
    """
    parts = [clause for number in window for clause in index.clauses(number)]
    keyset = {key for key, _ in profile.weights}
    relevant = _relevant(parts, keyset, profile.clauses)
    item_cues = Counter(dict(profile.cues))
    region_cues: Counter[str] = Counter()
    held = _held(profile)
    for clause in relevant:
        region_cues.update(dict(clause.cues))
        region_cues["neg"] -= _set_aside(clause, keyset)
        region_cues["turned_down"] += _turned_down(clause) + _under_label(parts, clause)
    # "(switched from Heroku)" anywhere in the region sets aside what the item turns down.
    region_cues["turned_down"] += sum(_moved_from(clause, held[1]) for clause in parts)
    said = frozenset().union(*(c.keys for c in relevant))
    asides = _asides(profile, said)
    item_cues["neg"] -= sum(aside.cue("neg") for aside in asides)
    # "Use pnpm instead of npm." in one clause: its "instead of npm" is no rule to repeat
    # when the region says nothing of npm ("Use pnpm.") beside the choice: "Use the
    # stdlib csv module; pandas is too heavy" names pandas apart from it.
    item_cues["neg"] -= sum(
        _set_aside_unsaid(clause, relevant) for clause in profile.clauses if clause not in asides
    )

    if _revokes(index, window, keyset, _prohibits(profile), held) > item_cues[
        "revoke"
    ] or _revoked_after(index, window, keyset):
        return "changed", "changed: revoked"
    # "Use npm instead of pnpm." for "Use pnpm instead of npm.": the region sets aside
    # what the item chose.
    chosen = keyset - _aside_keys(profile.clauses, after_not=True) - _GENERIC
    if _aside_keys(relevant) & chosen:
        return "changed", "changed: negation flipped (added)"
    if _excepted(profile, index, window):
        return "changed", EXCEPTED
    stale, swapped, missing = _anchor_changes(profile, parts)
    if stale:
        return "changed", f"changed: stale value ({stale[0]})"
    if _bound_flipped(profile, parts):
        return "changed", "changed: bound flipped"
    if swapped:
        kind, what = swapped[0]
        return "changed", f"changed: {what} swapped ({kind})"
    moved = _value_off_subject(profile, index, window) if off_subject else None
    if moved is not None:
        return "changed", f"changed: value swapped ({moved})"
    # Clause by clause first: "Never push to main; always open a PR" -> "Always push to
    # main; no PR needed" keeps one negation and one "always" overall, flipped in place.
    cue_change = (
        _clause_flip(profile, index, window, alone=True)
        or _cue_change(item_cues, region_cues)
        or _borrowed_negation(item_cues, index, window, keyset)
    )
    if cue_change is not None:
        return "changed", cue_change
    if missing:
        substituted = _substitution(profile, parts)  # "push to hotfix-17" -> "push to main"
        if substituted is not None:
            return "changed", f"changed: {substituted} swapped"
        return "lost", f"lost: critical anchor missing ({missing[0]})"
    if coverage < preserve_threshold:
        return "lost", f"lost: too few key terms matched ({matched} of {total})"
    substituted = _substitution(profile, parts)
    if substituted is not None:
        return "changed", f"changed: {substituted} swapped"
    anchors = len(profile.values) + len(profile.idents) + len(profile.names) + len(profile.quotes)
    return (
        "preserved",
        f"preserved: same meaning ({matched} of {total} key terms, {anchors} anchors intact)",
    )


#: A clause that only sets a thing aside: "instead of X", "rather than X", "…, not X",
#: "不是 X", or a "No," / "不对" with nothing else in it.
_ASIDE = re.compile(
    r"^(?:(?:\w+ )*(?:instead of|rather than) |not |而 ?不 ?是|不 ?是)|^(?:no|nope|no wait|不 ?对)$"
)


def _asides(profile: Profile, said: frozenset[str]) -> list[Clause]:
    """The item's clauses that only set aside what it replaces, when the region says
    nothing of them: "Instead of Read the Docs, put them on GitHub Pages"; "No, stick with
    MySQL."; "Actually per IP, not per API key.". A summary of what holds need not repeat
    them, and their negation is no rule ("Never use Heroku; deploy with Fly" keeps it)."""
    if len(profile.clauses) < 2:
        return []
    return [
        clause
        for clause in profile.clauses
        if clause.cue("neg") and not clause.keys & said and _ASIDE.search(" ".join(clause.surface))
    ]


_MOVES = frozenset(("switched", "moved", "migrated", "changed", "switching", "moving"))


def _moved_from(clause: Clause, down: frozenset[str]) -> int:
    """ "switched from Heroku" in a summary, for an item that turns Heroku down ("use
    Fly.io instead of Heroku"): the summary sets it aside too."""
    words = clause.surface
    return sum(
        1
        for n in range(len(words) - 2)
        if words[n] in _MOVES and words[n + 1] == "from" and set(token_keys(words[n + 2])) & down
    )


#: A rule the region states with an exception the item does not make.
EXCEPTED = "changed: exception added"


def _excepted(profile: Profile, index: ContextIndex, window: list[int]) -> bool:
    """Whether the sentences holding a rule add an exception to it ("No new dependencies,
    except pydantic"; "never push to main unless the build is green"): the rule holds
    less than it did, whoever allowed that (the restore says who, when the owner did)."""
    cues = dict(profile.cues)
    if not (cues.get("neg") or cues.get("strong")):
        return False
    said = sum(clause.cue("except") for number in window for clause in index.clauses(number))
    return said > cues.get("except", 0)


def _aside_keys(parts: Iterable[Clause], *, after_not: bool = False) -> frozenset[str]:
    """Keys of the words an item sets aside ("instead of npm", "rather than Celery"; with
    ``after_not``, "not npm" too) and names nowhere else."""
    marks: list[tuple[tuple[str, ...], set[int]]] = []
    for clause in parts:
        words = clause.surface
        marked = set(_set_aside_at(words))
        if after_not:
            marked.update(n + 1 for n in range(len(words) - 1) if words[n] in ("not", "no"))
        marks.append((words, marked))
    if not any(marked for _words, marked in marks):
        return frozenset()  # nothing set aside (most texts): no word needs its keys
    aside: set[str] = set()
    elsewhere: set[str] = set()
    for words, marked in marks:
        for n, word in enumerate(words):
            (aside if n in marked else elsewhere).update(token_keys(word))
    return frozenset(aside - elsewhere)


def _set_aside(clause: Clause, keyset: set[str]) -> int:
    """The "instead of X" / "rather than X" of ``clause`` whose X the item does not name:
    "uses pyvips instead of Pillow" sets Pillow aside, and says "Go with pyvips." as it is."""
    words = clause.surface
    return sum(1 for n in _set_aside_at(words) if not set(token_keys(words[n])) & keyset)


def _under_label(parts: list[Clause], clause: Clause) -> int:
    """1 when a rejection label stands just before ``clause`` in its sentence: "Rejected:
    pandas for the CSV writer" turns pandas down as "Don't use pandas" does."""
    at = next((n for n, part in enumerate(parts) if part is clause), 0)
    label = parts[at - 1] if at > 0 else None
    return int(label is not None and bool(label.cue("reject")) and 0 < len(label.surface) <= 3)


def _set_aside_unsaid(clause: Clause, region: list[Clause]) -> int:
    """The "instead of X" of an item's ``clause`` whose X the region names neither beside
    the clause's choice nor under a negation of its own: "Use the stdlib csv module;
    pandas is too heavy" leaves "instead of pandas" unsaid, "Use pandas" and "…, not
    pandas" say something of it (a flip, or the same set-aside)."""
    words = clause.surface
    count = 0
    for n in _set_aside_at(words):
        down = set(token_keys(words[n]))
        chosen = clause.keys - down - _GENERIC
        if not any(down & c.keys for c in region if c.keys & chosen or c.cue("neg")):
            count += 1
    return count


def _set_aside_at(words: tuple[str, ...]) -> Iterator[int]:
    """Where the X of "instead of X" / "rather than X" stands in ``words``."""
    if "instead" not in words and "rather" not in words:
        return  # most clauses: two membership tests, no walk over word pairs
    for n in range(len(words) - 2):
        if (words[n], words[n + 1]) in (("instead", "of"), ("rather", "than")):
            yield n + 2


def _borrowed_negation(
    item_cues: Counter[str], index: ContextIndex, window: list[int], keyset: set[str]
) -> str | None:
    """A prohibition found across sentences, where the sentence that says most of what it
    forbids permits it and holds no "not": "Do not touch the auth module. The billing
    schema can be migrated as needed." lends no "not" to "Do not touch the billing
    schema." ("Billing schema. Never touch it." permits nothing: it stands.)"""
    if item_cues["neg"] <= 0 or len(window) < 2:
        return None
    shares = {number: len(index.keysets[number] & keyset) for number in window}
    best = max(shares.values())
    core = [index.clauses(number) for number, share in shares.items() if share == best]
    if any(clause.cue("neg") for clauses in core for clause in clauses):
        return None
    if not any(clause.cue("weak") for clauses in core for clause in clauses):
        return None
    return "changed: negation flipped (removed)"


#: Words that join two statements in one sentence: the words of one are not the other's
#: subject ("Set the HTTP timeout to 60s and the DB timeout to 30s").
_SCOPE_BREAKS = frozenset(("and", "but", "while", "whilst", "whereas", "however", "although"))


def _value_off_subject(profile: Profile, index: ContextIndex, window: list[int]) -> str | None:
    """The kind of an item value the region states only away from the item's subject while
    another value of its kind stands with it: "The HTTP timeout is 60s. Cache entries
    expire after 30s." does not keep "Set the HTTP timeout to 30s.", nor does "Set the
    HTTP timeout to 60s and the DB timeout to 30s.".

    Each of the item's words in the region (a value, an anchor or a term) is given to the
    nearest value in its sentence, not past a word that joins two statements ("and",
    "but", ...); one as near to two values is given to neither. A value's tie is the
    weight of the item's words it was given. The item's value is off its subject when
    another value, comparable and not named as an old one, is tied closer than any
    statement of the item's own. A tie of equal weight changes nothing: a summary that
    names the value apart from its subject ("HTTP timeout: see below. 30s.") is read as
    before."""
    if not profile.values:
        return None
    numbers = {value.number for value in profile.values}
    weights = {
        key: weight
        for key, weight in profile.weights
        if not key.startswith(VALUE_PREFIX) and key not in profile.retired
    }
    stated = Counter((value.number, value.unit) for value in profile.values)
    # Cheap first test: a comparable value the item does not state is in the region.
    region_values = [v for number in window for c in index.clauses(number) for v in c.values]
    if not any(
        _competes(other, value, numbers) for other in region_values for value in profile.values
    ):
        return None
    ties: list[tuple[Value, float]] = []
    for number in window:
        tied = _ties(index.clauses(number), weights)
        if tied is None:
            return None  # values not told apart from their tokens: no reading
        ties.extend(tied)
    for value in _unique(profile.values):
        own = max((tie for other, tie in ties if _answers(other, value, stated)), default=None)
        if own is None:
            continue  # not stated at all: ``_anchor_changes`` reads that
        rival = max((tie for other, tie in ties if _competes(other, value, numbers)), default=0.0)
        if rival > own:
            return value.kind
    return None


def _competes(other: Value, value: Value, numbers: set[str]) -> bool:
    """Could ``other`` stand where the item's ``value`` should: comparable, another number
    (or its number in another unit of its kind), not said as the old one."""
    if other.stale or not _comparable(other, value):
        return False
    return other.number not in numbers or (
        other.kind == value.kind and bool(other.unit) and other.unit != value.unit
    )


def _is_value_token(token: str) -> bool:
    """Whether ``analyse`` read ``token`` as a value (see ``anchors._clause``)."""
    if token in WEEKDAYS_MONTHS:
        return True
    return (token[0].isdigit() or token[0] in "$€£¥") and parse_value(token) is not None


def _ties(clauses: list[Clause], weights: dict[str, float]) -> list[tuple[Value, float]] | None:
    """Each value of one segment with the weight of the item's words nearest to it (see
    ``_value_off_subject``); None when the values cannot be placed among the tokens."""
    tokens = [token for clause in clauses for token in clause.surface]
    values = [value for clause in clauses for value in clause.values]
    at = [n for n, token in enumerate(tokens) if _is_value_token(token)]
    if len(at) != len(values):
        return None
    given: list[dict[str, float]] = [{} for _ in values]
    scope = 0
    scopes = []
    for token in tokens:
        if token in _SCOPE_BREAKS:
            scope += 1
        scopes.append(scope)
    for n, token in enumerate(tokens):
        keys = [key for key in token_keys(token) if key in weights]
        if not keys:
            continue
        near = [
            (abs(position - n), k) for k, position in enumerate(at) if scopes[position] == scopes[n]
        ]
        if not near:
            continue
        near.sort()
        if len(near) > 1 and near[0][0] == near[1][0]:
            continue  # as near to two values: given to neither
        for key in keys:
            given[near[0][1]][key] = weights[key]
    return [(value, sum(got.values())) for value, got in zip(values, given, strict=True)]


def _bound_flipped(profile: Profile, parts: list[Clause]) -> bool:
    """Whether a bounded value of the item is stated with the opposite bound and never its
    own: "Keep p99 latency under 200ms." and "p99 latency over 200ms"."""
    opposite = {"max": "min", "min": "max"}
    for value in profile.values:
        if not value.bound:
            continue
        bounds = {
            other.bound
            for clause in parts
            for other in clause.values
            if (other.number, other.unit) == (value.number, value.unit)
        }
        if opposite[value.bound] in bounds and value.bound not in bounds:
            return True
    return False


def _anchor_changes(
    profile: Profile, parts: list[Clause]
) -> tuple[list[str], list[tuple[str, str]], list[str]]:
    """Anchor kinds that went stale, were swapped (with the reason noun) or went missing.

    Replacements are looked for in the whole region: a swapped anchor often
    sits in a clause that shares nothing else with the item ("table oauth_users").
    """
    stale: list[str] = []
    swapped: list[tuple[str, str]] = []
    missing: list[str] = []
    numbers = {value.number for value in profile.values}
    region_values = [other for clause in parts for other in clause.values]
    stated = Counter((value.number, value.unit) for value in profile.values)
    for value in _unique(profile.values):
        seen = [other for other in region_values if _answers(other, value, stated)]
        # Another number of its kind, or its number in another unit ("30 minutes" where
        # the item said "30 seconds").
        others = [
            other
            for clause in parts
            for other in clause.values
            if _comparable(other, value)
            and (
                other.number not in numbers
                or (other.kind == value.kind and bool(other.unit) and other.unit != value.unit)
            )
        ]
        if not seen:
            if others:
                swapped.append((value.kind, "value"))
            else:
                missing.append(value.kind)
        elif len(seen) < stated[(value.number, value.unit)] and others:
            swapped.append((value.kind, "value"))  # stated twice, one of them replaced
        elif (
            all(other.stale for other in seen)
            and not value.stale
            and any(not other.stale for other in others)
        ):
            stale.append(value.kind)
    if profile.former:
        # "$500, not 0" -> "$500, not 1": the old value named in its place is another one.
        region = " ".join(word for clause in parts for word in clause.surface)
        named = {(m[1] or m[2]).replace(",", "") for m in _NAMED_OLD.finditer(region)}
        olds = {value.number for value in profile.former}
        if named and not named & olds:
            swapped.append((profile.former[0].kind, "value"))
    # ``idents`` and ``names`` hold only the current ones: a summary naming one the item
    # retires where the current one should stand ("Export job state is in Postgres")
    # swapped it back.
    ident_keys = {ident.key for ident in profile.idents}
    for ident in profile.idents:
        seen_idents = [
            other for clause in parts for other in clause.idents if other.key == ident.key
        ]
        replacements = [
            other
            for clause in parts
            for other in clause.idents
            if other.key not in ident_keys and other.kind == ident.kind
        ]
        if not seen_idents:
            if replacements:
                swapped.append((ident.kind, "identifier"))
            else:
                missing.append(ident.kind)
        elif (
            all(other.stale for other in seen_idents)
            and not ident.stale
            and any(not other.stale for other in replacements)
        ):
            stale.append(ident.kind)
    region_keys = {key for clause in parts for key in clause.keys}
    item_keys = {key for key, _ in profile.weights} - profile.retired
    aside = set().union(*(c.names for c in _asides(profile, frozenset(region_keys))))
    # "Export job state is in Postgres, not SQLite" for "Switch it from Postgres to SQLite":
    # a current name the region only sets aside is not there.
    refused = _aside_keys(parts, after_not=True) if profile.retired else frozenset()
    for name in sorted(profile.names - aside):
        if name not in region_keys or name in refused:
            if any(other not in item_keys for clause in parts for other in clause.names):
                swapped.append(("name", "identifier"))
            else:
                missing.append("name")
    if profile.successors and not profile.successors & region_keys:
        # "上传文件存到 S3。" for "上传文件存到 GCS，不用 S3 了": the old thing stated where
        # the new one, which the item names in words of no anchor's kind, should stand.
        old = _stated_old(parts, profile.retired)
        if old is not None:
            kind = classify_word(old)
            swapped.append(("name" if kind == "word" else kind, "identifier"))
    surface = [word for clause in parts for word in clause.surface]
    for quote in profile.quotes:
        if not _contains(surface, quote):
            if any(other not in profile.quotes for clause in parts for other in clause.quotes):
                swapped.append(("quoted string", "identifier"))
            else:
                missing.append("quoted string")
    return stale, swapped, missing


#: Words after which a thing is named as the old one: "(was Postgres)", "moved off S3".
_OLD_BEFORE = frozenset(
    re.findall(r"\S+", "from was were previously formerly old off 从 原来 原先 之前 以前 旧")
)


def _stated_old(parts: list[Clause], retired: frozenset[str]) -> str | None:
    """A key of ``retired`` the region states as it stands: in a clause that neither
    negates, revokes nor turns anything down, and not after a word that makes it the old
    one ("moved from Postgres", "not S3", "Postgres was dropped" set it aside)."""
    for clause in parts:
        if clause.cue("neg") or clause.cue("revoke") or not retired & clause.keys:
            continue
        words = clause.surface
        for n, word in enumerate(words):
            keys = retired.intersection(token_keys(word))
            if keys and (n == 0 or words[n - 1] not in _OLD_BEFORE):
                return min(keys)
    return None


def _substitution(profile: Profile, parts: list[Clause]) -> str | None:
    """A word of the item replaced in place by another ("push to main" -> "push to develop").

    The replacement must sit between the same neighbours as the missing word
    (or before the same two words at a clause start), so reordered
    paraphrases do not count.
    """
    region_keys = {key for clause in parts for key in clause.keys}
    item_words = {word for part in profile.clauses for word in part.surface}
    weights = dict(profile.weights)
    for part in profile.clauses:
        words = part.surface
        for index, word in enumerate(words):
            if not _LATIN.match(word):
                continue  # a Chinese run is not one word: coverage judges it
            keys = token_keys(word)
            if not keys or keys[0].startswith(VALUE_PREFIX) or keys[0] not in weights:
                continue
            if keys[0] in region_keys or weights[keys[0]] == GENERIC_WEIGHT:
                continue
            left = words[index - 1] if index > 0 else None
            right = words[index + 1 : index + 3]
            if left is None and len(right) < 2:
                continue
            for clause in parts:
                if _replaced_between(
                    clause.surface, left, right[:1] if left else right, item_words
                ):
                    kind = classify_word(word)
                    return "identifier" if kind != "word" else "term"
    return None


def _replaced_between(
    words: tuple[str, ...], left: str | None, right: tuple[str, ...], item_words: set[str]
) -> bool:
    for index, word in enumerate(words):
        if word in item_words or not _LATIN.match(word) or not token_keys(word):
            continue
        if left is not None and (index == 0 or words[index - 1] != left):
            continue
        if left is None and index != 0:
            continue
        if tuple(words[index + 1 : index + 1 + len(right)]) != right:
            continue
        return True
    return False


def _answers(other: Value, value: Value, stated: Counter[tuple[str, str]]) -> bool:
    """Does a region value state the item's value ("500 dollars" states "$500")?

    A unit may be left out on one side, unless the item states that very
    form itself: "500美元 0" does not keep the bare "500" of "500美元 500".
    """
    if other.number != value.number:
        return False
    if other.unit == value.unit:
        return True
    if not other.unit:
        return (other.number, "") not in stated
    return not value.unit and (other.number, other.unit) not in stated


def _comparable(other: Value, value: Value) -> bool:
    """Could ``other`` stand where ``value`` stood: same kind (a duration for a duration)."""
    if other.kind == value.kind:
        return True
    if "date" in (other.kind, value.kind):
        return False
    return not other.unit or not value.unit


def _contains(words: list[str], needle: tuple[str, ...]) -> bool:
    size = len(needle)
    first = needle[0]
    return any(
        words[start : start + size] == list(needle)
        for start, word in enumerate(words)
        if word == first
    )


def _cue_change(item: Counter[str], region: Counter[str]) -> str | None:
    """The reason a region's polarity or force differs from the item's, if it does."""
    if item["neg"] and not (
        region["neg"] or region["turned_down"] or (item["pending"] and region["pending"])
    ):
        # "Pandas was ruled out" keeps "no pandas" negative in other words, and "TODO:
        # the duplicate check" keeps "the duplicate check is not written yet" open.
        return "changed: negation flipped (removed)"
    if region["neg"] and not item["neg"] and not (item["pending"] and region["pending"]):
        return "changed: negation flipped (added)"
    item_force, region_force = _force(item), _force(region)
    if item_force >= 2 and 1 <= region_force < item_force:
        return "changed: obligation weakened"
    if item_force == 1 and region_force >= 2:
        return "changed: obligation strengthened"
    return None


def _clause_flip(
    profile: Profile, index: ContextIndex, window: list[int], *, alone: bool = False
) -> str | None:
    """A whole clause of the item survives in the region with its polarity or force changed.

    Catches "Never push to main; open a PR instead" -> "Pushing to main is fine
    now", where the region holds too little of the item to be a match at all. With
    ``alone``, only a region clause that holds none of the item's other clauses' words
    counts: "we never push to main and always open a PR" says both clauses at once.
    """
    weights = dict(profile.weights)
    total = sum(weights.values())
    held = _held(profile)
    down = held[1]
    for part in profile.clauses:
        keys = part.keys & weights.keys()
        if len(keys) < 2 or sum(weights[key] for key in keys) < 0.3 * total:
            continue
        if keys <= down:
            continue  # "Celery is overkill here" in "use RQ instead of Celery": dropping it agrees
        others = frozenset().union(*(p.keys for p in profile.clauses if p is not part)) - keys
        holders = [number for number in window if keys <= index.keysets[number]]
        for number, clause in ((n, c) for n in holders for c in index.clauses(n)):
            if keys <= clause.keys and not (alone and clause.keys & others):
                item_cues, region_cues = Counter(dict(part.cues)), Counter(dict(clause.cues))
                # "Use 8 workers instead of 4." -> "We use 8 workers.": no rule left out.
                item_cues["neg"] -= _set_aside(part, set(clause.keys))
                turned = _turned_down(clause) + _under_label(index.clauses(number), clause)
                agreeing = turned if item_cues["neg"] else 0
                region_cues["turned_down"] = agreeing
                if region_cues["revoke"] - agreeing > item_cues["revoke"] and not _about_another(
                    [clause], held, set(weights)
                ):
                    return "changed: revoked"
                change = _cue_change(item_cues, region_cues)
                if change is not None:
                    return change
    return None


def _anchor_swap(profile: Profile, index: ContextIndex, window: list[int]) -> str | None:
    """Every word of a short item is there but its anchor was replaced ("on Friday" -> "on Monday").

    Anchors weigh double, so such an item falls below the match threshold.
    """
    anchored = {VALUE_PREFIX + value.number for value in profile.values}
    anchored.update(ident.key for ident in profile.idents)
    anchored.update(profile.names)
    plain = {key for key, _ in profile.weights} - anchored - profile.retired
    if not plain or not anchored:
        return None
    if not any(plain <= index.keysets[number] for number in window):
        return None
    parts = [clause for number in window for clause in index.clauses(number)]
    stale, swapped, _missing = _anchor_changes(profile, parts)
    if stale:
        return f"changed: stale value ({stale[0]})"
    if swapped:
        kind, what = swapped[0]
        return f"changed: {what} swapped ({kind})"
    return None


def _force(cues: Counter[str]) -> int:
    if cues["strong"]:
        return 3
    if cues["medium"]:
        return 2
    return 1 if cues["weak"] else 0


def _revoked_after(index: ContextIndex, window: list[int], keyset: set[str]) -> bool:
    """A short follow-up that only revokes ("This rule was lifted.", "(revoked later)").

    The follow-up is the next sentence when it is short, else its leading
    parenthesis. It must carry a revocation cue, no anchor of its own, and
    either nothing but the item's and generic words or a pointer back
    ("this", "此", "该").
    """
    after = window[-1] + 1
    if after >= len(index.segments):
        return False
    text = index.segments[after].strip()
    if len(text) > _FOLLOW_UP_CHARS:
        lead = _LEADING_NOTE.match(text)
        if lead is None:
            return False
        text = lead.group()
    _, folded = prepare(text)
    if not REVOKE_RE.search(folded):
        return False
    clauses = analyse(text)
    # A struck sentence revokes itself, never the one before it.
    if not any(clause.cue("revoke") > clause.cue("struck") for clause in clauses):
        return False
    if any(clause.values or clause.idents or clause.names for clause in clauses):
        return False
    foreign = {key for clause in clauses for key in clause.keys} - keyset - _FOLLOW_UP_WORDS
    return not foreign or (len(foreign) <= 2 and _POINTER.search(folded) is not None)


def _unique(values: Iterable[_T]) -> tuple[_T, ...]:
    return tuple(dict.fromkeys(values))
