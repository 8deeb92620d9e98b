"""Context budget: how full the context is, and how much tool output a session produced.

Owns: the context watermark (``ok`` below ``warn_pct``, ``warn`` from it,
``high`` from ``high_pct``, ``unknown`` when nothing reported usage) and the
tool-output volume per session — characters per tool from recorded events,
plus the output of verification runs — with the top tools.

Event payloads it reads (written by host adapters; unknown keys ignored):
``{"tool": NAME}`` (any kind, e.g. the session lifecycle's tool events) counts
one call, and ``"output_chars": N`` beside it adds to that tool's volume
(``"evidence": true``: a test run, counted once with its evidence row);
``{"used_tokens": N, "window_tokens": M}`` (kind ``context_usage``) is a
context reading, the newest one wins. An explicit reading passed in wins
over both.

Must never: read event text content, only names and counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..store import Store

__all__ = ["CONTEXT_EVENT", "Budget", "ToolVolume", "session_budget"]

#: The event kind that carries a context reading.
CONTEXT_EVENT = "context_usage"
_SCAN_EVENTS = 5000
_TOP = 5

Watermark = Literal["ok", "warn", "high", "unknown"]


@dataclass(frozen=True)
class ToolVolume:
    tool: str
    chars: int
    calls: int

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "chars": self.chars, "calls": self.calls}


@dataclass(frozen=True)
class Budget:
    session_id: str | None
    context_pct: float | None
    watermark: Watermark
    warn_pct: int
    high_pct: int
    output_chars: int
    calls: int
    top_tools: tuple[ToolVolume, ...]
    events_scanned: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "session_id": self.session_id,
            "context_pct": None if self.context_pct is None else round(self.context_pct, 1),
            "watermark": self.watermark,
            "warn_pct": self.warn_pct,
            "high_pct": self.high_pct,
            "output_chars": self.output_chars,
            "calls": self.calls,
            "top_tools": [t.to_dict() for t in self.top_tools],
            "events_scanned": self.events_scanned,
        }


def session_budget(
    store: Store,
    *,
    session_id: str | None = None,
    warn_pct: int = 70,
    high_pct: int = 90,
    used_tokens: int | None = None,
    window_tokens: int | None = None,
) -> Budget:
    """The budget of ``session_id`` (None: every session in the retained window)."""
    chars: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    reading: tuple[int, int] | None = None
    events = store.events.list(limit=_SCAN_EVENTS, session_id=session_id)
    for event in events:  # newest first
        payload = event.payload
        tool = payload.get("tool")
        # A test run's call is its evidence row, counted below under ``verify``.
        if isinstance(tool, str) and tool and payload.get("evidence") is not True:
            # A call counts even when the host did not report its output size.
            calls[tool] += 1
            chars[tool] += _count(payload.get("output_chars")) or 0
        if reading is None and event.kind == CONTEXT_EVENT:
            used, window = _count(payload.get("used_tokens")), _count(payload.get("window_tokens"))
            if used is not None and window:
                reading = (used, window)
    for row in store.query(
        "SELECT COUNT(*), COALESCE(SUM(output_bytes), 0) FROM evidence"
        + (" WHERE session_id = ?" if session_id is not None else ""),
        (session_id,) if session_id is not None else (),
    ):
        if int(row[0]):
            chars["verify"] += int(row[1])
            calls["verify"] += int(row[0])
    if used_tokens is not None and window_tokens:
        reading = (used_tokens, window_tokens)
    pct = None if reading is None else 100.0 * reading[0] / reading[1]
    top = tuple(
        ToolVolume(tool, n, calls[tool])
        for tool, n in sorted(chars.items(), key=lambda kv: (-kv[1], -calls[kv[0]], kv[0]))[:_TOP]
    )
    return Budget(
        session_id,
        pct,
        _watermark(pct, warn_pct, high_pct),
        warn_pct,
        high_pct,
        sum(chars.values()),
        sum(calls.values()),
        top,
        len(events),
    )


def _count(value: object) -> int | None:
    """A non-negative integer from a payload, or None (bools and negatives are not counts)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _watermark(pct: float | None, warn_pct: int, high_pct: int) -> Watermark:
    if pct is None:
        return "unknown"
    if pct >= high_pct:
        return "high"
    return "warn" if pct >= warn_pct else "ok"
