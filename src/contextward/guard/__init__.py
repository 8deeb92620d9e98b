"""Guardrails: command evidence, loop brake and fingerprints (and, from other modules,
risky commands, scope audit, orientation, preflight, budget).

This package's public surface is the evidence runner and the loop brake;
import the other guard modules directly (``contextward.guard.risky`` …).
``fingerprint`` names the submodule (``contextward.guard.fingerprint.fingerprint``
is the function), so it is not re-exported here.
Names load lazily, so a hook that needs only ``guard.loops`` does not pay for
the runner's imports (subprocess, tempfile).

Must never: import ``recall``, ``brief``, ``hosts`` or ``cli``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .evidence import TIMEOUT_EXIT, VerifyResult, run_command, run_verified
    from .fingerprint import CommandAssessment, assess, shell_tokens, streak_key
    from .loops import LoopDecision, LoopStatus, check, decide, open_loops, record_outcome

_HOMES = {
    "TIMEOUT_EXIT": "evidence",
    "VerifyResult": "evidence",
    "run_command": "evidence",
    "run_verified": "evidence",
    "CommandAssessment": "fingerprint",
    "assess": "fingerprint",
    "shell_tokens": "fingerprint",
    "streak_key": "fingerprint",
    "LoopDecision": "loops",
    "LoopStatus": "loops",
    "check": "loops",
    "decide": "loops",
    "open_loops": "loops",
    "record_outcome": "loops",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "TIMEOUT_EXIT",
    "CommandAssessment",
    "LoopDecision",
    "LoopStatus",
    "VerifyResult",
    "assess",
    "check",
    "decide",
    "open_loops",
    "record_outcome",
    "run_command",
    "run_verified",
    "shell_tokens",
    "streak_key",
]
