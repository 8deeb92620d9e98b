"""Risky commands on hosts that cannot ask the owner: refused once per session.

Claude Code and Codex put a risky command to the owner (PreToolUse ``ask``). Gemini
CLI, pi and OpenCode can only let a tool call through or block it. There the first
attempt of a risky command in a session is blocked, with a reason telling the agent
to ask the owner and run the same command again if they agree; the identical command
is then let through. A permanent refusal would leave the owner no way to approve it.

Stores nothing of the command but a hash of its fingerprint (a command may hold a
secret). Must never decide what is risky: ``guard.risky`` owns that.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from .fingerprint import fingerprint

if TYPE_CHECKING:
    from ..store import Store

#: The event kind of a risky command refused once.
REFUSED_EVENT = "risky_refused"
#: What the agent is told besides why the command is risky.
ASK_FIRST = "Ask the owner first; if they agree, run the same command again"


def first_attempt(store: Store, command: str, *, session_id: str | None) -> bool:
    """Whether this is the session's first attempt of ``command`` (recorded now): refuse
    it. False when it was refused before, and the agent comes back with the same command."""
    digest = hashlib.sha256(fingerprint(command).encode("utf-8", "surrogatepass")).hexdigest()
    key = f"risky:{session_id or '-'}:{digest[:32]}"
    return store.events.add(REFUSED_EVENT, {}, key=key, session_id=session_id) is not None


__all__ = ["ASK_FIRST", "REFUSED_EVENT", "first_attempt"]
