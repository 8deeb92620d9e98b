"""The session brief: the bounded text injected before an agent starts working.

Owns: gathering the sections — contract, owner statements, decisions,
corrections, precedents, the agent's own unverified notes, open loops, last
evidence — each under a cap that says what it hid and where to read it
(``contextward recall``), rendering them as one text, and the digest that
lets a host skip re-injecting an unchanged brief. Decisions come from
STATE.md (their single home) plus owner journal decisions not moved there yet.

Trust: owner rows are rendered as they are; every agent-written row sits in
the "unverified" section or carries an ``[agent, unverified]`` label, and is
capped shorter. Every line is secret-masked and folded to one line, so
stored text cannot forge a heading.

Must never: write to the store or STATE.md, run commands, or exceed
:data:`MAX_CHARS`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ContractError
from ..guard.intent import classify
from ..guard.loops import open_loops
from ..redact import mask
from ..state import DecisionRow, StateError, StateProject, decision_rows
from ..state.lifecycle import FILE_EVENT
from ..store.contract import Constraint, load_contract

if TYPE_CHECKING:
    from ..store import Store
    from ..store.prompts import Prompt
    from .restore import RestorePlan

__all__ = [
    "MAX_CHARS",
    "Brief",
    "BriefCaps",
    "BriefSection",
    "brief_if_changed",
    "render_brief",
    "render_file_brief",
]

#: Hosts cap injected text near 10,000 characters; the brief stays well under.
MAX_CHARS = 9_000
HEADER = "## contextward brief"
#: Hidden rows are counted up to this many ("+97 or more hidden").
COUNT_BOUND = 100
#: Owner prompts the brief looks at for its two statements (intent shows more).
_PROMPT_WINDOW = 20
#: And, at a session's start, for the owner's standing rules of earlier sessions (read
#: once per session, by inspection: a rule said three busy sessions ago still binds): the
#: project's last this many prompts, and per session the last this many of each of the
#: sessions prompted most recently (four sessions in parallel used up one project-wide
#: window four times as fast, and a rule said in one of them stopped reaching new ones).
_STANDING_WINDOW = 200
#: How many sessions besides this one.
_STANDING_SESSIONS = 4
#: Of the per-session windows' prompts older than the project's window, inspection reads
#: at most this many rules and corrections (intent's reading picks them) and this many
#: prompts that share a word with them (which may lift them): inspection's cost grows
#: faster than the prompts it reads, and this is the session start's hook.
_STANDING_OLDER = 50
#: What the owner said in an earlier session that still holds in a new one: their rules,
#: corrections and rejected approaches.
_STANDING = frozenset(("constraint", "correction", "rejected"))
_NOISE = frozenset(("transient", "tool_output"))
#: What a new session is shown of an earlier session's last compaction snapshot, in this
#: order: the task, the open work, the choices made, where things stood.
_CARRIED = ("goal", "todo", "decision", "state")


@dataclass(frozen=True)
class BriefCaps:
    """How many rows each section shows and how long a row may be."""

    owner_constraints: int = 6
    seed_constraints: int = 12
    owner_statements: int = 2
    #: At a session's start, the owner's standing rules of earlier sessions, beside those.
    standing: int = 8
    decisions: int = 3
    corrections: int = 3
    precedents: int = 3
    agent_corrections: int = 2
    agent_notes: int = 2
    open_loops: int = 2
    restore: int = 8
    last_session: int = 6
    trusted_chars: int = 200
    agent_chars: int = 120
    loop_threshold: int = 3


@dataclass(frozen=True)
class BriefSection:
    """One titled section: its lines and how many rows the cap hid."""

    name: str
    title: str
    lines: tuple[str, ...]
    hidden: int = 0
    more: str = ""
    at_least: bool = False

    def render(self) -> str:
        out = [f"{self.title}:", *self.lines]
        if self.hidden:
            amount = f"{self.hidden} or" if self.at_least else str(self.hidden)
            out.append(f"(+{amount} more hidden: {self.more})")
        return "\n".join(out)


@dataclass(frozen=True)
class Brief:
    """The rendered brief and its digest (same text, same digest)."""

    text: str
    digest: str
    sections: tuple[BriefSection, ...] = field(default=(), compare=False)
    footer: str = field(default="", compare=False)

    @property
    def hidden(self) -> dict[str, int]:
        return {s.name: s.hidden for s in self.sections if s.hidden}

    def without(self, *names: str) -> str:
        """The text with the named sections left out (after a compaction the
        owner's statements are already in the summary: ``without("owner_statements")``)."""
        kept = [s.render() for s in self.sections if s.name not in names]
        return _bounded("\n".join([HEADER, *kept, self.footer]))

    def changed_since(self, digest: str | None) -> bool:
        """True unless ``digest`` is this brief's digest (None: never injected)."""
        return digest != self.digest

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "digest": self.digest,
            "text": self.text,
            "hidden": self.hidden,
        }


def render_brief(
    store: Store,
    *,
    root: Path | None = None,
    caps: BriefCaps | None = None,
    session_id: str | None = None,
    env: Mapping[str, str] | None = None,
    earlier_sessions: bool = False,
) -> Brief:
    """Render the brief of the project in ``root`` (default: the store's project).

    With a ``session_id``, "owner said" holds that session's prompts; with
    ``earlier_sessions`` too (a session's start), the owner's standing rules and
    corrections from earlier sessions that no later prompt replaced or lifted.
    """
    caps = caps or BriefCaps()
    root = root if root is not None else store.root
    fmt = _Lines()
    plan, title = _restore_plan(store, session_id, earlier_sessions=earlier_sessions)
    restored = {_key(item.content) for item in plan.items} if plan.checked else set()
    sections = [
        _restore(plan, caps, fmt, title),
        # Only at a session's start: a prompt's delta never brings it back.
        _last_session(store, caps, session_id if earlier_sessions else None, fmt, restored),
        _contract(root, caps, env, fmt),
        _owner_statements(
            store,
            caps,
            session_id,
            fmt,
            earlier_sessions=earlier_sessions,
            restated=frozenset(restored),
        ),
        *_journal_sections(store, caps, fmt, _state_decisions(root)),
        _loops(store, caps, session_id, fmt),
    ]
    last = store.evidence.last(session_id=session_id)
    # None of this session's: the project's last run, said to be an earlier session's.
    before = store.evidence.last() if last is None and session_id is not None else None
    run = last or before
    changed = _changed_since(store, run.created_at) if run is not None else 0
    tail = (
        f"last evidence: {run.id} {run.label} exit {run.exit_code}"
        f" {run.duration_ms}ms `{fmt.line(run.command, 80)}`"
        + (
            f" (stale: {changed} file(s) modified since: run it again before claiming success)"
            if changed
            else " (an earlier session: run it again before claiming success)"
            if before
            else ""
        )
        if run is not None
        else "last evidence: none yet (run `contextward verify -- CMD` before claiming success)"
    )
    fmt.finish()
    kept = [
        replace(s, lines=tuple(fmt.resolve(line) for line in s.lines)) for s in sections if s.lines
    ]
    footer = fmt.resolve(tail)
    text = _bounded("\n".join([HEADER, *(s.render() for s in kept), footer]))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return Brief(text, digest, tuple(kept), footer)


def render_file_brief(
    root: Path,
    *,
    caps: BriefCaps | None = None,
    env: Mapping[str, str] | None = None,
) -> Brief:
    """The part of the brief that lives in files — the contract and STATE.md's decisions —
    for when the store database cannot be opened (damaged, read-only, busy): the owner's
    standing record still reaches the session."""
    caps = caps or BriefCaps()
    fmt = _Lines()
    try:
        contract = _contract(root, caps, env, fmt)
    except ContractError:
        contract = BriefSection("contract", "contract", ())  # doctor names it
    sections = [contract, _decisions(None, caps, fmt, _state_decisions(root))]
    fmt.finish()
    kept = [
        replace(s, lines=tuple(fmt.resolve(line) for line in s.lines)) for s in sections if s.lines
    ]
    text = _bounded("\n".join([HEADER, *(s.render() for s in kept)]))
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return Brief(text, digest, tuple(kept))


def brief_if_changed(store: Store, previous_digest: str | None, **kwargs: Any) -> Brief | None:
    """The brief when it differs from the one with ``previous_digest``, else None."""
    brief = render_brief(store, **kwargs)
    return brief if brief.changed_since(previous_digest) else None


def _changed_since(store: Store, created_at: str) -> int:
    """How many project files a host reported modified after ``created_at`` (any session):
    evidence older than a change no longer proves the code as it is."""
    rows = store.query(
        "SELECT COUNT(DISTINCT json_extract(payload, '$.path')) FROM events"
        " WHERE kind = ? AND created_at > ?",
        (FILE_EVENT, created_at),
    )
    return int(rows[0][0]) if rows else 0


def _bounded(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[: MAX_CHARS - 40].rstrip() + "\n(brief truncated: contextward recall)"


class _Lines:
    """Row texts held back until one batch mask, then cut to their limits.

    Masking every row on its own cost most of the brief's time; one ``mask`` call
    over all rows (joined by a separator no pattern spans) gives the same text.
    A row is masked before it is cut, so a cut can never leave half a secret.
    """

    _SEP = "\n\u241e\n"

    def __init__(self) -> None:
        self.texts: list[tuple[str, int]] = []
        self.done: list[str] = []

    def line(self, text: str, limit: int) -> str:
        self.texts.append((text, limit))
        return f"\ue200{len(self.texts) - 1}\ue201"

    def resolve(self, rendered: str) -> str:
        return _PLACEHOLDER.sub(lambda m: self.done[int(m.group(1))], rendered)

    def finish(self) -> None:
        raw = [text for text, _ in self.texts]
        parts = mask(self._SEP.join(raw)).split(self._SEP) if raw else []
        if len(parts) != len(raw):  # a pattern ran across rows: mask them one by one
            parts = [mask(text) for text in raw]
        self.done = [_cut(part, limit) for part, (_, limit) in zip(parts, self.texts, strict=True)]


_PLACEHOLDER = re.compile("\ue200(\\d+)\ue201")


def _cut(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _contract(
    root: Path | None, caps: BriefCaps, env: Mapping[str, str] | None, fmt: _Lines
) -> BriefSection:
    contract = load_contract(root, env=env)
    owner = [c for c in contract.constraints if c.layer != "seed" and c.trusted]
    rest = [c for c in contract.constraints if c.layer == "seed" or not c.trusted]
    # Two budgets: owner rows never crowd out the seeds, and agent rows never crowd out either.
    shown_owner = owner[-caps.owner_constraints :] if caps.owner_constraints else []
    shown_rest = rest[: caps.seed_constraints]
    hidden = len(owner) - len(shown_owner) + len(rest) - len(shown_rest)
    lines = [_constraint(c, caps, fmt) for c in (*shown_rest, *shown_owner)]
    return BriefSection("contract", "contract", tuple(lines), hidden, "contextward contract list")


def _constraint(row: Constraint, caps: BriefCaps, fmt: _Lines) -> str:
    if not row.trusted:
        return f"- [agent, unverified] {row.id}: {fmt.line(row.text, caps.agent_chars)}"
    return f"- {row.id}: {fmt.line(row.text, caps.trusted_chars)}"


def _owner_statements(
    store: Store,
    caps: BriefCaps,
    session_id: str | None,
    fmt: _Lines,
    *,
    earlier_sessions: bool,
    restated: frozenset[str] = frozenset(),
) -> BriefSection:
    if not caps.owner_statements and not (earlier_sessions and caps.standing):
        return BriefSection("owner_statements", "owner said", ())
    prompts = store.prompts.list(limit=_PROMPT_WINDOW, session_id=session_id)
    # The owner's rules first, then a want or need, a plain statement last; newest first
    # within.
    own = sorted(
        [(*classify(p.text, bounded=False), "") for p in prompts],
        key=lambda row: (row[0] not in _STANDING, row[0] == "statement"),
    )
    earlier: list[tuple[str, str, str]] = []
    if earlier_sessions and session_id is not None:
        # A new session starts with none of its own words: the owner's standing ones from
        # earlier sessions ("Never push to main", "use pnpm, not npm", "we ruled out
        # pandas") still bind it, unless the owner replaced or lifted them since. What
        # they wanted or said there was about that session's task, so it stays there.
        recent = _standing_window(store, session_id)
        before = [p for p in recent if p.session_id != session_id]
        retired, rejected = _read(recent) if before else (set(), {})
        # Listed once: a rule "still in force" above, or said again in a later session.
        seen = {_key(text) for _, text, _ in own} | restated
        for p in before:
            kind, text = classify(p.text, bounded=False)
            if kind not in _STANDING and p.seq in rejected:
                kind, text = "rejected", rejected[p.seq]
            if kind in _STANDING and p.seq not in retired and _key(text) not in seen:
                seen.add(_key(text))
                earlier.append((kind, text, " (earlier session)"))
    # The owner's standing rules have a cap of their own: with the session's two
    # statements' cap for them too, a new session was shown two rules of four, and
    # "Never push to main" was among the hidden.
    shown_own = own[: caps.owner_statements]
    shown_earlier = earlier[: caps.standing]
    shown = sorted([*shown_own, *shown_earlier], key=lambda row: row[0] not in _STANDING)
    lines = [
        f"- {kind}{where}: {fmt.line(text, caps.trusted_chars)}" for kind, text, where in shown
    ]
    return BriefSection(
        "owner_statements",
        "owner said",
        tuple(lines),
        len(own) + len(earlier) - len(shown),
        "contextward intent",
    )


def _standing_window(store: Store, session_id: str) -> list[Prompt]:
    """The owner's prompts read for the standing rules of earlier sessions, newest first:
    the project's last :data:`_STANDING_WINDOW`, and of the last :data:`_STANDING_WINDOW`
    of each of the last :data:`_STANDING_SESSIONS` sessions (and this one) said before
    those, the rules and corrections, with the later prompts that share a word with one
    of them ("Pushing to main is fine now" after "Never push directly to main")."""
    recent = store.prompts.list(limit=_STANDING_WINDOW)
    inside = {p.seq for p in recent}
    older = [
        p
        for p in store.prompts.of_recent_sessions(
            sessions=_STANDING_SESSIONS, per_session=_STANDING_WINDOW, also=session_id
        )
        if p.seq not in inside
    ]
    rules = [p for p in older if classify(p.text, bounded=False)[0] in _STANDING]
    rules = rules[:_STANDING_OLDER]
    if not rules:
        return recent
    words = set().union(*(_words(p.text) for p in rules))
    first = min(p.seq for p in rules)
    taken = {p.seq for p in rules}
    later = [p for p in older if p.seq > first and p.seq not in taken]
    related = [p for p in later if _words(p.text) & words][:_STANDING_OLDER]
    return sorted([*recent, *rules, *related], key=lambda p: -p.seq)


_WORD = re.compile(r"[^\W\d_]{3,}|[\u3400-\u9fff]{2}")
#: Words too common to tie a later prompt to a rule.
_COMMON = frozenset(
    ("the", "and", "for", "not", "you", "are", "but", "all", "any", "can", "now", "this",
     "that", "with", "from", "use", "using", "only", "always", "never", "don", "dont",
     "must", "should", "please", "also", "then", "just", "into", "its", "was", "were",
     "will", "would", "have", "has", "had", "our", "your", "there", "here", "what",
     "when", "which", "who", "how", "why")
)  # fmt: skip


def _words(text: str) -> set[str]:
    """A prompt's words that can tie it to a rule: three letters or more, not the most
    common ones, a word's first five letters (push, pushing); two CJK characters."""
    return {word[:5] for word in _WORD.findall(text.casefold()) if word not in _COMMON}


def _read(prompts: list[Prompt]) -> tuple[set[int], dict[int, str]]:
    """Inspection's reading of the owner's prompts: the seqs of those whose every
    statement a later prompt replaced or lifted ("Pushing to main is fine now" after
    "Never push to main"), and each other's rejected approach that still stands ("We
    ruled out pandas for the CSV writer", which intent reads as a plain statement)."""
    from ..inspect import Message, inspect_messages

    said = sorted(prompts, key=lambda p: p.seq)
    result = inspect_messages([Message(f"p{p.seq}", "user", p.text) for p in said])
    live: dict[str, bool] = {}
    rejected: dict[int, str] = {}
    for candidate in result.candidates:
        if candidate.kind in _NOISE:
            continue
        for source in candidate.sources:
            live[source] = live.get(source, False) or candidate.superseded_by is None
        if candidate.kind == "rejected" and candidate.superseded_by is None:
            seq = int(candidate.sources[0][1:])
            rejected.setdefault(seq, candidate.content)
    retired = {p.seq for p in said if live.get(f"p{p.seq}") is False}
    return retired, rejected


def _state_decisions(root: Path | None) -> list[DecisionRow]:
    """STATE.md's decisions (their single home once the file exists), oldest first."""
    if root is None:
        return []
    try:
        return list(decision_rows(StateProject.open(root)))
    except StateError:
        return []  # an unreadable STATE.md is doctor's business; the brief goes on


def _decisions(
    store: Store | None, caps: BriefCaps, fmt: _Lines, state: list[DecisionRow]
) -> BriefSection:
    """Owner decisions: STATE.md's, plus journal ones not (yet) moved there, newest first.
    Without a ``store``, STATE.md's alone."""
    cap = caps.decisions
    if not cap:
        return BriefSection("decisions", "decisions", ())
    in_state = {_key(row.text) for row in state} | {_key(row.text.split(" — ")[0]) for row in state}
    fetched = (
        store.journal.list(limit=cap * 3, type="decision", provenance="owner") if store else []
    )
    journal = [e for e in fetched if _key(e.text) not in in_state]
    # What a later decision superseded is no longer the project's: recall still finds it.
    state = [row for row in state if row.kind != "superseded"]
    # (date, order, line, rejected): STATE.md rows are dated by day, journal rows to the
    # millisecond.
    dated: list[tuple[str, int, str, bool]] = [
        (
            row.date[:10],
            pos,
            f"- {'[REJECTED] ' if row.kind == 'rejected' else ''}"
            f"{fmt.line(row.text, caps.trusted_chars)} ({row.id})",
            row.kind == "rejected",
        )
        for pos, row in enumerate(state)
    ]
    dated += [
        (
            e.created_at[:10],
            len(state) + e.seq,
            f"- {fmt.line(e.text, caps.trusted_chars)}{_tags(e.tags)} ({e.id})",
            False,
        )
        for e in journal
    ]
    dated.sort(reverse=True)
    shown = [line for _, _, line, _ in dated[:cap]]
    journal_total = _count(store, "type = 'decision' AND provenance = 'owner'") if store else 0
    # Journal rows already moved to STATE.md are counted once (among those fetched).
    total = len(state) + journal_total - (len(fetched) - len(journal))
    hidden = max(0, total - len(shown))
    # Every rejected approach is a STATE.md row, all of them in ``dated``: the pointer
    # names the kind recall files the hidden ones under.
    rejected = sum(1 for *_, is_rejected in dated[cap:] if is_rejected)
    return BriefSection(
        "decisions",
        "decisions",
        tuple(shown),
        hidden,
        _decisions_pointer(hidden, rejected),
        journal_total >= COUNT_BOUND,
    )


def _decisions_pointer(hidden: int, rejected: int) -> str:
    """The recall that lists the hidden decisions: rejected approaches are their own kind."""
    if not rejected:
        return "contextward recall --type decision"
    if rejected >= hidden:
        return "contextward recall --type rejected"
    return "contextward recall --type decision (and --type rejected)"


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def _journal_sections(
    store: Store, caps: BriefCaps, fmt: _Lines, state: list[DecisionRow]
) -> list[BriefSection]:
    journal = store.journal

    def trusted(kind: str, cap: int, title: str) -> BriefSection:
        rows = journal.list(limit=cap, type=kind, provenance="owner") if cap else []
        lines = [f"- {fmt.line(e.text, caps.trusted_chars)}{_tags(e.tags)} ({e.id})" for e in rows]
        total = (
            _count(store, "type = ? AND provenance = 'owner'", (kind,))
            if cap and len(rows) >= cap
            else len(rows)
        )
        return BriefSection(
            kind + "s",
            title,
            tuple(lines),
            total - len(rows),
            f"contextward recall --type {kind}",
            total >= COUNT_BOUND,
        )

    precedents = journal.precedents(limit=caps.precedents) if caps.precedents else []
    total_precedents = (
        _count(
            store,
            # Tags are a JSON array of normalised strings, so the quoted word is exact.
            "provenance = 'owner' AND (type = 'lesson' OR tags LIKE '%\"lesson\"%')",
        )
        if caps.precedents and len(precedents) >= caps.precedents
        else len(precedents)
    )
    agent_corrections = (
        journal.list(limit=caps.agent_corrections, type="correction", provenance="agent")
        if caps.agent_corrections
        else []
    )
    agent_notes = [
        e
        for e in journal.list(limit=caps.agent_notes + 4, provenance="agent")
        if e.type != "correction"
    ][: caps.agent_notes]
    unverified = [
        f"- {e.type}: {fmt.line(e.text, caps.agent_chars)} ({e.id})"
        for e in (*agent_corrections, *agent_notes)
    ]
    agent_total = _count(store, "provenance = 'agent'") if unverified else 0
    return [
        _decisions(store, caps, fmt, state),
        trusted("correction", caps.corrections, "corrections"),
        BriefSection(
            "precedents",
            "precedents",
            tuple(f"- {fmt.line(e.text, caps.trusted_chars)} ({e.id})" for e in precedents),
            max(0, total_precedents - len(precedents)),
            "contextward recall --tag lesson",
            total_precedents >= COUNT_BOUND,
        ),
        BriefSection(
            "unverified",
            "agent notes (unverified: written by the agent, not owner authority)",
            tuple(unverified),
            max(0, agent_total - len(unverified)),
            "contextward journal",
            agent_total >= COUNT_BOUND,
        ),
    ]


def _count(store: Store, where: str, params: tuple[str, ...] = ()) -> int:
    """Matching journal rows, newest first, counted up to :data:`COUNT_BOUND`.

    The bound keeps the brief's cost flat however long the journal grows; a
    section whose count reached it says "N or more".
    """
    rows = store.query(
        f"SELECT COUNT(*) FROM (SELECT 1 FROM journal WHERE {where} ORDER BY seq DESC LIMIT ?)",
        (*params, COUNT_BOUND),
    )
    return int(rows[0][0])


def _tags(tags: tuple[str, ...]) -> str:
    return f" [{','.join(tags)}]" if tags else ""


#: The restore section's title for a session's own compaction.
_RESTORE_TITLE = "still in force (the last compaction summary lost them)"


def _restore_plan(
    store: Store, session_id: str | None, *, earlier_sessions: bool
) -> tuple[RestorePlan, str]:
    """What the restore section restates, and its title.

    A session's own last compaction, when it has one. At a session's start without one,
    the last compaction of a session that ended before it started (a new session learns
    what the last summary lost). Never what a session running beside it compacted: its
    goal and rules are that session's, not this one's. Without a session (the command
    line), the project's last compaction, saying whose it was.
    """
    from .restore import earlier_snapshot, plan_of, plan_restore

    if session_id is None:
        record = store.snapshots.latest()
        whose = (
            f"session {_cut(mask(record.session_id), 80)}'s"
            if record is not None and record.session_id
            else "a compaction with no session named: its"
        )
        return plan_of(store, record), f"still in force ({whose} last summary lost them)"
    own = plan_restore(store, session_id=session_id)
    if own.snapshot_seq is not None or not earlier_sessions:
        return own, _RESTORE_TITLE
    earlier = plan_of(store, earlier_snapshot(store, session_id, ended=True))
    return earlier, "still in force (the last summary of an earlier session lost them)"


def _restore(plan: RestorePlan, caps: BriefCaps, fmt: _Lines, title: str) -> BriefSection:
    """Critical items the last checked compaction lost or changed: shown until a later
    check finds them preserved (the latest check decides)."""
    from .restore import WORD_OF

    if not plan.checked or not caps.restore:
        return BriefSection("restore", title, ())
    # The owner's items first; an item the agent or a summary said is marked as its word.
    ranked = sorted(plan.items, key=lambda item: bool(plan.said_by(item.id)))
    shown = ranked[: caps.restore]
    lines = [
        f"- [{item.kind}]"
        + (f" ({WORD_OF[plan.said_by(item.id)]})" if plan.said_by(item.id) else "")
        + f" {fmt.line(item.content, caps.trusted_chars)}"
        for item in shown
    ]
    return BriefSection(
        "restore",
        title,
        tuple(lines),
        len(plan.items) - len(shown),
        "contextward restore",
    )


def _last_session(
    store: Store,
    caps: BriefCaps,
    session_id: str | None,
    fmt: _Lines,
    restored: set[str],
) -> BriefSection:
    """A new session's view of the last compaction of an earlier one: its goal, open
    work, decisions and state, as that snapshot kept them (the restore section shows
    what its summary lost; this shows the rest, which the summary was trusted with and
    which no longer reaches a new session).

    Earlier: of a session that ended before this one started, else the last taken by
    another session before this one started; never once this session compacted (its
    own summary and restore are in its context), never a concurrent session's since.
    """
    from .restore import (
        ASSISTANT_ITEMS,
        INSPECTED_ITEMS,
        SUMMARY_ITEMS,
        earlier_snapshot,
        listed,
        snapshot_from,
    )

    empty = BriefSection("last_session", "last session", ())
    if not caps.last_session or session_id is None:
        return empty
    if store.snapshots.latest(session_id=session_id) is not None:
        return empty  # this session's own compaction: its summary is in the context
    record = earlier_snapshot(store, session_id, ended=True) or earlier_snapshot(
        store, session_id, ended=False
    )
    snapshot = snapshot_from(record)
    if record is None or snapshot is None:
        return empty
    said = listed(record, INSPECTED_ITEMS)
    # The session's own items, not the standing record it carried (shown as the contract
    # and "owner said"); a snapshot from before the list was kept shows its every item.
    inspected = set(said) if said else {item.id for item in snapshot.items}
    agent = set(listed(record, ASSISTANT_ITEMS))
    # A compaction summary's own sentence is its word, as the agent's is the agent's.
    summary = set(listed(record, SUMMARY_ITEMS)) - agent
    items = [
        item
        for kind in _CARRIED
        for item in snapshot.items
        if item.kind == kind and item.id in inspected and _key(item.content) not in restored
    ]
    shown = items[: caps.last_session]
    lines = [
        f"- [{item.kind}]{' (agent)' if item.id in agent else ''}"
        f"{' (summary)' if item.id in summary else ''} "
        + fmt.line(
            item.content,
            caps.agent_chars if item.id in agent | summary else caps.trusted_chars,
        )
        for item in shown
    ]
    return BriefSection(
        "last_session",
        "last session's work (as its last compaction kept it,"
        f" {record.created_at[:16].replace('T', ' ')} UTC)",
        tuple(lines),
        len(items) - len(shown),
        "contextward report",
    )


def _loops(store: Store, caps: BriefCaps, session_id: str | None, fmt: _Lines) -> BriefSection:
    if not caps.open_loops:
        return BriefSection("open_loops", "open loops", ())
    loops = open_loops(
        store, threshold=caps.loop_threshold, session_id=session_id, limit=caps.open_loops + 1
    )
    shown = loops[: caps.open_loops]
    lines = [
        f"- `{fmt.line(loop.command, 80)}`: {loop.describe()} in a row"
        + (" (the next identical run is refused)" if loop.blocked else "")
        for loop in shown
    ]
    return BriefSection(
        "open_loops", "open loops", tuple(lines), len(loops) - len(shown), "contextward loops"
    )
