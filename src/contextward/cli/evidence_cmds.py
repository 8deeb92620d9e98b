"""``contextward verify | evidence | loops``: command evidence and the loop brake.

``verify`` exits 0 only for a proven success (``ok``); a failure, a timeout,
an UNTRUSTED exit 0 (pipeline without pipefail, failure mask) or a refusal
by the loop brake exits 1; no command or an unusable store exits 2.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..guard.evidence import TIMEOUT_RANGE, VerifyResult, run_verified
from ..guard.loops import NUDGE, open_loops, reset_loops
from ..printable import counted
from ..redact import mask
from ..store import EvidenceRun, session_id_from_env
from ..store.text import shown_key
from ._io import BadInput, echo_json, say
from ._store import config, errors, read_store, write_store


def _indent(text: str) -> str:
    return "\n".join(f"  {line}" for line in text.splitlines()) if text else "  (no output)"


@click.command("verify", context_settings={"ignore_unknown_options": True})
@click.option(
    "--timeout",
    "timeout_s",
    type=float,
    default=None,
    metavar="S",
    help="Seconds before the process group is killed (default from config, 1–900).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the run as JSON.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def verify_command(timeout_s: float | None, as_json: bool, command: tuple[str, ...]) -> None:
    """Run CMD (joined with spaces, run by bash -c) and record it as evidence ev-NNNN.

    Example: contextward verify -- pytest -q
    """
    cfg = config()
    line = " ".join(command)
    if not line.strip():
        raise BadInput("no command to verify (usage: contextward verify -- CMD...)")
    low, high = TIMEOUT_RANGE
    if timeout_s is not None and not low <= timeout_s <= high:
        raise BadInput(f"--timeout must be between {low:g} and {high:g} seconds")
    with write_store(cfg) as store, errors():
        result = run_verified(
            store,
            line,
            timeout_s=timeout_s if timeout_s is not None else cfg.verify_timeout_s,
            threshold=cfg.loop_block_after,
            digest_chars=cfg.verify_digest_chars,
            session_id=session_id_from_env(),
        )
    if as_json:
        echo_json(_result_json(result))
    else:
        _print_result(result)
    sys.exit(0 if result.ok else 1)


def _result_json(result: VerifyResult) -> dict[str, Any]:
    return {
        "refused": result.refused,
        "prior_failures": result.decision.prior_failures,
        "reason": result.decision.reason,
        "run": None if result.run is None else result.run.to_dict(),
    }


def _print_result(result: VerifyResult) -> None:
    run = result.run
    if run is None:
        decision = result.decision
        say(
            f"contextward verify refused · `{decision.command}` · "
            f"{decision.counted.describe()} in a row"
        )
        say(f"Nudge: {NUDGE}.")
        return
    say(f"contextward verify {run.id} · exit {run.exit_code} · {run.label} · {run.duration_ms}ms")
    say(f"cmd: {run.command}")
    say("digest:")
    say(_indent(run.digest))
    for line in result.explanation():
        say(line)
    if run.verdict == "ok":
        say(f"Nudge: cite {run.id} when claiming success.")
    elif run.verdict == "untrusted":
        say("Nudge: this run is recorded, but its exit 0 is not evidence of success.")
    else:
        say("Nudge: read the digest and change something before re-running.")


@click.command("evidence")
@click.option("--limit", default=5, show_default=True, type=click.IntRange(1, 200))
@click.option("--id", "ev_id", default=None, metavar="ev-NNNN", help="Show one run in full.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def evidence_command(limit: int, ev_id: str | None, as_json: bool) -> None:
    """Recent verification runs, newest first (or one run in full with --id)."""
    runs: list[EvidenceRun] = []
    with read_store(config()) as store:
        if ev_id is not None:
            run = None if store is None else store.evidence.get(ev_id)
            if run is None:
                raise BadInput(f"no evidence run {ev_id}")
            runs = [run]
        elif store is not None:
            runs = store.evidence.list(limit=limit)
    if as_json:
        echo_json([r.to_dict() for r in runs])
        return
    if not runs:
        say("evidence: no runs yet")
    for run in runs:
        say(f"{run.id} · exit {run.exit_code} · {run.label} · {run.duration_ms}ms · {run.command}")
        if ev_id is not None:
            say(f"at: {run.created_at} · cwd: {run.cwd} · output {run.output_bytes} bytes")
            for reason in run.reasons:
                say(f"why: {reason}")
            say("digest:")
            say(_indent(run.digest))
        elif run.verdict != "ok" and run.digest:
            say(f"  last line: {run.digest.splitlines()[-1][:160]}")


@click.command("loops")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--reset",
    is_flag=True,
    help="Clear the streak of COMMAND (default: every failing command), in every session.",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def loops_command(as_json: bool, reset: bool, command: tuple[str, ...]) -> None:
    """Commands failing in a row; exit 1 when the next identical attempt would be refused.

    With --reset, the owner clears a streak the brake holds (after fixing what made the
    command fail): `contextward loops --reset -- npm test`.
    """
    cfg = config()
    if command and not reset:
        raise BadInput("a command is only taken with --reset (usage: loops --reset -- CMD...)")
    if reset:
        line = " ".join(command)
        if command and not line.strip():
            raise BadInput("no command to reset (usage: contextward loops --reset -- CMD...)")
        with write_store(cfg) as store, errors():
            cleared = reset_loops(store, (line,) if command else (), threshold=cfg.loop_block_after)
        if as_json:
            echo_json({"reset": [shown_key(mask(key)) for key in cleared]})
        else:
            say(f"loops: cleared {counted(len(cleared), 'streak')}")
            for key in cleared:
                say(f"  `{shown_key(mask(key))}`")
        return
    loops = []
    with read_store(cfg) as store:
        if store is not None:
            loops = open_loops(store, threshold=cfg.loop_block_after)
    blocked = any(loop.blocked for loop in loops)
    if as_json:
        echo_json([loop.to_dict() for loop in loops])
    elif not loops:
        say("loops: none")
    else:
        say(
            f"loops: {counted(len(loops), 'open streak')}"
            f" (refused at attempt {cfg.loop_block_after})"
        )
        for loop in loops:
            state = "BLOCKED" if loop.blocked else "open"
            say(f"  {state} `{loop.command}` · {loop.describe()} in a row")
        if blocked:
            say(f"Nudge: {NUDGE}.")
    sys.exit(1 if blocked else 0)


commands = (evidence_command, loops_command, verify_command)

__all__ = ["commands"]
