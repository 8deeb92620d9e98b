"""The loop brake: refuse the Nth identical failing attempt of a command.

Owns: the streak policy. Attempts are keyed by ``fingerprint.streak_key``
(so ``npm test || true`` and ``npm test;`` share a streak with ``npm
test``). A failure, or an *unproven* exit 0 (masked, unchecked pipeline) of
a test or verify run, extends the streak (an exit 0 of any other command is
no failure, and a refusal never calls it one); only a real, proven success resets it, or the owner
(``contextward loops --reset``); a refused attempt did not run and changes
nothing. With ``threshold`` N, a command whose streak already holds N-1
failures is refused, with that count and a nudge to change approach. The
command without its mask is what an unproven run's fix asks for: its own
attempt counts real failures only, so it is never refused for runs that
exited 0.

``check(command)`` is the hook entry point: it reads the project's config
and store and never creates the store.

Must never: run the command, or count one attempt twice (a verify run writes
its attempt in the same transaction as its evidence row).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError
from ..redact import mask
from ..store import Attempt, Store, project_root, storable
from ..store.config import load_config
from ..store.text import shown_key
from .fingerprint import CommandAssessment, assess, is_test_run, shown_command

#: How many attempts of one key are scanned for the current streak.
SCAN_LIMIT = 200
NUDGE = "change the approach or gather new information; do not re-run it unchanged"


@dataclass(frozen=True)
class Streak:
    """The attempts of one key since its last real success: ``failed`` (non-zero exit)
    and ``unproven`` (a test or verify run whose exit 0 could not be proven)."""

    failed: int = 0
    unproven: int = 0

    @property
    def total(self) -> int:
        return self.failed + self.unproven

    def describe(self) -> str:
        """ "failed 2 time(s)", "could not be proven 2 time(s)", or both; never "failed"
        for a run that exited 0."""
        parts = [f"failed {self.failed} time(s)"] if self.failed else []
        if self.unproven:
            parts.append(f"could not be proven {self.unproven} time(s)")
        return " and ".join(parts)


@dataclass(frozen=True)
class LoopDecision:
    """Allow or refuse one attempt. ``reason`` is empty for a command with no streak."""

    allowed: bool
    fingerprint: str
    streak_key: str
    prior_failures: int
    threshold: int
    reason: str = ""
    #: What ``prior_failures`` counted: failed runs and unproven exits 0.
    counted: Streak = Streak()

    @property
    def command(self) -> str:
        """The command as the agent ran it, masked (``ls; echo done``, whose key is ``ls``)."""
        return shown_command(mask(self.fingerprint))


@dataclass(frozen=True)
class LoopStatus:
    """One command's current streak (for ``contextward loops`` and the brief): ``failures``
    attempts in all, ``counted`` says which failed and which could not be proven."""

    streak_key: str
    failures: int
    threshold: int
    last_at: str
    #: The command as the agent last ran it under this key, masked: ``ls; echo done`` for
    #: the key ``ls`` (a trailing ``; echo`` masks nothing the key must keep apart).
    ran: str = ""
    counted: Streak = Streak()

    @property
    def command(self) -> str:
        """The command as shown: as the agent ran it, masked, else the key without the
        digest that keeps secrets apart."""
        return shown_command(self.ran) if self.ran else shown_key(self.streak_key)

    def describe(self) -> str:
        """ "failed 2 time(s)", "could not be proven 2 time(s)", or both (as counted)."""
        return self.counted.describe() or f"{self.failures} time(s)"

    @property
    def blocked(self) -> bool:
        """True when the next identical attempt would be refused."""
        return self.failures >= self.threshold - 1

    def to_dict(self) -> dict[str, object]:
        """The streak for JSON (``loops --json``, MCP): the total ``failures`` with what it
        counted (``failed``, ``unproven``, and ``streak`` in words, as the refusal says)."""
        return {
            "command": self.command,
            "streak_key": shown_key(mask(self.streak_key)),
            "failures": self.failures,
            "failed": self.counted.failed,
            "unproven": self.counted.unproven,
            "streak": self.describe(),
            "threshold": self.threshold,
            "blocked": self.blocked,
            "last_at": self.last_at,
        }


def outcome_for(assessment: CommandAssessment, exit_code: int) -> str:
    """``fail`` for non-zero, ``unproven`` for an exit 0 that proves nothing, else ``success``."""
    if exit_code != 0:
        return "fail"
    return "success" if assessment.trusted else "unproven"


def streak(
    store: Store, key: str, *, session_id: str | None = None, proven: bool = False
) -> Streak:
    """Failed or unproven attempts of ``key`` since its last real success or reset; with
    ``proven`` (for an attempt that itself proves what it claims), not those that exited
    0 under a mask. Runs whose exit no one saw count only beside a failure or a mask."""
    failed = masked = unseen = 0
    test_run: bool | None = None  # read from the key only when a row needs it
    for attempt in store.attempts.for_key(key, limit=SCAN_LIMIT, session_id=session_id):
        if attempt.outcome == "success":
            break
        if attempt.outcome == "fail":
            failed += 1
        elif attempt.outcome == "unproven" and attempt.exit_code == 0:
            # Only a test or verify run claims a success that must be proven; any other
            # command that exited 0 did not fail: "git status; git diff" is no loop.
            if not proven and attempt.source != EVIDENCE_SOURCE and test_run is None:
                test_run = is_test_run(key)
            masked += 0 if proven or not (attempt.source == EVIDENCE_SOURCE or test_run) else 1
        elif attempt.outcome == "unproven":
            unseen += 1
    # A run whose exit no one saw (a host that did not report it) extends a failing streak
    # but never starts one: "git status" three times is no loop.
    return Streak(failed, masked + (unseen if failed or masked else 0))


def streak_failures(
    store: Store, key: str, *, session_id: str | None = None, proven: bool = False
) -> int:
    """How many attempts :func:`streak` counts against ``key``."""
    return streak(store, key, session_id=session_id, proven=proven).total


#: The source of the attempt an evidence row (``verify``, a host's test run) writes.
EVIDENCE_SOURCE = "verify"


#: The source of an attempt row that is the owner clearing a streak, not a run.
RESET = "reset"


def reset_loops(store: Store, commands: tuple[str, ...] = (), *, threshold: int = 3) -> list[str]:
    """Clear the streaks of ``commands`` (default: every failing one), in every session; the
    streak keys cleared (a command with no streak is none). Owner-only: no tool the agent
    calls offers it."""
    keys = list(
        dict.fromkeys(
            [
                key
                for key in (assess(storable(command)).streak_key for command in commands)
                if streak_failures(store, key)
            ]
            if commands
            else [loop.streak_key for loop in open_loops(store, threshold=threshold, limit=200)]
        )
    )
    for key in keys:
        store.attempts.record(streak_key=key, fingerprint=key, outcome="success", source=RESET)
    return keys


def decide(
    store: Store, command: str, *, threshold: int = 3, session_id: str | None = None
) -> LoopDecision:
    """Whether ``command`` may run now, given its streak in ``store``."""
    found = assess(storable(command))
    counted = streak(store, found.streak_key, session_id=session_id, proven=found.trusted)
    failures = counted.total
    # The reason is shown to the model and the user: the command as the agent ran it,
    # never its secrets.
    shown = shown_command(mask(found.fingerprint)) if failures else ""
    if failures >= max(1, threshold) - 1 and failures > 0:
        return LoopDecision(
            False,
            found.fingerprint,
            found.streak_key,
            failures,
            threshold,
            # The streak can pass the limit (failures a host reported with no attempt in
            # between), so say the rule, not an "attempt N of M" that no longer adds up.
            f"refused: `{shown}` {counted.describe()} in a row; the loop brake refuses"
            f" a command after {refused_after(max(1, threshold) - 1, counted)}; {NUDGE};"
            f" {_clearing(mask(found.streak_key))}",
            counted,
        )
    reason = (
        f"`{shown}` {counted.describe()} in a row; the attempt after "
        f"{refused_after(threshold - 1, counted)} is refused"
        if failures
        else ""
    )
    return LoopDecision(
        True, found.fingerprint, found.streak_key, failures, threshold, reason, counted
    )


def _clearing(shown: str) -> str:
    """How the streak ends, for the agent to pass on: only the owner clears it (a refused
    run cannot succeed). The command is one quoted argument, so the owner's shell hands
    ``loops --reset`` the key as it is; one with a secret is shown masked, so it names none."""
    how = (
        "`contextward loops --reset`"
        if "[secret:" in shown
        else f"`contextward loops --reset -- {shlex.quote(shown)}`"
    )
    return f"if a fix should be checked with it, the owner (not the agent) clears the streak: {how}"


def refused_after(n: int, counted: Streak) -> str:
    """The brake's rule in the words of what it counted: "2 identical failures" only when
    every run counted failed; an exit 0 that could not be proven is no failure."""
    if not counted.unproven:
        return f"{n} identical failure" + ("" if n == 1 else "s")
    what = "could not be proven" if not counted.failed else "failed or could not be proven"
    return f"{n} identical run{'' if n == 1 else 's'} that {what}"


def record_refusal(
    store: Store, decision: LoopDecision, *, source: str, session_id: str | None = None
) -> Attempt:
    return store.attempts.record(
        streak_key=decision.streak_key,
        fingerprint=decision.fingerprint,
        outcome="refused",
        source=source,
        session_id=session_id,
    )


def record_outcome(
    store: Store,
    command: str,
    exit_code: int | None,
    *,
    source: str = "hook",
    session_id: str | None = None,
) -> Attempt:
    """Record a command outcome observed outside ``verify`` (e.g. a host's PostToolUse);
    ``exit_code`` None: the command's exit was never seen (started in the background)."""
    found = assess(storable(command))
    return store.attempts.record(
        streak_key=found.streak_key,
        fingerprint=found.fingerprint,
        outcome="unproven" if exit_code is None else outcome_for(found, exit_code),
        source=source,
        exit_code=exit_code,
        session_id=session_id,
    )


def open_loops(
    store: Store, *, threshold: int = 3, session_id: str | None = None, limit: int = 20
) -> list[LoopStatus]:
    """Commands whose latest attempts are failing, most recent first."""
    out: list[LoopStatus] = []
    for key in store.attempts.recent_keys(limit=limit * 5, session_id=session_id):
        attempts = store.attempts.for_key(key, limit=1, session_id=session_id)
        counted = streak(store, key, session_id=session_id)
        if counted.total and attempts:
            last = attempts[0]
            out.append(
                LoopStatus(
                    key, counted.total, threshold, last.created_at, last.fingerprint, counted
                )
            )
        if len(out) >= limit:
            break
    return out


def check(
    command: str,
    *,
    cwd: Path | None = None,
    session_id: str | None = None,
    env: Mapping[str, str] | None = None,
    prepare: Callable[[Store], object] | None = None,
) -> LoopDecision:
    """Hook entry point: allow or refuse ``command`` in the project around ``cwd``.

    Reads ``loop_block_after`` from the config layers. With no store yet there is
    no streak, so the command is allowed (the store is not created here).
    ``prepare`` runs on the opened store first (the bridge records spooled tool calls).
    """
    root = project_root(cwd)
    threshold = load_config(root, env=env).loop_block_after
    try:
        with Store.open(root, create=False) as store:
            if prepare is not None:
                prepare(store)
            return decide(store, command, threshold=threshold, session_id=session_id)
    except StoreError as exc:
        if exc.code != "store_missing":
            raise
    found = assess(command)
    return LoopDecision(True, found.fingerprint, found.streak_key, 0, threshold)


__all__ = [
    "NUDGE",
    "LoopDecision",
    "LoopStatus",
    "Streak",
    "check",
    "decide",
    "open_loops",
    "outcome_for",
    "record_outcome",
    "record_refusal",
    "refused_after",
    "streak",
    "streak_failures",
]
