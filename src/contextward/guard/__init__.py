"""Guardrails: command evidence, loop brake and fingerprints (and, from other modules,
risky commands, scope audit, orientation, preflight, budget).

The public surface is the evidence runner, the loop brake, risky commands,
the scope audit, orientation, preflight, budget and intent.
``fingerprint`` and ``preflight`` name submodules (``contextward.guard.fingerprint.fingerprint``
is the function), so those two functions are not re-exported here.
Names load lazily, so a hook that needs only ``guard.loops`` does not pay for
the runner's imports (subprocess, tempfile).

Must never: import ``recall``, ``brief``, ``hosts`` or ``cli``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .budget import Budget, session_budget
    from .evidence import TIMEOUT_EXIT, VerifyResult, run_command, run_verified
    from .fingerprint import CommandAssessment, assess, shell_tokens, streak_key
    from .intent import IntentView, owner_intent
    from .loops import LoopDecision, LoopStatus, check, decide, open_loops, record_outcome
    from .orientation import Orientation, orient
    from .preflight import Preflight
    from .risky import RiskVerdict, assess_command
    from .scope import ScopeReport, ScopeThresholds, audit_scope

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
    "Budget": "budget",
    "session_budget": "budget",
    "IntentView": "intent",
    "owner_intent": "intent",
    "Orientation": "orientation",
    "orient": "orientation",
    "Preflight": "preflight",
    "RiskVerdict": "risky",
    "assess_command": "risky",
    "ScopeReport": "scope",
    "ScopeThresholds": "scope",
    "audit_scope": "scope",
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
    "Budget",
    "CommandAssessment",
    "IntentView",
    "LoopDecision",
    "LoopStatus",
    "Orientation",
    "Preflight",
    "RiskVerdict",
    "ScopeReport",
    "ScopeThresholds",
    "VerifyResult",
    "assess",
    "assess_command",
    "audit_scope",
    "check",
    "decide",
    "open_loops",
    "orient",
    "owner_intent",
    "record_outcome",
    "run_command",
    "run_verified",
    "session_budget",
    "shell_tokens",
    "streak_key",
]
