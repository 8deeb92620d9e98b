"""The restore block: critical items a compaction summary lost or changed, verbatim.

Derived, never stored: the items come from the latest stored check report
and the snapshot it checked. An item leaves the block only when a later
check shows it preserved. When a snapshot was taken but no check could run,
every critical item of that snapshot is restored (the conservative answer).

Must never: write to the store, or quote anything but the snapshot record (its items,
and what a terse item of it replaced).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ..core import ContextItem, FactsVerifier, Snapshot
from ..core.anchors import cue_counts, prepare
from ..core.errors import ContextGuardError
from ..core.facts import EXCEPTED, Placed, key_sets
from ..core.item import STANDING
from ..core.textnorm import VALUE_PREFIX
from ..printable import counted, item_text, one_line
from ..redact import mask
from ..state.session import ENDED
from ..store import Record, Store

#: How an item that is not the owner's word is marked wherever it is restated.
WORD_OF = {
    "agent": "the agent's word, not the owner's",
    "summary": "a compaction summary's word, not the owner's",
}
#: Upper bound of the rendered block; the hook adds its own text around it.
MAX_CHARS = 6000

HEADER = (
    "contextward restore: the last compaction summary lost or changed these critical "
    "items. They still hold, verbatim:"
)


#: Beside a stored snapshot's ``schemaVersion`` and ``items`` (the snapshot contract): the
#: ids of the items the assistant said, so that its own later word may retire them at the
#: next compaction. An item not listed is read as the owner's.
ASSISTANT_ITEMS = "assistant_items"
#: And the ids of the items a compaction summary said in its own words (not an owner
#: message it quotes): restated as the summary's word, never as the owner's.
SUMMARY_ITEMS = "summary_items"
#: And the ids of the items the inspected transcript said, in the order it said them (the
#: standing record and carried items are not among them).
INSPECTED_ITEMS = "inspected_items"
#: And, for a terse item that replaced another ("Bump it to 20."), what it replaced:
#: ``{item id: masked content}``, so the restore block can say what "it" is.
REPLACED_BY_ITEM = "replaced_by_item"
#: And, for the owner's terse answer to the assistant's question ("不用了。" after "要不要给
#:导出失败加自动重试？"), the question: ``{item id: masked question}``.
ANSWERED_QUESTION = "answered_question"
#: An item this short, or one that points back ("it", "that", "这个"), gets that context.
TERSE_CHARS = 40
_POINTS_BACK = re.compile(r"\b(?:it|that|this|them|those)\b|这个|那个|它")
#: Beside a stored check report (``report``): ``{changed item id: later item id}``, the
#: changed items whose new wording in the summary a later statement of the session holds.
REPLACED_LATER = "replaced_later"


@dataclass(frozen=True, slots=True)
class RestorePlan:
    """What to restore and why: ``checked`` is False when no check of the snapshot ran.

    ``replaced`` pairs a changed item that is not restated with the later item of the
    session whose word the summary kept instead (see ``replaced_later``). A goal is
    restated all the same, with that later item beside it (``since``): the task stands,
    one of its details changed ("每页 50 条" in the opening, "每页改成 200 条吧" later).
    """

    items: tuple[ContextItem, ...]
    snapshot_seq: int | None
    checked: bool
    statuses: dict[str, str]
    replaced: tuple[tuple[ContextItem, ContextItem], ...] = ()
    #: The items the assistant said (a plan, a proposal): restated as the agent's word.
    agent: frozenset[str] = frozenset()
    #: What a terse item replaced ("Bump it to 20." in place of "Set the pool to 10.").
    in_place_of: Mapping[str, str] = field(default_factory=dict)
    #: A restated goal's later item that changed one of its details, by goal id.
    since: Mapping[str, ContextItem] = field(default_factory=dict)
    #: The items a compaction summary said in its own words: restated as its word.
    summary: frozenset[str] = frozenset()
    #: The assistant's question a terse answer of the owner's answered ("不用了。").
    answering: Mapping[str, str] = field(default_factory=dict)
    #: The agent's items the summary itself says no longer hold ("the owner rejected the
    #: plan to …"): no owner word keeps them, so they are named, not restated as holding.
    dropped: tuple[ContextItem, ...] = ()

    def said_by(self, item_id: str) -> str:
        """Whose word an item is when it is not the owner's: ``agent`` or ``summary``
        (``""`` for the owner's)."""
        if item_id in self.agent:
            return "agent"
        return "summary" if item_id in self.summary else ""

    @property
    def empty(self) -> bool:
        return not self.items


def terse(content: str) -> bool:
    """Whether an item says too little alone: short, or pointing back ("Bump it to 20.")."""
    return len(content) <= TERSE_CHARS or _POINTS_BACK.search(content.casefold()) is not None


def listed(record: Record | None, key: str) -> list[str]:
    """The ids a stored snapshot record lists under ``key`` (none when absent or damaged)."""
    ids = record.data.get(key) if record is not None else None
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def snapshot_from(record: Record | None) -> Snapshot | None:
    """The snapshot stored in a record, or None when there is none or it is unreadable."""
    if record is None:
        return None
    try:
        return Snapshot.from_dict(record.data)
    except ContextGuardError:
        return None


def latest_check(store: Store, snapshot_seq: int) -> Record | None:
    """The newest check report stored for one snapshot, however many reports came since."""
    return store.check_reports.about_snapshot(snapshot_seq)


def plan_restore(store: Store, *, session_id: str | None = None) -> RestorePlan:
    """Restore items for the latest snapshot of ``session_id`` (of any session when None;
    a session without a snapshot of its own gets nothing, never another session's)."""
    return plan_of(store, store.snapshots.latest(session_id=session_id or None))


def earlier_snapshot(store: Store, session_id: str, *, ended: bool) -> Record | None:
    """The latest snapshot of a session before ``session_id``, never of one running beside it.

    With ``ended``: of a session that ended before this one started (a host said so:
    SessionEnd, the bridge's ``session_end``). Without: of any other session (or of none
    named), taken before this one started; None when this session's start is unknown (no
    session record: an MCP server's id), since then nothing tells an earlier snapshot from
    a concurrent one. What a session still running compacted is that session's own.
    """
    own = store.sessions.get(session_id)
    started = own.started_at if own is not None else None
    if ended:
        rows = store.query(
            "SELECT s.seq FROM snapshots s JOIN sessions x ON x.id = s.session_id"
            " WHERE x.id != ? AND x.status = ? AND x.ended_at IS NOT NULL"
            " AND (? IS NULL OR x.ended_at <= ?) ORDER BY s.seq DESC LIMIT 1",
            (session_id, ENDED, started, started),
        )
    elif started is None:
        return None
    else:
        rows = store.query(
            "SELECT seq FROM snapshots WHERE session_id IS NOT ? AND created_at < ?"
            " ORDER BY seq DESC LIMIT 1",
            (session_id, started),
        )
    return store.snapshots.get(int(rows[0]["seq"])) if rows else None


def plan_of(store: Store, record: Record | None) -> RestorePlan:
    """Restore items for one stored snapshot (nothing for None)."""
    snapshot = snapshot_from(record)
    if record is None or snapshot is None:
        return RestorePlan((), None, False, {})
    check = latest_check(store, record.seq)
    agent = frozenset(listed(record, ASSISTANT_ITEMS))
    summary = frozenset(listed(record, SUMMARY_ITEMS))
    before = _strings(record.data.get(REPLACED_BY_ITEM))
    answering = _strings(record.data.get(ANSWERED_QUESTION))
    if check is None:
        critical = tuple(item for item in snapshot.items if item.critical)
        unchecked = {i.id: "unchecked" for i in critical}
        return RestorePlan(
            critical,
            record.seq,
            False,
            unchecked,
            agent=agent,
            in_place_of=before,
            summary=summary,
            answering=answering,
        )
    report = check.data.get("report", {})
    # Only critical items: a statement that is not critical may have been changed by the
    # owner since, which supersession missed (restating it was measured to undo more
    # replacements than it saved from summary errors: bench/restore_probe.py).
    failures = set(report.get("criticalFailures", ()))
    failed = {
        f.get("itemId"): f
        for f in report.get("findings", ())
        if isinstance(f, dict) and f.get("itemId") in failures
    }
    statuses = {item_id: f.get("status") for item_id, f in failed.items()}
    by_id = {item.id: item for item in snapshot.items}
    later = check.data.get(REPLACED_LATER)
    explained = {
        old: by_id[new]
        for old, new in (later.items() if isinstance(later, dict) else ())
        if old in failures and new in by_id
    }
    # A goal stands, and so does a rule the owner made an exception to: restated, with
    # the later statement beside them.
    since = {
        old: new
        for old, new in explained.items()
        if by_id[old].kind == "goal" or failed.get(old, {}).get("reason") == EXCEPTED
    }
    replaced = {old: new for old, new in explained.items() if old not in since}
    # The agent's plan the summary says was dropped ("The owner rejected the plan to
    # cache in Redis."): the owner may have turned it down in words the rules did not
    # read as a veto, and restating it as holding would bring back what was refused.
    dropped = {
        item_id
        for item_id in failures - set(replaced)
        if item_id in agent and failed.get(item_id, {}).get("reason") == _REVOKED
    }
    items = tuple(item for item in snapshot.items if item.id in failures - set(replaced) - dropped)
    return RestorePlan(
        items,
        record.seq,
        True,
        {k: str(v) for k, v in statuses.items() if k},
        tuple((by_id[old], new) for old, new in replaced.items()),
        agent,
        before,
        since,
        summary,
        answering,
        tuple(item for item in snapshot.items if item.id in dropped),
    )


def _strings(mapping: object) -> dict[str, str]:
    """A stored ``{item id: text}`` mapping, without what is not a string (none when
    absent or damaged)."""
    if not isinstance(mapping, dict):
        return {}
    return {k: v for k, v in mapping.items() if isinstance(k, str) and isinstance(v, str)}


#: Reasons for which the summary itself says an item no longer holds ("not mongo",
#: "instead of Celery", "down from 8").
_REVOKED = "changed: revoked"
_SAID_REPLACED = ("changed: negation flipped (added)", _REVOKED, "changed: stale value")


def replaced_later(
    snapshot: Snapshot,
    findings: Mapping[str, tuple[str, str]],
    summary: str,
    *,
    order: Sequence[str],
    assistant: Collection[str] = (),
    apart: Callable[[str, str], bool] = lambda new, old: False,
) -> dict[str, str]:
    """Critical items the summary lost or changed the way a later statement of the session
    replaced them, as ``{item id: later item id}``: supersession missed the replacement
    ("Use loguru for logging in the worker." ... "Logging in the worker must go through
    structlog"), and restating the old item as one that "still holds" would undo it.

    ``findings`` maps item ids to the check's ``(status, reason)``. ``order`` lists the
    items of the inspected transcript in the order they were said (the standing record
    and carried items are not among them: nothing said in the session explains their
    change away). The later item must be no rejected approach and be the owner's when the
    old item is (the agent's word never retires the owner's). Then one of:

    - the summary kept it as it stands, and it changes the old item by itself;
    - the summary kept it as it stands, it is about the same thing (two shared terms),
      and it holds a word the summary put in place of one of the old item's;
    - the summary itself says the old item no longer holds (negated, revoked, a stale
      value), and the later item holds a word the summary put in its place.

    A goal is listed too, but only to be restated with the later item beside it (the task
    stands; see ``RestorePlan.since``). Nothing is replaced by a statement about another
    thing (``apart``: "数据库连接超时设成 3 秒" does not replace "接口超时设成 5 秒",
    whatever a summary says).
    """
    rank = {item_id: n for n, item_id in enumerate(order)}
    items = [item for item in snapshot.items if item.id in rank]
    status = {item_id: found[0] for item_id, found in findings.items()}
    failed = [i for i in items if i.critical and status.get(i.id) in ("changed", "lost")]
    if not failed:
        return {}
    verifier = FactsVerifier()
    placed = verifier.placed(items, summary)
    keys = {i.id: key_sets(i.content) for i in items}
    later: dict[str, str] = {}
    for old in failed:
        owner = old.id not in assistant
        where = placed[old.id]
        said = findings[old.id][1].startswith(_SAID_REPLACED)
        for new in sorted(items, key=lambda i: -rank[i.id]):  # the latest word first
            if (
                rank[new.id] <= rank[old.id]
                or new.kind == "rejected"
                or (owner and new.id in assistant)
                or apart(new.content, old.content)
            ):
                continue
            # The summary must say both in one place, not each of two things apart. The
            # old item may be placed elsewhere by a tie ("Goal: add structured logging to
            # the worker" for "Use loguru for logging in the worker"): read where the
            # later one stands, if two of its terms are there.
            at = where if where.window & placed[new.id].window else _at(old, new, placed, keys)
            if at is None:
                continue
            kept = status.get(new.id) == "preserved"
            if findings[old.id][1] == EXCEPTED:
                # "No new dependencies, except pydantic": the owner's later leave that
                # the summary kept beside the rule ("You can add pydantic, it's fine").
                if kept and _permits(new.content):
                    later[old.id] = new.id
                    break
                continue
            # A goal stays restated (the later item only goes beside it): one shared term
            # is enough there ("每页" in "给导出接口加分页，每页 50 条" and "每页改成 200 条吧").
            same_thing = len(keys[old.id][1] & keys[new.id][1]) >= (1 if old.kind == "goal" else 2)
            if (same_thing and at.put & keys[new.id][0] and ((kept and at.gone) or said)) or (
                kept and verifier.verify([old], new.content)[0]["status"] == "changed"
            ):
                later[old.id] = new.id
                break
            if said and kept and _moves_value(keys[old.id][0], keys[new.id][0], at.put):
                # "Set the batch size to 500." ... "500 is too big for the staging box, go
                # with 100." and a summary of "100": the later word names the old value and
                # holds the one the summary put in its place.
                later[old.id] = new.id
                break
    return later


def _at(
    old: ContextItem,
    new: ContextItem,
    placed: Mapping[str, Placed],
    keys: Mapping[str, tuple[frozenset[str], frozenset[str]]],
) -> Placed | None:
    """``old`` read in the later item's region, if two of its terms are there."""
    there = (keys[new.id][0] - placed[new.id].gone) | placed[new.id].put
    if len(keys[old.id][1] & there) < 2:
        return None
    return Placed(placed[new.id].window, keys[old.id][0] - there, there - keys[old.id][0])


def _moves_value(old: frozenset[str], new: frozenset[str], put: frozenset[str]) -> bool:
    """Whether a later statement names a value of the old item and holds a value the
    summary put in place of the old item's."""
    values = {key for key in old if key.startswith(VALUE_PREFIX)}
    return bool(values & new) and any(key.startswith(VALUE_PREFIX) for key in put & new)


def _permits(text: str) -> bool:
    """Whether ``text`` gives leave ("you can add pydantic", "可以用 pydantic")."""
    cues = cue_counts(prepare(text)[1])
    return bool(cues.get("weak")) and not cues.get("neg")


def render_restore(plan: RestorePlan, *, max_chars: int = MAX_CHARS) -> str:
    """The block as injected text; empty when nothing needs restoring."""
    if plan.empty:
        return _render_dropped(plan)
    lines = [HEADER]
    if not plan.checked:
        lines[0] = (
            "contextward restore: the last compaction could not be checked, so every critical "
            "item of the snapshot taken before it is restated. They still hold, verbatim:"
        )
    used = len(lines[0])
    shown = 0
    # Goals and standing rules first (the contract's among them, which a snapshot lists
    # after the transcript's items), the owner's before anyone else's: when the block is
    # full, decisions give way first.
    for item in sorted(
        plan.items, key=lambda i: (i.kind not in STANDING, bool(plan.said_by(i.id)))
    ):
        status = plan.statuses.get(item.id, "")
        notes = [status] if status in ("changed", "lost") else []
        if plan.said_by(item.id):
            # "I suggest we raise it to 2000"; a summary's "Rules: …" in its own words.
            notes.append(WORD_OF[plan.said_by(item.id)])
        note = f" ({'; '.join(notes)})" if notes else ""
        line = f"- [{item.kind}]{note} {item_text(mask(item.content))}"
        if item.id in plan.in_place_of:
            line += f' (in place of: "{one_line(plan.in_place_of[item.id])[:200]}")'
        elif item.id in plan.answering:
            line += f' (answering: "{one_line(plan.answering[item.id])[:200]}")'
        if item.id in plan.since:
            later = one_line(mask(plan.since[item.id].content))[:200]
            # Beside a goal: what changed it; beside a rule: the owner's leave (``since``).
            word = "changed by" if item.kind == "goal" else "allowed"
            line += f' (since {word}: "{later}")'
        if used + len(line) + 1 > max_chars - 120:
            break
        lines.append(line)
        used += len(line) + 1
        shown += 1
    hidden = len(plan.items) - shown
    if hidden:
        lines.append(f"({hidden} more not shown: run `contextward restore` to see them all)")
    if plan.replaced:
        lines.append(
            f"({counted(len(plan.replaced), 'item')} not restated: replaced by a later statement "
            "of the session, which the summary follows; `contextward restore` lists them)"
        )
    dropped = _render_dropped(plan)
    return "\n".join([*lines, dropped] if dropped else lines)


def _render_dropped(plan: RestorePlan) -> str:
    """The agent's plans the summary says were dropped, named so the agent asks before
    taking one up again; empty when there are none."""
    if not plan.dropped:
        return ""
    lines = [
        "The summary says these plans of the agent's were dropped; nothing the owner said "
        "was read as keeping or refusing them, so confirm with the owner before taking one "
        "up again:"
    ]
    lines += [f"- [{item.kind}] {one_line(mask(item.content))[:300]}" for item in plan.dropped[:5]]
    if len(plan.dropped) > 5:
        lines.append(f"({len(plan.dropped) - 5} more: `contextward restore` lists them)")
    return "\n".join(lines)


def render_replaced(plan: RestorePlan) -> str:
    """The changed items not restated, each with the later statement the summary followed."""
    if not plan.replaced:
        return ""
    lines = [
        "Not restated: replaced by a later statement of the session, which the summary "
        "follows in their place:"
    ]
    for old, new in plan.replaced:
        lines.append(f"- [{old.kind}] {one_line(mask(old.content))}")
        lines.append(f"  later: [{new.kind}] {one_line(mask(new.content))}")
    return "\n".join(lines)
