"""verify_context / averify_context and fail-safe normalisation of verifier output."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from contextward.core import (
    ContextGuard,
    ContextGuardError,
    ContextItem,
    LiteralVerifier,
    Snapshot,
    averify_context,
    verify_context,
)

CONTEXT = "secret context text"
SNAP = Snapshot.of(
    [
        {"id": "a", "kind": "goal", "content": "Ship OAuth.", "critical": False},
        {"id": "b", "kind": "constraint", "content": "Never push to main.", "critical": True},
    ]
)


class Fixed:
    """A verifier returning whatever it is given: the output under test."""

    def __init__(self, output: object) -> None:
        self.output = output

    def verify(self, items: list[ContextItem], context: str) -> object:
        return self.output


class Raises:
    def verify(self, items: list[ContextItem], context: str) -> object:
        raise RuntimeError(CONTEXT)


def run(output: object) -> dict[str, Any]:
    return verify_context(SNAP, CONTEXT, Fixed(output)).to_dict()


def ok(item_id: str, status: str = "preserved", **extra: object) -> dict[str, object]:
    return {"itemId": item_id, "status": status, **extra}


def test_a_clean_report() -> None:
    report = run([ok("a", reason="fine"), ok("b")])
    assert report == {
        "schemaVersion": 1,
        "ok": True,
        "findings": [
            {"itemId": "a", "status": "preserved", "reason": "fine"},
            {"itemId": "b", "status": "preserved"},
        ],
        "preserved": ["a", "b"],
        "changed": [],
        "lost": [],
        "unknown": [],
        "criticalFailures": [],
        "issues": [],
    }


def test_findings_follow_snapshot_order_and_buckets() -> None:
    report = run([ok("b", "changed"), ok("a", "lost")])
    assert [f["itemId"] for f in report["findings"]] == ["a", "b"]
    assert (report["lost"], report["changed"], report["criticalFailures"]) == (["a"], ["b"], ["b"])
    assert report["ok"] is False and report["issues"] == []


def test_a_non_critical_loss_still_fails() -> None:
    report = run([ok("a", "lost"), ok("b")])
    assert report["ok"] is False and report["criticalFailures"] == []


@pytest.mark.parametrize(
    ("output", "code"),
    [
        (None, "invalid_output"),
        ("preserved", "invalid_output"),
        (b"x", "invalid_output"),
        ({"itemId": "a", "status": "preserved"}, "invalid_output"),
        (42, "invalid_output"),
    ],
)
def test_non_list_output_makes_everything_unknown(output: object, code: str) -> None:
    report = run(output)
    assert report["unknown"] == ["a", "b"]
    assert report["criticalFailures"] == ["b"]
    assert report["issues"] == [{"code": code}]


def test_a_thrown_verifier_is_swallowed_without_its_message() -> None:
    report = verify_context(SNAP, CONTEXT, Raises()).to_dict()
    assert report["unknown"] == ["a", "b"] and report["issues"] == [{"code": "verifier_error"}]
    assert CONTEXT not in repr(report)


def test_a_generator_failing_midway_counts_as_thrown() -> None:
    def findings() -> Iterator[dict[str, object]]:
        yield ok("a")
        raise ValueError(CONTEXT)

    assert run(findings())["issues"] == [{"code": "verifier_error"}]


def test_tuples_and_generators_are_accepted() -> None:
    assert run((ok("a"), ok("b")))["ok"] is True
    assert run(f for f in [ok("a"), ok("b")])["ok"] is True


def test_missing_finding() -> None:
    report = run([ok("a")])
    assert report["unknown"] == ["b"]
    assert report["issues"] == [{"code": "missing_finding", "itemId": "b"}]


def test_duplicate_findings_taint_even_when_they_agree() -> None:
    report = run([ok("a"), ok("a"), ok("b")])
    assert report["preserved"] == ["b"] and report["unknown"] == ["a"]
    assert report["issues"] == [{"code": "duplicate_finding", "itemId": "a"}]


@pytest.mark.parametrize("status", ["kept", "PRESERVED", None, 1, ["preserved"]])
def test_unsupported_status_taints_its_item(status: object) -> None:
    report = run([ok("a"), ok("b", status)])  # type: ignore[arg-type]
    assert report["unknown"] == ["b"] and report["criticalFailures"] == ["b"]
    assert report["issues"] == [{"code": "unsupported_status", "itemId": "b"}]


def test_an_invalid_finding_taints_a_valid_one_for_the_same_item() -> None:
    report = run([ok("b"), ok("b", "bogus"), ok("a")])
    assert report["unknown"] == ["b"]
    report = run([ok("b", "bogus"), ok("b"), ok("a")])
    assert report["unknown"] == ["b"]


@pytest.mark.parametrize("entry", [None, "a", 3, ["a", "preserved"], {"status": "preserved"}])
def test_malformed_findings_are_recorded(entry: object) -> None:
    report = run([entry, ok("a"), ok("b")])
    assert report["preserved"] == ["a", "b"]
    assert report["issues"] == [{"code": "malformed_finding"}]


def test_unknown_item_ids_are_discarded_without_echoing_them() -> None:
    report = run([ok("a"), ok("b"), ok(CONTEXT)])
    assert report["preserved"] == ["a", "b"]
    assert report["issues"] == [{"code": "unknown_item_id"}]
    assert CONTEXT not in repr(report)


def test_a_non_string_reason_is_dropped_but_the_status_counts() -> None:
    report = run([ok("a", reason=5), ok("b", reason="fine")])
    assert report["findings"][0] == {"itemId": "a", "status": "preserved"}
    assert report["preserved"] == ["a", "b"]
    assert report["issues"] == [{"code": "invalid_reason", "itemId": "a"}]
    assert report["ok"] is False


def test_str_subclasses_cannot_forge_a_status() -> None:
    class Liar(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    report = run([ok("a", Liar("whatever")), ok("b")])
    assert report["unknown"] == ["a"]


def test_long_reasons_are_bounded() -> None:
    report = run([ok("a", reason="x" * 10_000), ok("b")])
    assert len(report["findings"][0]["reason"]) == 500


def test_a_misbehaving_mapping_is_malformed() -> None:
    class Exploding(dict[str, object]):
        def get(self, key: str, default: object = None) -> object:
            raise RuntimeError(CONTEXT)

    report = run([Exploding(), ok("a"), ok("b")])
    assert report["issues"] == [{"code": "malformed_finding"}]


def test_a_sync_call_with_an_async_verifier_is_unknown_not_preserved() -> None:
    class Async:
        async def verify(self, items: list[ContextItem], context: str) -> list[dict[str, str]]:
            return [ok(i.id) for i in items]  # type: ignore[misc]

    report = verify_context(SNAP, CONTEXT, Async()).to_dict()
    assert report["unknown"] == ["a", "b"] and report["issues"] == [{"code": "invalid_output"}]


def test_averify_accepts_async_and_sync_verifiers() -> None:
    class Async:
        async def verify(self, items: list[ContextItem], context: str) -> list[dict[str, Any]]:
            return [ok(i.id) for i in items]

    class AsyncRaises:
        async def verify(self, items: list[ContextItem], context: str) -> list[dict[str, Any]]:
            raise RuntimeError(CONTEXT)

    assert asyncio.run(averify_context(SNAP, CONTEXT, Async())).ok is True
    assert asyncio.run(averify_context(SNAP, CONTEXT, Fixed([ok("a"), ok("b")]))).ok is True
    failed = asyncio.run(averify_context(SNAP, CONTEXT, AsyncRaises())).to_dict()
    assert failed["issues"] == [{"code": "verifier_error"}]


def test_verify_accepts_a_snapshot_dict_and_validates_it() -> None:
    assert verify_context(SNAP.to_dict(), CONTEXT, Fixed([ok("a"), ok("b")])).ok is True
    with pytest.raises(ContextGuardError):
        verify_context({"schemaVersion": 9, "items": []}, CONTEXT, Fixed([]))
    with pytest.raises(ContextGuardError):
        verify_context(SNAP, b"bytes", Fixed([]))  # type: ignore[arg-type]


def test_the_guard_verifies_its_own_snapshot() -> None:
    guard = ContextGuard(SNAP.items)
    report = guard.verify("Never push to main. Ship OAuth.", LiteralVerifier())
    assert report.ok is True
    assert asyncio.run(guard.averify("Ship OAuth.", LiteralVerifier())).lost == ["b"]


def test_an_empty_snapshot_is_ok() -> None:
    assert verify_context(Snapshot(), CONTEXT, LiteralVerifier()).to_dict()["ok"] is True
