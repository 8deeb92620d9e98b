"""What the state layer knows about a host session, as a value.

Owns ``SessionRecord`` (start, last activity, end, tool calls, files
modified with when, whether a checkpoint happened). ``state.lifecycle``
builds it from the store. It never does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

#: Status values of a session row.
ACTIVE, IDLE, ENDED = "active", "idle", "ended"


@dataclass(frozen=True)
class SessionRecord:
    """One host session as the ledger holds it."""

    id: str
    started_at: datetime
    updated_at: datetime
    status: str = ACTIVE
    ended_at: datetime | None = None
    host: str = ""
    tool_calls: int = 0
    files: Mapping[str, float] = field(default_factory=dict)  # path -> last change, epoch s
    checkpointed: bool = False  # a checkpoint was written while it ran
    auto_logged_at: datetime | None = None
    last_activity: datetime | None = None  # newest tool call or file change

    def duration_seconds(self, now: datetime) -> float:
        end = self.ended_at or now
        return max(0.0, (end - self.started_at).total_seconds())

    def files_changed_since(self, since: datetime | None) -> int:
        if since is None:
            return len(self.files)
        # Checkpoint stamps have whole seconds: a change in that second counts as before it.
        limit = since.timestamp() + 1
        return sum(1 for when in self.files.values() if when > limit)
