"""Validation and formatting of what is written into STATE.md: fields, decisions, log lines.

Owns the limits (bounded field lengths, the phase vocabulary) and the exact
line formats. Every value is collapsed to one line and secret-masked before
it is formatted. It never reads or writes files.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from ..printable import one_line
from ..redact import mask
from .errors import StateError

PHASES: tuple[str, ...] = ("planning", "implementing", "testing", "reviewing", "shipping")

#: Longest accepted value, in characters, per checkpoint field.
FIELD_LIMITS: Mapping[str, int] = {
    "focus": 200,
    "phase": 20,
    "blockers": 300,
    "next": 300,
    "handoff": 400,
    "task": 200,
}
DECISION_LIMIT = 500
REASON_LIMIT = 300
LOG_LIMIT = 500


def bounded(name: str, value: str, limit: int) -> str:
    text = one_line(value)
    if len(text) > limit:
        raise StateError(
            "field_too_long", f"{name} is {len(text)} characters long; the limit is {limit}"
        )
    return mask(text)


def checkpoint_fields(values: Mapping[str, str | None]) -> dict[str, str]:
    """The given (non-None) checkpoint fields, validated and cleaned, in canonical order."""
    unknown = sorted(set(values) - set(FIELD_LIMITS))
    if unknown:
        raise StateError("invalid_field", f"unknown checkpoint field {unknown[0]}")
    cleaned: dict[str, str] = {}
    for name, limit in FIELD_LIMITS.items():
        value = values.get(name)
        if value is None:
            continue
        text = bounded(name, value, limit)
        if name == "phase" and text:
            text = text.lower()
            if text not in PHASES:
                raise StateError("invalid_field", f"phase must be one of {', '.join(PHASES)}")
        cleaned[name] = text
    return cleaned


def utc_now() -> datetime:
    return datetime.now(UTC)


def stamp(when: datetime) -> str:
    """The ``updated`` value of a checkpoint: ISO 8601 in UTC to the second."""
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(value: str) -> datetime | None:
    """A time written by us or by hand (``2026-04-11``, ``2026-04-11 14:00``, ISO), else None."""
    text = value.strip().replace("Z", "+00:00")
    if not text:
        return None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def decision_line(text: str, *, rejected: bool, why: str | None, when: datetime) -> str:
    """``[REJECTED] text — why [YYYY-MM-DD]`` (the prefix only for rejected approaches)."""
    body = bounded("decision", text, DECISION_LIMIT)
    if not body:
        raise StateError("invalid_field", "decision text is empty")
    reason = bounded("why", why or "", REASON_LIMIT)
    # A text that carries its own mark is not marked twice ("[REJECTED] [REJECTED] x").
    marked = body[:10].lower() == "[rejected]"
    line = f"[REJECTED] {body}" if rejected and not marked else body
    if reason:
        line += f" — {reason}"
    return f"{line} [{when.astimezone(UTC):%Y-%m-%d}]"


def log_line(text: str, *, auto: bool, when: datetime) -> str:
    """``[YYYY-MM-DD HH:MM] text``, prefixed with ``[auto]`` for entries the tool wrote."""
    body = bounded("log text", text, LOG_LIMIT)
    if not body:
        raise StateError("invalid_field", "log text is empty")
    line = f"[{when.astimezone(UTC):%Y-%m-%d %H:%M}] {body}"
    return f"[auto] {line}" if auto else line
