"""Command evidence: run a command, record what really happened as ``ev-NNNN``.

Owns: running one command line with ``bash -c`` (stdin closed, its own
process group, stdout and stderr spooled together to an anonymous temporary
file so RAM stays bounded), the timeout (the whole process group gets
SIGTERM, then SIGKILL; recorded as exit 124), the bounded digest (ANSI and
carriage-return redraws removed, then the last N characters, secrets
masked), the verdict (ok, fail, timeout, untrusted) and, through the loop
brake, refusing the Nth identical failing attempt.

Must never: hold a store transaction while the command runs, read the
whole output into memory, or let the command read our stdin.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import InputError
from ..printable import ANSI
from ..redact import mask
from ..store import EvidenceRun, Store, storable
from .fingerprint import CommandAssessment, assess, pipefail_rewrite
from .loops import LoopDecision, decide, outcome_for, record_refusal

#: Exit code recorded for a run that hit its timeout (as coreutils ``timeout`` does).
TIMEOUT_EXIT = 124
#: Seconds between SIGTERM and SIGKILL for a timed-out process group.
KILL_GRACE_S = 2.0
TIMEOUT_RANGE = (1.0, 900.0)


@dataclass(frozen=True)
class RawRun:
    exit_code: int
    duration_ms: int
    digest: str
    output_bytes: int
    timed_out: bool


@dataclass(frozen=True)
class VerifyResult:
    """A recorded run, or a refusal (``run`` is None) by the loop brake."""

    assessment: CommandAssessment
    decision: LoopDecision
    run: EvidenceRun | None

    @property
    def refused(self) -> bool:
        return self.run is None

    @property
    def ok(self) -> bool:
        return self.run is not None and self.run.verdict == "ok"

    def explanation(self) -> tuple[str, ...]:
        """``why``/``fix`` lines for a run that is not proof."""
        run = self.run
        if run is None:
            return ()
        if run.verdict == "untrusted":
            fix = (
                pipefail_rewrite(run.command)
                if any(r.startswith("pipeline") for r in run.reasons)
                else "join the commands with `&&` (or `set -e` first) and re-run"
                if any(r.startswith("list with") for r in run.reasons)
                else "drop the failure mask and re-run the command as it is"
            )
            return (*(f"why: {r}" for r in run.reasons), f"fix: {fix}; do not cite {run.id}")
        if run.verdict == "timeout":
            return ("why: the command did not finish in time; its process group was killed",)
        return ()


def strip_ansi(text: str) -> str:
    """Remove terminal escapes and keep only the final redraw of ``\\r``-updated lines."""
    text = ANSI.sub("", text).replace("\r\n", "\n")
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def digest_of(spool: IO[bytes], size: int, chars: int) -> str:
    """The last ``chars`` characters of the spooled output, cleaned and masked."""
    window = max(chars * 8, 65_536)
    spool.seek(max(0, size - window))
    text = spool.read(window).decode("utf-8", errors="replace")
    if size > window:
        # The window may start inside a secret, whose tail no mask recognises: start it
        # at the first line (or word) boundary instead.
        cut = text.find("\n")
        if cut < 0:
            cut = next((i for i, ch in enumerate(text) if ch.isspace()), len(text))
        text = text[cut + 1 :]
    # Mask before cutting, so a secret straddling the cut cannot survive half-masked.
    text = mask(strip_ansi(text).strip())
    if len(text) > chars or size > window:
        text = "…" + text[-(chars - 1) :]
    return text


def run_command(
    command: str, *, timeout_s: float, cwd: Path | None = None, digest_chars: int = 2000
) -> RawRun:
    """Run ``bash -c command`` with stdin closed; never raises for the command's own failure."""
    bash = shutil.which("bash")
    if bash is None:
        raise InputError("bash was not found on PATH", code="shell_missing")
    with tempfile.TemporaryFile() as spool:
        start = time.monotonic()
        timed_out = False
        proc = subprocess.Popen(
            [bash, "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=spool,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            start_new_session=True,
        )
        try:
            exit_code = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            timed_out = True
            _kill_group(proc)
            exit_code = TIMEOUT_EXIT
        except BaseException:
            _kill_group(proc)
            raise
        duration_ms = int((time.monotonic() - start) * 1000)
        size = spool.seek(0, os.SEEK_END)
        digest = digest_of(spool, size, digest_chars)
    # A signal death is reported the way a shell would (128 + signal number).
    if exit_code < 0:
        exit_code = 128 - exit_code
    return RawRun(exit_code, duration_ms, digest, size, timed_out)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole process group, give it a grace period, then SIGKILL what is left."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=KILL_GRACE_S)
    # Children may outlive a leader that obeyed SIGTERM; the group id still reaches them.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def clamp_timeout(seconds: float) -> float:
    low, high = TIMEOUT_RANGE
    return min(high, max(low, seconds))


def verdict_for(assessment: CommandAssessment, raw: RawRun) -> str:
    if raw.timed_out:
        return "timeout"
    if raw.exit_code != 0:
        return "fail"
    return "ok" if assessment.trusted else "untrusted"


def run_verified(
    store: Store,
    command: str,
    *,
    timeout_s: float = 180.0,
    cwd: Path | None = None,
    threshold: int = 3,
    digest_chars: int = 2000,
    session_id: str | None = None,
) -> VerifyResult:
    """Check the loop brake, run the command, record evidence; the one path behind ``verify``."""
    if not command.strip():
        raise InputError("no command to verify", code="empty_command")
    # The command runs exactly as given; what is recorded and printed is storable text.
    found = assess(storable(command))
    decision = decide(store, command, threshold=threshold, session_id=session_id)
    if not decision.allowed:
        record_refusal(store, decision, source="verify", session_id=session_id)
        return VerifyResult(found, decision, None)
    workdir = cwd or Path.cwd()
    raw = run_command(
        command, timeout_s=clamp_timeout(timeout_s), cwd=workdir, digest_chars=digest_chars
    )
    verdict = verdict_for(found, raw)
    run = store.evidence.record(
        command=storable(command),
        fingerprint=found.fingerprint,
        streak_key=found.streak_key,
        cwd=str(workdir),
        exit_code=raw.exit_code,
        duration_ms=raw.duration_ms,
        verdict=verdict,
        reasons=found.untrusted_reasons if verdict == "untrusted" else (),
        digest=raw.digest,
        output_bytes=raw.output_bytes,
        attempt_outcome=outcome_for(found, raw.exit_code),
        session_id=session_id,
    )
    return VerifyResult(found, decision, run)


__all__ = [
    "TIMEOUT_EXIT",
    "RawRun",
    "VerifyResult",
    "clamp_timeout",
    "digest_of",
    "run_command",
    "run_verified",
    "strip_ansi",
    "verdict_for",
]
