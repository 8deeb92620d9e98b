"""The compaction loop: snapshot before, check after, restore what was lost.

    capture(store, messages)  -> inspection + snapshot (stored) + guidance text
    capture_inspection(store, result, decisions) -> the same for an inspection a host reviewed
    check_summary(store, summary) -> report of the summary against that snapshot (stored)
    brief.restore.plan_restore(store) -> the lost or changed critical items, verbatim

The snapshot is the kept candidates of the transcript since the last
compaction, plus what the project record says must survive: owner
constraints of the contract, trusted decisions of STATE.md, and the critical
items of the previous snapshot of the same session (so an item survives a
second compaction even if the first summary dropped it), unless it has
been replaced since (by the owner's word; an item the assistant said, by
the assistant's too). A summary's sentence is the summariser's word: one
that restates an owner item is folded into it (the owner's words are kept),
and one kept is listed as the summary's, never presented as the owner's.

Must never: print, or call a model. Hosts, the CLI, the bridge and MCP call it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from .brief.restore import (
    ANSWERED_QUESTION,
    ASSISTANT_ITEMS,
    INSPECTED_ITEMS,
    REPLACED_BY_ITEM,
    REPLACED_LATER,
    SUMMARY_ITEMS,
    RestorePlan,
    listed,
    plan_restore,
    render_restore,
    replaced_later,
    snapshot_from,
    terse,
)
from .core import KINDS, ContextItem, FactsVerifier, Snapshot, VerificationReport, verify_context
from .core.item import STANDING
from .core.textnorm import normalize
from .inspect import (
    Candidate,
    CandidateProvider,
    Guidance,
    InspectionResult,
    Limits,
    Message,
    ReviewDecision,
    build_guidance,
    inspect_messages,
    snapshot_of,
)
from .inspect.capture import retired
from .inspect.digests import statement_key
from .inspect.policy import PolicyConfig
from .inspect.supersession import other_subject
from .redact import mask
from .state import StateError, StateProject, decision_rows
from .store import Record, Store
from .store.contract import load_contract
from .thresholds import policy_for

__all__ = [
    "Capture",
    "CheckOutcome",
    "RestorePlan",
    "capture",
    "capture_inspection",
    "check_summary",
    "messages_since_compaction",
    "plan_restore",
    "project_items",
    "render_restore",
    "summary_text",
    "transcript_guidance",
]

#: Injected guidance stays below the host's 10,000-character cap.
MAX_GUIDANCE_CHARS = 9000
#: The most of it the standing record may take (its goals and rules first).
RECORD_CHARS = 3000


@dataclass(frozen=True, slots=True)
class Capture:
    result: InspectionResult
    snapshot: Snapshot
    record: Record
    guidance: str


@dataclass(frozen=True, slots=True)
class CheckOutcome:
    report: VerificationReport
    snapshot: Snapshot
    snapshot_seq: int
    record: Record


def messages_since_compaction(messages: Iterable[Message]) -> Iterator[Message]:
    """The messages from the last host summary on (all of them when there is none)."""
    held: list[Message] = []
    for message in messages:
        if message.summary:
            held = []
        held.append(message)
    yield from held


#: ``within_time`` inspects the last this much prose to warm up (the rules compile their
#: patterns and fill their caches on first use), then the this much before it, timed.
WARM_CHARS = 64 << 10
SAMPLE_CHARS = 128 << 10
#: What storing one kept statement in the snapshot costs (masked, compared with the last
#: snapshot's items), in characters of prose read: measured 100 to 280.
KEPT_COST = 250


@dataclass(frozen=True, slots=True)
class Affordable:
    """The messages an inspection can read before a deadline, and how many it left out."""

    messages: list[Message]
    left_out: int


def within_time(
    messages: Iterable[Message],
    *,
    deadline: float,
    config: PolicyConfig | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Affordable:
    """The last of ``messages`` (since the last compaction) that inspection reads before
    ``deadline`` (``clock`` seconds), measured on this machine, now.

    A hook is killed at its host's timeout (PreCompact: 30 s as installed), and prose
    costs far more to read than tool output: 32 MiB of tool logs takes seconds, the
    same of dense prose minutes on a busy machine. So a sample of the session's end is
    read first, to time the rate, and as many messages as the rest of the time allows
    are read, the latest first. The end is what is about to be compacted; what is left
    out is the oldest, and the owner's recorded words and the previous snapshot still
    stand for it.
    """
    held = list(messages_since_compaction(messages))
    costs = [_cost(message) for message in held]
    total = sum(costs)
    if total <= WARM_CHARS + SAMPLE_CHARS:
        return Affordable(held, 0)
    warm, warmed = _suffix(costs, WARM_CHARS)
    inspect_messages(held[warm:], config=config)
    start, sampled = _suffix(costs, warmed + SAMPLE_CHARS)
    began = clock()
    sample = inspect_messages(held[start:warm], config=config)
    rate = (sampled - warmed) / max(clock() - began, 1e-3)
    # What is kept costs again when the snapshot is stored: dense prose keeps a
    # statement every sentence or two, tool output almost none.
    kept = sum(1 for candidate in sample.candidates if candidate.action != "drop")
    per_char = 1 + KEPT_COST * kept / max(sampled - warmed, 1)
    allowed = max(sampled, rate * (deadline - clock()) / per_char)
    if allowed >= total:
        return Affordable(held, 0)
    start, _ = _suffix(costs, allowed)
    return Affordable(held[start:], start)


def _cost(message: Message) -> int:
    """What reading ``message`` costs, in characters of prose: a tool's output is one
    noise candidate, read only at its ends."""
    return len(message.text) if message.role in ("user", "assistant") else 64


def _suffix(costs: Sequence[int], budget: float) -> tuple[int, int]:
    """The first index of the shortest suffix of ``costs`` that reaches ``budget`` (all of
    them when none does), and its cost."""
    spent = 0
    for index in range(len(costs) - 1, -1, -1):
        spent += costs[index]
        if spent >= budget:
            return index, spent
    return 0, spent


def project_items(
    store: Store, root: Path | None, *, env: Mapping[str, str] | None = None
) -> list[ContextItem]:
    """Items the project record says must survive: owner constraints and trusted decisions."""
    items: list[ContextItem] = []
    contract = load_contract(root, env=env)
    for constraint in contract.constraints:
        if constraint.trusted and constraint.layer != "seed":
            items.append(
                ContextItem(f"contract:{constraint.id}", "constraint", constraint.text, True)
            )
    if root is not None:
        try:
            rows = list(decision_rows(StateProject.open(root)))
        except StateError:
            rows = []
        for row in rows:
            if row.kind == "superseded":
                continue  # a later decision replaced it: no longer the project's record
            if row.kind == "rejected":
                # Its words alone say "Use PostgreSQL …": the item must say it was turned
                # down, or a summary saying so reads as a revocation of it.
                items.append(ContextItem(row.id, "rejected", f"Rejected: {row.text}", True))
            else:
                items.append(ContextItem(row.id, "decision", row.text, True))
    return items


def capture(
    store: Store,
    messages: Iterable[Message],
    *,
    session_id: str | None = None,
    label: str = "",
    env: Mapping[str, str] | None = None,
    root: Path | None = None,
    provider: CandidateProvider | None = None,
) -> Capture:
    """Inspect ``messages``, store the snapshot of what must survive, return the guidance.

    ``root`` names the project whose record joins the snapshot (default: the store's);
    ``provider`` is a model's reading (provider mode; any failure falls back to rules).
    """
    project = root or store.root
    config = policy_for(project, env) if project is not None else None
    result = inspect_messages(messages_since_compaction(messages), config=config, provider=provider)
    return capture_inspection(store, result, session_id=session_id, label=label, env=env, root=root)


def capture_inspection(
    store: Store,
    result: InspectionResult,
    decisions: Iterable[ReviewDecision] = (),
    *,
    reviewed: bool | None = None,
    session_id: str | None = None,
    label: str = "",
    env: Mapping[str, str] | None = None,
    root: Path | None = None,
) -> Capture:
    """Store the snapshot of an inspection the host already ran (and may have reviewed).

    ``decisions`` are the owner's review answers; items nobody decided are kept
    (the conservative answer). Raises ``InspectError("unknown_candidate")`` for
    a decision naming no candidate.
    """
    chosen = tuple(decisions)
    extra = project_items(store, root or store.root, env=env)
    latest = store.snapshots.latest(session_id=session_id) if session_id else None
    previous = snapshot_from(latest)
    agent = _assistant_items(latest)
    summarised = set(listed(latest, SUMMARY_ITEMS))
    carried: list[ContextItem] = []
    gone: dict[str, str] = {}
    if previous is not None:
        # What has since been replaced is not carried: restoring it would bring back a
        # stale decision as one that "still holds".
        carried = [item for item in previous.items if item.critical]
        gone = retired(result, carried, assistant=agent, summary=summarised)
        extra += [item for item in carried if item.id not in gone]
    owner = [item for item in extra if item.id not in agent and item.id not in summarised]
    against = overruled(result, owner)
    result = _dropped(result, against, "the summary's word against the owner's recorded item")
    folded = restated(result, [item for item in extra if item.id in summarised], owner)
    result = _dropped(result, folded, "the summary's restatement of an owner item, kept instead")
    extra = [item for item in extra if item.id not in folded]
    snapshot = _deduplicated(snapshot_of(result, chosen, extra=extra))
    agent |= {c.id for c in result.candidates if c.role == "assistant"}
    summarised |= {c.id for c in result.candidates if c.summary}
    inspected = {c.id: c for c in result.candidates}
    replaced_by = _replaced_by_item(snapshot, inspected, carried, gone, agent)
    data = {
        **snapshot.to_dict(),
        ASSISTANT_ITEMS: [item.id for item in snapshot.items if item.id in agent],
        SUMMARY_ITEMS: [item.id for item in snapshot.items if item.id in summarised],
        INSPECTED_ITEMS: [item.id for item in snapshot.items if item.id in inspected],
        REPLACED_BY_ITEM: replaced_by,
        ANSWERED_QUESTION: _answered_question(snapshot, result.candidates, replaced_by),
    }
    # The same compaction fired again (a host's repeated PreCompact) stores nothing new.
    record, new = store.snapshots.add_once(
        data,
        label=label,
        session_id=session_id,
        same=("items", ASSISTANT_ITEMS, SUMMARY_ITEMS, INSPECTED_ITEMS),
    )
    if new:
        store.inspections.add(
            {"snapshot_seq": record.seq, "messages": result.messages, "counts": result.counts()},
            label=label,
            session_id=session_id,
        )
    # A summary's sentence the owner's record answers for, restating or changing an owner
    # item, is listed nowhere: the owner's item is listed to preserve. Listed to discard, a
    # faithful one the verifier misread as a flip told the summariser to drop "Rejected:
    # pandas …" beside the owner's rule to preserve (and the goal sentence that shared its
    # region, as "[goal]").
    answered = (against | folded) - {d.candidate_id for d in chosen}
    shown = replace(result, candidates=tuple(c for c in result.candidates if c.id not in answered))
    guidance = _guidance(
        shown, snapshot, chosen, reviewed=reviewed, agent=agent, summary=summarised
    )
    return Capture(result, snapshot, record, guidance)


def _replaced_by_item(
    snapshot: Snapshot,
    inspected: Mapping[str, Candidate],
    carried: list[ContextItem],
    gone: Mapping[str, str],
    agent: Collection[str],
) -> dict[str, str]:
    """What each terse item of the snapshot replaced, for the restore to say what "it" is:
    a statement of the session it supersedes or a carried item it retired, the owner's
    before the agent's, the session's before the carried, the latest first. Never a
    summary's sentence: "Decisions: job state in Postgres; HTTP client is requests; …"
    covers three things and is nobody's word ("Actually use httpx instead of requests."
    replaced the owner's "Use requests for the HTTP client.")."""
    out: dict[str, str] = {}
    retired_by: dict[str, list[tuple[bool, int, int, str]]] = {}
    for n, old in enumerate(carried):
        if old.id in gone:
            retired_by.setdefault(gone[old.id], []).append((old.id in agent, 1, n, old.content))
    for item in snapshot.items:
        if item.id not in inspected or not terse(item.content):
            continue
        said = [
            (inspected[old].role == "assistant", 0, n, inspected[old].content)
            for n, old in enumerate(inspected[item.id].supersedes)
            if old in inspected and inspected[old].role != "system"
        ]
        # Said again word for word (the same event fired twice) replaces nothing.
        said += [old for old in retired_by.get(item.id, []) if old[3] != item.content]
        if said:
            # The owner's first, then the session's, then the latest.
            out[item.id] = mask(min(said, key=lambda s: (s[0], s[1], -s[2]))[3])
    return out


#: How much of a question a snapshot keeps beside the answer (the restore shows 200).
_QUESTION_CHARS = 400


def _answered_question(
    snapshot: Snapshot, candidates: Sequence[Candidate], replaced_by: Mapping[str, str]
) -> dict[str, str]:
    """The assistant's question each terse answer of the owner's answered, for the restore
    to say what "不用了。" or "Both, then." answers: the last question of the assistant's
    turn just before the owner's reply, when the item opens that reply. An item that
    replaced something says that instead (``replaced_by``)."""
    wanted = {
        item.id for item in snapshot.items if item.id not in replaced_by and terse(item.content)
    }
    out: dict[str, str] = {}
    asked: Candidate | None = None  # the last question of the turn being read
    last: Candidate | None = None
    for c in candidates:
        if last is not None and c.turn != last.turn:
            question, asked = asked if last.role == "assistant" else None, None
            if (
                c.role == "user"
                and c.id in wanted
                and question is not None
                and c.turn == question.turn + 1
            ):
                out[c.id] = mask(question.content)[:_QUESTION_CHARS]
        if c.role == "assistant" and c.content.rstrip().endswith(("?", "？")):
            asked = c
        last = c
    return out


def overruled(result: InspectionResult, standing: list[ContextItem]) -> set[str]:
    """The ids of a summary's statements that change a standing owner item.

    A compaction summary is the summariser's word, not the owner's: where it states a
    rule flipped or a value changed ("可以改公共 API。" for "不要改公共 API"), the check
    restored the owner's item, and carrying the summary's sentence too would hand the
    agent two contradicting orders, the wrong one labelled as the owner's goal.
    """
    said = [c for c in result.candidates if c.role == "system" and c.action != "drop"]
    if not said or not standing:
        return set()
    text = "\n".join(c.content for c in said)
    verifier = FactsVerifier()
    changed = [
        item
        for item, finding in zip(standing, verifier.verify(standing, text), strict=True)
        if finding["status"] == "changed"
    ]
    if not changed:
        return set()
    regions = [" ".join(p.text.split()) for p in verifier.placed(changed, text).values()]
    return {c.id for c in said if _overruling(c.content, regions)}


def transcript_guidance(
    result: InspectionResult, decisions: Iterable[ReviewDecision] = ()
) -> Guidance:
    """The guidance for an inspected transcript alone (no store, no record): as the one a
    compaction injects, a summary's sentence that only restates an owner item of the
    transcript is listed nowhere, the owner's item is (``contextward guidance``)."""
    chosen = tuple(decisions)
    folded = restated(result, [], []) - {d.candidate_id for d in chosen}
    shown = replace(result, candidates=tuple(c for c in result.candidates if c.id not in folded))
    return build_guidance(shown, chosen)


def restated(
    result: InspectionResult, carried: list[ContextItem], owner: list[ContextItem]
) -> set[str]:
    """The ids of a summary's statements that restate critical owner items and say
    nothing more: the summary's own sentences among ``result``'s candidates, and
    ``carried`` (an earlier summary's, kept by the previous snapshot).

    The facts verifier decides, as it decides whether a summary kept an item, with the
    roles turned round: the owner's items placed where the sentence stands hold it (it
    is not lost in them: every anchor of it and most of its terms are there). "Rules:
    never push directly to main, always open a PR." restates "Never push directly to
    main; always open a PR."; so does "Pandas was ruled out for the CSV writer (40 MB)."
    for "Don't use pandas for the CSV writer: it adds 40 MB to the lambda bundle.",
    though it kept too little of it to count as keeping it. A sentence that adds "we
    deploy on Fridays" is more than a restatement, and stays, as the summary's word. The
    owner's item is the one kept: two items of one rule, one in the summariser's words,
    came back side by side as if the owner had said both.
    """
    # What the rules call noise counts too: "Main branch via PRs." for "Never push directly
    # to main; always open a pull request." was listed to discard, telling the summariser
    # to drop the owner's rule in other words. What a later statement replaced is listed
    # to discard as replaced, and stays so.
    said = [
        ContextItem(c.id, c.kind if c.kind in KINDS else "fact", c.content, c.critical)
        for c in result.candidates
        if c.summary and c.kind != "tool_output" and (c.action != "drop" or c.superseded_by is None)
    ] + carried
    rules = [item for item in owner if item.critical] + [
        ContextItem(c.id, c.kind, c.content, True)
        for c in result.candidates
        if c.role == "user" and not c.summary and c.critical and c.action != "drop"
    ]
    if not said or not rules:
        return set()
    verifier = FactsVerifier()
    # Where each owner item stands in the summary names the items a sentence may restate.
    placed = verifier.placed(rules, "\n".join(item.content for item in said))
    regions = {item.id: " ".join(placed[item.id].text.split()) for item in rules}
    found: set[str] = set()
    for item in said:
        near = [rule.content for rule in rules if _overruling(item.content, [regions[rule.id]])]
        # Not "preserved" only: a sentence that reads as a change of the owner's item
        # says nothing beyond it either, and the owner's word is the one that holds.
        if near and verifier.verify([item], "\n".join(near))[0]["status"] != "lost":
            found.add(item.id)
    return found


def _dropped(result: InspectionResult, ids: Collection[str], reason: str) -> InspectionResult:
    """``result`` with the candidates in ``ids`` dropped, for ``reason``."""
    if not ids:
        return result
    return replace(
        result,
        candidates=tuple(
            replace(c, action="drop", critical=False, reason=reason) if c.id in ids else c
            for c in result.candidates
        ),
    )


def _overruling(content: str, regions: list[str]) -> bool:
    """Whether ``content`` and a region of the verifier's (whitespace folded) hold one
    another. The verifier's text is NFKC: "，" and "（" there are "," and "(", so the
    content is read the same way (a Chinese summary sentence was never found)."""
    flat = " ".join(normalize(content, lower=False).split())
    return any(flat and region and (flat in region or region in flat) for region in regions)


def check_summary(
    store: Store,
    summary: str,
    *,
    session_id: str | None = None,
    source: str = "",
    snapshot_record: Record | None = None,
) -> CheckOutcome | None:
    """Check a summary against the latest snapshot (of the session); None when there is none."""
    # A session's summary is checked against its own snapshot only, never another's.
    record = snapshot_record or store.snapshots.latest(session_id=session_id or None)
    snapshot = snapshot_from(record)
    if record is None or snapshot is None:
        return None
    # Snapshot items are stored masked: a summary that kept a secret-bearing item
    # verbatim must match it, so it is checked masked too.
    text = mask(summary_text(summary))
    report = verify_context(snapshot, text, FactsVerifier())
    later = replaced_later(
        snapshot,
        {f.item_id: (f.status, f.reason or "") for f in report.findings},
        text,
        order=listed(record, INSPECTED_ITEMS),
        assistant=listed(record, ASSISTANT_ITEMS),
        apart=other_subject,
    )
    stored = store.check_reports.add(
        {
            "snapshot_seq": record.seq,
            "source": source,
            "report": report.to_dict(),
            REPLACED_LATER: later,
        },
        label=source,
        session_id=session_id,
    )
    return CheckOutcome(report, snapshot, record.seq, stored)


def _assistant_items(record: Record | None) -> set[str]:
    return set(listed(record, ASSISTANT_ITEMS))


def summary_text(raw: str) -> str:
    """The summary proper: the ``<summary>`` block of a model's answer when there is one."""
    start = raw.find("<summary>")
    end = raw.rfind("</summary>")
    if start != -1 and end > start:
        return raw[start + len("<summary>") : end]
    return raw


def _deduplicated(snapshot: Snapshot) -> Snapshot:
    """One item per statement: "Never push to main." said in the session and "Never push
    to main" in the contract are one rule, restored once (critical if either is)."""
    seen: dict[str, int] = {}
    items: list[ContextItem] = []
    for item in snapshot.items:
        key = statement_key(_LABEL.sub("", item.content.lstrip()))
        if key not in seen:
            seen[key] = len(items)
            items.append(item)
        elif item.critical and not items[seen[key]].critical:
            kept = items[seen[key]]
            items[seen[key]] = ContextItem(kept.id, kept.kind, kept.content, True)
    return Snapshot(tuple(items))


#: A label two statements of one thing may differ by ("Rejected:" is no label: it turns
#: the statement around).
_LABEL = re.compile(r"^(?:decision|rule)\s*:\s*", re.IGNORECASE)


def _guidance(
    result: InspectionResult,
    snapshot: Snapshot,
    decisions: tuple[ReviewDecision, ...] = (),
    *,
    reviewed: bool | None = None,
    agent: Collection[str] = (),
    summary: Collection[str] = (),
) -> str:
    """The guidance, then the standing record (the contract, recorded decisions, what the
    previous snapshot carried), which has its room set aside first: a long transcript's
    guidance used to leave it none, and carried owner rules were the first cut."""
    inspected = {c.id for c in result.candidates}
    extra = [item for item in snapshot.items if item.id not in inspected and item.critical]
    extra.sort(key=lambda item: item.kind not in STANDING)  # goals and rules first
    record = _record(extra, RECORD_CHARS, agent, summary)
    room = MAX_GUIDANCE_CHARS - len(record) - 300  # a guidance may pass its bound by ~200
    limits = Limits(max_chars=max(room, 1000))
    text = build_guidance(result, decisions, reviewed=reviewed, limits=limits).text() + record
    return text[:MAX_GUIDANCE_CHARS]


def _record(
    items: list[ContextItem],
    size: int,
    agent: Collection[str] = (),
    summary: Collection[str] = (),
) -> str:
    """The carried and recorded items, marked ``[kind, agent]`` when the agent said them
    and ``[kind, summary]`` when a summary did (as the guidance marks them: never
    presented as the owner's)."""
    if not items:
        return ""
    lines = ["", "Also preserve verbatim (the project's standing record):"]
    used = 0
    for n, item in enumerate(items):
        label = (
            f"{item.kind}, agent"
            if item.id in agent
            else f"{item.kind}, summary"
            if item.id in summary
            else item.kind
        )
        line = f"- [{label}] {' '.join(mask(item.content).split())}"
        if used + len(line) > size:
            lines.append(f"({len(items) - n} more in `contextward brief`)")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
