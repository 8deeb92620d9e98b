"""The compaction loop over a real ``contextward bridge --stdio`` subprocess: ``snapshot``
before a compaction, ``check_summary`` after it, ``restore`` for the next request."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from test_bridge_harness import BridgeProcess, request

SECRET = "sk-proj-abcdefghijklmnopqrstuvwxyz0123"
KEPT = "Never push directly to the main branch."
DROPPED = "Do not edit files under the migrations folder."
MESSAGES = [
    {"id": "u1", "role": "user", "content": f"We are building the OAuth login. {KEPT} {DROPPED}"},
    {"id": "a1", "role": "assistant", "content": "We chose PostgreSQL as the final database."},
    {"id": "u2", "role": "user", "content": f"Use the key {SECRET} for staging."},
]
SUMMARY = f"## Goal\nBuild the OAuth login.\n\n## Constraints & Preferences\n- {KEPT}\n"


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[BridgeProcess]:
    process = BridgeProcess(tmp_path)
    yield process
    process.kill()


def ok(answer: dict[str, Any]) -> Any:
    assert answer["type"] == "result", answer
    assert answer["ok"] is True, answer
    return answer["result"]


def test_snapshot_check_restore_brings_back_only_what_the_summary_dropped(
    bridge: BridgeProcess,
) -> None:
    taken = ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="pi-1")))
    assert taken["text"].startswith("contextward guidance")
    must = taken["text"].split("Can discard", 1)[0]
    assert KEPT in must and DROPPED in must
    assert SECRET not in taken["text"]
    assert isinstance(taken["snapshot_seq"], int) and taken["critical"] >= 2
    assert taken["mode"] == "rules"

    # Before any check, the conservative answer: every critical item is restated.
    unchecked = ok(bridge.call(request("r0", "restore", session_id="pi-1")))
    assert unchecked["checked"] is False and DROPPED in unchecked["text"]

    report = ok(
        bridge.call(request("c", "check_summary", summary=SUMMARY, session_id="pi-1", label="pi"))
    )
    assert report["checked"] is True and report["snapshot_seq"] == taken["snapshot_seq"]
    assert report["ok"] is False and report["criticalFailures"]
    statuses = {f["status"] for f in report["findings"]}
    assert "preserved" in statuses and "lost" in statuses

    restored = ok(bridge.call(request("r", "restore", session_id="pi-1")))
    assert restored["checked"] is True
    assert restored["text"].startswith("contextward restore:")
    assert DROPPED in restored["text"] and KEPT not in restored["text"]
    assert SECRET not in restored["text"]

    # A later summary that keeps it takes it out of the block.
    kept = SUMMARY + f"- {DROPPED}\n"
    ok(bridge.call(request("c2", "check_summary", summary=kept, session_id="pi-1")))
    assert DROPPED not in ok(bridge.call(request("r2", "restore", session_id="pi-1")))["text"]


def test_snapshot_takes_the_reviewed_provider_inspection(bridge: BridgeProcess) -> None:
    inspected = ok(bridge.call(request("i", "inspect", messages=MESSAGES)))
    dropped = next(c for c in inspected["candidates"] if DROPPED in c["content"])
    taken = ok(
        bridge.call(
            request(
                "s",
                "snapshot",
                inspection_id=inspected["inspection_id"],
                decisions=[{"candidate_id": dropped["id"], "action": "drop"}],
                session_id="oc-1",
            )
        )
    )
    assert taken["inspection_id"] == inspected["inspection_id"]
    assert DROPPED not in taken["text"].split("Can discard", 1)[0]
    ok(bridge.call(request("c", "check_summary", summary=SUMMARY, session_id="oc-1")))
    # The owner dropped it, so the snapshot never held it and nothing comes back.
    assert DROPPED not in ok(bridge.call(request("r", "restore", session_id="oc-1")))["text"]


def test_sessions_never_mix_and_bad_arguments_are_named(bridge: BridgeProcess) -> None:
    ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="a")))
    # Another session has no snapshot: nothing to check, nothing to restore.
    assert ok(bridge.call(request("c", "check_summary", summary="x", session_id="b"))) == {
        "checked": False
    }
    empty = ok(bridge.call(request("r", "restore", session_id="b")))
    assert empty == {"text": "", "items": 0, "checked": False, "snapshot_seq": None}
    for operation, fields, code in (
        ("snapshot", {}, "invalid_request"),
        ("snapshot", {"messages": MESSAGES, "session_id": 5}, "invalid_request"),
        (
            "snapshot",
            {"messages": MESSAGES, "decisions": [{"candidate_id": "x", "action": "keep"}]},
            "unknown_candidate",
        ),
        ("check_summary", {"session_id": "a"}, "invalid_request"),
        ("check_summary", {"summary": "x", "snapshot_seq": "1"}, "invalid_request"),
        ("check_summary", {"summary": "x", "snapshot_seq": 999}, "invalid_request"),
        ("restore", {"session_id": ""}, "invalid_request"),
    ):
        answer = bridge.call(request("bad", operation, **fields))
        assert (answer["ok"], answer["code"]) == (False, code), (operation, fields)


def test_the_brief_after_a_compaction_leaves_the_restore_to_the_restore_block(
    bridge: BridgeProcess,
) -> None:
    ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="pi-1")))
    ok(bridge.call(request("c", "check_summary", summary=SUMMARY, session_id="pi-1")))
    full = ok(bridge.call(request("b", "brief", session_id="pi-1")))
    assert DROPPED in full["text"]  # the brief's own "still in force" section
    after = ok(bridge.call(request("b2", "brief", session_id="pi-1", after_compaction=True)))
    assert after["text"].startswith("## contextward brief") and DROPPED not in after["text"]
    assert after["digest"] == full["digest"]
    bad = bridge.call(request("b3", "brief", after_compaction="yes"))
    assert bad["code"] == "invalid_request"


def test_a_second_compaction_still_guards_what_the_first_summary_dropped(
    bridge: BridgeProcess,
) -> None:
    ok(bridge.call(request("s1", "snapshot", messages=MESSAGES, session_id="pi-1")))
    ok(bridge.call(request("c1", "check_summary", summary=SUMMARY, session_id="pi-1")))
    # The next compaction sees only pi's summary and what followed it.
    later = [{"id": "s", "role": "system", "content": SUMMARY}]
    taken = ok(bridge.call(request("s2", "snapshot", messages=later, session_id="pi-1")))
    assert DROPPED in taken["text"], "the previous snapshot's critical items carry over"
    ok(bridge.call(request("c2", "check_summary", summary=SUMMARY, session_id="pi-1")))
    restored = ok(bridge.call(request("r", "restore", session_id="pi-1")))
    assert restored["snapshot_seq"] == taken["snapshot_seq"] and DROPPED in restored["text"]


def test_snapshot_in_provider_mode_asks_the_hosts_model(bridge: BridgeProcess) -> None:
    bridge.send(request("s", "snapshot", messages=MESSAGES, session_id="pi-1", provider=True))
    asked = bridge.recv()
    assert asked["type"] == "provider_request" and asked["parent_request_id"] == "s"
    answer = {
        "candidates": [
            {"kind": "decision", "content": "We chose PostgreSQL", "source": "a1"},
            {"kind": "goal", "content": f"Invented, with {SECRET}.", "source": "u1"},
        ]
    }
    bridge.send(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            "ok": True,
            "data": {"text": json.dumps(answer)},
        }
    )
    taken = ok(bridge.recv())
    assert taken["mode"] == "provider" and "We chose PostgreSQL" in taken["text"]
    # The invented proposal is counted, never quoted.
    assert taken["provider_rejected"] == 1 and SECRET not in json.dumps(taken)


def test_a_summary_that_keeps_a_secret_bearing_item_verbatim_preserves_it(
    bridge: BridgeProcess,
) -> None:
    # The snapshot stores the item masked; the host's summary holds the raw text.
    ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="pi-1")))
    verbatim = "\n".join(m["content"] for m in MESSAGES)
    report = ok(bridge.call(request("c", "check_summary", summary=verbatim, session_id="pi-1")))
    assert report["criticalFailures"] == [], report["findings"]
    assert ok(bridge.call(request("r", "restore", session_id="pi-1")))["text"] == ""


def test_after_a_compaction_the_owner_s_first_message_is_no_opening_goal(
    bridge: BridgeProcess,
) -> None:
    later = [
        {"id": "u9", "role": "user", "content": "bump the retry limit to 8 attempts"},
        {"id": "a9", "role": "assistant", "content": "Done."},
    ]
    # A session never compacted: its first owner message is the opening request.
    fresh = ok(bridge.call(request("i0", "inspect", messages=later, session_id="pi-2")))
    assert fresh["candidates"][0]["kind"] == "goal"
    ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="pi-2")))
    # Once compacted, the session goes on: the same words are no goal.
    after = ok(bridge.call(request("i1", "inspect", messages=later, session_id="pi-2")))
    assert after["candidates"][0]["kind"] != "goal"


def test_a_snapshot_seq_of_another_session_is_refused(bridge: BridgeProcess) -> None:
    """walk13 #5: session B's summary was checked against A's snapshot, and A's restore
    block then said A's items were lost."""
    a = ok(bridge.call(request("a", "snapshot", messages=MESSAGES, session_id="A")))
    ok(bridge.call(request("b", "snapshot", messages=MESSAGES[1:], session_id="B")))
    mixed = bridge.call(
        request(
            "c",
            "check_summary",
            summary="## Goal\nbilling",
            session_id="B",
            snapshot_seq=a["snapshot_seq"],
        )
    )
    assert (mixed["ok"], mixed["code"]) == (False, "invalid_request")
    assert "another session" in mixed["error"]
    restore = ok(bridge.call(request("r", "restore", session_id="A")))
    assert restore["checked"] is False  # A's snapshot was not judged by B's summary
    own = request(
        "d", "check_summary", summary=SUMMARY, session_id="A", snapshot_seq=a["snapshot_seq"]
    )
    assert ok(bridge.call(own))["checked"] is True


def test_a_blank_summary_is_no_summary(bridge: BridgeProcess) -> None:
    """walk13 #11: "" was checked: false, "   " was checked with every item lost, stored."""
    ok(bridge.call(request("s", "snapshot", messages=MESSAGES, session_id="a")))
    for n, blank in enumerate(("", "   ", "\n\t")):
        answer = ok(bridge.call(request(f"c{n}", "check_summary", summary=blank, session_id="a")))
        assert answer == {"checked": False}
    restore = ok(bridge.call(request("r", "restore", session_id="a")))
    assert restore["checked"] is False  # no report was stored
