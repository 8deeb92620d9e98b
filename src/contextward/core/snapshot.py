"""Snapshots: the JSON-safe, deterministic record of registered items.

``Snapshot.from_dict`` is the validating loader for snapshots that crossed a
process or language boundary; it never echoes item content in its errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import ContextGuardError
from .item import ContextItem, named

SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Items in insertion order, ids unique. Immutable, so always safe to share."""

    items: tuple[ContextItem, ...] = ()

    def __post_init__(self) -> None:
        _check_unique(self.items)

    @classmethod
    def of(cls, items: Iterable[object]) -> Snapshot:
        return cls(tuple(ContextItem.from_input(item) for item in items))

    @classmethod
    def from_dict(cls, data: object) -> Snapshot:
        """Validate a decoded snapshot (``{"schemaVersion": 1, "items": [...]}``)."""
        if not isinstance(data, Mapping):
            raise ContextGuardError("invalid_input", "a snapshot must be a JSON object")
        version = data.get("schemaVersion")
        if type(version) is not int or version != SCHEMA_VERSION:
            raise ContextGuardError(
                "invalid_input", f"unsupported snapshot schemaVersion (expected {SCHEMA_VERSION})"
            )
        items = data.get("items")
        if not isinstance(items, list):
            raise ContextGuardError("invalid_input", "snapshot items must be a list")
        return cls(tuple(ContextItem.from_input(item, strict=True) for item in items))

    @classmethod
    def from_json(cls, text: str) -> Snapshot:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # also an integer too long to convert
            raise ContextGuardError("invalid_input", "a snapshot is not valid JSON") from exc
        return cls.from_dict(data)

    def to_dict(self) -> dict[str, Any]:
        return {"schemaVersion": SCHEMA_VERSION, "items": [item.to_dict() for item in self.items]}

    def to_json(self, *, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent)


def coerce_snapshot(snapshot: Snapshot | Mapping[str, Any]) -> Snapshot:
    """Accept a Snapshot or its dict form, as the public verify functions do."""
    return snapshot if isinstance(snapshot, Snapshot) else Snapshot.from_dict(snapshot)


def _check_unique(items: Iterable[ContextItem]) -> None:
    seen: set[str] = set()
    for item in items:
        if not isinstance(item, ContextItem):
            raise ContextGuardError("invalid_input", "snapshot items must be ContextItem values")
        if item.id in seen:
            raise ContextGuardError(
                "duplicate_item_id", f"duplicate item id {named(item.id)}", item_id=item.id
            )
        seen.add(item.id)
