"""Items, the guard registry and snapshots."""

from __future__ import annotations

import json

import pytest

from contextward.core import (
    KINDS,
    ContextGuard,
    ContextGuardError,
    ContextItem,
    Snapshot,
)

SECRET = "content-that-must-never-leak"


def item(item_id: str = "c1", **extra: object) -> dict[str, object]:
    data: dict[str, object] = {
        "id": item_id,
        "kind": "constraint",
        "content": "Never push to main.",
    }
    data.update(extra)
    return data


def test_kinds_are_a_superset_of_the_seed() -> None:
    assert set(KINDS) >= {"goal", "constraint", "requirement", "decision", "fact"}
    assert KINDS == (
        "goal", "constraint", "preference", "requirement", "decision", "rejected",
        "todo", "state", "fact", "correction", "risk", "lesson",
    )  # fmt: skip


def test_add_returns_an_immutable_item_with_critical_defaulting_to_false() -> None:
    guard = ContextGuard()
    added = guard.add(item())
    assert added == ContextItem("c1", "constraint", "Never push to main.", False)
    with pytest.raises(AttributeError):
        added.content = "changed"  # type: ignore[misc]


@pytest.mark.parametrize(
    "bad",
    [
        "not an object",
        {"kind": "goal", "content": "x"},
        item(id=""),
        item(id="   "),
        item(id=3),
        item(kind="wish"),
        item(kind=None),
        item(content=""),
        item(content=" \n "),
        item(content=["x"]),
        item(critical="yes"),
        item(critical=1),
    ],
)
def test_invalid_items_are_rejected_with_invalid_input(bad: object) -> None:
    with pytest.raises(ContextGuardError) as caught:
        ContextGuard().add(bad)  # type: ignore[arg-type]
    assert caught.value.code == "invalid_input"


def test_errors_never_contain_content() -> None:
    with pytest.raises(ContextGuardError) as caught:
        ContextGuard().add({"id": "x", "kind": "bogus", "content": SECRET})
    assert SECRET not in str(caught.value)
    assert caught.value.item_id == "x"


def test_an_error_names_an_id_of_any_length_in_one_short_line() -> None:
    # A million-character id was echoed whole into the error (and an MCP tool result).
    long_id = "x" * 1_000_000
    checks = [
        lambda: Snapshot.from_dict({"schemaVersion": 1, "items": [item(long_id, z=1)]}),
        lambda: ContextGuard().add(item(long_id, kind="bogus")),
        lambda: ContextGuard([item(long_id)]).add(item(long_id)),
        lambda: Snapshot.from_dict(
            {"schemaVersion": 1, "items": [item(long_id, critical=True)] * 2}
        ),
    ]
    for check in checks:
        with pytest.raises(ContextGuardError) as caught:
            check()
        assert len(str(caught.value)) < 200 and caught.value.item_id == long_id
        assert f"'{'x' * 80}'…" in str(caught.value)
    with pytest.raises(ContextGuardError) as caught:
        ContextGuard([item("c9")]).add(item("c9"))
    assert "'c9'" in str(caught.value)  # a short one whole, as before


def test_duplicate_ids_are_rejected_with_the_id() -> None:
    guard = ContextGuard([item()])
    with pytest.raises(ContextGuardError) as caught:
        guard.add(item(content="Other text."))
    assert (caught.value.code, caught.value.item_id) == ("duplicate_item_id", "c1")


def test_add_all_is_atomic() -> None:
    guard = ContextGuard([item("a")])
    with pytest.raises(ContextGuardError):
        guard.add_all([item("b"), item("c", kind="nope")])
    with pytest.raises(ContextGuardError) as caught:
        guard.add_all([item("d"), item("d")])
    assert caught.value.code == "duplicate_item_id"
    with pytest.raises(ContextGuardError):
        guard.add_all([item("e"), item("a")])
    assert [i.id for i in guard.list()] == ["a"]


def test_registry_operations_keep_insertion_order_and_hand_out_copies() -> None:
    guard = ContextGuard([item("a"), item("b"), item("c")])
    listed = guard.list()
    listed.clear()
    assert len(guard) == 3
    assert guard.has("b") and not guard.has("z")
    assert guard.get("b") == ContextItem("b", "constraint", "Never push to main.")
    assert guard.get("z") is None
    assert guard.remove("b") is True
    assert guard.remove("b") is False
    assert [i.id for i in guard.list()] == ["a", "c"]
    guard.add(item("b"))
    assert [i.id for i in guard.snapshot().items] == ["a", "c", "b"]
    guard.clear()
    assert len(guard) == 0 and guard.list() == []


def test_snapshot_is_json_safe_deterministic_and_detached() -> None:
    guard = ContextGuard(
        [item("a", critical=True), {"id": "g", "kind": "goal", "content": "Ship."}]
    )
    first = guard.snapshot().to_dict()
    assert first == {
        "schemaVersion": 1,
        "items": [
            {"id": "a", "kind": "constraint", "content": "Never push to main.", "critical": True},
            {"id": "g", "kind": "goal", "content": "Ship.", "critical": False},
        ],
    }
    first["items"].append({"id": "x"})
    assert guard.snapshot().to_dict()["items"][-1]["id"] == "g"
    assert guard.snapshot().to_json() == guard.snapshot().to_json()
    assert Snapshot.from_json(guard.snapshot().to_json()) == guard.snapshot()
    assert json.loads(json.dumps(guard.snapshot().to_dict())) == guard.snapshot().to_dict()


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"items": []},
        {"schemaVersion": 2, "items": []},
        {"schemaVersion": "1", "items": []},
        {"schemaVersion": True, "items": []},
        {"schemaVersion": 1, "items": {}},
        {"schemaVersion": 1, "items": [item()]},  # critical missing
        {"schemaVersion": 1, "items": [item(critical=False, extra=1)]},
    ],
)
def test_snapshot_loader_validates(data: object) -> None:
    with pytest.raises(ContextGuardError) as caught:
        Snapshot.from_dict(data)
    assert caught.value.code == "invalid_input"


def test_snapshot_loader_rejects_duplicate_ids() -> None:
    data = {"schemaVersion": 1, "items": [item(critical=True), item(critical=False)]}
    with pytest.raises(ContextGuardError) as caught:
        Snapshot.from_dict(data)
    assert (caught.value.code, caught.value.item_id) == ("duplicate_item_id", "c1")


def test_snapshot_from_json_rejects_malformed_json() -> None:
    with pytest.raises(ContextGuardError) as caught:
        Snapshot.from_json("{" + SECRET)
    assert caught.value.code == "invalid_input"
    assert SECRET not in str(caught.value)
