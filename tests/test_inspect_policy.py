"""Policy thresholds, review decisions, guidance bounds, provider mode and the snapshot."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from contextward.core import ContextItem, Snapshot
from contextward.inspect import (
    Candidate,
    InspectError,
    InspectionResult,
    Limits,
    Message,
    PolicyConfig,
    PolicyConfigError,
    ReviewDecision,
    build_guidance,
    decide,
    final_actions,
    inspect_messages,
    keep_unresolved,
    parse_decisions,
    snapshot_of,
)


def test_policy_rules_and_their_reasons() -> None:
    config = PolicyConfig()
    assert decide("constraint", 0.95, 0.9, config)[0] == "keep"
    assert decide("tool_output", 0.05, 0.95, config)[0] == "drop"
    assert decide("fact", 0.8, 0.7, config) == (
        "review",
        "importance 0.80 / confidence 0.70: not certain enough to decide alone",
    )
    assert decide("transient", 0.1, 0.6, config)[0] == "review"
    assert decide("fact", 0.2, 0.9, config)[0] == "drop"


def test_thresholds_come_from_a_config_mapping() -> None:
    strict = PolicyConfig.from_mapping({"keep_confidence": 0.95})
    assert decide("constraint", 0.95, 0.9, strict)[0] == "review"
    result = inspect_messages([Message("u1", "user", "Never push to main.")], config=strict)
    assert result.candidates[0].action == "review"
    with pytest.raises(PolicyConfigError) as caught:
        PolicyConfig.from_mapping({"keep_confidance": 0.9})
    assert caught.value.code == "invalid_config"
    with pytest.raises(PolicyConfigError):
        PolicyConfig(keep_importance=1.5)
    with pytest.raises(PolicyConfigError):
        PolicyConfig.from_mapping({"drop_importance": True})


def candidate(
    cid: str,
    kind: str,
    action: str,
    *,
    critical: bool = False,
    position: int = 0,
    superseded_by: str | None = None,
) -> Candidate:
    return Candidate(
        cid,
        kind,
        f"text of {cid}",
        0.9,
        0.9,
        action,
        critical,
        "r",
        ("m",),
        (),
        superseded_by,
        position,
    )  # type: ignore[arg-type]


RESULT = InspectionResult(
    (
        candidate("c1", "constraint", "keep", critical=True, position=1),
        candidate("f1", "fact", "keep", position=0),
        candidate("d0", "decision", "drop", position=2, superseded_by="d1"),
        candidate("t1", "tool_output", "drop", position=3),
        candidate("r1", "rejected", "review", critical=True, position=4),
        candidate("x1", "fact", "review", position=5),
    ),
    messages=6,
)


def test_decisions_parse_in_three_shapes_and_resolve_by_id() -> None:
    expected = (ReviewDecision("r1", "keep"), ReviewDecision("x1", "drop"))
    assert (
        parse_decisions(
            [{"candidate_id": "r1", "action": "keep"}, {"candidate_id": "x1", "action": "drop"}]
        )
        == expected
    )
    assert parse_decisions({"decisions": [d.to_dict() for d in expected]}) == expected
    assert parse_decisions({"r1": "keep", "x1": "drop"}) == expected
    actions = final_actions(RESULT, expected)
    assert actions["r1"] == "keep" and actions["x1"] == "drop" and actions["c1"] == "keep"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("keep", "invalid_decision"),
        ([{"candidate_id": "r1", "action": "maybe"}], "invalid_decision"),
        ([{"action": "keep"}], "invalid_decision"),
        ([1], "invalid_decision"),
    ],
)
def test_bad_decisions_are_rejected(data: object, code: str) -> None:
    with pytest.raises(InspectError) as caught:
        parse_decisions(data)
    assert caught.value.code == code


def test_an_unknown_candidate_id_is_an_error_not_a_guess() -> None:
    with pytest.raises(InspectError) as caught:
        final_actions(RESULT, [ReviewDecision("nope", "keep")])
    assert caught.value.code == "unknown_candidate"


def test_guidance_sections_and_order() -> None:
    guidance = build_guidance(RESULT)
    assert [c.id for c in guidance.must_preserve] == ["c1", "f1"]
    assert [c.id for c in guidance.can_discard] == ["d0", "t1"]
    assert [c.id for c in guidance.unresolved] == ["r1", "x1"]
    text = guidance.text()
    assert "- [superseded decision] text of d0" in text and "- [constraint] text of c1" in text
    reviewed = build_guidance(RESULT, [ReviewDecision("r1", "keep"), ReviewDecision("x1", "drop")])
    assert [c.id for c in reviewed.must_preserve] == [
        "c1",
        "r1",
        "f1",
    ]  # critical first, then in order
    assert "Unresolved / review carefully:\n- (none)" in reviewed.text()


def test_guidance_is_bounded_and_counts_what_it_left_out() -> None:
    guidance = build_guidance(RESULT, limits=Limits(must_preserve=1, can_discard=1, unresolved=5))
    assert [c.id for c in guidance.must_preserve] == ["c1"]
    assert guidance.omitted == {"must_preserve": 1, "can_discard": 1}
    assert "(+1 more not listed)" in guidance.text()
    tiny = build_guidance(RESULT, limits=Limits(max_chars=400))
    assert len(tiny.text()) <= 400 + 200
    data = build_guidance(RESULT).to_dict()
    assert data["omitted"] == {"must_preserve": 0, "can_discard": 0, "unresolved": 0}
    assert data["can_discard"][0] == {
        "id": "d0",
        "kind": "decision",
        "content": "text of d0",
        "critical": False,
        "superseded_by": "d1",
    }


def test_nobody_to_review_means_everything_unresolved_is_kept() -> None:
    decisions = keep_unresolved(RESULT)
    assert decisions == (ReviewDecision("r1", "keep"), ReviewDecision("x1", "keep"))
    snap = snapshot_of(RESULT)
    assert [i.id for i in snap.items] == ["c1", "f1", "r1", "x1"]
    assert [i.id for i in snapshot_of(RESULT, keep_unresolved=False).items] == ["c1", "f1"]


def test_snapshot_takes_extra_store_items_later() -> None:
    extra = [
        ContextItem("contract-1", "constraint", "Never rotate keys on Fridays.", True),
        {"id": "c1", "kind": "fact", "content": "dup"},
    ]
    snap = snapshot_of(RESULT, [ReviewDecision("x1", "drop")], extra=extra)
    assert [i.id for i in snap.items] == ["c1", "f1", "r1", "contract-1"]
    assert Snapshot.from_dict(snap.to_dict()) == snap


def test_secrets_are_masked_in_json_guidance_and_snapshot() -> None:
    secret = "ghp_" + "a" * 36
    result = inspect_messages(
        [Message("u1", "user", f"Never commit the token {secret} to the repo.")]
    )
    dumped = str(result.to_dict()) + build_guidance(result).text() + snapshot_of(result).to_json()
    assert secret not in dumped and "[secret:github-token]" in dumped


class Provider:
    def __init__(self, output: object = None, error: Exception | None = None) -> None:
        self.output, self.error = output, error
        self.seen: list[Message] = []

    def propose(self, messages: Sequence[Message]) -> object:
        self.seen = list(messages)
        if self.error:
            raise self.error
        return self.output


MESSAGES = [
    Message("u1", "user", "We ship on Fridays. The mobile app pins API v1."),
    Message("a1", "assistant", "Let me check."),
]


def test_provider_proposals_must_be_found_verbatim_and_are_re_decided() -> None:
    provider = Provider(
        [
            {
                "kind": "constraint",
                "content": "The mobile app pins API v1.",
                "source": "u1",
                "confidence": 5,
            },
            {"kind": "decision", "content": "We will rewrite everything in Rust."},  # invented
            {"kind": "goal", "content": "We ship on Fridays.", "source": "a1"},  # wrong source
            {"kind": "nonsense", "content": "We ship on Fridays."},
            "not an object",
        ]
    )
    result = inspect_messages(MESSAGES, provider=provider)
    assert provider.seen == MESSAGES
    assert (result.mode, result.provider_rejected, result.fallback_reason) == ("provider", 4, None)
    proposed = [c for c in result.candidates if c.content == "The mobile app pins API v1."]
    assert len(proposed) == 1 and proposed[0].confidence <= 0.9 and proposed[0].sources == ("u1",)
    assert all("Rust" not in c.content for c in result.candidates)


@pytest.mark.parametrize(
    ("provider", "reason"),
    [
        (Provider(error=TimeoutError()), "provider raised TimeoutError"),
        (Provider({"candidates": "nope"}), "provider output is not a list of candidates"),
        (Provider(42), "provider output is not a list of candidates"),
    ],
)
def test_a_failing_provider_falls_back_to_rules_with_the_reason(
    provider: Provider, reason: str
) -> None:
    result = inspect_messages(MESSAGES, provider=provider)
    rules = inspect_messages(MESSAGES)
    assert (result.mode, result.fallback_reason) == ("rules", reason)
    assert result.candidates == rules.candidates
