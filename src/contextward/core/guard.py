"""The ContextGuard registry: register items, snapshot them, verify a context.

Holds items in insertion order. Every value it hands out is immutable or a
fresh container, so callers can never change the guard behind its back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import ContextGuardError
from .item import ContextItem, named
from .report import VerificationReport
from .snapshot import Snapshot
from .verify import Verifier, averify_context, verify_context


class ContextGuard:
    """An ordered registry of context items with unique ids."""

    def __init__(self, items: Iterable[ContextItem | Mapping[str, Any]] = ()) -> None:
        self._items: dict[str, ContextItem] = {}
        self.add_all(items)

    def add(self, item: ContextItem | Mapping[str, Any]) -> ContextItem:
        value = ContextItem.from_input(item)
        if value.id in self._items:
            raise ContextGuardError(
                "duplicate_item_id", f"duplicate item id {named(value.id)}", item_id=value.id
            )
        self._items[value.id] = value
        return value

    def add_all(self, items: Iterable[ContextItem | Mapping[str, Any]]) -> list[ContextItem]:
        """Add several items atomically: if any is invalid or a duplicate, none is added."""
        values = [ContextItem.from_input(item) for item in items]
        Snapshot((*self._items.values(), *values))  # raises on any duplicate id
        for value in values:
            self._items[value.id] = value
        return values

    def get(self, item_id: str) -> ContextItem | None:
        return self._items.get(item_id)

    def list(self) -> list[ContextItem]:
        return list(self._items.values())

    def has(self, item_id: str) -> bool:
        return item_id in self._items

    def remove(self, item_id: str) -> bool:
        return self._items.pop(item_id, None) is not None

    def clear(self) -> None:
        self._items.clear()

    def __len__(self) -> int:
        return len(self._items)

    def snapshot(self) -> Snapshot:
        return Snapshot(tuple(self._items.values()))

    def verify(self, context: str, verifier: Verifier) -> VerificationReport:
        return verify_context(self.snapshot(), context, verifier)

    async def averify(self, context: str, verifier: Verifier) -> VerificationReport:
        return await averify_context(self.snapshot(), context, verifier)
