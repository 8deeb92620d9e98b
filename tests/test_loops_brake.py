"""The loop brake: streaks, what resets them, and the hook entry point."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextward.guard.evidence import run_verified
from contextward.guard.loops import (
    NUDGE,
    Streak,
    check,
    decide,
    open_loops,
    record_outcome,
    reset_loops,
    streak_failures,
)
from contextward.store import Store

#: The end of every refusal: how the owner, and only the owner, clears the streak.
CLEAR_MAKE_TEST = (
    "; if a fix should be checked with it, the owner (not the agent) clears the streak:"
    " `contextward loops --reset -- 'make test'`"
)


@pytest.fixture
def store() -> Store:
    return Store.memory()


def test_third_identical_failure_is_refused(store: Store, tmp_path: Path) -> None:
    first = run_verified(store, "false", cwd=tmp_path)
    second = run_verified(store, "false ;", cwd=tmp_path)
    third = run_verified(store, "false", cwd=tmp_path)
    assert first.run is not None and second.run is not None
    assert third.refused and third.run is None
    assert third.decision.prior_failures == 2
    assert "failed 2 time(s)" in third.decision.reason and NUDGE in third.decision.reason
    assert store.evidence.count() == 2  # a refusal adds no evidence id
    # The refusal itself does not lengthen the streak.
    assert streak_failures(store, "false") == 2


@pytest.mark.parametrize(
    ("failures", "threshold", "reason"),
    [
        (
            2,
            3,
            "refused: `make test` failed 2 time(s) in a row; the loop brake refuses a command"
            " after 2 identical failures; " + NUDGE + CLEAR_MAKE_TEST,
        ),
        # Three failures a host reported with no attempt in between: no "attempt 4 of 3".
        (
            3,
            3,
            "refused: `make test` failed 3 time(s) in a row; the loop brake refuses a command"
            " after 2 identical failures; " + NUDGE + CLEAR_MAKE_TEST,
        ),
        (
            1,
            2,
            "refused: `make test` failed 1 time(s) in a row; the loop brake refuses a command"
            " after 1 identical failure; " + NUDGE + CLEAR_MAKE_TEST,
        ),
        (
            1,
            3,
            "`make test` failed 1 time(s) in a row; the attempt after 2 identical failures is refused",
        ),
    ],
)
def test_the_reason_states_the_count_and_the_rule_consistently(
    store: Store, failures: int, threshold: int, reason: str
) -> None:
    for _ in range(failures):
        record_outcome(store, "make test", 1)
    assert decide(store, "make test", threshold=threshold).reason == reason


def test_masked_exit_zero_does_not_reset_the_streak(store: Store, tmp_path: Path) -> None:
    run_verified(store, "false", cwd=tmp_path)
    masked = run_verified(store, "false || true", cwd=tmp_path)
    assert masked.run is not None and masked.run.verdict == "untrusted"
    assert decide(store, "false || true").allowed is False
    # The command as the fix asks for it counts real failures: one so far.
    assert decide(store, "false").prior_failures == 1


def test_the_fix_an_unproven_run_asks_for_is_never_refused_for_exits_of_0(
    store: Store, tmp_path: Path
) -> None:
    """Forced fix: "drop the failure mask and re-run" was refused after two masked runs
    that exited 0 (a walkthrough finding)."""
    for _ in range(2):
        run_verified(store, "true || true", cwd=tmp_path)
    assert not decide(store, "true || true").allowed  # the mask again: a loop
    assert decide(store, "true").allowed
    run_verified(store, "false", cwd=tmp_path)
    run_verified(store, "false", cwd=tmp_path)
    assert not decide(store, "false").allowed  # real failures still brake


def test_the_owner_resets_a_streak_in_every_session(store: Store) -> None:
    for session in ("a", "b"):
        record_outcome(store, "make test", 1, session_id=session)
        record_outcome(store, "make test", 1, session_id=session)
    assert not decide(store, "make test", session_id="a").allowed
    assert reset_loops(store, ("no such command",)) == []  # nothing to clear, none claimed
    assert reset_loops(store, ("make test ;",)) == ["make test"]
    for session in ("a", "b", None):
        assert decide(store, "make test", session_id=session).prior_failures == 0
    record_outcome(store, "pytest", 1)
    assert reset_loops(store) == ["pytest"]  # every failing one
    assert open_loops(store) == []


def test_real_success_resets_the_streak(store: Store) -> None:
    record_outcome(store, "make test", 2)
    record_outcome(store, "make test", 0)
    assert decide(store, "make test").prior_failures == 0
    record_outcome(store, "make test", 1)
    decision = decide(store, "make test")
    assert decision.allowed and decision.prior_failures == 1


def test_unproven_pipeline_success_counts_as_an_attempt(store: Store) -> None:
    record_outcome(store, "pytest | tee log", 1)
    record_outcome(store, "pytest | tee log", 0)
    assert not decide(store, "pytest | tee log").allowed


def test_the_refusal_of_unproven_runs_states_the_rule_in_what_it_counted(store: Store) -> None:
    for _ in range(2):
        record_outcome(store, "npm test | tee log", 0)
    assert decide(store, "npm test | tee log").reason == (
        "refused: `npm test | tee log` could not be proven 2 time(s) in a row; the loop brake"
        " refuses a command after 2 identical runs that could not be proven; " + NUDGE + "; if a"
        " fix should be checked with it, the owner (not the agent) clears the streak:"
        " `contextward loops --reset -- 'npm test | tee log'`"
    )
    record_outcome(store, "npm test | tee log", 1)
    assert decide(store, "npm test | tee log", threshold=5).reason == (
        "`npm test | tee log` failed 1 time(s) and could not be proven 2 time(s) in a row; the"
        " attempt after 4 identical runs that failed or could not be proven is refused"
    )


def test_an_open_loop_shows_the_command_as_run_and_keeps_its_key(
    store: Store, tmp_path: Path
) -> None:
    for _ in range(2):
        assert run_verified(store, "ls; echo done", cwd=tmp_path).run is not None
    (loop,) = open_loops(store)
    assert (loop.streak_key, loop.command, loop.failures, loop.counted) == (
        "ls",
        "ls; echo done",
        2,
        Streak(failed=0, unproven=2),
    )
    assert loop.describe() == "could not be proven 2 time(s)"
    refused = decide(store, "ls; echo done")
    assert (refused.allowed, refused.streak_key, refused.command) == (False, "ls", "ls; echo done")
    assert refused.reason.startswith("refused: `ls; echo done` could not be proven 2 time(s)")


def test_unproven_test_runs_are_refused_as_unproven_not_as_failures(store: Store) -> None:
    record_outcome(store, "pytest | tee log", 0)
    record_outcome(store, "pytest | tee log", 0)
    decision = decide(store, "pytest | tee log")
    assert not decision.allowed
    assert decision.reason.startswith("refused: `pytest | tee log` could not be proven 2 time(s)")
    assert "failed" not in decision.reason
    record_outcome(store, "pytest | tee log", 1)
    assert (
        "failed 1 time(s) and could not be proven 2 time(s)"
        in decide(store, "pytest | tee log", threshold=5).reason
    )


@pytest.mark.parametrize(
    "command", ["git status; git diff", "git log --oneline | head -5", "ps aux | grep python"]
)
def test_a_command_that_is_no_test_run_and_exits_0_never_counts(store: Store, command: str) -> None:
    for _ in range(3):
        record_outcome(store, command, 0)
    decision = decide(store, command)
    assert (decision.allowed, decision.prior_failures, decision.reason) == (True, 0, "")
    assert open_loops(store) == []


def test_threshold_is_configurable(store: Store) -> None:
    for _ in range(3):
        record_outcome(store, "cargo build", 101)
    assert decide(store, "cargo build", threshold=5).allowed
    assert not decide(store, "cargo build", threshold=4).allowed
    assert not decide(store, "cargo build", threshold=1).allowed


def test_different_command_is_not_braked(store: Store) -> None:
    record_outcome(store, "pytest tests/a.py", 1)
    record_outcome(store, "pytest tests/a.py", 1)
    assert decide(store, "pytest tests/b.py").allowed


def test_open_loops_lists_failing_commands(store: Store) -> None:
    record_outcome(store, "a", 1)
    record_outcome(store, "b", 1)
    record_outcome(store, "b", 1)
    record_outcome(store, "c", 0)
    loops = open_loops(store, threshold=3)
    assert [(loop.streak_key, loop.failures, loop.blocked) for loop in loops] == [
        ("b", 2, True),
        ("a", 1, False),
    ]


def test_hook_check_without_a_store_allows_and_creates_nothing(tmp_path: Path) -> None:
    decision = check("rm -rf build", cwd=tmp_path, env={"CONTEXTWARD_HOME": str(tmp_path / "h")})
    assert decision.allowed and decision.prior_failures == 0
    assert not (tmp_path / ".contextward").exists()


def test_hook_check_reads_config_and_store(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        record_outcome(store, "npm test", 1)
    (tmp_path / ".contextward" / "config.toml").write_text("loop_block_after = 2\n")
    env = {"CONTEXTWARD_HOME": str(tmp_path / "h")}
    decision = check("npm test || true", cwd=tmp_path, env=env)
    assert not decision.allowed and decision.threshold == 2


def test_commands_that_differ_only_in_a_secret_are_different_streaks(store: Store) -> None:
    def deploy(letter: str) -> str:
        return f"GH_TOKEN=ghp_{letter * 36} ./deploy.sh"

    record_outcome(store, deploy("A"), 1)
    record_outcome(store, deploy("B"), 1)
    assert decide(store, deploy("C")).allowed  # never run: no streak
    record_outcome(store, deploy("A"), 1)
    refused = decide(store, deploy("A"))
    assert not refused.allowed and refused.prior_failures == 2
    # Shown masked, with the reset that needs no command (the masked one would match none).
    assert refused.reason.startswith("refused: `GH_TOKEN=[secret:github-token] ./deploy.sh`")
    assert refused.reason.endswith("clears the streak: `contextward loops --reset`")
    assert [(loop.command, loop.failures) for loop in open_loops(store)] == [
        ("GH_TOKEN=[secret:github-token] ./deploy.sh", 2),
        ("GH_TOKEN=[secret:github-token] ./deploy.sh", 1),
    ]
    assert not any("ghp_" in str(tuple(row)) for row in store.query("SELECT * FROM attempts"))
    assert len(reset_loops(store)) == 2 and decide(store, deploy("A")).allowed


def test_a_requoted_command_is_the_same_streak_and_the_owner_is_told_how_to_clear_it(
    store: Store,
) -> None:
    for _ in range(2):
        record_outcome(store, "pytest tests/test_auth.py", 1)
    refused = decide(store, "pytest 'tests/test_auth.py'")
    assert not refused.allowed and refused.prior_failures == 2
    assert refused.reason.endswith(
        "the owner (not the agent) clears the streak:"
        " `contextward loops --reset -- 'pytest tests/test_auth.py'`"
    )
    # What the message says works: the quoted command is one argument, joined as is.
    assert reset_loops(store, ("pytest tests/test_auth.py",)) == ["pytest tests/test_auth.py"]
    assert decide(store, 'pytest "tests/test_auth.py"').allowed
