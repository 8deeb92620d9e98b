"""The snapshot of an inspection: the kept candidates as schemaVersion 1 items.

Owns turning final keep decisions into core ``ContextItem`` values (content
masked). Store items (contract, trusted decisions, state) join through
``extra`` so this module never depends on the store.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..core import KINDS, ContextItem, Snapshot
from ..redact import mask
from .candidate import InspectionResult
from .review import ReviewDecision, final_actions


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
