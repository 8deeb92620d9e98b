"""Property: no verifier output whatsoever preserves an item without exactly one valid finding."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.core import ContextItem, Snapshot, verify_context

IDS = ["a", "b", "c"]
SNAP = Snapshot(tuple(ContextItem(i, "fact", f"item {i}", i == "b") for i in IDS))

scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5)
)
status = st.one_of(st.sampled_from(["preserved", "changed", "lost", "unknown", "kept"]), scalar)
finding = st.one_of(
    scalar,
    st.fixed_dictionaries(
        {},
        optional={
            "itemId": st.one_of(st.sampled_from([*IDS, "zz"]), scalar),
            "status": status,
            "reason": st.one_of(st.text(max_size=5), scalar),
        },
    ),
    st.lists(scalar, max_size=2),
)
output = st.one_of(
    scalar, st.lists(finding, max_size=8), st.dictionaries(st.text(max_size=2), scalar)
)


def valid_preserved(entry: Any, item_id: str) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("itemId") == item_id
        and entry.get("status") == "preserved"
    )


def names(entry: Any, item_id: str) -> bool:
    return isinstance(entry, dict) and entry.get("itemId") == item_id


@settings(max_examples=400)
@given(output)
def test_preserved_requires_exactly_one_valid_preserved_finding(raw: Any) -> None:
    report = verify_context(SNAP, "ctx", _Fixed(raw))
    for finding in report.findings:
        if finding.status != "preserved":
            continue
        assert isinstance(raw, list)
        naming = [e for e in raw if names(e, finding.item_id)]
        assert len(naming) == 1
        assert valid_preserved(naming[0], finding.item_id)
    assert report.ok == (report.preserved == IDS and not report.issues)
    assert set(report.critical_failures) == ({"b"} - set(report.preserved))


class _Fixed:
    def __init__(self, output: object) -> None:
        self.output = output

    def verify(self, items: list[ContextItem], context: str) -> object:
        return self.output
