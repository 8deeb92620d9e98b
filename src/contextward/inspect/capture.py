"""The snapshot of an inspection: the kept candidates as schemaVersion 1 items.

Owns turning final keep decisions into core ``ContextItem`` values (content
masked), and which items of an earlier snapshot the inspection's statements
replace (``retired``). Store items (contract, trusted decisions, state) join
through ``extra`` so this module never depends on the store.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from ..core import KINDS, ContextItem, Snapshot
from ..redact import mask
from .candidate import InspectionResult
from .classifier import NOISE_KINDS, replacing
from .draft import Draft
from .message import fold
from .review import ReviewDecision, final_actions
from .supersession import link, may_retire


def snapshot_of(
    result: InspectionResult,
    decisions: Iterable[ReviewDecision] = (),
    *,
    keep_unresolved: bool = True,
    extra: Iterable[ContextItem | Mapping[str, object]] = (),
) -> Snapshot:
    """Kept candidates (and, conservatively, unresolved ones), then ``extra`` items by new id."""
    actions = final_actions(result, decisions)
    items: list[ContextItem] = []
    seen: set[str] = set()
    for c in result.candidates:
        action = actions[c.id]
        if action == "keep" or (action == "review" and keep_unresolved):
            # Noise a person chose to keep is remembered as a plain fact.
            kind = c.kind if c.kind in KINDS else "fact"
            items.append(ContextItem(c.id, kind, mask(c.content), c.critical))
            seen.add(c.id)
    for raw in extra:
        item = ContextItem.from_input(raw)
        if item.id not in seen:
            items.append(item)
            seen.add(item.id)
    return Snapshot(tuple(items))


def retired(
    result: InspectionResult,
    earlier: Iterable[ContextItem],
    *,
    assistant: Collection[str] = (),
    summary: Collection[str] = (),
) -> dict[str, str]:
    """Which ``earlier`` items (said before the inspected messages: a previous snapshot's)
    a statement of ``result`` replaces, as ``{item id: candidate id}``.

    The items stand one turn before the first message. Those whose ids are in
    ``assistant`` are the assistant's, those in ``summary`` a compaction summary's own
    words; any other is read as the owner's word (a contract row, a decision of the
    record, an item whose speaker was not kept), which only the owner's word retires.
    Supersession then links them with the candidates as it links the statements of one
    transcript ("use Postgres for the queue instead of SQLite" retires "Use SQLite for
    the job queue.").
    """
    items = list(earlier)
    old = [
        _draft(
            i.id, i.kind, i.content, role=_speaker(i.id, assistant, summary), position=-1, turn=0
        )
        for i in items
    ]
    by_id = {c.id: c for c in result.candidates}
    # What the new messages already retired (a summary's restatement the owner then
    # changed) is no current mention: the carried item is the one a replacement names.
    new = [
        _draft(c.id, c.kind, c.content, role=c.role or "user", position=c.position, turn=c.turn)
        for c in result.candidates
        if c.kind not in NOISE_KINDS and c.superseded_by is None
    ]
    link([*old, *new])
    # An item the new messages repeat word for word goes with its repetition.
    replaced = {
        fold(mask(c.content)): c.superseded_by for c in result.candidates if c.superseded_by
    }
    gone: dict[str, str] = {}
    for item, draft in zip(items, old, strict=True):
        for by in (draft.superseded_by, replaced.get(fold(item.content))):
            if by in by_id and may_retire(by_id[by].role, draft.role):
                gone[item.id] = by
                break
    return gone


def _speaker(item_id: str, assistant: Collection[str], summary: Collection[str]) -> str:
    if item_id in assistant:
        return "assistant"
    return "system" if item_id in summary else "user"  # a summary speaks as ``system``


def _draft(cid: str, kind: str, content: str, *, role: str, position: int, turn: int) -> Draft:
    replaces = position >= 0 and replacing(content.lower())
    return Draft(cid, kind, content, 0.0, 0.0, "", [], position, replaces, turn, role)
