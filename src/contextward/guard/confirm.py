"""Risky commands on hosts that cannot ask the owner: refused once per session.

Claude Code and Codex put a risky command to the owner (PreToolUse ``ask``), and so
does pi when it has a UI (the bridge's ``loop_check`` with ``can_ask``). Gemini CLI,
OpenCode and pi without a UI can only let a tool call through or block it. There the first
attempt of a risky command in a session is blocked, with a reason telling the agent
to ask the owner and run the same command again if they agree; the identical command
is then let through. A permanent refusal would leave the owner no way to approve it.

Also owns the question itself, for every host: why a command should be put to the
owner (``question``). Stores nothing of the command but a hash of its fingerprint (a
command may hold a secret: then the hash is keyed with the store's salt). Must never decide what is risky: ``guard.risky`` owns that.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from ..redact import mask
from .fingerprint import fingerprint
from .risky import assess_command

if TYPE_CHECKING:
    from ..store import Store

#: The event kind of a risky command refused once.
REFUSED_EVENT = "risky_refused"
#: What the agent is told besides why the command is risky.
ASK_FIRST = "Ask the owner first; if they agree, run the same command again"
#: Why a command that could not be fully analysed is put to the owner.
UNANALYSED = (
    "contextward: this command could not be fully analysed (too long, nested too deeply "
    "or unbalanced quotes); check it before it runs"
)


def question(command: str) -> str:
    """Why ``command`` should be put to the owner before it runs, or "" when it need not:
    a risky command, or one padded past the analysis cap or nested deeper than followed
    (which must not turn a destructive command into a silent one)."""
    verdict = assess_command(command)
    if verdict.risky:
        reasons = "; ".join(dict.fromkeys(f.reason for f in verdict.findings))
        return f"contextward: risky command: {reasons}"
    return "" if verdict.exact else UNANALYSED


def first_attempt(store: Store, command: str, *, session_id: str | None) -> bool:
    """Whether this is the session's first attempt of ``command`` (recorded now): refuse
    it. False when it was refused before, and the agent comes back with the same command."""
    shape = fingerprint(command)
    text = shape.encode("utf-8", "surrogatepass")
    # A command holding a secret is keyed with the store's salt, as a streak key is: an
    # unsalted digest of a known command shape could be brute-forced into a short secret.
    if mask(shape) == shape:
        digest = hashlib.sha256(text).hexdigest()
    else:
        import hmac  # a secret in a refused command is rare: not imported on every hook

        digest = hmac.new(store.key_salt(), text, hashlib.sha256).hexdigest()
    key = f"risky:{session_id or '-'}:{digest[:32]}"
    return store.events.add(REFUSED_EVENT, {}, key=key, session_id=session_id) is not None


def refusal(store: Store, command: str, reason: str, *, session_id: str | None) -> str:
    """For a host that cannot ask: the refusal to give on the session's first attempt of a
    command ``reason`` puts to the owner, or "" to let it through (asked before)."""
    if first_attempt(store, command, session_id=session_id):
        return f"{reason}. {ASK_FIRST}."
    return ""


__all__ = ["ASK_FIRST", "REFUSED_EVENT", "UNANALYSED", "first_attempt", "question", "refusal"]
