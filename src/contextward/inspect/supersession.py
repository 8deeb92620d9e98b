"""Supersession: a later statement that replaces an earlier decision, constraint or value.

"Actually use X instead", "switch to", "no longer", "改用" mark the earlier
candidate on the same subject as superseded. The subject is the one the new
statement names ("instead of X"), else the plan the assistant stated just
before a user's replacing reply, else the earlier candidate of
a compatible kind that shares the most content words. Never deletes: it
only links the two.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import deque
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import pairwise

from . import prefilter
from .classifier import replaced_subject
from .draft import Draft
from .lexicon import ADDITIVE, DECLARATIVE, DIGIT, IMPERATIVE, SUPERSEDE
from .segment import list_number

_GROUPS: dict[str, str] = {
    "decision": "choice",
    "rejected": "choice",
    "constraint": "rule",
    "requirement": "rule",
    "preference": "rule",
    "correction": "any",
    "fact": "value",
    "state": "value",
    "goal": "goal",
    "todo": "work",
}
_REPLACEABLE = frozenset(
    {"decision", "constraint", "requirement", "preference", "fact", "goal", "state", "todo"}
)
_WORD = re.compile(r"[a-z0-9_./-]{3,}|\d+|[\u4e00-\u9fff]{2,}")
# "I first tried X" tells history; it does not retire the current choice.
_HISTORY = re.compile(r"\b(?:tried|attempted|first used|experimented)\b|试过|尝试过|试了", re.I)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LETTER = re.compile(r"[a-z]")
_TOKEN = re.compile(r"[a-z]+")
# A number and the unit after it: "30 days", "5 attempts", "15 min", "60 秒", "10 MB".
# "4K" and "1k" are sizes too: a lone k, m, g or t right after its number; "12h", "30s"
# and "7d" are times. A word that only goes on the sentence ("the 30 is per IP", "5 or
# 6") is no unit.
_VALUE = re.compile(
    r"(?<![a-z0-9_.])(\d+(?:\.\d+)?)(?:[ -]?(?!(?:is|are|was|were|and|or|to|of|in|on|at|as|if|so|but|not|"
    r"no|the|it|be|by|for|with|from|then|than|actually|instead|first|please|pls|now|more|less|"
    r"each|total|too|also|only|tops)\b)([a-z]{2,}|[\u4e00-\u9fff])|([kmgthsd%])(?!\w|\.\w))"
)
# The replacing cue itself ("switch to", "改成") says nothing about the subject.
_CUES = SUPERSEDE
# "Also …", "也要…": an addition beside what was said, not a replacement of it.
_ADDITIVE = ADDITIVE
# "PG", "UI", "DB": short acronyms name things too.
_ACRONYM = re.compile(r"\b[A-Z]{2}\b")
#: What the owner asks for: a new value in one of these replaces the old value.
_DIRECTIVE = frozenset({"decision", "requirement", "todo", "preference", "correction"})
#: What the owner's statement of a new value retires an old one in (``link``).
_VALUE_KINDS = _DIRECTIVE | {"fact", "state"}
#: A correction without a named subject reaches back at most this many speaker turns
#: (tool calls do not count, so the reach is the same in every transcript format).
CORRECTION_REACH = 4
#: A new count of a named thing ("make it 5 seeds") reaches this far back for the old one.
COUNT_REACH = 12
#: A reply answers the assistant's messages at most this many speaker turns back.
ADJACENT = 1
#: And in statements: a turn of thousands of sentences (a pasted document) reaches back
#: this many, so inspecting it stays linear.
MAX_BACK = 2000
#: How far back, in speaker turns, a replacing statement looks for what it replaces by
#: name or shared words. A long session stays linear, and by then what was said further
#: back has been compacted already.
FAR_REACH = 200

# One statement is compared with every later one within reach: its words and values
# are read once. Callers never mutate what these return.
_CACHE = 4096


class _Gated:
    """A pattern searched for only in a text that holds one of the tokens every match of
    it holds (``prefilter``, read from the pattern): most statements hold none, and a
    token test is much cheaper than a search. An alternative added to the pattern is
    gated by its own words with no list of them to keep up. The tokens are read on the
    first search, not on import: hooks import inspection and never link."""

    __slots__ = ("_needs", "_read", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = re.compile(pattern)
        self._needs: frozenset[str] | None = None  # None: searched in any text
        self._read = False

    def search(self, low: str) -> re.Match[str] | None:
        if not self._read:
            self._needs = prefilter.needs(self.pattern)
            self._read = True
        if self._needs is not None and self._needs.isdisjoint(_tokens(low)):
            return None
        return self.pattern.search(low)


# Small: a statement's tokens are asked for by the gates its own turn in ``link`` tries.
@lru_cache(maxsize=16)
def _tokens(low: str) -> frozenset[str]:
    return prefilter.words(low)


_STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "are",
        "was",
        "were",
        "will",
        "use",
        "using",
        "used",
        "instead",
        "rather",
        "than",
        "not",
        "now",
        "our",
        "you",
        "your",
        "can",
        "should",
        "must",
        "actually",
        "let's",
        "lets",
        "switch",
        "switched",
        "back",
        "any",
        "all",
        "its",
        "have",
        "has",
        "had",
        "been",
        "but",
        "just",
        "only",
        "also",
        "then",
        "them",
        "they",
        "there",
        "what",
        "when",
        "which",
        "who",
        "why",
        "how",
        "don't",
        "dont",
        "never",
        "always",
        "longer",
        "anymore",
    ]
)


def link(drafts: Sequence[Draft]) -> None:
    """Mark superseded drafts in place (``supersedes`` / ``superseded_by``): the drafts
    of a whole inspection at once (``Linker`` links them as they come)."""
    linker = Linker()
    for d in drafts:
        linker.settle(d)
    linker.link(final=True)


#: What the owner's first message asks for (``Linker``): the session's goal.
_OPENING_KINDS = frozenset({"goal", "todo", "requirement"})
#: Statements let go of at once: letting go stays linear.
_DROP_BATCH = 1024
#: At most this many statements wait to be linked for a veto that may still come
#: (``Linker``): a turn that long is linked without waiting (docs/inspect.md).
HOLD = MAX_BACK
#: A reply vetoes one of the assistant's last this many plans (``Linker.settle``).
_VETO_PLANS = 8


class Linker:
    """Supersession as the drafts come: each is settled (its kind final, read by the
    veto of a plan), then linked once the statement after it is settled and no owner's
    veto can still retire a plan before it; a draft is released once no later statement
    reaches back to it (``FAR_REACH`` turns, ``MAX_BACK`` statements), so a long session
    holds a bounded window of drafts. Settling every draft before linking any
    (``link``) is the whole-inspection case."""

    def __init__(self) -> None:
        #: The statements in reach and those settled after them; indices count from the
        #: first held (``_drop`` moves every index kept when it lets the first ones go).
        self._memory: list[Draft] = []
        self._near = _Reach(self._memory, COUNT_REACH)
        self._far = _Reach(self._memory, FAR_REACH)
        self._adjacent = _Reach(self._memory, ADJACENT)
        #: The next statement to link, and the first not yet released, by index in memory.
        self._linked = 0
        self._released = 0
        # The owner's first message, where it asks for something ("We must rotate the
        # payments password"), states the session's goal whatever cue it carries: a later
        # statement replaces it by naming it or a value in it, never by sharing words
        # with it. What it chooses ("Use SQLite for the cache.") stays replaceable. Until
        # it is settled no statement before it is from it (-1).
        self._first = -1
        # The assistant's status reports, read once, and the pending ones a later report
        # may replace (most sessions: none) by their index in memory: a report looks at
        # these, not at every statement.
        self._reports: dict[int, tuple[str, frozenset[str]]] = {}
        self._pending: list[int] = []
        self._corrected_turn = -1
        self._roles: set[str] = set()
        # The veto (``settle``): the assistant's last plans, and those a reply may still
        # retire, with their index in memory and their number among the plans.
        self._plans: list[Draft] = []
        self._planned = 0
        self._open: deque[tuple[int, int, Draft]] = deque()
        self._floor = 0
        #: Plans released while a veto may still retire them, held until it cannot.
        self._held: list[tuple[int, Draft]] = []
        #: Statements linked before a veto could no longer retire a plan before them
        #: (a turn longer than ``HOLD`` statements): where a veto may come too late.
        self.hurried = 0

    def settle(self, d: Draft, floor: int | None = None) -> bool:
        """Take the next draft, its kind final; ``floor``: no draft settled after it has
        an earlier turn (default: its own). Returns whether it is a statement to link
        (else nothing changes it any more)."""
        self._floor = d.turn if floor is None else floor
        if d.role == "assistant" and d.kind == "decision":
            self._plans.append(d)
            del self._plans[:-_VETO_PLANS]
            self._planned += 1
        elif d.role == "user" and not d.replaces and _VETO.match(d.text.casefold().strip()):
            # An owner reply that only judges the plan just proposed ("too risky.",
            # "太冒险了。") retires it, whatever kind the reply was read as.
            plan = _last_plan(d, self._plans)
            if plan is not None:
                _retire(plan, d)
        while self._open and (
            self._planned - self._open[0][1] >= _VETO_PLANS
            or self._floor - self._open[0][2].turn > ADJACENT
        ):
            self._open.popleft()
        if d.kind not in _GROUPS:
            return False
        index = len(self._memory)
        self._memory.append(d)
        self._roles.add(d.role)
        if self._first < 0 and d.role == "user":
            self._first = d.position
        if _reporting(d):
            report = _report(d.text)
            if report[0]:
                self._reports[index] = report
                if report[0] == "pending":
                    self._pending.append(index)
        if d.role == "assistant" and d.kind == "decision":
            self._open.append((index, self._planned, d))
        return True

    def link(self, *, final: bool = False) -> list[Draft]:
        """Link the settled statements that are ready (all of them when ``final``) and
        return those no later statement can change any more, to be let go."""
        end = len(self._memory)
        while self._linked < end:
            index = self._linked
            if not final:
                if index + 1 >= end:
                    break  # the statement after it is read with it (``_change_follows``)
                if self._open and index > self._open[0][0]:
                    # A reply may still veto a plan before it, which it would read.
                    if end - index <= HOLD:
                        break
                    self.hurried += 1
            self._one(index)
            self._linked += 1
        if final:
            return self._release(len(self._memory), final=True)
        return self._release(self._far.reached)

    def _release(self, upto: int, *, final: bool = False) -> list[Draft]:
        """The statements before ``upto`` (no later statement reaches back to them), but
        a plan a reply may still veto, held until it cannot (or the end)."""
        vetoable = {index for index, _n, _d in self._open} if not final else set()
        out = [d for index, d in self._held if index not in vetoable]
        self._held = [(index, d) for index, d in self._held if index in vetoable]
        memory = self._memory
        for index in range(self._released, upto):
            d = memory[index]
            if index in vetoable:
                self._held.append((index, d))
            else:
                out.append(d)
            self._reports.pop(index, None)
        if upto > self._released:
            self._released = upto
            del self._pending[: bisect_left(self._pending, upto)]
            if upto >= _DROP_BATCH:
                self._drop(upto)
        return out

    def _drop(self, n: int) -> None:
        """Let go of the first ``n`` statements, all released: every index moves by ``n``."""
        del self._memory[:n]
        self._linked -= n
        self._released -= n
        for reach in (self._near, self._far, self._adjacent):
            reach.moved(n)
        self._open = deque((index - n, planned, d) for index, planned, d in self._open)
        self._held = [(index - n, d) for index, d in self._held]
        self._pending = [index - n for index in self._pending]
        self._reports = {index - n: report for index, report in self._reports.items()}

    def _one(self, index: int) -> None:
        """Link ``memory[index]`` to what it replaces among the statements before it."""
        memory, first, pending = self._memory, self._first, self._pending
        new = memory[index]
        # Only what was said within reach is compared: a long session stays linear. What
        # reaches far is sliced where it is read: most statements never read that far.
        recent = memory[self._near.start(index) : index]
        previous = memory[self._adjacent.start(index) : index]
        far_start = self._far.start(index)
        low = new.text.casefold()
        if new.role == "user" and ("?" in low or "？" in low) and _ASKING.search(low):
            # "能不能改成 50 条？", "Could we make it 50?": asked, not yet decided; "Could we
            # keep it to four, though?" pushes back.
            return
        for old in [*_numbered(new, previous), *_turned_down(new, previous)]:
            _retire(old, new)
        # "maxRetries 设 3" after "把 maxRetries 从 16 调到 5": the setting both name.
        if _changes_setting(low):
            for old in _reset(new, low, recent):
                _retire(old, new)
        report = self._reports.get(index, _NO_REPORT)
        if pending and report[0]:
            window = pending[bisect_left(pending, far_start) : bisect_left(pending, index)]
            open_reports = [(memory[n], self._reports[n][1]) for n in window]
            for old in _progressed(new, report[1], open_reports):
                _retire(old, new)
        if (
            new.role != "user"
            or new.replaces
            or new.kind not in _VALUE_KINDS
            or not _values(new.text)
        ):
            pass  # the two rules below read a value the owner sets
        elif new.kind in _DIRECTIVE or (new.kind == "fact" and _LETS_SET.match(low)):
            # "bump the grace period to 30 seconds" retires "the grace period is 10 seconds";
            # "Let's make the request timeout 60 seconds." asks for it as much.
            for old in _same_value(new, _open(recent, new), same_subject=True):
                _retire(old, new)
        elif new.kind in ("fact", "state"):
            # "time limit 4h, short jobs backfill faster than 12h ones": a new value set
            # beside the old one it names retires that one.
            for old in _same_value(new, _open(recent, new), same_subject=True, naming=True):
                _retire(old, new)
        if new.role == "user" and not new.replaces and new.kind != "correction" and _IT.search(low):
            # "Move it to 4am", "Lower that to 70%": a new value for the one last said.
            implied = _implied(new, recent)
            for old in _same_value(new, _open(recent, new), implied=implied):
                if may_retire(new.role, old.role):
                    _retire(old, new)
        if new.role == "user" and not new.replaces and _COUNTER.search(low):
            plan = _last_plan(new, recent)
            if plan is not None:
                _retire(plan, new)
                for old in _echoed(plan, recent) if not _values(new.text) else ():
                    _retire(old, new)
        if (
            new.role == "user"
            and new.kind == "constraint"
            and _FROM_NOW.search(low)
            and not _ADDITIVE.search(new.text)
        ):
            # "From now on just run the unit tests before commits" replaces "Always run
            # the full test suite before committing": a new standing rule on the same act,
            # said as a rule or as what every time requires ("每次部署前都要跑全部测试").
            for old in _lifted(new, memory[far_start:index], kinds=_STANDING):
                _retire(old, new)
        if new.role == "user" and _LIFTS.search(low):
            # "Pushing to main is fine now" lifts "Never push to main": the owner's rule
            # on the same thing, said within reach. "Forget the no-push rule" names the
            # rule it lifts: one of its words is enough.
            names_rule = _NAMED_RULE.search(low) is not None
            lifted = _lifted(new, memory[far_start:index], shared=1 if names_rule else 2)
            for old in lifted:
                _retire(old, new)
            if (lifted or names_rule) and new.kind == "correction":
                return  # what it takes back is named; nothing else is guessed
        if new.role == "user":
            # "Switch the invoice store to PostgreSQL": the owner's earlier choice for it goes.
            for old in _repointed(new, memory[far_start:index]):
                _retire(old, new)
            # "let's go with SQS" after "I'll add a RabbitMQ consumer", "uv over poetry".
            for old in _picked(new, recent):
                _retire(old, new)
            pick = _pick_of(low)
            if pick and any(pick in _names(d.text, loose=True) for d in _last_asked(new, recent)):
                return  # "还是用 PostgreSQL 吧" names the owner's last choice again: it stays
            # "change the output dir to /srv/reports" after "Write the reports to /tmp/reports".
            for old in _moved(new, recent):
                _retire(old, new)
            # "drop the redis idea", "we're not doing dark mode anymore", "WebSocket 先不上了".
            called_off = _cancelled(new, recent) or _back_on(new, memory[far_start:index])
            for old in called_off:
                _retire(old, new)
            if called_off:
                return  # what it calls off is named; nothing else is guessed
            # "scrap that, put them in the database", "Let's go back to the stdlib logging
            # module": what the owner asked for last, and the assistant's plan for it, go;
            # never the owner's first message, which set the session up.
            undone = _undone(new, recent, first)
            for old in undone:
                _retire(old, new)
            if undone:
                _retire_values(new, recent)  # "我改主意了，超时设成 15 秒"
                return  # what it takes back is known; nothing else is guessed
            # "9000 then.", "20 actually.", "ledger-svc.", "by month.": a bare value in
            # place of the one the owner set just before.
            opened = [d for d in recent if d.position != first]
            swapped = (
                _renumbered(new, opened)
                or _not_that(new, opened)
                or _bare_swap(new, opened)
                or _reversioned(new, opened)
            )
            for old in swapped:
                _retire(old, new)
            if swapped:
                return
        if new.role == "assistant" and new.kind == "decision" and new.replaces:
            # "FTS5 isn't available, so I'll drop that and use Postgres tsvector instead."
            for old in _own_switch(new, recent):
                _retire(old, new)
        if new.kind in _STATED and not new.replaces:
            # "Status: the migration is merged." after "Status: the migration is pending
            # review."; "Staging DB is on version 16 now" after "… is on version 14".
            for old in _updated(new, recent):
                _retire(old, new)
        if not new.replaces and (new.kind != "rejected" or _HISTORY.search(new.text)):
            return
        if new.kind != "correction" and _ADDITIVE.search(_first_clause(new.text)):
            # "PNG uploads need it too" adds beside what was said; "make it 20 per minute,
            # not 30 — the other team also calls them" explains with an "also".
            return
        if _finding(new):
            # What the assistant finds retires only a value it changes.
            _retire_values(new, recent)
            return
        # "the alerts live in the platform repo, not in the cluster directory" tells where
        # things are: only a choice or a correction retires everything that names what it
        # turns down.
        if new.kind in ("fact", "state") and (
            _retire_values(new, recent) or not _MOVES_ON.search(low)
        ):
            # "Session lifetime is 12 hours, not 8": the value it changes, no more; and
            # 'slots read as "toggle button, not pressed"' describes, it replaces nothing.
            return
        replaceable = _REPLACES[new.kind]
        # Whose statements it may retire, read once for the few roles, not once for each
        # of the hundreds of statements in reach.
        retirable = {role for role in self._roles if may_retire(new.role, role)}
        earlier = [
            old
            for old in memory[far_start:index]
            if old.kind in replaceable
            and old.superseded_by is None
            and old.position < new.position
            and (new.replaces or old.kind == "decision" or _proposal(new, old))
            and old.role in retirable
        ]
        subject = None if new.kind in ("fact", "state") else replaced_subject(new.text)
        named = _named(subject, earlier, new)
        if new.role == "assistant":
            # "I'll cap it per pod rather than per partition" revises the assistant's own
            # plans; what it found stays found.
            named = [d for d in named if d.kind in ("decision", "todo")]
        if not named and subject and new.kind != "correction":
            # "X, not Y" names what it replaces: if no earlier statement mentions Y, it
            # contrasts rather than replaces, and guessing by shared words would retire
            # something unrelated. A new value still retires the old one ("Sunset is
            # 2027-03-31, not June" and "set to 2027-06-30").
            _retire_values(new, recent)
            return
        for old in (d for d in named[1:] if d.kind != "goal"):
            # "scratch the cronjob" retires the owner's cronjob plan and the assistant's too.
            _retire(old, new)
        # What the owner's first message asks for is never replaced by shared words alone.
        guessable = [
            d
            for d in earlier
            if d.position != first or d.role != "user" or d.kind not in _OPENING_KINDS
        ]
        if _approves_with_condition(new):
            # "fine, but keep it behind a flag." approves the plan and adds to it: it
            # retires what it names, or a value it changes, never a guess.
            guessable = []
        target = named[0] if named else _answered(new, guessable)
        if target is None and new.role == "assistant" and new.kind == "rejected":
            # "Then Papa Parse is off the table" drops the assistant's own plan it names.
            # An owner's trial ("先换成 jemalloc 试试") is ruled out by its result too.
            target = _rejected_proposal(new, _open(recent, new), own=True)
        values = _values(new.text)
        # "actually keep them for 30 days" after "I'll write backup.sh …, and add a rule
        # that expires objects after 14 days": the new value retires the statement of the
        # old one; the plan beside it goes only if no statement of the value does.
        detail = (
            target is not None
            and not named
            and bool(values)
            and not values.keys() & _values(target.text).keys()
        )
        if target is not None and not detail:
            _retire(target, new)
            if new.role == "user" and not values:
                # A new value corrects a detail of the plan; the owner's directive stays.
                for old in _echoed(target, recent):
                    _retire(old, new)
        # The values it changes; a statement that changes none of them, and names
        # nothing, retires the statement it shares the most words with.
        changed = _retire_values(new, recent)
        refined = False
        if detail and target is not None:
            # "Make it 20 requests per minute, not 60": the 60 it names is nowhere in the
            # plan, which it refines rather than replaces.
            refined = not changed and bool(_named_values(low))
            if changed or refined:
                target = None
            else:
                _retire(target, new)
        if (
            target is None
            and not changed
            and not refined
            and not (new.kind == "correction" and new.turn == self._corrected_turn)
            # The assistant retires only what it names or a value it changes: shared
            # words alone retire its own findings when it merely elaborates on them.
            and new.role != "assistant"
            and not _change_follows(new, memory[index + 1 : index + 2])
            # "make the session TTL 30 minutes, not 15" changes a value no statement in
            # reach holds: it retires that value's statement, never a guess by shared words.
            and not (values and _named_values(low))
        ):
            # A correction that follows another in the same turn ("No — that loses data.
            # Write it to a new column instead.") elaborates it; it retires nothing more.
            target = _closest(new, guessable)
            if target is not None:
                _retire(target, new)
        if new.kind == "correction" and (target is not None or changed):
            self._corrected_turn = new.turn


# "Let's make the request timeout 60 seconds.", "let's bump it to 5": the owner setting a
# value, led in by "let's" (read as a statement, not a request).
_LETS_SET = re.compile(
    r"^(?:(?:ok(?:ay)?|so|then|and|hmm+|actually)[,.!]*\s+)*let'?s\s+(?:just\s+)?"
    r"(?:make|set|change|bump|raise|lower|increase|reduce|decrease|move|cut|cap|extend|"
    r"shorten|drop|limit)\b"
)


# An owner's question about a change: "能不能改成 50 条？", "could we switch to 50?".
_ASKING = re.compile(
    r"^(?:can|could|should|shall|would|do|does|is|are)\b(?![^.!。]*\bthough\s*\?\s*$)[^.!。]*\?\s*$|"
    r"^(?:what|how) about\b[^.!。]*\?\s*$|"
    r"(?:能不能|可不可以|要不要|是不是|行不行)[^。！]*[？?]\s*$"
)


# "fine, but keep it behind a flag", "sounds good, but …", "可以，不过要加开关": the owner
# approving what was proposed and adding a condition to it.
_APPROVED_BUT = re.compile(
    r"^(?:(?:ok(?:ay)?|yes|yeah|sure)[,.!]?\s+)?(?:(?:that'?s|that|this|it'?s|it)\s+)?"
    r"(?:fine|good|ok(?:ay)?|great|nice|sure|sounds (?:good|fine|great|right)|"
    r"looks (?:good|fine|right)|makes sense|works(?: for me)?|lgtm|go ahead)[,!.]?\s+but\b|"
    r"^(?:好的?|行|可以|没问题|挺好的?|不错)[，,]\s*(?:不过|但是|但|只是)"
)
# What, after the "but", still turns the proposal down or swaps it: "fine, but use X
# instead", "good, but don't drop the index", "可以，但是不要用 cluster 模式".
_BUT_NOT = re.compile(
    r"\b(?:instead|rather|don'?t|do not|not|no|never|skip|drop|without|switch|replace)\b|"
    r"不要|别|不用|不能|换成|改成|改用|而不是"
)


def _approves_with_condition(new: Draft) -> bool:
    """Whether ``new`` is the owner approving the proposal with a condition added, which
    replaces nothing (it turns nothing down and swaps nothing)."""
    if new.role != "user":
        return False
    low = new.text.casefold().strip()
    match = _APPROVED_BUT.match(low)
    return match is not None and _BUT_NOT.search(low, match.end()) is None


def may_retire(new: str, old: str) -> bool:
    """Whether a statement by role ``new`` may retire one by role ``old``: the user's word
    outranks the assistant's and a summary's, so only the user's retires it (a
    summariser's "use X instead of Y" may be made up)."""
    return old != "user" or new == "user"


def reads_as_replacing(new: str, old: str) -> bool:
    """Whether ``new``, said to replace the standing rule ``old`` (a model's ``replaces``),
    reads as replacing it as the rules read a replacement: it shares a content word with
    it, or it lifts, replaces or calls off something in so many words ("pushing to main is
    fine now", "…instead", "forget the freeze rule", "这条规定取消了"). "Keep it boring."
    or "Both, then." said to replace "PRs only, no direct pushes." does neither."""
    low = new.casefold()
    return bool(
        _words(new) & _words(old)
        or _LIFTS.search(low)
        or _NAMED_RULE.search(low)
        or _CUES.search(low)
        or _UNDO.search(low)
        or _CANCEL.search(low)
    )


def _retire_values(new: Draft, earlier: Sequence[Draft]) -> bool:
    """A user's replacing statement or any correction retires every recent statement of
    the value it changes, whatever kind it was classified as ("make it 90 days" and the
    old "30 days"). Whether it retired any."""
    retired = False
    if new.kind == "correction" or (new.role == "user" and new.replaces):
        implied = _implied(new, earlier)
        for old in _same_value(new, _open(earlier, new), implied=implied, said=earlier):
            if old.superseded_by is None:
                _retire(old, new)
                retired = True
    return retired


# A named setting given a value: "maxRetries 设 3", "worker 并发从 2 调到 8", "set
# batch_size to 512", "pool_size from 16 to 8", "shard_count = 4". The key is the word or
# the run of Chinese characters just before the cue (with the word before it, which
# qualifies it: "read timeout", "worker 并发"); the value is the number after the cue.
_SETTING_CUE = (
    r"(?:改成|改为|改到|设为|设成|设置为|设置成|设|调到|调成|调为|降到|升到|提到|扩到|缩到|定为)"
)


# A Chinese key holds no character of a cue: "从", "改", "设", "调", "把".
_KEY_CJK = r"(?![从改设调把将到成为是的])[\u4e00-\u9fff]"


def _key(n: int) -> str:
    """The key of a setting and the word qualifying it, in groups numbered ``n``: one
    pattern holds each group name once."""
    return (
        rf"(?:(?P<qualifier{n}>[a-z][\w.-]{{2,}}|[\u4e00-\u9fff]{{2,4}})\s+)?"
        rf"(?P<key{n}>(?<![\w.-])[a-z_][\w.-]{{2,}}|(?:{_KEY_CJK}){{2,6}})"
    )


def _value(n: int) -> str:
    return rf"(?P<value{n}>\d{{4}}-\d{{2}}-\d{{2}}|%?\d+(?:\.\d+)?(?:\s?(?:[a-z]{{1,8}}|%|[\u4e00-\u9fff]))?)"


# Where a setting is changed: a cue and the number it sets ("调到 5", "to 8"), looked for
# before the key that comes ahead of it, which every word of a text could start. Two
# searches that each start with a literal are a tenth of the cost of one alternation (or
# of a token gate): most statements hold neither.
_CUE_NUMBER = re.compile(rf"{_SETTING_CUE}\s*[~≈约]?\s*%?\d")
_TO_NUMBER = re.compile(r"to\s+[~≈]?%?\d")


# "pin torch==2.1.0": a version a package is pinned to is a setting too, where the clause
# says it is set ("pin", "install", "upgrade to"), not where it tells what is installed.
_PIN = re.compile(r"(?<![\w.-])([a-z_][\w.-]*)==(\d[\w.]*)")
_PIN_VERB = re.compile(
    r"\b(?:pin|pins|pinned|pinning|install|bump|upgrade|downgrade)\b|锁定|固定|升级|降级"
)


def _changes_setting(low: str) -> bool:
    return bool(_TO_NUMBER.search(low) or _CUE_NUMBER.search(low) or "==" in low)


def _changed(low: str) -> list[tuple[str, str, str]]:
    """The settings ``low`` changes: (qualifier, key, value), the ones a clause only
    wonders about or turns down left out ("if we set", "不要改成")."""
    out = []
    for match in _changes(low):
        setting = _setting(match)
        if setting is not None and not _UNSET.search(_clause_before(low, match.start())):
            out.append(setting)
    for pin in _PIN.finditer(low) if "==" in low else ():
        clause = _clause_before(low, pin.start())
        if _PIN_VERB.search(clause) and not _UNSET.search(clause):
            out.append(("", pin[1], pin[2].rstrip(".")))
    return out


def _changes(low: str) -> Iterator[re.Match[str]]:
    """``_CHANGE``'s matches in ``low``, looked for only around each cue: a long text
    holds a cue or two, and every word of it could start a key."""
    end = 0
    for cue in (*_TO_NUMBER.finditer(low), *_CUE_NUMBER.finditer(low)):
        for match in _CHANGE.finditer(low, max(end, cue.start() - 60), cue.end() + 40):
            if match.start() <= cue.start() < match.end():
                end = match.end()
                yield match


_CHANGE = re.compile(
    # "maxRetries 设 3", "并发从 2 调到 8", "pool_size = 8": the key, then its cue.
    rf"{_key(1)}\s*(?:从\s*[^\s，,。；;]{{0,8}}?\s*\d+(?:\.\d+)?\s*[a-z\u4e00-\u9fff]?\s*)?"
    rf"{_SETTING_CUE}\s*[~≈约]?\s*{_value(1)}|"
    # "set the pool size to 8", "bump batch_size from 256 to 512", "lower the bound to 3".
    r"\b(?:set|change|bump|raise|lower|increase|reduce|decrease|move|cut|throttle|cap)\s+"
    rf"(?:the\s+|our\s+|its\s+)?{_key(2)}\s+(?:from\s+\S+\s+)?to\s+[~≈]?{_value(2)}|"
    # "pool_size from 16 to 8".
    rf"{_key(3)}\s+from\s+\S+\s+to\s+{_value(3)}"
)
# How an earlier statement may have given the setting, besides a change of it: the key
# and its value side by side ("throttle %8", "batch_size 256", "timeout: 30s").
_SETTING_SAID = re.compile(rf"{_key(5)}\s*(?:[:=]|\bof\b|\bis\b|\bat\b)?\s*{_value(5)}")
# In Chinese the number may come first: "网关监听 8080 端口".
_SAID_BEFORE_KEY = re.compile(
    rf"(?<![\w.])(?P<value6>\d+(?:\.\d+)?)\s*(?P<key6>(?:{_KEY_CJK}){{2,4}})(?![\u4e00-\u9fff])"
)
# A change that is not made: "don't set", "不要改成", "if we set", "或者调到".
_UNSET = re.compile(
    r"\b(?:don'?t|do not|never|not|if|or|either|whether|could|would)\b|不要|别|不用|如果|或者|要是"
)
_CJK_BEFORE = re.compile(r"[\u4e00-\u9fff]+$")
# Words before a number that name no setting, and the verbs that set one.
_SETTING_NOT_KEY = frozenset(
    re.findall(
        r"\w+",
        "also then just still back down from set change bump raise lower increase reduce "
        "decrease move cut throttle cap",
    )
)


def _setting(match: re.Match[str]) -> tuple[str, str, str] | None:
    """The (qualifier, key, value) a ``_CHANGE`` or ``_SETTING_SAID`` match gives, or None
    when its key is a word that names nothing ("also", "然后")."""
    n = next(n for n in (1, 2, 3, 5, 6) if match.groupdict().get(f"key{n}"))
    key, value = match[f"key{n}"], match[f"value{n}"]
    qualifier = match.groupdict().get(f"qualifier{n}") or ""
    if _CJK.match(key):
        # "端口用 8080": the 用 says how it is set, not what.
        key = _FILLER_LEAD.sub("", key).lstrip("".join(_CJK_FUNCTION)).removesuffix("用")
        if len(key) < 2 or key[-2:] in _FILLER_ZH:
            return None
        # "订单服务的线程池核心线程数设 16": the whole run names the setting, which a
        # later change may name shorter ("核心线程数改成 8"), never otherwise.
        run = _CJK_BEFORE.search(match.string, 0, match.start(f"key{n}"))
        if run:
            key = "".join(c for c in run[0] if c not in _CJK_FUNCTION) + key
    elif key in _STOP or key in _NOT_KEYS or key in _SETTING_NOT_KEY:
        return None
    if qualifier in _STOP or qualifier in _NOT_KEYS or qualifier in _SETTING_NOT_KEY:
        qualifier = ""
    if key in _VERSION_KEYS and qualifier:
        # "Python 版本用 3.11", "python version 3.11": the version is Python's, which
        # "Python 升到 3.12" sets again.
        return "", qualifier, value
    return qualifier, key, value


#: Keys that name the version of the word before them.
_VERSION_KEYS = frozenset(("版本", "version"))


@lru_cache(maxsize=_CACHE)
def _settings_said(text: str, *, stated: bool) -> tuple[tuple[str, str, str], ...]:
    """The settings ``text`` changes ("调到 5", "set … to 5") and, if ``stated``, those it
    states side by side with their value ("throttle %8", "监听 8080 端口"; "保留一年半" as
    "保留 18 个月")."""
    low = text.casefold()
    if "半" in low or "half" in low:
        low = _halves(low)
    found = _changed(low)
    if stated:
        found += [s for m in _SETTING_SAID.finditer(low) if (s := _setting(m)) is not None]
        if _CJK.search(low):
            found += [s for m in _SAID_BEFORE_KEY.finditer(low) if (s := _setting(m)) is not None]
    return tuple(found)


def _same_key(mine: tuple[str, str, str], theirs: tuple[str, str, str]) -> bool:
    """One setting: the same key (a Chinese one may be said again with fewer characters,
    "核心线程数" for "订单服务的线程池核心线程数", never with more: "管理端口" is not the
    "端口" said before), and no two different words qualifying it ("read timeout" and
    "connect timeout")."""
    (q1, k1, _), (q2, k2, _) = mine, theirs
    if k1 != k2 and not (_CJK.match(k1) and k2.endswith(k1)):
        return False
    return not (q1 and q2 and q1 != q2)


def _other_value(mine: str, theirs: str) -> bool:
    """Whether two values of one setting differ: in a dimension both measure, else as bare
    numbers ("5 次" and "3")."""
    a, b = _values(mine), _values(theirs)
    shared = a.keys() & b.keys()
    if shared:
        return any(a[dim][0] != b[dim][0] for dim in shared)
    x, y = _ANY_NUMBER.search(mine), _ANY_NUMBER.search(theirs)
    return x is not None and y is not None and _number(x[0]) != _number(y[0])


def _number(text: str) -> tuple[float, ...]:
    """A number or a version ("2.1.0") as one value to compare."""
    return tuple(float(part) for part in text.split("."))


def _reset(new: Draft, low: str, recent: Sequence[Draft]) -> list[Draft]:
    """The earlier statements in reach that give a setting ``new`` (``low``: its text,
    casefolded) gives another value: "maxRetries 设 3" retires "把 maxRetries 从 16 调到
    5", whoever said it. The shared key is what ties them; a new value alone ties
    nothing. The assistant's change retires only its own statements."""
    mine = _changed(low)
    if not mine:
        return []
    out = []
    for old in reversed(recent):
        if old.superseded_by is not None or old.kind not in _REPLACEABLE:
            continue
        if new.turn - old.turn > COUNT_REACH:
            break
        if not may_retire(new.role, old.role) or (new.role == "assistant" and old.role == "user"):
            continue
        if old.role == "user" and old.kind in ("constraint", "goal"):
            continue
        text = old.text.casefold()
        for setting in mine:
            if setting[1] in text and any(
                _same_key(setting, theirs) and _other_value(setting[2], theirs[2])
                # What the assistant found ("SESSION_TTL is 300 seconds") stays found;
                # what it set ("并发从 2 调到 8") is set again. The owner's word stands
                # either way ("每块 4K").
                for theirs in _settings_said(old.text, stated=old.role == "user")
            ):
                out.append(old)
                break
    return out


def _clause_before(low: str, at: int) -> str:
    """The text of the clause ``at`` is in, up to ``at``."""
    start = max(low.rfind(mark, 0, at) for mark in ",;:，；：。.!?！？\n")
    return low[start + 1 : at]


class _Reach:
    """The drafts within ``reach`` speaker turns before each one, and at most
    ``MAX_BACK`` of them: one pointer moves forward, so a long session, or one message
    of thousands of sentences, stays linear."""

    __slots__ = ("_memory", "_reach", "_start")

    def __init__(self, memory: Sequence[Draft], reach: int) -> None:
        self._memory, self._reach, self._start = memory, reach, 0

    @property
    def reached(self) -> int:
        """Where the drafts in reach of the last one asked about start: no later one
        reaches further back."""
        return self._start

    def moved(self, n: int) -> None:
        """The first ``n`` drafts of ``memory`` were let go."""
        self._start -= n

    def start(self, index: int) -> int:
        """Where the drafts in reach before ``memory[index]`` start (indices never
        decrease): they are ``memory[start:index]``."""
        turn = self._memory[index].turn
        start = max(self._start, index - MAX_BACK)
        while start < index and turn - self._memory[start].turn > self._reach:
            start += 1
        self._start = start
        return start


# "better to use that one", "网关那个方案撤掉": the owner putting something else in
# place of the plan just proposed ("X is out" names what goes: ``_CANCEL``).
_COUNTER = _Gated(
    r"\b(?:better (?:to )?use\b|use (?:that|this|ours|the existing \w+) instead\b|"
    # "there's already a dlq for billing, use that": what exists in place of what is new.
    r"already\b.{0,60}\buse (?:that|this|it|those)\b)|已经有.{0,30}(?:用那个|用这个|直接用)|"
    r"撤掉|别用了|不能升|不扩了|不用了"
)
# "too risky.", "No, way too slow.", "太冒险了。", "不行，太慢了": a whole reply judging the
# plan just proposed, which turns it down without naming it.
_VETO = re.compile(
    r"^(?:(?:no|nope|nah|hmm+|hm|eh)[,.!—–-]*\s*)?(?:(?:that'?s|it'?s|that is|this is|sounds)\s+)?"
    r"(?:(?:way|much|far|a bit|kind of|too)\s+)*too\s+(?:risky|dangerous|slow|expensive|"
    r"complicated|complex|heavy|much|invasive|fragile|hacky|big|scary)\b[^.!?;]{0,40}[.!]*$|"
    r"^(?:不行|不好|别|算了)?[，,。]?\s*(?:这样|这个|那样)?(?:风险)?太(?:冒险|危险|慢|贵|重|复杂|麻烦|大|激进|hack)了?"
    r"[^。！!？?]{0,20}[。！!]*$"
)


# The owner lifting a rule: "pushing to main is fine now", "you may push to main from now
# on", "forget the rule about X", "现在可以直接推 main 了", "这条规定取消了".
_LIFTS = _Gated(
    # One \b for all the English alternatives: a \b leading each was tested at every
    # position of the text, once per alternative.
    r"\b(?:"
    # An action now permitted ("pushing to main is fine now"); a thing that "is fine now"
    # works, which lifts nothing ("the scripts are fine now, leave them").
    r"\w+ing\b[^.;,]{0,40}\b(?:is|are) (?:fine|ok|okay|acceptable) (?:now|from now on|again)\b|"
    r"it'?s (?:fine|ok|okay) to \w+\b[^.;]{0,40}\b(?:now|from now on|again)\b|"
    r"(?:is|are) (?:allowed|permitted) (?:now|from now on|again)\b|"
    # "new dependencies are fine as long as they're MIT": lifted, under a condition.
    r"\w+s (?:are|is) (?:fine|ok|okay|allowed) (?:as long as|so long as|provided|if)\b|"
    # "New dependencies are fine now": a kind of thing, no article, allowed again. "The
    # scripts are fine now" says particular things work: it lifts nothing.
    r"^(?!(?:the|these|those|this|that|our|my|your|their|its|all)\b)(?:[a-z][\w-]* ){0,2}"
    r"[a-z][\w-]*s (?:are|is) (?:fine|ok|okay|allowed|acceptable) (?:now|from now on|again)\b|"
    r"(?:you )?(?:may|can) (?:now |again )?\w+\b.{0,60}?\b(?:from now on|again now)\b|"
    # "you may push to main now, the branch protection moved".
    r"(?:you )?(?:may|can) (?:now )?\w+\b[^.;,]{0,40}?\bnow\b|"
    r"(?:may|can) (?:now )?be \w+ (?:now|from now on|again)\b|"
    r"(?:forget|ignore|drop|scrap) (?:the|that|my) (?:earlier |old |previous )?"
    r"(?:[\w-]+ ){0,3}?(?:rule|constraint|restriction)\b|"
    r"(?:the|that|this) (?:rule|constraint|restriction)\b.{0,40}?\b(?:is|was) (?:lifted|gone|"
    r"cancell?ed|removed)\b|"
    # "the legacy billing freeze is over, you're free to refactor it", "go ahead with SMS
    # confirmations" after "Don't send SMS confirmations yet".
    r"(?:you'?re|you are) (?:now )?free to\b|feel free to\b|"
    r"(?:freeze|ban|embargo|hold|moratorium|block) (?:is|was) (?:over|lifted|off|done)\b|"
    r"go ahead (?:with|and)\b)|"
    r"现在可以(?!了)|从现在起可以|(?:规定|规则|限制|要求)(?:已经|已)?(?:取消|作废|不适用)|不再需要|不用再"
)


_FROM_NOW = _Gated(r"\b(?:from now on|going forward|from here on)\b|以后都|今后|从现在开始")


# "Forget the no-push rule", "drop the freeze rule": a rule the owner names.
_NAMED_RULE = re.compile(
    r"\b(?:forget|ignore|drop|scrap|lift) (?:the|that|my) (?:earlier |old |previous )?"
    r"(?:[\w-]+ ){1,3}?(?:rule|constraint|restriction)\b"
)


#: What a new rule "from now on" replaces: the owner's rules, and what they require.
_STANDING = frozenset(("constraint", "requirement"))


def _lifted(
    new: Draft,
    recent: Sequence[Draft],
    *,
    shared: int = 2,
    kinds: frozenset[str] = frozenset(("constraint",)),
) -> list[Draft]:
    """The owner's rules ``new`` lifts: a constraint of theirs (or a statement of the
    ``kinds``), or one a compaction summary states or quotes from them, that it shares two
    words with. (One shared Chinese word, "原图现在可以删了" for "不要删除原图", was tried:
    it lifted a current rule on held-out.)"""
    words = _words(new.text)
    return [
        old
        for old in recent
        if old.kind in kinds
        and old.role in ("user", "system")
        and old.superseded_by is None
        and old.position < new.position
        and len(words & _words(old.text)) >= shared
    ]


# The thing a Chinese cue right after it acts on: a Latin name read from its start and a
# bounded way in (a 20 KB token is read in linear time), or the two characters before.
_THING_BEFORE = r"(?:(?<![\w./-])(?P<thing3>[a-z][\w./-]{0,40})|(?P<thing4>[\u4e00-\u9fff]{2}))\s*"
# "Switch the invoice store to PostgreSQL", "move the job queue over to Redis", "let's go
# with Postgres for the invoice store", "把缓存换成 Memcached": the owner pointing a thing
# they name at something new.
_REPOINT = _Gated(
    r"\b(?:switch|change|move|migrate|swap|flip|port|repoint|point)\s+"
    r"(?:the\s+|our\s+|my\s+|its\s+)?(?P<thing>[a-z][\w./-]*(?:\s+[a-z][\w./-]*){0,2}?)\s+"
    # "switch the job queue from SQS to Kafka": what it leaves is named on the way.
    r"(?:from\s+`?[a-z][\w./-]*`?\s+)?"
    r"(?:over\s+|back\s+)?(?:to|onto)\s+(?:the\s+|a\s+)?(?P<value>`?[a-z][\w./-]*)"
    # "change the README to mention the Docker path": a purpose, not a new thing.
    r"(?!\s+(?:the|a|an|that|this|it|them|our|its|how|what|why|when|where|each|every)\b)|"
    r"\blet'?s go with\s+(?P<value2>`?[a-z][\w./-]*)\s+for\s+(?:the\s+|our\s+)?"
    r"(?P<thing2>[a-z][\w./-]*(?:\s+[a-z][\w./-]*){0,2})|"
    + _THING_BEFORE
    + r"(?:换成|改成|改用|改为|切到|切换到|迁到|迁移到)\s*(?P<value3>[a-z][\w./-]{0,40}|[\u4e00-\u9fff]{2})"
)
#: What an owner may point elsewhere: a choice, a preference or planned work; and their
#: own plain statement that names a thing ("缓存用 Redis。", "We'll deploy on Fridays.").
#: What the assistant found about the thing stays found.
_POINTED = frozenset({"decision", "preference", "todo"})
_STATED = frozenset({"fact", "state"})


# The owner picking one option where another was on the table: "let's go with SQS",
# "nah postgres, we already run it", "I'd rather use lark", "就用 RabbitMQ 吧".
_PICK = re.compile(
    r"^(?:(?:hmm+|ok(?:ay)?|nah|no|yeah|well|actually|then)[,.!]*\s+)*"
    r"(?:let'?s (?:go with|use)|go with|(?:i'?d )?rather (?:use|go with|have)|"
    # "actually use Vitest instead"; "use pnpm instead of npm" names what it replaces.
    r"use(?=\s+`?[\w][\w.+-]*`?\s+instead\b(?!\s+of\b)))\s+"
    r"(?:a |an |the |plain |just )?(?P<pick>`?[\w][\w.+-]*)|"
    # "nah postgres, we already run it"; "nah forget it" picks nothing.
    r"^(?:hmm+[,.]*\s+)?nah,?\s+(?P<pick3>[\w][\w.+-]*)(?=\s*(?:[,.;!]|$))|"
    # "actually switch to structlog, …": one thing switched to, the clause ending there
    # ("switch to the staging branch and run the tests" picks no option).
    r"^(?:(?:hmm+|ok(?:ay)?|no|well|actually|then)[,.!]*\s+)*(?:let'?s )?switch (?:over )?to\s+"
    r"(?P<pick4>`?[\w][\w.+-]*`?)(?=\s*(?:[,.;!]|$))|"
    r"^(?:那就|那|就|还是)?(?:用|选)\s*(?P<pick2>[A-Za-z][\w.+-]*)\s*吧|"
    # "改用 RabbitMQ。", "换成 pnpm 吧，npm 太慢": the Chinese "switch to", no thing named
    # before it (``_REPOINT`` reads "缓存换成 Memcached"), the clause ending at the name.
    r"^(?:那就|那|就|还是)?(?:改用|换用|换成|切到|切换到)\s*(?P<pick5>[a-z][\w.+-]*)"
    r"(?=\s*吧?\s*(?:[，,。；;！!]|$))"
)
# "FastAPI over Flask", "uv over poetry": the one picked, then the one it replaces.
_OVER = re.compile(r"^`?(?P<pick>[\w][\w.+-]*)`? over `?(?P<dropped>[\w][\w.+-]*)`?(?:[\s,.;!]|$)")


def _picked(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """What the owner's pick of another option retires.

    "X over Y" retires the open statements within a correction's reach that name Y and
    not X. "let's go with X" retires the assistant's plan in the turn just before when
    that plan names something and not X, and the owner's directive the plan carried out.
    """
    low = new.text.casefold()
    over = _OVER.match(low)
    if over is not None:
        pick, dropped = over.group("pick"), over.group("dropped")
        return [
            old
            for old in recent
            if old.kind in _POINTED | _STATED
            and old.superseded_by is None
            and new.turn - old.turn <= CORRECTION_REACH
            and may_retire(new.role, old.role)
            and dropped in _names(old.text, loose=True)
            and pick not in _names(old.text, loose=True)
        ]
    pick = _pick_of(low)
    if pick is None:
        return []
    plan = _last_plan(new, recent)
    if plan is None and new.replaces:
        # Said as replacing ("actually", "instead"): the plan approved and carried out
        # turns before; a plain "let's use pytest for the tests" then is a new choice.
        plan = _last_word_plan(new, recent)
    if plan is None:
        # No plan between: the owner's own last choice of another thing ("数据库用
        # PostgreSQL。" for "还是用 MySQL 吧", "Use Jest for the tests." for "actually use
        # Vitest instead").
        # The owner taking back their own choice in the same breath ("Use npm." then
        # "Switch to yarn.") says so with a cue: a plain "let's use X" beside it adds.
        asked = [
            old
            for old in _last_asked(new, recent, same_turn=new.replaces)
            if (chose := _USES.search(old.text.casefold())) is not None
            and chose["name"].strip("`") != pick
        ]
        # And the choice of the other option the pick itself names ("还是用 PostgreSQL
        # 吧，MySQL 副本下个月就下线。" for "数据库用 MySQL 的只读副本。"), whoever said it.
        others = _names(new.text, loose=True) - {pick}
        named = [
            old
            for old in recent
            if old.kind in _POINTED | _STATED
            and old.superseded_by is None
            and old not in asked
            and new.turn - old.turn <= CORRECTION_REACH
            and may_retire(new.role, old.role)
            and (chose := _USES.search(old.text.casefold())) is not None
            and chose["name"].strip("`") in others
            and not _mentions(_names(old.text, loose=True), {pick})
        ]
        # And the assistant's plan stated as a fact just before ("我打算在流水线里用 npm ci
        # 安装依赖。"), which carried out the choice the pick replaces.
        chosen = {name for old in asked if (name := _chosen(old))}
        stated = [
            old
            for old in recent
            if old.role == "assistant"
            and old.kind in ("fact", "todo")
            and old.superseded_by is None
            and old not in named
            and 0 < new.turn - old.turn <= ADJACENT
            and _PLAN.search(old.text.casefold())
            and (loose := _names(old.text, loose=True)) & chosen
            and pick not in loose
        ]
        return asked + named + stated
    # "I'll configure the workflow with npm ci." names nothing by its shape, but it
    # carries out "Use npm for installs.": the name the directive chose is enough.
    echoed = _echoed(plan, recent)
    if not (_names(plan.text) or echoed) or pick in _names(plan.text, loose=True):
        return []
    return [plan, *echoed]


def _pick_of(low: str) -> str | None:
    """The option "let's go with X", "nah X", "还是用 X 吧" picks, if it names one."""
    match = _PICK.match(low)
    if match is None:
        return None
    found = match.group("pick", "pick2", "pick3", "pick4", "pick5")
    pick = next(group for group in found if group).strip("`.")
    if pick in _VAGUE_THING or pick in _PICK_VAGUE or pick[0].isdigit():
        return None  # "let's go with that", "go with option 2", "go with 4 workers"
    return pick


def _last_asked(
    new: Draft,
    recent: Sequence[Draft],
    *,
    also: tuple[str, ...] = (),
    same_turn: bool = False,
) -> list[Draft]:
    """The owner's open directives (and statements of the kinds ``also``) in their turns
    just before ``new``'s (one reply between), and with ``same_turn`` those said before it
    in its own turn ("Use npm." then "Switch to yarn." with no reply between)."""
    nearest = 0 if same_turn else 1
    return [
        old
        for old in recent
        if old.role == "user"
        and old.superseded_by is None
        and nearest <= new.turn - old.turn <= ADJACENT + 1
        and (_directive(old) or old.kind in also)
    ]


# "Use Jest for the tests.", "数据库用 PostgreSQL。": the thing a directive chooses.
_USES = re.compile(r"(?:\buse|\bgo with|(?<![不没])用)\s*(?P<name>`?[a-z][\w.+-]*`?)")


#: Picks that name no option of their own: "let's go with your plan", "go with option 2".
_PICK_VAGUE = frozenset(
    re.findall(
        r"\S+",
        "your yours option plan approach idea suggestion first second last latter former "
        "what whatever both either neither",
    )
)


# A path: "/srv/reports", "~/apps/web", "./build/out".
_PATH = re.compile(r"(?<![\w.:/])(?:~|\.{1,2})?/[\w.-]+(?:/[\w.-]+)*")
# The owner changing where something goes: a move or change cue ("改成", "改到" too).
_MOVE_CUE = re.compile(
    r"\b(?:change|move|switch|point|put|write|set)\b|改成|改为|改到|换成|挪到|放到"
)


def _moved(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """What the owner said of a path that ``new`` moves elsewhere: a path with the same
    last part ("/tmp/reports" for "/srv/reports", "/data/upload" for "/mnt/oss/upload"),
    said within a correction's reach and not said again in ``new``."""
    low = new.text.casefold()
    if "/" not in low or not _MOVE_CUE.search(low):
        return []
    paths = {p.rstrip("/.") for p in _PATH.findall(new.text)}
    last = {p.rsplit("/", 1)[-1] for p in paths} - {""}
    if not last:
        return []
    out = []
    for old in recent:
        if _called_off(old, new) and new.turn - old.turn <= CORRECTION_REACH:
            theirs = {p.rstrip("/.") for p in _PATH.findall(old.text)}
            if any(p not in paths and p.rsplit("/", 1)[-1] in last for p in theirs):
                out.append(old)
    return out


# The owner calling something off by name.
_CANCEL = _Gated(
    r"\b(?:drop|scrap|scratch|ditch|forget(?: about)?|kill|cancel|shelve|abandon|park)\s+"
    r"(?:the|that|this|my|our|your)\s+(?P<thing>[\w./-]+(?:\s+[\w./-]+){0,2}?)\s+"
    r"(?:idea|plan|approach|part|bit|thing|stuff|feature|work)\b|"
    r"\b(?:we'?re|we are|i'?m|i am|we'?ll|we will) not (?:doing|building|adding|keeping|using|"
    r"shipping|supporting|maintaining) (?:the |a |an )?(?P<thing2>[\w./-]+(?:\s+[\w./-]+){0,2}?)\s+"
    r"(?:anymore|any more|after all|this (?:release|version|sprint|time))\b|"
    # "ditch wkhtmltopdf, it's unmaintained", "localStorage is out, security flagged it".
    r"\b(?:ditch|scrap|forget about)\s+(?:the\s+)?(?P<thing5>[\w.+/-]{3,40})(?=\s*(?:[,.;!]|$))|"
    # "Celery is off the table, we don't run a broker" as "localStorage is out".
    r"^(?:the\s+)?(?P<thing6>[\w.+/-]{3,40}(?:\s+[\w.+/-]+){0,2}?)\s+(?:is|are)\s+"
    r"(?:out|off the table)\b|"
    # "Stop using pandas, it's too slow", "No more print statements, use the logger": the
    # clause ends at the thing ("stop using pandas in the tests" scopes it, "no more than
    # 3 retries" is a limit).
    r"(?:\bstop using|^(?:(?:ok(?:ay)?|and|so|also)[,.]?\s+)?no more(?!\s+than\b))\s+"
    r"(?:the\s+)?(?P<thing8>[\w.+/-]+(?:\s+[\w.+/-]+){0,2}?)(?=\s*(?:[,.;!—–]|$))|"
    # "let's not do graphql this quarter" calls off "Add a GraphQL layer … this quarter".
    r"\blet'?s not (?:do|add|build|ship|send|use|keep|support|bother with|go with)\s+"
    r"(?:the |a |an |any )?"
    r"(?P<thing7>[\w./-]+(?:\s+[\w./-]+){0,2}?)"
    r"(?=\s*(?:[,.;!]|$)|\s+(?:this|for now|yet|after all|anymore|any more|at all)\b)|"
    + _THING_BEFORE
    # "签名校验取消，…" calls it off; "订单取消后退款" tells what happens to an order.
    + r"(?:先不上了|先不做了|先不加了|先不搞了|不做了|不上了|不加了|不要了|取消了?(?=[，,。！!；;\s]|$))"
)
#: What may be called off: choices, plans, work, requirements, the owner's statements.
_CANCELLABLE = _POINTED | _STATED | {"requirement"}


def _calls_off(new: Draft) -> bool:
    """Whether ``new`` calls something off or takes it back ("算了，还是用环境变量吧",
    "scrap that", "forget about the rewrite"), rather than changing a detail of it."""
    low = new.text.casefold()
    return bool(_UNDO.search(low) or _CANCEL.search(low))


# "go back to", "revert to the old …", "回退到原来的": undoing the change just made.
_REVERTS = _Gated(
    r"\b(?:go|going|switch|roll) back to\b|\brevert (?:to|back)\b|回退到|退回到|回到原来"
)


# "scrap that", "change of plan:", "I changed my mind", "算了，", "我改主意了": opening a
# message, they take back what the owner asked for last.
_UNDO = re.compile(
    r"^(?:(?:hmm+|ok(?:ay)?|wait|actually|no|sorry)[,.!]?\s+)?(?:(?P<plain>scrap that|scratch that|"
    r"forget that|change of plans?)|(?:i|we)(?:'ve| have)? changed (?:my|our) minds?|"
    r"on second thoughts?)(?=\s*(?:[,.:;!—–-]|$))|^(?:算了|我改主意了|改主意了|(?P<plain2>计划有变))"
)


def _undone(new: Draft, recent: Sequence[Draft], first: int) -> list[Draft]:
    """What the owner takes back with "scrap that", "change of plan" or "go back to …":
    the assistant's plan just made, and the directive of the owner's last turn (never
    their first message, at position ``first``) that ``new`` shares the most words with
    (the last one if it shares none and the cue takes back whatever was last: "change of
    plan", "go back to 200").

    What already says what ``new`` goes back to ("The batch size is 200 right now" for
    "go back to 200") is a statement, not a directive, and stays.
    """
    low = new.text.casefold()
    undo = _UNDO.search(low)
    reverts = _REVERTS.search(low)
    if new.supersedes or not (undo or (reverts and not _values(new.text))):
        return []
    recent = [d for d in recent if d.position != first]
    asked = _last_asked(new, recent, also=("goal", "constraint"))
    out = []
    plan = _last_plan(new, recent)
    if asked and plan is not None:
        # With a plan between, what it goes back on is the plan and the ask it carried out
        # ("Switch the logger to structlog." behind "Switched to structlog"), not the aim
        # it served ("Make the logs readable.").
        done = _words(plan.text)
        asked = [old for old in asked if done & _words(old.text)]
    if asked:
        words = _words(new.text)
        asked = [old for old in asked if old.turn == asked[-1].turn]
        # The most shared words win; a tie goes to the later statement.
        best = max(reversed(asked), key=lambda old: len(words & _words(old.text)))
        if words & _words(best.text):
            out.append(best)
        elif not undo or undo["plain"] or undo["plain2"]:
            # "Change of plan: we're going straight to prod" and "go back to 200" take back
            # the last thing asked, never a rule the owner set; "算了，这个 bug 明天再看"
            # names what it drops.
            out.extend(old for old in asked[-1:] if old.kind != "constraint")
    if plan is not None:
        out.append(plan)
        out.extend(old for old in _echoed(plan, recent) if old not in out)
    return out


# A reply that is only a value: "9000 then.", "20 actually.", "ledger-svc.", "1e-4.",
# "c6i.large.", "by month.", "postgres then".
_BARE = re.compile(
    r"^(?:(?:ok(?:ay)?|hmm+|hm|fine|nah|no|wait|eh|so|ah|actually|sorry|oh)[,.!—–-]*\s+)?"
    # "make it 50.": a bare value for "it", the one just set; "Rename it to `import-users`,
    # sync sounds two-way": a new name for it, with its reason.
    r"(?:(?:make|set|change|bump|raise|lower|drop|cut) (?:it|that)(?: to| down to| up to)?\s+|"
    r"(?:那就|就|那)?(?:改成|改为|调到|调成|设成|设为)\s*|"
    r"(?P<renamed>rename (?:it|that|this|them) to)\s+)?"
    r"(?P<prep>by|per|in|on|to|at)?\s*(?P<value>`?[\w][\w.+/:-]{0,39}`?)"
    r"(?:\s+(?P<cue>then|actually|instead|please|minimum|max|maximum|"
    # "database is better for that", "ULIDs are better here, …".
    r"(?:is|are) (?:better|simpler|safer|enough) (?:for that|for this|here)))?"
    r"\s*(?:[.!。]*$|(?(cue)[,;—–-]|(?(renamed)[,;—–-]|(?!))))"
)
# "数据库扛不住，8 吧。", "还是上 Redis 吧", "RabbitMQ 够了", "先 docker compose 吧": a
# clause that is a value and a particle of choosing.
_BARE_ZH = _Gated(
    r"(?:^|[，,。；;]\s*)(?:还是|先|就|那就|那)?\s*(?:上|用|改用|换成|升到|降到|改成|改为|调到)?\s*"
    # "commit 吧", "push 吧": an act the owner lets the agent do, no option in place of one.
    r"(?!(?:commit|push|merge|rebase|deploy|release|ship|revert|build|test|run|go|start|ok|merge it)\s*吧)"
    r"(?P<value>[a-z0-9][\w.+-]*(?: [a-z0-9][\w.+-]*)?)\s*(?P<cue>吧|就行了?|就够了|够了)"
)
_NUMBER_TOKEN = re.compile(r"^v?\d+(?:\.\d+)*(?:e[-+]?\d+)?$")
_NAME_SHAPED = re.compile(r"[-_.]|\d")


def _shape(token: str) -> str | None:
    """What kind of value ``token`` is: a number (or version), a name with a dash, dot,
    underscore or digit in it, or nothing a bare reply could replace."""
    if _NUMBER_TOKEN.match(token):
        return "number"
    if _NAME_SHAPED.search(token) and len(token) > 2:
        return "name"
    return None


_TOKENS = re.compile(r"[\w][\w.+/:-]*[\w]|\w")


def _just_said(new: Draft, recent: Sequence[Draft], *, same_turn: bool = False) -> Iterator[Draft]:
    """What a terse reply of the owner's may replace, newest first: their open statements
    of earlier turns within a correction's reach, and with ``same_turn`` those said before
    it in its own turn (the owner correcting themselves with no reply between)."""
    for old in reversed(recent):
        if new.turn - old.turn > CORRECTION_REACH:
            return
        if (
            old.role == "user"
            and old.superseded_by is None
            and old.kind in _CANCELLABLE
            and (same_turn or old.turn != new.turn)
        ):
            yield old


def _bare_swap(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's statement a bare value replaces: the latest in reach, said by the owner,
    that holds a value of the same shape and not this one ("The API listens on 8080" for
    "9000 then."; "by day" for "by month."). A plain word replaces a name only with a cue
    ("postgres then")."""
    if new.role != "user" or new.supersedes:
        return []  # what a pick or a take-back retired is what it replaces
    low = new.text.casefold().strip()
    match = _BARE.match(low)
    if match is not None:
        value, prep, cue = match["value"].strip("`").rstrip(".:/-"), match["prep"], match["cue"]
    elif (zh := _BARE_ZH.search(low)) is not None:
        value, prep, cue = zh["value"].strip(), None, zh["cue"]
    else:
        return []
    shape = _shape(value)
    if shape is None and not prep and not cue:
        return []
    form = _form(value, new.text)
    for old in _just_said(new, recent):
        said = old.text.casefold()
        tokens = [t.strip("`") for t in _TOKENS.findall(said)]
        if value in tokens or (" " in value and value in said):
            return []  # it says this value already: the reply confirms it
        if prep:
            # "by month" for "Partition the events table by day".
            if re.search(rf"\b{prep}\s+(?!{re.escape(value)}\b)\w+", said):
                return [old]
            continue
        if shape == "number" and any(
            _number_kind(n) == _number_kind(value) for n in _ANY_NUMBER.findall(said)
        ):
            return [old]  # "3.11 minimum." for "target py3.9", "1e-4." for "lr 3e-4"
        if shape == "name" and any(
            _shape(t) == "name" and _form(t, old.text) == form for t in tokens
        ):
            return [old]  # "ledger-svc" for "billing-core", "c6i.large" for "t3.medium"
        if shape is None and (_directive(old) or old.kind == "decision") and _LETTER.search(said):
            # "postgres then" for "Redis for sessions.", "先 docker compose 吧" for "部署用
            # k8s。"; never for "用游标分页。", which names no option a Latin name could
            # stand in for.
            return [old]
    return []


_ANY_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)*(?:e[-+]?\d+)?(?!\d|\.\d)")
_NUM = r"\d+(?:\.\d+)?"
# "8 is too many, 4", "404, not 403", "timeout 60.": a terse reply that gives a number in
# place of one the owner set, naming the old number or what the number is of.
_RENUMBER = re.compile(
    r"^(?:(?:ok(?:ay)?|hmm+|hm|nah|no|wait|eh|so|ah|actually)[,.!—–-]*\s+)?(?:"
    # "node 18 is EOL, bump it to 20": what the number is of may lead.
    rf"(?:[a-z][\w.-]* )?(?P<faulted>{_NUM}) (?:is|are|was|feels|seems) (?:way |a bit |far )?"
    r"(?:too (?:many|much|few|high|low|big|small|long|short|slow|fast|aggressive)|eol|"
    r"end of life|old|outdated|deprecated|unsupported|"
    # "3000 is taken, use 3001", "8080 is already in use by the proxy; take 8081".
    r"(?:already )?(?:taken|in use|used|busy|occupied|reserved|blocked|unavailable)"
    r"(?: (?:by|on|for) [^,;:.—–\d]{1,40})?)[,;:—–-]+\s*(?:so |then |just )?"
    r"(?:(?:bump|move|go|change|set|upgrade|switch)(?: it| that)? to |use |take |try )?"
    rf"(?P<value>{_NUM})|"
    rf"(?P<value2>{_NUM}),? not (?P<named>{_NUM})|"
    rf"(?P<key>[a-z][\w-]*(?: [a-z][\w-]*){{0,2}}) (?P<value3>{_NUM})|"
    # "4 workers.": the number, then what it counts.
    rf"(?P<value5>{_NUM}) (?P<counted>[a-z][\w-]*)|"
    # "太少了，两万行。" (read as "20000行"), "4 个就够了": the same, in Chinese.
    rf"(?:(?P<faulted3>{_NUM})\s*[\u4e00-\u9fff]{{0,2}}?\s*)?"
    r"(?:(?:太[少多大小长短慢快高低]了?|不够)[，,]?\s*)?(?:改成|改为|就|用)?\s*"
    rf"(?P<value6>{_NUM})\s*(?P<counted6>[\u4e00-\u9fff]{{1,2}}?)(?:吧|就够了|就行)?|"
    # "3000 被别的项目占了，用 3001。": the number faulted first, then the one to use.
    rf"(?P<faulted2>{_NUM})\s*[^，,。；;\d]{{1,16}}[，,]\s*(?:那就|就|还是)?"
    rf"(?:用|改成|换成|改用|设成|设为)\s*(?P<value4>{_NUM})\s*吧?"
    r")\s*[.!。！]?$"
)


#: The longest reply ``_RENUMBER`` reads ("8080 is already in use by the reverse proxy on
#: the build box; so take 8081" is 73): its digit runs side by side would take time of the
#: square of a long number's length to try.
_TERSE = 160


# "Store them as UTC, not local time.": the new way, then the old one named.
_NOT_THAT = re.compile(
    r"^(?P<head>[^,;.!?]{3,80}?),?\s+not\s+(?P<old>[\w.-]+(?:\s+[\w.-]+){0,2})\s*[.!]?$"
)
#: What "…, not X" names that is no earlier statement: "not yet", "not now", "not sure".
_NOT_NAMING = frozenset(
    re.findall(
        r"\S+",
        "yet now sure really today tomorrow this that it them me you us needed necessary "
        "required urgent important ok okay fine a an the",
    )
)


def _not_that(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's statement "…, not Y" corrects: the latest in a correction's reach that
    says Y and not the new way, about the same thing (a word shared besides Y's). A rule
    of the owner's is never corrected this way ("Deploy to staging, not prod." after
    "Never deploy to prod on Fridays")."""
    if new.role != "user" or new.supersedes:
        return []
    match = _NOT_THAT.match(new.text.casefold().strip())
    if match is None or match["old"].split()[0] in _NOT_NAMING:
        return []
    phrase = re.compile(rf"(?<![\w.-]){re.escape(match['old'])}(?![\w-])")
    head, named = _words(match["head"]), _words(match["old"])
    new_words = head - named
    for old in _just_said(new, recent):
        if old.kind == "constraint":
            continue
        said = old.text.casefold()
        if phrase.search(said) is None:
            continue
        have = _words(old.text)
        if new_words and new_words <= have:
            return []  # it says the new way already
        return [old] if (head - named) & have else []
    return []


# "Python 3.12", "Node 20", "pin Python to 3.11", "postgres version 16": a named thing and
# the version or number it is given. A unit after the number makes it an amount.
_VERSIONED = re.compile(
    r"(?<![\w.-])([a-z][a-z+#-]*[a-z+#])\s+(?:to\s+|version\s+)?v?(\d+(?:\.\d+)*)(?![\w%]|\.\d)"
)


def _versions(low: str) -> dict[str, str]:
    """The named things ``low`` gives a version or number, by name, the first said."""
    out: dict[str, str] = {}
    for match in _VERSIONED.finditer(low) if DIGIT.search(low) else ():
        name, number = match.groups()
        if len(name) > 2 and name not in _STOP and name not in _NOT_KEYS:
            out.setdefault(name, number)
    return out


# "for the worker", "on the build box", "in staging": what a statement is scoped to.
_SCOPE = re.compile(r"\b(?:for|in|on)\s+(?:the\s+|our\s+|a\s+|an\s+|all\s+)?([a-z][\w-]*)")


def _reversioned(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's statement that a replacing one gives the same named thing another
    version of: "Use Python 3.11." or "Pin Python to 3.11." for "Use Python 3.12
    instead.", "Use Node 18." for "Use Node 20 instead.". Naming the thing again keeps
    it only with the version it had; an addition ("… for the new service too") replaces
    nothing, nor does a version for something the earlier statement does not name ("…
    for the worker instead" after "… for the API")."""
    if new.role != "user" or new.supersedes or not new.replaces or _ADDITIVE.search(new.text):
        return []
    low = new.text.casefold()
    mine = _versions(low)
    if not mine:
        return []
    scope = {m[1] for m in _SCOPE.finditer(low)} - _STOP
    # It says it replaces ("instead", "no, …"): the owner's own statement just before in
    # the same turn is taken back as one of an earlier turn is.
    for old in _just_said(new, recent, same_turn=True):
        said = old.text.casefold()
        if any(word not in said for word in scope):
            continue
        theirs = _versions(said)
        for name, number in mine.items():
            previous = theirs.get(name)
            if (
                previous is not None
                and previous != number
                and _number_kind(previous) == _number_kind(number)
                and number not in _ANY_NUMBER.findall(said)
            ):
                return [old]
    return []


def _names_number(new: str, old: str) -> bool:
    """Whether ``new`` names a number of ``old`` besides the one it leads with: "Booking
    rate limit: 20 per minute per IP, the 5 was hurting group bookings" names the 5 of
    "Set the booking rate limit to 5 requests per minute per IP"."""
    said = _ANY_NUMBER.findall(new)
    return bool(set(said[1:]) - {said[0]} & set(_ANY_NUMBER.findall(old))) if said else False


#: The groups of ``_RENUMBER`` that hold the new number.
_RENUMBERED = ("value", "value2", "value3", "value4", "value5", "value6")


def _renumbered(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's statement a terse renumbering replaces: the latest in a correction's
    reach that holds the number it names ("8 is too many, 4"; "404, not 403") or, for
    "timeout 60.", the words it names beside another number ("http client timeout 30")."""
    if new.role != "user" or new.supersedes or len(new.text) > _TERSE:
        return []
    match = _RENUMBER.match(new.text.casefold().strip())
    if match is None:
        return []
    value = next(match[g] for g in _RENUMBERED if match[g] is not None)
    old_number = match["faulted"] or match["named"] or match["faulted2"] or match["faulted3"]
    key, counted = match["key"], match["counted"] or match["counted6"]
    # "3000 is taken, use 3001." names the number it replaces: the owner's own statement of
    # it in the same turn goes too; a bare "timeout 60." beside it in one turn adds.
    for old in _just_said(new, recent, same_turn=old_number is not None):
        said = old.text.casefold()
        numbers = _ANY_NUMBER.findall(said)
        if value in numbers:
            return []  # it says this number already
        if old_number is not None and old_number in numbers:
            return [old]
        if (
            key is not None
            and numbers
            and re.search(rf"\b{re.escape(key)}\b\W*(?:\w+\W+)?{_NUM}", said)
        ):
            return [old]
        if counted is not None and re.search(
            rf"{_NUM}\s*(?:[a-z][\w-]*\s+)?{re.escape(counted)}(?![a-z])", said
        ):
            return [old]  # "Use 8 gunicorn workers." for "4 workers."
    return []


def _form(token: str, text: str) -> tuple[frozenset[str], bool]:
    """A name's form: the separators in it and whether it is written in capitals where it
    was said ("DATABASE_URL" and "APP_DB_URL" share one, "config.yaml" and "t3.medium"
    another, "ledger-svc" and "billing-core" a third)."""
    at = text.casefold().find(token)
    written = text[at : at + len(token)] if at >= 0 else token
    return frozenset(c for c in token if c in "-_./:"), written.isupper()


def _number_kind(number: str) -> str:
    """ "1e-4" and "3e-4" are one kind of number, "3.11" and "3.9" another, "9000" a third."""
    return "e" if "e" in number else "." if "." in number else "1"


def _called_off(old: Draft, new: Draft) -> bool:
    """Whether the owner's ``new`` may call ``old`` off by naming what it is about: an open
    statement of theirs said before, or an open plan of the assistant's (what the
    assistant found stays found)."""
    return (
        old.kind in _CANCELLABLE
        and old.superseded_by is None
        and old.position < new.position
        and may_retire(new.role, old.role)
        and (old.role == "user" or old.kind in ("decision", "todo"))
    )


def _cancelled(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The recent statements about the thing the owner calls off ("drop the redis idea")."""
    low = new.text.casefold()
    match = _CANCEL.search(low)
    if match is None:
        return []
    thing = next(
        t
        for t in match.group(
            "thing", "thing2", "thing3", "thing4", "thing5", "thing6", "thing7", "thing8"
        )
        if t
    )
    words = _words(thing) - _VAGUE_THING
    if not words:
        return []
    wanted = min(2, len(words))
    return [
        old for old in recent if _called_off(old, new) and len(words & _words(old.text)) >= wanted
    ]


# "turn the cache back on for search", "re-enable the rate limiter", "还是打开吧": what the
# owner turned off before is on again.
_BACK_ON = _Gated(
    r"\b(?:(?:turn|switch|put|flip) (?:(?:the\s+)?(?P<thing>[\w./-]+(?:\s+[\w./-]+){0,2}?)|it|that)"
    r" back on\b|re-?enable (?:the\s+)?(?P<thing2>[\w./-]+(?:\s+[\w./-]+)?))|"
    r"^(?:那|那就)?(?:还是|再)(?:打开|开启|开着|启用)"
)
_TURNED_OFF = re.compile(
    r"\b(?:disable|turn off|switch off|rip out)\b|\b(?:turn|switch) (?:\S+ ){1,3}off\b|"
    r"关掉|关闭|关了|禁用|停用"
)


def _back_on(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's statement that turned off what ``new`` turns back on: the latest one
    in reach that names the thing (two shared words, or its one word), or, when ``new``
    names nothing ("turn it back on", "还是打开吧"), within a correction's reach."""
    match = _BACK_ON.search(new.text.casefold())
    if match is None or new.role != "user":
        return []
    thing = match["thing"] or match["thing2"]
    words = _words(thing) - _VAGUE_THING if thing else frozenset()
    reach = COUNT_REACH if words else CORRECTION_REACH
    for old in reversed(recent):
        if new.turn - old.turn > reach:
            break
        if (
            old.role != "user"
            or old.turn == new.turn
            or not _called_off(old, new)
            or not _TURNED_OFF.search(old.text.casefold())
        ):
            continue
        if not words or len(words & _words(old.text)) >= min(2, len(words)):
            return [old]
    return []


def _repointed(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The earlier choices about the thing ``new`` points at something new, that do not
    already name the new thing: "Use SQLite for the invoice store." (and the assistant's
    "I'll store invoices in SQLite.") for "Switch the invoice store to PostgreSQL."."""
    low = new.text.casefold()
    match = _REPOINT.search(low)
    if match is None or _ADDITIVE.search(new.text):
        return []
    thing = match.group("thing") or match.group("thing2") or match.group("thing3")
    thing = thing or match.group("thing4")
    value = match.group("value") or match.group("value2") or match.group("value3")
    words = _words(thing) - _VAGUE_THING
    wanted = min(2, len(words))
    if value in _PURPOSE:
        return []  # "change the README to mention Docker": a purpose, not a new thing
    named = {w for w in _words(value) if len(w) >= 3}
    if not words or not named:
        return []
    out = []
    for old in recent:
        if (
            not (old.kind in _POINTED or (old.kind in _STATED and old.role == "user"))
            or old.superseded_by is not None
            or old.position >= new.position
            or not may_retire(new.role, old.role)
        ):
            continue
        if _sharable(words, old.text) < wanted:
            continue  # it cannot name the thing: its words are not read
        have = _words(old.text)
        # "python:3.12-slim" does not name "cgr.dev/chainguard/python": the whole value must.
        if (
            len(words & have) >= wanted
            and not _mentions(have, {max(named, key=len)})
            # Read last: what names nothing it would replace is rare, and this is uncached.
            and (old.kind in _POINTED or _named_thing(old.text))
        ):
            out.append(old)
    return out


def _named_thing(text: str) -> bool:
    """Whether an owner's statement names a thing: a name, or a token shaped like one
    ("python:3.12-slim", "t3.medium")."""
    return bool(_names(text)) or any(
        _shape(t.strip("`")) == "name" for t in _TOKENS.findall(text.casefold())
    )


#: Verbs of a purpose ("to mention", "to use"), which no thing is pointed at.
_PURPOSE = frozenset(
    re.findall(
        r"\S+",
        "mention say include use show list explain cover reflect match read be have "
        "support handle describe document add remove fix make do run call return link "
        "note avoid keep get take print log allow accept reject check skip ignore work "
        "look send write load emit point tell ask wait retry fail stop start",
    )
)
#: Words that name no thing on their own: "switch it to", "move everything over to".
_VAGUE_THING = frozenset(("it", "everything", "them", "that", "this", "one", "all", "things"))


def _mentions(have: frozenset[str], named: set[str]) -> bool:
    """Whether ``have`` names one of ``named``, "postgres" for "postgresql" too."""
    return any(
        w == n or (len(w) >= 5 and len(n) >= 5 and (w.startswith(n) or n.startswith(w)))
        for w in have
        for n in named
    )


#: What an owner asks for that the assistant's next plan carries out.
_ECHOED = frozenset({"decision", "todo", "preference"})


def _echoed(plan: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The owner's directives that the assistant's ``plan``, which the owner has just
    replaced, carried out: "use react-hook-form for the form" behind "I'll create
    Login.tsx with react-hook-form" when "Actually, let's use Formik instead" follows.

    Only the owner's turn just before the plan, and only what shares a name with it.
    """
    if plan.role != "assistant" or plan.kind not in ("decision", "todo", "fact"):
        return []
    names = _names(plan.text)
    # What it did ("Added loguru to worker/main.py.") carried the choice out already: only
    # a plan stated as one goes back on the choice by the name it uses.
    planned = plan.kind == "decision" or _PLAN.search(plan.text.casefold()) is not None
    return [
        old
        for old in recent
        if old.role == "user"
        and old.superseded_by is None
        and old.turn < plan.turn
        and plan.turn - old.turn <= ADJACENT
        and (
            (old.kind in _ECHOED and names & _names(old.text, loose=True))
            # "Use npm for installs." (or "构建用 webpack。", read as a statement) behind
            # "I'll configure the workflow with npm ci.": the plan uses what the directive
            # chose, whatever its shape.
            or (
                planned
                and (old.kind in _ECHOED or _directive(old))
                and (chosen := _chosen(old)) is not None
                and chosen in _names(plan.text, loose=True)
            )
        )
    ]


def _chosen(old: Draft) -> str | None:
    """The name an owner's directive chooses ("Use npm for installs.", "数据库用 MySQL。")."""
    match = _USES.search(old.text.casefold())
    return match["name"].strip("`") if match is not None else None


# A name: in backticks, a capitalised word past the first ("SQLite", "Fridays", "缓存用
# Redis"), or one with a digit, a dash, a dot or an underscore inside ("react-hook-form",
# "us-east-1", "config.yaml").
_NAME_TOKEN = re.compile(
    r"`([^`]+)`|(?<=[\s(（，,用在])([A-Z][\w.+-]+)|\b([a-z][\w]*[-_.\d][\w.-]*\w)|"
    # In Chinese, a Latin word is a name: "打包工具用 webpack".
    r"(?:(?<=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff] ))([a-z][\w.+-]{2,40})"
)


def _names(text: str, *, loose: bool = False) -> frozenset[str]:
    """The names in ``text`` (casefolded); ``loose`` adds every word, for a lowercase
    owner who writes "use sqlite" where the assistant writes "SQLite"."""
    found = {next(g for g in m.groups() if g).casefold() for m in _NAME_TOKEN.finditer(text)}
    if loose:
        found |= set(re.findall(r"[\w+-]+(?:\.[\w+-]+)*", text.casefold()))
    return frozenset(found)


def _last_plan(new: Draft, recent: Sequence[Draft]) -> Draft | None:
    """The assistant's last open plan (decision) in the turn just before ``new``."""
    for old in reversed(recent):
        if new.turn - old.turn > ADJACENT:
            return None
        if old.role == "assistant" and old.kind == "decision" and old.superseded_by is None:
            return old
    return None


# "Status: the migration is pending review.", "The staging DB is on version 14.": a
# thing, then what it is or how it stands.
_STATE_OF = re.compile(
    r"^(?P<status>status\s*[:：]\s*)?(?:the\s+|our\s+)?"
    r"(?P<subject>[a-z][\w.-]*(?:\s+[a-z][\w.-]*){0,3}?)\s+(?:is|are)\s+(?P<rest>[^;]+)$"
)
_NOW = re.compile(r"\bnow\b")


def _state_of(low: str) -> tuple[bool, frozenset[str], str] | None:
    """Whether ``low`` is labelled a status, the words of the thing it is about, and what
    it says that thing is."""
    match = _STATE_OF.match(low.strip())
    if match is None:
        return None
    subject = frozenset(match["subject"].split()) - _STOP
    return (match["status"] is not None, subject, match["rest"]) if subject else None


def _updated(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The statements of how a thing stands that ``new`` says anew: both labelled a status
    of the same thing ("Status: the migration is merged and deployed." for "Status: the
    migration is pending review."), or ``new`` saying "now" of the same thing in the same
    words with another number, the owner's of the owner's ("Staging DB is on version 16
    now" for "The staging DB is on version 14."). Another thing, or the same words with no
    new number, stays."""
    low = new.text.casefold()
    status = low.startswith("status")
    if not status and (new.role != "user" or _NOW.search(low) is None):
        # What the assistant found stays found ("SESSION_TTL is 300 seconds" beside its
        # "SESSION_TTL is now 3600"): only its statuses are said anew.
        return []
    mine = _state_of(low)
    if mine is None or mine[0] != status:
        return []
    numbers = set(_ANY_NUMBER.findall(mine[2]))
    out = []
    for old in recent:
        if (
            old.kind not in _STATED
            or old.superseded_by is not None
            or old.position >= new.position
            or not may_retire(new.role, old.role)
        ):
            continue
        theirs = _state_of(old.text.casefold())
        if theirs is None or theirs[0] != status or theirs[1] != mine[1]:
            continue
        if status:
            out.append(old)
            continue
        if old.role != "user":
            continue
        said = set(_ANY_NUMBER.findall(theirs[2]))
        if numbers and said and not numbers & said and _words(theirs[2]) & _words(mine[2]):
            out.append(old)
    return out


# "… use Postgres tsvector instead", "Switching to a hand-written loop": what the
# assistant switches to.
_SWITCHES_TO = re.compile(
    r"\b(?:use|using|switch(?:ing)?(?: over)? to|go(?:ing)? with|fall(?:ing)? back to)\s+"
    r"(?:the\s+|a\s+|an\s+)?(?P<pick>`?[\w][\w.+-]*)"
)


def _own_switch(new: Draft, recent: Sequence[Draft]) -> list[Draft]:
    """The assistant's own last plan, in its turn or the turn before, that its replacing
    plan switching to another named thing replaces ("I'll use the sqlite FTS5 extension"
    for "… so I'll drop that and use Postgres tsvector instead."): one naming something,
    and not what it switches to. One that says what it replaces ("instead of X") is read
    by that name; a plan already naming the thing is refined, not replaced."""
    low = new.text.casefold()
    match = _SWITCHES_TO.search(low)
    if match is None or replaced_subject(new.text) is not None:
        return []
    pick = match["pick"].strip("`").rstrip(".")
    if pick in _VAGUE_THING or pick in _PICK_VAGUE:
        return []
    for old in reversed(recent):
        if new.turn - old.turn > ADJACENT:
            break
        if (
            old.role == "assistant"
            and old.kind == "decision"
            and old.superseded_by is None
            and old.position < new.position
        ):
            names = _names(old.text, loose=True)
            return [old] if names and pick not in names else []
    return []


def _last_word_plan(new: Draft, recent: Sequence[Draft]) -> Draft | None:
    """The assistant's open plan when it is the last statement said, within a
    correction's reach: "I suggest we use Redis for the cache." → "yes" → "Done, Redis
    cache added." leaves it the plan in force when the owner picks another option, the
    approval and the report between being noise."""
    if not recent:
        return None
    old = recent[-1]
    if (
        old.role == "assistant"
        and old.kind == "decision"
        and old.superseded_by is None
        and new.turn - old.turn <= CORRECTION_REACH
    ):
        return old
    return None


def _retire(old: Draft, new: Draft) -> None:
    if old.kind == "goal" and IMPERATIVE.search(old.text.casefold()) and not _calls_off(new):
        # A task asked for stands when one of its details changes ("Actually use Fly.io
        # instead of Heroku" for "Deploy the marketing site to Heroku."): retiring it would
        # lose the task. The restore says the detail changed (``brief.restore``, ``since``).
        return
    old.superseded_by = new.id
    new.supersedes += (old.id,)


# "make it 90 days", "change that to 5": the value replaced is the last one said.
_IT = _Gated(
    r"\b(?:make|change|set|bump|turn|keep|move|push|raise|lower|drop|cut|increase|reduce|"
    r"decrease|extend|shorten) (?:it|that|this|them)(?: to| for| at| down to| up to)? [~≈]?\d|"
    r"(?:那就|就)?改成\s*\d"
)


# "checkpoint interval 改成 3min", "把超时改成 30 秒": what is changed, named before the
# change in its own clause (after any filler: 那就, 就, 也, 都, 再, 直接, 把).
_CHANGED_SUBJECT = re.compile(
    r"(?:^|[，,。；;：:！!？?\n])\s*(?:那就|就|也|都|再|直接|先)?\s*(?:把)?\s*"
    r"([^，,。；;：:！!？?\n]{2,40}?)\s*(?:也|都|就|再)?\s*改成\s*[~≈约]?\s*\d"
)


def _changed_subject(low: str) -> str | None:
    """What a Chinese change names as changed (``_CHANGED_SUBJECT``): at least one Latin
    word of three letters or two Chinese characters, else None."""
    if "改成" not in low:
        return None
    match = _CHANGED_SUBJECT.search(low)
    if match is None:
        return None
    subject = _FILLER_LEAD.sub("", match.group(1)).strip()
    return subject if _WORD.search(subject) else None


_FILLER_LEAD = re.compile(r"^(?:\s|那就|那|就|也|都|再|直接|先|把|还是)+")


def _implied(new: Draft, earlier: Sequence[Draft]) -> dict[str, float]:
    """For "make it 90 days": the value last said in each dimension the new one sets, in
    reach (retired or not), which every open statement of it then shares."""
    if not _IT.search(new.text.casefold()):
        return {}
    out: dict[str, float] = {}
    for old in reversed(earlier):
        if new.turn - old.turn > CORRECTION_REACH:
            break
        for dim, numbers in _values(old.text).items():
            out.setdefault(dim, numbers[0])
    return out


def _open(earlier: Sequence[Draft], new: Draft) -> list[Draft]:
    """Earlier statements a new value may retire: not yet retired, and not the owner's rules
    (an earlier correction's value too: "make it 8 workers" then "make it 6 workers")."""
    return [
        old
        for old in earlier
        if (old.kind in _REPLACEABLE or old.kind == "correction")
        and old.superseded_by is None
        and old.position < new.position
        and not (old.role == "user" and old.kind == "constraint")
    ]


# "第 3 点不行！", "2 的话，重试干脆关掉吧", "3 no — too costly", "point 2: skip it":
# an owner turning down an item of the assistant's numbered list by its number.
_ITEM_REFERENCE = re.compile(
    r"^\s*(?:(?:but|and|ok(?:ay)?)[, ]+)?(?:"
    r"(?:(?:point|item|option|step|number)\s*#?|#|第\s*)?(\d|[一二三四五六七八九])\s*"
    r"(?:[点条个项步]\s*)?"
    r"(?=先?(?:的话|不行|不要|不用|别|去掉|关掉|改|换)|[:：—–]|-\s|(?:is\s+)?(?:no|not|nope|out)\b|"
    r"(?:won'?t|doesn'?t)\b)"
    # "But no on 2 —", "Not 3 as written."
    r"|(?:no|not)\s+(?:on\s+|to\s+)?(?:point\s+|item\s+|#)?(\d)(?![\w.,%]|\s*(?:[a-z]{3,}s\b|%))"
    r")"
)
_TURNED_DOWN = re.compile(
    r"不行|不要|不用|别|去掉|关掉|不做|改|换|\b(?:no|not|nope|skip|drop|out|instead|rather|"
    r"won'?t|don'?t|doesn'?t|can'?t)\b"
)


def _numbered(new: Draft, earlier: Sequence[Draft]) -> list[Draft]:
    """The items of the assistant's numbered list just before that ``new`` turns down by
    number; when that message has several lists, the last one's."""
    if new.role != "user":
        return []
    low = new.text.casefold()
    match = _ITEM_REFERENCE.match(low)
    if not match:
        return []
    number: int | None = None
    if match.group(1) is None:
        number = int(match.group(2))  # "no on 2" says no itself
    elif _TURNED_DOWN.search(low, match.end(1)):
        number = list_number(match.group(1))
    if number is None:
        return []
    listed = [
        old
        for old in earlier
        if old.role == "assistant"
        and new.turn - old.turn == ADJACENT
        and old.item == number
        and old.kind != "goal"
        and old.superseded_by is None
    ]
    return listed[-1:]


# "No Docker please.", "No exceptions in the spec.", "skip the IT ask", "not an env var —":
# the owner turning down what the assistant just proposed, by naming it.
_NO_THING = re.compile(
    r"^(?:(?:but|and|ok(?:ay)?|hm+|well)[, ]+)?(?:no|not|skip|drop)\s+(?:the\s+|an?\s+)?"
    r"(?!(?:one|way|need|problem|worries|rush|idea|longer|more|need|sure|just|only|yet|really)\b)"
    r"([^.,;:!?—–]{3,60}?)\s*(?:please\s*)?(?:[.,;:!?—–]|$)"
)


def _turned_down(new: Draft, earlier: Sequence[Draft]) -> list[Draft]:
    """The assistant's proposal in the turn just before that ``new`` turns down by name:
    the one sharing the most of the named words (every Latin word of three letters or more
    must be in it)."""
    if new.role != "user":
        return []
    match = _NO_THING.match(new.text.casefold())
    if not match:
        return []
    named = _terms(match.group(1))
    if not named:
        return []
    best: list[Draft] = []
    for old in earlier:
        if (
            old.role == "assistant"
            and new.turn - old.turn == ADJACENT
            and old.kind in ("decision", "fact", "todo")
            and old.superseded_by is None
        ):
            # "env var" names "environment variable", "Docker" names "a Dockerfile".
            theirs = _terms(old.text)
            if all(any(t.startswith(w) for t in theirs) for w in named):
                best = [old]  # the last one that names them all
    return best


def _terms(text: str) -> frozenset[str]:
    """Its Latin words of three letters or more, stemmed, without the stop words."""
    return frozenset(
        _stem(w) for w in _TOKEN.findall(text.casefold()) if len(w) > 2 and w not in _STOP
    )


def _directive(draft: Draft) -> bool:
    """What the owner asked for: a directive kind, or a statement that describes nothing
    ("scale janitor to 0", not "ingress is ingress-nginx in prod-eu")."""
    if draft.role != "user":
        return False
    if draft.kind in _DIRECTIVE:
        return True
    # "scale janitor to 0, you have write on checkout for that": the first clause says
    # what it is; what follows may explain it in any form.
    return draft.kind == "fact" and not _declares(draft.text)


@lru_cache(maxsize=_CACHE)
def _declares(text: str) -> bool:
    """Whether the first clause of ``text`` describes ("ingress is ingress-nginx")."""
    return DECLARATIVE.search(_first_clause(text)) is not None


def _first_clause(text: str) -> str:
    return _CLAUSE.split(text.casefold(), maxsplit=1)[0]


_CLAUSE = re.compile(r"[,;:，；：。—–]|\s-\s")


def _progressed(
    new: Draft, names: frozenset[str], pending: Sequence[tuple[Draft, frozenset[str]]]
) -> list[Draft]:
    """The assistant's pending statuses ("refunds is not migrated yet", "below the 90
    target", "还没推送"), each with the names it gives, that its later report ``new``
    naming ``names`` replaces: those on the same two things. What is done or found stays
    so."""
    return [
        old
        for old, theirs in pending
        if old.turn != new.turn and old.superseded_by is None and len(names & theirs) >= 2
    ]


def _reporting(draft: Draft) -> bool:
    return draft.role == "assistant" and draft.kind in ("fact", "state", "todo")


# A status report: what passes, works, is ported or pushed, or is not yet.
_PROGRESS = re.compile(
    r"\b(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing)?|works?|green|ported|pushed|committed|deployed|"
    r"merged|builds?|renders?|done|in place|not (?:\w+ )?yet|(?:isn|hasn|haven|aren)'t)\b|"
    r"已|未|尚未|还没|失败|失敗|通过|通過|达标|超标|挂了|跑通"
)
# What a status says is still open.
_PENDING = re.compile(
    r"\bnot (?:\w+ )?yet\b|n't (?:\w+ )?(?:\w+ )?yet\b|\bbelow\b|"
    r"尚未|还没|還沒|挂了|没达标|沒達標|超标|未(?:提交|推送|发布|部署|合并|push|commit)"
)


_NO_REPORT: tuple[str, frozenset[str]] = ("", frozenset())


@lru_cache(maxsize=_CACHE)
def _report(text: str) -> tuple[str, frozenset[str]]:
    """Whether ``text`` reports status ("pending", "report" or "") and the names it gives."""
    low = text.casefold()
    if not _PROGRESS.search(low):
        return "", frozenset()
    return ("pending" if _PENDING.search(low) else "report"), _names(text)


def _finding(draft: Draft) -> bool:
    """What the assistant found or measured, as opposed to a choice or a plan."""
    return draft.role == "assistant" and draft.kind in ("fact", "state")


def _proposal(new: Draft, old: Draft) -> bool:
    """An assistant's proposal stated as a fact, which the user's rejection may retire."""
    return new.kind == "rejected" and new.role == "user" and old.role == "assistant"


# Units of one dimension compare with each other: "24 小时" and "10 分钟" set the same TTL.
_SECONDS = {
    **dict.fromkeys(("ms", "msec", "millisecond", "毫"), 0.001),
    **dict.fromkeys(("s", "sec", "second", "秒"), 1.0),
    **dict.fromkeys(("min", "minute", "分"), 60.0),
    **dict.fromkeys(("h", "hr", "hour", "小"), 3600.0),
    **dict.fromkeys(("d", "day", "天"), 86400.0),
    **dict.fromkeys(("wk", "week", "周"), 604800.0),
}
# "改成 90 秒", "to 5 minutes", "→ 4": the value a statement sets comes after its cue.
_SET_CUE = re.compile(
    r"(?:\bto|\binto|→|->|=|改成|改为|改到|设为|设成|定为|调到|调成|降到|升到|提到|扩到|缩到|用回|换成|变成)\s*[~≈约]?\s*$"
)
# A number with no unit, named by the word just before it: "epoch 也改成 2", "retries = 5".
_KEYED = re.compile(
    # (?<![a-z_]) only saves time: a key found from a letter inside a word is found from
    # the letter before it too, which is tried first; each start read the word to its end.
    r"(?<![a-z_])([a-z_][\w.-]{2,})\s*(?:[:=]|也|还是|就|\bto\b|\bof\b|\bis\b|改成|改为|设为|设成|用回|用|设|调到)?\s*"
    # A number glued to the word is part of a name ("line3", "v2.3.1"), not its value.
    r"(?:也|还是)?\s*(?:改成|改为|设为|设成|用回)?\s*(?<![\w.])(\d+(?:\.\d+)?)(?![\w.%])"
)


# A statement of fact replaces something only when it says that things moved on:
# "Release moves to Monday after all", not "X, not Y".
# What a ``_KEYED`` match is made of: a key, spaces, a connector ("=", "to", "改成") and a
# number. Nothing else comes between a key and its number.
_KEYED_STRETCH = re.compile(r"[\w.:=\s-]+")


def _keyed(low: str) -> Iterator[re.Match[str]]:
    """``_KEYED``'s matches in ``low``, the ones its ``finditer`` finds: looked for only in
    the stretches of key characters that hold a free digit, where its number can start.
    Every word is a key it tries, read to its end and back, which made it the costliest
    search of ``_values``; most stretches of prose hold no number."""
    for stretch in _KEYED_STRETCH.finditer(low):
        start, end = stretch.span()
        if _FREE_DIGIT.search(low, start, end):
            # A lookbehind sees the character before ``start``; one past ``end``, a
            # lookahead sees the one after the stretch, which no match takes.
            yield from _KEYED.finditer(low, start, end + 1)


_MOVES_ON = re.compile(
    r"\b(?:instead|rather than|switch|no longer|not anymore|replac|moves?|moved|back to|"
    r"after all|from now on)\b|改用|换成|改成|改为|不再|替换|换回|用回|改回|取代|而不是|挪到|推迟到|"
    r"提前到|改到|改了"
)
# A rate: "20 per minute", "30 requests/minute", "5 req/s", "每分钟 20 次" is not one.
_RATE = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:[a-z]+\s*)?(?:/|\bper\s+|\ba\s+)\s*"
    r"(second|sec|minute|min|hour|hr|day|s|h)s?\b"
)
# "not 8", "instead of 5", "而不是 3": a bare number named as the one replaced.
_NOT_BARE = re.compile(r"(?:\bnot|\binstead of|而不是|不是)\s*(\d+(?:\.\d+)?)(?![\w%]|\.\d)")
# "2027-06-30": a date is a value of its own dimension.
_DATE = re.compile(r"(?<![\w.])(\d{4})-(\d{2})-(\d{2})(?![\w.])")
# "$9/mo", "€12", "¥99": an amount of money ("99 元" is read as a unit of its own).
_MONEY = re.compile(r"[$€£¥]\s?(\d+(?:\.\d+)?)(k\b)?")
# "20:30", "9 点", "9pm": a time of day, in hours.
_CLOCK = re.compile(r"(?<![\w.:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_CLOCK_UNITS = frozenset(("点", "am", "pm"))
# "时间改成 20:30", "move the standup to 10:30": a new time of day set outright.
_CLOCK_SET = re.compile(
    r"(?:改成|改为|改到|挪到|推迟到|提前到|换到|"
    r"\b(?:move[sd]?|moving|push(?:ed)?|shift(?:ed)?|change[sd]?|switch(?:ed)?)\b[^.;]{0,24}?\bto)"
    r"\s*\S{0,4}?\s*\d"
)
_EVENING = re.compile(r"晚上?|下午|傍晚|夜里")
# Words before a number that say nothing about what it measures ("after 14", "every 5").
_NOT_KEYS = frozenset(
    re.findall(
        r"\w+",
        "after before from with every each about under over than least most top last first "
        "next per into onto until since around approx like only also just",
    )
)
# Chinese counters: the noun after them says what is counted.
_COUNTERS = frozenset("个条张次台份项位只块")
_COUNTED = re.compile(r"\s?(?![吧了呢啊吗哦呀的就都也还以左])([\u4e00-\u9fff]{1,2})")


def _short(letter: str) -> str:
    """The unit a lone letter after a number stands for: "4K" is 4 kB, "12h" 12 hours."""
    return letter if letter in "hsd%" else letter + "b"


def _scale(value: re.Match[str]) -> tuple[str, float]:
    """The dimension and factor of a ``_VALUE`` match's unit, as written."""
    _number, unit, letter = value.groups()
    return _dimension(unit or _short(letter))


def _dimension(unit: str) -> tuple[str, float]:
    """The dimension a unit measures and its factor: "minutes" -> ("time", 60), "Gi" ->
    ("bytes", 2**30)."""
    factor = _SECONDS.get(unit) or _SECONDS.get(unit.removesuffix("s"))
    if factor:
        return ("time", factor)
    power = _BYTES.get(unit.removesuffix("s"))
    return ("bytes", 1024.0**power) if power else (unit[:3], 1.0)


# "500G", "375Gi", "300GB", "512MiB", "10 gigabytes": one dimension, whatever the prefix.
_BYTES = {
    unit: power
    for power, names in enumerate(
        ("kb kib ki kilobyte", "mb mib mi megabyte", "gb gib gi gigabyte", "tb tib ti terabyte"), 1
    )
    for unit in names.split(" ")
}


# Counts of tries, in any word for them: one dimension where the statement is about
# retrying ("Retry at most 3 times." and "Make it 5 retries.").
_TRY_UNITS = frozenset(("tim", "att", "ret", "tri", "次"))
_TRIES = re.compile(r"\bretr|\battempt|\btries\b|重试")


@lru_cache(maxsize=_CACHE)
def _values(text: str) -> dict[str, list[float]]:
    """The values a statement names, by dimension, the value it sets first.

    "from 180 秒改成 30 秒" sets 30: a value right after a setting cue leads its
    dimension. Numbers in one unit of time compare across units ("2 小时" = "120 分钟").
    """
    low = text.casefold()
    if "半" in low or "half" in low:
        low = _halves(low)
    if _NUMBER_WORD_HINT.search(low):
        low = _NUMBER_WORD.sub(_digits, low)
    out: dict[str, list[float]] = {}
    if not DIGIT.search(low):
        return out  # every value below starts with a digit
    # A rate, a time of day, a date and a keyed number start a word ("30/min", not the 2
    # of "v2"); one search says whether to look for them.
    free = _FREE_DIGIT.search(low) is not None
    taken = []  # spans already read as a rate or a time of day
    for match in _RATE.finditer(low) if free else ():
        # "20 per minute" and "30 requests/minute" are one rate, per second.
        number, per = match.groups()
        out.setdefault("rate", []).append(float(number) / _dimension(per)[1])
        taken.append(match.span())
    for match in _MONEY.finditer(low):
        amount, thousands = match.groups()
        _put(out, "money", float(amount) * (1000 if thousands else 1), low, match.start())
        taken.append(match.span())
    for match in _CLOCK.finditer(low) if free else ():
        hours, minutes = match.groups()
        _put(out, "clock", float(hours) + float(minutes) / 60, low, match.start())
        taken.append(match.span())
    for match in _MONTH_DAY.finditer(low) if _MONTH_HINT.search(low) else ():
        # "March 14", "14 March", "3月14日": a day of the year, month * 100 + day.
        month_no, day_no = _month_day(match)
        _put(out, "day", month_no * 100 + day_no, low, match.start())
        taken.append(match.span())
    for match in _VALUE.finditer(low):
        if any(a <= match.start() < b for a, b in taken):
            continue
        number, unit, size = match.groups()
        unit = unit or _short(size)
        if unit in _CLOCK_UNITS:
            hour = float(number)
            if hour < 12 and (
                unit == "pm" or _EVENING.search(low, max(0, match.start() - 4), match.start())
            ):
                hour += 12
            _put(out, "clock", hour, low, match.start())
            continue
        if unit in _COUNTERS:
            # "48 个副本" and "24 个分区" count different things: the noun is the unit.
            # "重试 3 次。": with no noun after it, the counter itself is the unit.
            # "200 次吧", "3 次以内": a particle or a bound after it is no noun.
            noun = _COUNTED.match(low, match.end())
            unit = noun[1] if noun else unit
        dimension, factor = _dimension(unit)
        if dimension in _TRY_UNITS and _TRIES.search(low):
            dimension = "retry"  # "Retry at most 3 times" and "5 retries", "3 attempts"
        _put(out, dimension, float(number) * factor, low, match.start())
    for dimension, named in _named_values(low).items():
        out.setdefault(dimension, []).extend(named)
    for match in _DATE.finditer(low) if free else ():
        year, month, day = match.groups()
        out.setdefault("date", []).append(float(year + month + day))
    for match in _keyed(low) if free else ():
        key, number = match.groups()
        if key in _STOP or key in _NOT_KEYS or key[:3] in out:
            continue
        found = out.setdefault("=" + _stem(key), [])
        found.append(float(number))
    return out


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(?:[a-z]{0,6})\.?"
_MONTH_DAY = re.compile(
    # "may 5" may be "we may 5x it": May comes first only as "14 May".
    rf"\b(?!may\b){_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)|"
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?![a-z])|"
    r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"
)


#: What every ``_MONTH_DAY`` match holds: a month's name or 月.
_MONTH_HINT = re.compile("|".join(_MONTHS) + "|月")


def _month_day(match: re.Match[str]) -> tuple[float, float]:
    name, day, day2, name2, month3, day3 = match.groups()
    if month3:
        return float(month3), float(day3)
    if name:
        return float(_MONTHS.index(name) + 1), float(day)
    return float(_MONTHS.index(name2) + 1), float(day2)


# "three retries", "两周", "重试三次": numbers in words ("one" and "一" only before a unit
# of time or a count, since they also mean "a").
_WORD_NUMBERS = dict(
    zip(
        re.findall(r"\w+", "two three four five six seven eight nine ten eleven twelve"),
        range(2, 13),
        strict=True,
    )
) | {"twenty": 20, "thirty": 30, "sixty": 60, "ninety": 90}
_CN_DIGITS = dict(zip("一二两三四五六七八九", (1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))
_NUMBER_WORD = re.compile(
    r"\b(?:" + "|".join(_WORD_NUMBERS) + r")\b|"
    r"(?:[二两三四五六七八九]?十[一二三四五六七八九]?|[两二三四五六七八九])"
    r"(?=\s*(?:个|次|台|天|周|个月|月|年|小时|分钟|秒|倍|份|条|块|位))|"
    r"(?<![统唯第])一(?=\s*(?:天|周|个月|小时|分钟|秒|次))"
)


# "半小时", "一个半小时", "一年半", "half an hour", "an hour and a half": a half read as the
# value it makes in the next smaller unit ("30 分钟", "90 分钟", "18 个月", "30 minutes").
_HALF_UNITS = {
    "小时": (60, "分钟"),
    "钟头": (60, "分钟"),
    "分钟": (60, "秒"),
    "年": (12, "个月"),
    "天": (24, "小时"),
    "月": (30, "天"),
    "hour": (60, "minutes"),
    "year": (12, "months"),
    "day": (24, "hours"),
    "minute": (60, "seconds"),
}
_HALF_COUNT = r"(\d+|[一二两三四五六七八九十]|an?|one)"
_HALF = re.compile(
    rf"{_HALF_COUNT}\s*个半\s*(小时|钟头|分钟|月)|"
    rf"{_HALF_COUNT}\s*(年|天)半|"
    r"(?<![\d一二两三四五六七八九十个])半\s*个?\s*(小时|钟头|分钟|年|月)|"
    rf"\b{_HALF_COUNT}\s+(hour|year|day|minute)s?\s+and\s+a\s+half\b|"
    rf"\b{_HALF_COUNT}\s+and\s+a\s+half\s+(hour|year|day|minute)s?\b|"
    r"\bhalf\s+(?:an?\s+)(hour|year|day|minute)\b"
)
_HALF_WORD_COUNT = {"a": 1, "an": 1, "one": 1} | _CN_DIGITS | {"十": 10}


def _halves(low: str) -> str:
    """``low`` with each half value written in the next smaller unit ("一年半" -> "18 个月")."""

    def whole(match: re.Match[str]) -> str:
        said = [g for g in match.groups() if g is not None]
        count, unit = (None, said[0]) if len(said) == 1 else said
        per, smaller = _HALF_UNITS[unit]
        if count is None:
            return f" {per // 2} {smaller}"
        number = int(count) if count.isdigit() else _HALF_WORD_COUNT[count]
        return f" {number * per + per // 2} {smaller}"

    return _HALF.sub(whole, low)


#: What every ``_NUMBER_WORD`` match holds: a number's word or a Chinese numeral.
_NUMBER_WORD_HINT = re.compile("|".join(_WORD_NUMBERS) + "|[一二两三四五六七八九十]")
# A digit that starts a word: "30 days", "=5", not "v2" or "1.5"'s 5.
_FREE_DIGIT = re.compile(r"(?<![\w.])\d")


def _digits(match: re.Match[str]) -> str:
    """The number a word spells, as digits with a space after ("两周" -> "2 周")."""
    word = match.group()
    if word in _WORD_NUMBERS:
        return str(_WORD_NUMBERS[word])
    if "十" in word:
        tens, _, ones = word.partition("十")
        number = _CN_DIGITS.get(tens, 1) * 10 + _CN_DIGITS.get(ones, 0)
    else:
        number = _CN_DIGITS[word]
    return f"{number} "


def _put(out: dict[str, list[float]], dimension: str, value: float, low: str, at: int) -> None:
    """Add ``value`` to its dimension, first when a setting cue comes just before it."""
    found = out.setdefault(dimension, [])
    if _SET_CUE.search(low[max(0, at - 8) : at]):
        found.insert(0, value)
    else:
        found.append(value)


# "yearly stays $90", "副本数保持 3 个": a value said to stay as it is.
_STAYS = re.compile(
    r"\b(?:stays?|remains?|keeps?|kept|still)\s+(?:at\s+)?[$€£¥]?\s*(\d+(?:\.\d+)?)|"
    # Not "还是": "还是 3 次" may as well go back to 3.
    r"(?:保持|维持)\s*[$€£¥]?\s*(\d+(?:\.\d+)?)"
)


@lru_cache(maxsize=_CACHE)
def _kept(low: str) -> frozenset[float]:
    """The numbers ``low`` says stay unchanged, in whatever unit they come."""
    out: set[float] = set()
    for match in _STAYS.finditer(low):
        group = 1 if match.group(1) else 2
        out.add(float(match.group(group)))
        # "stays 4h" is 14,400 seconds, as the statement it names counted it.
        start = match.start(group)
        out.update(v[0] for v in _values(low[max(0, start - 1) : start + 16]).values())
    return frozenset(out)


# "max_ttl 24h is too short", "30 秒太短了": the value said to be wrong.
_TOO = re.compile(
    r"(?:\s*(?:is|are|was|seems|feels|sounds|looks)\b)?\s*(?:way |much |far |a bit |a little |still )?"
    r"too (?:short|long|small|big|large|low|high|slow|fast|few|many|much|little|tight|loose|aggressive)\b|"
    r"\s*(?:也|有点|还是|实在)?太(?:短|长|小|大|少|多|慢|快|低|高|紧|松)"
)


@lru_cache(maxsize=_CACHE)
def _faulted(low: str) -> dict[str, list[float]]:
    """The values ``low`` calls wrong ("24h is too short"), by dimension."""
    out: dict[str, list[float]] = {}
    for match in _VALUE.finditer(low):
        if _TOO.match(low, match.end()):
            dimension, factor = _scale(match)
            out.setdefault(dimension, []).append(float(match.group(1)) * factor)
    return out


@lru_cache(maxsize=_CACHE)
def _named_values(low: str) -> dict[str, list[float]]:
    """ "12 hours, not 8": a bare number named as replaced, in the unit of the value before it."""
    out: dict[str, list[float]] = {}
    if "not" not in low and "instead of" not in low and "不是" not in low:
        return out  # what every ``_NOT_BARE`` match holds
    for match in _NOT_BARE.finditer(low):
        head = low[: match.start()]
        rate = list(_RATE.finditer(head))
        value = [
            v
            for v in _VALUE.finditer(head)
            if not any(r.start() <= v.start() < r.end() for r in rate)
        ]
        if rate and (not value or rate[-1].start() > value[-1].start()):
            per = _dimension(rate[-1].group(2))[1]
            out.setdefault("rate", []).append(float(match.group(1)) / per)
        elif value:
            dimension, factor = _scale(value[-1])
            out.setdefault(dimension, []).append(float(match.group(1)) * factor)
    return out


def _same_value(
    new: Draft,
    earlier: list[Draft],
    *,
    same_subject: bool = False,
    implied: dict[str, float] | None = None,
    naming: bool = False,
    said: Sequence[Draft] | None = None,
) -> list[Draft]:
    """Earlier statements within reach that set another value in a dimension ``new`` sets.

    What a statement sets is its leading value in that dimension ("4 点, 2 点那边在做日切"
    sets 4; "30 秒太短了，改成 90 秒" sets 90). Two values are about the same thing when
    the statements share a word that is not a number or a unit ("grace period"), or when
    one names the other's value ("30 秒太短了" names the 30 it replaces; "go back to 5
    minutes" restores the 5 that was replaced), so two timeouts of different things
    never retire each other. A correction (``same_subject``) never retires a rule. A
    change that names what it changes ("checkpoint interval 改成 3min") retires only
    what says that, when anything in reach (``said``, else ``earlier``) does.
    """
    mine = _values(new.text)
    if not mine:
        return []
    low = new.text.casefold()
    subject = _changed_subject(low)
    if subject and any(subject in old.text.casefold() for old in (said or earlier)):
        # "checkpoint interval 改成 3min" names what changes: the statements that say
        # "checkpoint interval", not every other duration said lately.
        earlier = [old for old in earlier if subject in old.text.casefold()]
    faulted = _faulted(low)
    kept = _kept(low)
    named_values = _named_values(low)
    # "Make phase 2 backfill the totals too" after "migrate phase 1": an addition whose
    # number says which thing, not what a setting is.
    adds = new.also or _ADDITIVE.search(_first_clause(new.text))
    labels = _labels(low) if adds else frozenset()
    # A new setting never moves a limit, unless it is a limit too or sets a value outright.
    moves_limits = bool(_BOUND.search(low) or _SETS.search(low))
    clock_set = bool(_CLOCK_SET.search(low))
    out: list[Draft] = []
    for old in reversed(earlier):
        gap = new.turn - old.turn
        if gap > COUNT_REACH:
            break
        if faulted and old.kind != "goal" and gap <= CORRECTION_REACH:
            # "max_ttl 24h is too short": the value it faults, where it was set.
            theirs = _values(old.text)
            if any(
                set(theirs.get(dim, ())) & set(bad) for dim, bad in faulted.items()
            ) and _subject_words(new.text) & _subject_words(old.text):
                out.append(old)
                continue
        if old.kind == "goal" or (
            # An owner's new target ("p99 under 50ms", "backfill 90 days") replaces an
            # earlier directive, not what the assistant measured or found, and a bound
            # ("RSS under 800MB after 24h") replaces no measurement at all.
            same_subject
            and (
                old.kind == "constraint"
                or _finding(old)
                or (new.kind == "requirement" and old.kind in ("fact", "state"))
            )
        ):
            continue
        theirs = _values(old.text)
        if theirs.keys().isdisjoint(mine):
            continue  # no value in a dimension ``new`` sets: nothing below can retire it
        # "max 3 attempts" then "make it 5 attempts": the limit the owner set, referred to
        # by "it", moves; a limit stated as a fact ("their ops allow max 30/min") stays.
        referred = (
            implied is not None
            and old.kind in _DIRECTIVE
            and any(implied.get(dim) in numbers for dim, numbers in theirs.items())
        )
        if not moves_limits and not referred and _bounded(old.text):
            # "p99 should be under 50ms" is a limit; "make it every 10 minutes" sets how
            # often: a new setting never moves a limit.
            continue
        for dim, numbers in mine.items():
            previous = theirs.get(dim)
            if not previous or numbers[0] == previous[0]:
                continue
            if naming and previous[0] not in numbers[1:] and not _names_number(new.text, old.text):
                continue
            if previous[0] in kept:
                continue  # "yearly stays $90": the old value named as unchanged
            if numbers[0] in labels and previous[0] in _labels(old.text.casefold()):
                continue  # "413 号 issue 也要…" beside "412 号 issue": another instance
            if dim == "clock" and not clock_set:
                continue  # "alert if it runs past 05:30" beside "finish before 06:00"
            # "12 hours, not 8" names the 8 it replaces: that reaches as far as a count.
            named = naming or previous[0] in named_values.get(dim, ())
            if gap > CORRECTION_REACH and not named and (dim in ("time", "date") or dim[0] == "="):
                continue  # far back, only a count of the same thing ("5 seeds", "3 seeds")
            related = (
                (implied is not None and implied.get(dim) == previous[0])
                or numbers[0] in previous[1:]
                or previous[0] in numbers[1:]
                or (
                    # The read and the connect timeout are two things, whatever they share.
                    not other_subject(new.text, old.text)
                    and (
                        dim.startswith("=")
                        # Prices of different things share words ("monthly", "plan"): one
                        # price replaces another only when the statement names the old one.
                        or (
                            dim != "money"
                            and bool(_subject_words(new.text) & _subject_words(old.text))
                        )
                    )
                )
            )
            if related:
                out.append(old)
                break
    return out


# A number that says which thing ("phase 2", "issue #413", "ledger table 4", "413 号
# issue", "第 2 阶段"), not what a setting is.
_INSTANCE = re.compile(
    r"\b(?:phase|stage|step|table|issue|ticket|pr|bug|item|task|part|milestone|sprint|"
    r"section|chapter|shard|story|epic|incident|wave)\s*#?\s*(\d+)\b|"
    r"(?<![\w&])#(\d+)\b|第\s*(\d+)|(\d+)\s*[号期]|(?:阶段|步骤|表)\s*(\d+)"
)


@lru_cache(maxsize=_CACHE)
def _labels(low: str) -> frozenset[float]:
    """The numbers ``low`` names things by (``_INSTANCE``)."""
    return frozenset(
        float(number) for match in _INSTANCE.finditer(low) for number in match.groups() if number
    )


# A limit on a value ("under 50ms", "at most 3", "< 200", "不超过 800MB", "2 秒以内").
_BOUND = re.compile(
    r"\b(?:under|below|within|at most|at least|no more than|less than|more than|up to|max|maximum|min|minimum)\s*[~≈]?\d|"
    r"[<>≤≥]=?\s*\d|不超过|不低于|以内|以下|至少|最多|控制在"
)
# "重试次数改成 5 次", "raise the limit to 5": a new value set outright moves a limit too.
_SETS = re.compile(
    r"(?:改成|改为|设为|设成|调到|调成|降到|升到|提到|\b(?:raise|lower|bump|set|change)\b.{0,30}\bto)\s*[~≈约]?\s*\d"
)
_UNIT_WORD = re.compile(
    r"^(?:ms|sec|second|min|minut|hour|hr|day|week|month|year|gb|mb|kb|tb|%|x)|"
    r"^(?:小时|分钟|秒钟|毫秒|天内|个月)$"
)


@lru_cache(maxsize=_CACHE)
def _bounded(text: str) -> bool:
    """Whether ``text`` sets a limit on a value ("under 50ms", "最多 3 次")."""
    return bool(_BOUND.search(text.casefold()))


_SLOT_WORD = re.compile(r"[a-z][a-z0-9_-]*|\d[\d.,]*|[\u4e00-\u9fff]")
#: Characters that say how, not what: never a subject in a slot.
_CJK_FUNCTION = frozenset("的了是把和也都就还要在设为改成到用将再先")


# What a statement sets a value of: "Set the read timeout to 10 seconds" (read timeout),
# "接口超时设成 5 秒" (接口超时).
_SUBJECT = re.compile(
    # "Set the read timeout to 10 seconds", "move the summary mail to 08:15": what follows
    # the article; "max upload size is 10 MB": a statement of a value, no verb before.
    r"^(?:please,? )?(?:[a-z]+\s+)?(?:the|our|its)\s+(?P<en>[a-z][\w-]*(?: [a-z][\w-]*){0,3}?)\s+"
    r"(?:to|at|=|is|are|must be|should be|of)\s+[~≈]?\d|"
    r"^(?P<en2>[a-z][\w-]*(?: [a-z][\w-]*){0,3}?)\s+(?:=|is|are|must be|should be)\s+[~≈]?\d|"
    r"^(?:请)?(?:把)?(?P<zh>[^，,。；;？?\d\s]{1,20}?)\s*"
    r"(?:设为|设成|设置为|设置成|调到|调成|调为|定为|改成|改为|是|为)\s*[~约]?\d"
)
_NO_SUBJECT = frozenset(("it", "that", "this", "them", "those", "这个", "那个", "它"))


def _subject(text: str) -> str | None:
    match = _SUBJECT.match(text.casefold().strip())
    subject = (match["en"] or match["en2"] or match["zh"]) if match else None
    return subject if subject and subject not in _NO_SUBJECT else None


def other_subject(new: str, old: str) -> bool:
    """Whether two statements say the same of two different things: a content word of
    one stands in the other's place between the same words ("the payments service
    timeout" / "the search service timeout", "for the staging pool" / "for the prod
    pool", "Set the read timeout" / "Set the connect timeout", "读超时" / "写超时"; at
    the start, before the same two). Their values are then of different things,
    whatever words they share."""
    mine, theirs = _subject(new), _subject(old)
    if mine and theirs and not (mine.endswith(theirs) or theirs.endswith(mine)):
        return True  # "接口超时" / "数据库连接超时", "the API timeout" / "the DB timeout"
    a, b = ("", *_slot_words(old), ""), ("", *_slot_words(new), "")
    only_a, only_b = set(a) - set(b), set(b) - set(a)
    slots = {_slot(a, i) for i in range(1, len(a) - 1) if a[i] in only_a}
    return any(_slot(b, j) in slots - {None} for j in range(1, len(b) - 1) if b[j] in only_b)


def _slot(words: tuple[str, ...], i: int) -> tuple[str, ...] | None:
    """A content word's neighbours: the one before and after, or at the start, where it
    must qualify the word after it ("read timeout", not "send the mail"), the two after."""
    if not _content(words[i]):
        return None
    if words[i - 1]:
        return words[i - 1], words[i + 1]
    return ("", *words[i + 1 : i + 3]) if words[i + 1] and _content(words[i + 1]) else None


@lru_cache(maxsize=_CACHE)
def _slot_words(text: str) -> tuple[str, ...]:
    """Words and CJK characters, every number one placeholder: values are no subject."""
    return tuple("#" if w[0].isdigit() else w for w in _SLOT_WORD.findall(text.casefold()))


def _content(word: str) -> bool:
    if "\u4e00" <= word[0] <= "\u9fff":
        return word not in _CJK_FUNCTION
    return (
        len(word) > 2 and not word[0].isdigit() and word not in _STOP and not _UNIT_WORD.match(word)
    )


@lru_cache(maxsize=_CACHE)
def _subject_words(text: str) -> frozenset[str]:
    """Content words without numbers and units: what a value is a value of."""
    return frozenset(
        w for w in _words(text) if not any(c.isdigit() for c in w) and not _UNIT_WORD.match(w)
    )


def _compatible(new: str, old: str) -> bool:
    a, b = _GROUPS[new], _GROUPS[old]
    return a == b or "any" in (a, b) or {a, b} <= {"choice", "rule", "value"}


#: For each kind, the replaceable kinds compatible with it: read once per statement, not
#: once per pair.
_REPLACES = {
    new: frozenset(old for old in _REPLACEABLE if _compatible(new, old)) for new in _GROUPS
}


def _named(subject: str | None, earlier: list[Draft], new: Draft) -> list[Draft]:
    """The earlier statements that mention what ``new`` names as replaced, newest first.

    Every one within a correction's reach; else the newest one further back (a Latin
    name is specific enough to reach that far, a Chinese verb of one to three
    characters is not).
    """
    if not subject:
        return []
    # "instead of the Celery job" names "Celery job", which may have been said as "Celery".
    needles = [subject.casefold()]
    if " " in subject:
        needles.append(subject.split()[0].casefold())
    for needle in needles:
        found = [old for old in reversed(earlier) if needle in old.text.casefold()]
        near = [old for old in found if new.turn - old.turn <= CORRECTION_REACH]
        if near:
            return near
        if found and not _CJK.search(needle):
            return found[:1]
    return []


def _answered(new: Draft, earlier: list[Draft]) -> Draft | None:
    """A user's replacing reply retires what the assistant said just before it.

    A correction retires the assistant's last plan (decision) in its previous
    turn, else the claim there it shares the most words with; a rejection retires
    the assistant's proposal it names ("WebSockets won't work for us").
    """
    if new.role != "user":
        return None
    if new.kind == "rejected":
        return _rejected_proposal(new, earlier)
    if new.kind != "correction":
        return _replaced_plan(new, earlier) if new.replaces else None
    words = _words(new.text)
    best: Draft | None = None
    best_score = 0
    for old in reversed(earlier):
        if new.turn - old.turn > ADJACENT:
            break
        if old.role != "assistant":
            continue
        if old.kind == "decision":
            return old
        if old.kind in ("fact", "state") and _sharable(words, old.text) > best_score:
            score = len(words & _words(old.text))
            if score > best_score:
                best, best_score = old, score
    if best is not None:
        # "no, no token for prod zones" after "dns-01 needs an API token": the owner takes
        # back their own directive ("switch the issuer to dns-01"), which the assistant's
        # finding only reported on. A directive it shares as much with wins.
        owner = _closest(new, [d for d in earlier if _directive(d)])
        if owner is not None and len(words & _words(owner.text)) >= best_score:
            return owner
    return best


def _replaced_plan(new: Draft, earlier: list[Draft]) -> Draft | None:
    """ "Use grpc instead for service5" right after "I'll use a worker pool for service5":
    the assistant's last plan in the turn just before that shares a word with it."""
    words = _words(new.text)
    for old in reversed(earlier):
        if new.turn - old.turn > ADJACENT:
            return None
        if old.role == "assistant" and old.kind == "decision" and words & _words(old.text):
            return old
    return None


# "I'd create …", "My proposal: …", "我打算…": the assistant putting a plan forward.
_PLAN = re.compile(
    r"\b(?:i'?ll|i will|i'?d|i would|i propose|my proposal|i suggest|we could|going with|let'?s)\b|"
    r"我打算|我建议|我准备|我来|方案"
)


# "先把 allocator 换成 jemalloc 试试", "try a bigger pool and see": the owner's experiment,
# which the assistant's result may rule out.
_TRIAL = re.compile(r"试试|试一下|试一试|\btry\b|\bsee (?:if|whether)\b")


def _rejected_proposal(new: Draft, earlier: list[Draft], *, own: bool = False) -> Draft | None:
    """The assistant's proposal a rejection names ("so the big copy + swap is out").

    Right after the proposal one shared name is enough; a question or two later
    ("how long would the copy take?") the rejection must name two. A stated plan
    outranks a finding that happens to share a word with it.
    """
    named = _latin(_words(new.text))
    names = _names(new.text)
    # "FTS5 is out.", "wkhtmltopdf is out.": the thing it calls off is named, whatever its
    # place in the sentence or its case (neither reads as a name).
    cancel = _CANCEL.search(new.text.casefold()) if own else None
    called = _latin(_words(next((t for t in cancel.groups() if t), ""))) if cancel else None
    best: Draft | None = None
    best_score = (False, 0)
    for old in reversed(earlier):
        gap = new.turn - old.turn
        if gap > CORRECTION_REACH:
            break
        trial = own and old.role == "user" and bool(_TRIAL.search(old.text.casefold()))
        if (old.role != "assistant" and not trial) or old.kind not in ("decision", "fact"):
            continue
        # "Then Algolia is out": a name its own plan gave is enough; two common words
        # are needed otherwise.
        own_name = own and bool(names & _names(old.text) or (called and called & _words(old.text)))
        needed = 1 if (gap <= ADJACENT and not own) or own_name else 2
        if _sharable(named, old.text) < needed:
            continue  # its words are not read
        shared = len(named & _words(old.text))
        if shared < needed:
            continue
        plan = old.kind == "decision" or bool(_PLAN.search(old.text.casefold()))
        if own and not plan:
            continue  # what it found stays found
        score = (plan, shared)
        if score > best_score:
            best, best_score = old, score
    return best


def _latin(words: frozenset[str]) -> frozenset[str]:
    return frozenset(w for w in words if w.isascii())


# "forget the scale-up, …", "物化视图不用了，…": a lead-in that names what goes.
_NAMES_WHAT_GOES = re.compile(
    r"\b(?:forget|scrap|scratch|drop|ditch|skip|no more|stop)\b|不用了|不要了|不做了|算了|别用|去掉"
)


def _change_follows(new: Draft, later: Sequence[Draft]) -> bool:
    """Whether the owner's next statement in the same turn gives the change ``new`` leads
    up to: "Actually, wait — finance replays events two months later. Make the retention
    90 days instead of 30." The lead-in explains; it retires nothing by shared words."""
    following = next(iter(later), None)
    return (
        new.kind == "correction"
        and not _calls_off(new)
        and not _NAMES_WHAT_GOES.search(new.text.casefold())
        and following is not None
        and following.turn == new.turn
        and following.role == new.role
        and (following.replaces or bool(_values(following.text)))
    )


def _closest(new: Draft, earlier: list[Draft]) -> Draft | None:
    words = _words(new.text)
    if new.kind == "rejected":
        # What a rejection retires must name the same thing: compare Latin words only, as
        # shared Chinese bigrams say little about the subject.
        words = _latin(words)
    best: Draft | None = None
    # A correction (or a rejection of a recent choice) says outright that it replaces
    # something: one shared word is enough, but only within a short reach.
    near = new.kind in ("correction", "rejected")
    best_score = 0 if new.kind == "correction" else 1
    if new.kind == "rejected" and _CJK.search(new.text):
        best_score = 0
    for old in reversed(earlier):
        if (
            _GROUPS[old.kind] != _GROUPS[new.kind]
            and new.kind != "correction"
            and not (new.role == "user" and new.replaces and _GROUPS[old.kind] == "choice")
        ):
            continue
        # A correction of a detail shares words with the session's goal and standing
        # rules; only one that names them (its named subject) may retire them.
        if near and old.kind in ("goal", "constraint"):
            continue
        if near and old.kind in ("fact", "state") and old.role == "assistant":
            continue  # an assistant's finding is corrected outright (_answered), not by overlap
        if near and new.turn - old.turn > CORRECTION_REACH:
            if _restates(new, old) or old.summary:
                # Passed over, as below: the reach ends at the next one. A summary's own
                # words keep its turn, before the owner messages it quotes (their turns
                # come after it): its "Optional Next Step" ends no reach.
                continue
            break
        # What a correction overrides is usually a directive or a decision, not a finding.
        bonus = new.kind == "correction" and (old.role == "user" or old.kind == "decision")
        if _sharable(words, old.text) + bonus <= best_score:
            # It cannot share more words than the closest so far: its words, the costliest
            # thing read here, are not read (most statements in reach share one or none).
            continue
        score = len(words & _words(old.text))
        if old.kind == "todo" and score < 2 and not _swaps_name(new, old):
            # Open work is retired only by a correction clearly about it, or one that
            # swaps the name in it ("Actually deploy to eu-west-1 instead.").
            continue
        if score and bonus:
            score += 1
        # "no, pnpm." after "Use pnpm.", "保持 20 条" after "每页显示 20 条": what it says
        # again is passed over (its values are read only for what would be the closest),
        # unless it turns down a word of it ("不再每周发了，改成每天早上 9 点发" keeps the 9
        # of "报表每周一早上 9 点发" and changes the rest).
        if score > best_score and (
            not _restates(new, old) or bool(_no_longer(new.text) & _words(old.text))
        ):
            best, best_score = old, score
    return best


# "不再每周发了", "no longer weekly": what is no longer so, up to the end of its clause.
_NO_LONGER = re.compile(
    r"(?:\bno longer\b|\bnot anymore\b|不再|别再|不要再)([^,;.!?，；。！？\n]{1,40})"
)


@lru_cache(maxsize=_CACHE)
def _no_longer(text: str) -> frozenset[str]:
    """The words of what ``text`` says is no longer so."""
    low = text.casefold()
    return frozenset().union(*(_words(m[1]) for m in _NO_LONGER.finditer(low)))


def _sharable(words: frozenset[str], text: str) -> int:
    """At most how many of ``words`` the words of ``text`` (``_words``) hold, told from
    the text alone, at a third of the cost of reading its words: each of them is part of
    the text (a stem, a part, a Chinese pair, an acronym), or of the text without its
    hyphens ("scaleup" of "scale-up"), or two runs of ASCII letters put together
    ("rollback" of "roll back"), the longer of which holds the word's first or last half.
    """
    folded = text.casefold()
    joined = folded.replace("-", "") if "-" in folded else folded
    count = 0
    for word in words:
        if word in folded or word in joined:
            count += 1
        elif len(word) > 5 and word.isalpha() and word.isascii():
            half = len(word) // 2
            count += word[: len(word) - half] in folded or word[half:] in folded
    return count


def _swaps_name(new: Draft, old: Draft) -> bool:
    """Whether ``new``, said in the owner's next turn, names something else where ``old``
    named one: "Deploy to us-east-1." and "Actually deploy to eu-west-1 instead."."""
    theirs, mine = _names(old.text), _names(new.text)
    return new.turn - old.turn <= ADJACENT + 1 and bool(theirs - mine) and bool(mine - theirs)


def _restates(new: Draft, old: Draft) -> bool:
    """Whether ``new`` sets again the values ``old`` holds ("保持 20 条" after "每页显示
    20 条"): each value it sets, and only one, is old's in that dimension."""
    mine = _values(new.text)
    theirs = _values(old.text) if mine else {}
    return bool(mine) and all(
        len(numbers) == 1 and numbers[0] in theirs.get(dim, ()) for dim, numbers in mine.items()
    )


# Chinese pairs of characters that name nothing a statement is about: counts and
# measure words ("一遍", "一下"; a pair ending in 一, "跑一", is a verb and a count),
# pronouns, and the words of time and manner every instruction uses ("从现在起").
_FILLER_ZH = frozenset(
    run[n : n + 2]
    for run in (
        "一遍一下一个一些一次一点这个那个这些那些我们你们他们",
        "可以需要现在以后今后每次时候的话就是还是然后因为所以",
        "如果但是已经没有一定都要都跑先在从现在起开始",
    )
    for n in range(0, len(run), 2)
)


@lru_cache(maxsize=_CACHE)
def _words(text: str) -> frozenset[str]:
    low = _CUES.sub(" ", text.casefold())
    out: set[str] = set()
    # Each word once: a statement says most of its words more than once.
    for word in set(_WORD.findall(low)).difference(_STOP):
        if "\u4e00" <= word[0] <= "\u9fff":
            out.update(
                pair
                for pair in (word[i : i + 2] for i in range(len(word) - 1))
                if pair not in _FILLER_ZH and pair[1] != "一"
            )
        else:
            bare = word.strip("./-")
            out.add(_stem(bare))
            if "-" in bare:  # "scale-up" also names "scale" and "scaleup"
                out.update(_stem(part) for part in bare.split("-") if len(part) > 2)
                out.add(bare.replace("-", ""))
            if "/" in bare:  # "/internal/admin" also names "admin"
                out.update(_stem(part) for part in bare.split("/") if len(part) > 2)
    out.update(a.casefold() for a in _ACRONYM.findall(text))
    # "roll back" and "rollback", "set up" and "setup" name the same thing.
    tokens = _TOKEN.findall(low)
    out.update(
        a + b
        for a, b in pairwise(tokens)
        if len(a) + len(b) > 5 and a not in _GLUE and b not in _GLUE
    )
    return frozenset(out)


# Words that never make a compound with their neighbour ("library is", "every run").
_GLUE = _STOP | frozenset(
    ("is", "be", "it", "to", "of", "in", "on", "at", "or", "so", "every", "each")
)


def _stem(word: str) -> str:
    """``word`` without the longest of "ing", "ed", "es", "e" and "s" it ends with, if it is
    longer than four letters. Its last letter tells which one it may end with."""
    if len(word) > 4:
        last = word[-1]
        if last == "s":
            return word[:-2] if word[-2] == "e" else word[:-1]
        if last == "e":
            return word[:-1]
        if last == "d":
            return word[:-2] if word[-2] == "e" else word
        if last == "g" and word.endswith("ing"):
            return word[:-3]
    return word
