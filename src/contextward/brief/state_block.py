"""The state block: the project state injected into a host every turn, in at most 250 tokens.

Owns turning a ``StateStatus`` into text — focus, phase, blockers, next,
handoff, decision counts, task artifacts, git, session, the previous
session's missing checkpoint, obligations — as facts, not advice. Tokens are
estimated as characters / 4 (rounded up), the usual rule of thumb for
English text with BPE tokenizers; free-text fields are shortened until the
block fits. Every value is secret-masked. It never reads files or runs git
(``contextward.state.status.gather`` does); ``state_block`` is the
convenience that gathers and renders in one call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime

from ..printable import counted
from ..redact import mask
from ..state.lifecycle import previous_session, session_record
from ..state.project import StateProject
from ..state.status import StateStatus, gather
from ..store import Store

#: The most tokens a state block may take, and the estimate used to count them.
MAX_TOKENS = 250
HEADER = "## Project state (contextward)"
#: The handoff is shown whole up to the 400 characters a checkpoint accepts: it is the
#: one field written for the next session, and its tail is often the warning.
_FIELD_CAPS = {"focus": 160, "phase": 20, "blockers": 160, "next": 200, "handoff": 400}
#: Shortened first when the block is over budget (most verbose, least structural first).
_SHRINKABLE = ("handoff", "next", "blockers", "focus", "last", "task")


#: The Current fields a turn's delta carries when a checkpoint changed them mid-session.
CURRENT_FIELDS = ("focus", "phase", "blockers", "next", "handoff")


def field_digests(fields: Mapping[str, str]) -> dict[str, str]:
    """A digest of each Current field as the state block would show it: what a session
    remembers of what it was shown, never the text itself (it may hold a secret)."""
    return {
        name: hashlib.sha256(_clean(fields.get(name, "")).encode()).hexdigest()[:16]
        for name in CURRENT_FIELDS
    }


def changed_fields(fields: Mapping[str, str], shown: Mapping[str, object]) -> list[str]:
    """The Current fields whose value differs from the ``field_digests`` a session was
    shown, one ``- name: value`` line each (``(cleared)`` for an emptied one)."""
    now = field_digests(fields)
    lines = []
    for name in CURRENT_FIELDS:
        if shown.get(name) != now[name]:
            value = _clip(_clean(fields.get(name, "")), _FIELD_CAPS[name])
            lines.append(f"- {name}: {value or '(cleared)'}")
    return lines


def estimate_tokens(text: str) -> int:
    """Characters / 4, rounded up."""
    return -(-len(text) // 4)


def _clean(value: str) -> str:
    # STATE.md may hold undecodable bytes (kept as surrogates) or hand-typed secrets.
    safe = value.encode("utf-8", "replace").decode("utf-8")
    return mask(" ".join(safe.split()))


def _clip(value: str, limit: int) -> str:
    if len(value) <= limit:
        return value
    return value[: max(limit - 1, 0)].rstrip() + "…"


def age(then: datetime | float, now: datetime) -> str:
    """A short age: ``just now``, ``12 min ago``, ``5 h ago``, ``3 d ago``."""
    stamp = then.timestamp() if isinstance(then, datetime) else then
    seconds = max(0.0, now.timestamp() - stamp)
    if seconds < 60:
        return "just now"
    if seconds < 7200:
        return f"{int(seconds // 60)} min ago"
    if seconds < 48 * 3600:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} d ago"


def _minutes(seconds: float) -> str:
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 120 else f"{minutes // 60} h {minutes % 60} min"


def _git_line(status: StateStatus, parts: dict[str, str]) -> str:
    git = status.git
    if not git.repo:
        return f"Git: {git.reason or 'not a git repository'}"
    where = git.branch or (f"detached at {git.head}" if git.head else "detached HEAD")
    bits = [where]
    if not git.head:
        bits.append("no commits yet")
    bits.append(f"{git.uncommitted} uncommitted")
    if git.upstream:
        bits.append(f"{git.ahead} ahead, {git.behind} behind")
    else:
        bits.append("no upstream")
    line = "Git: " + ", ".join(bits) + "."
    if git.head and git.last_subject:
        subject = parts.get("last", _clip(_clean(git.last_subject), 60))
        line += f' Last: "{subject}" ({age(float(git.last_time), status.now)})'
    return line


def _lines(status: StateStatus, parts: dict[str, str]) -> list[str]:
    view = status.view
    out = [HEADER]
    if status.state_problem:
        out.append(f"{status.state_file}: unreadable ({_clean(status.state_problem)[:80]})")
    elif not status.state_exists:
        out.append(f"{status.state_file}: none yet (contextward checkpoint creates it)")
    if view.conflict_line:
        out.append(
            f"{status.state_file}: unresolved git merge conflict at line {view.conflict_line}"
            " (fields and decisions mix both sides until it is resolved)"
        )
    for name in ("focus", "phase", "blockers", "next", "handoff"):
        if parts.get(name):
            out.append(f"{name}: {parts[name]}")
    if status.state_exists:
        checkpoint = status.checkpoint_at
        out.append(
            f"State updated: {age(checkpoint, status.now)}"
            if checkpoint
            else "State updated: no checkpoint recorded"
        )
        superseded = f", {view.superseded} superseded" if view.superseded else ""
        out.append(f"Decisions: {view.locked} locked, {view.rejected} rejected{superseded}")
    if status.task:
        task = parts.get("task", "")
        if status.task_problem:
            out.append(f"Task: {task} ({status.task_problem})")
        else:
            marks = ", ".join(f"{name} {'✓' if ok else '✗'}" for name, ok in status.artifacts)
            out.append(f"Task: {task} — {marks}" if marks else f"Task: {task}")
    out.append(_git_line(status, parts))
    session = status.session
    if session is not None:
        out.append(
            f"Session: {_minutes(session.duration_seconds(status.now))}, "
            f"{counted(session.tool_calls, 'tool call')}, "
            f"{len(session.files)} files modified"
        )
    if status.previous_without_checkpoint:
        out.append("Last session ended without a checkpoint.")
    obligations = status.obligations
    if obligations:
        out.append("Obligations: " + "; ".join(obligations))
    return out


def render_state_block(status: StateStatus, *, max_tokens: int = MAX_TOKENS) -> str:
    """The state block for ``status``; never longer than ``max_tokens`` (estimated).
    A Current field shortened to fit is said, with where its full text is."""
    text, cut = _fit(status, max_tokens * 4)
    if cut:
        # Laid out again with room for the pointer, so the block stays in budget.
        text, _ = _fit(status, max_tokens * 4 - len(CUT_NOTE) - 1)
        text += "\n" + CUT_NOTE
    return text


#: Said under a block whose focus, blockers, next or handoff was shortened to fit.
CUT_NOTE = "(… marks text shortened to fit: the full text is in STATE.md's Current section)"


def _fit(status: StateStatus, budget: int) -> tuple[str, bool]:
    """The block within ``budget`` characters, and whether a Current field was cut."""
    fields = status.view.fields
    full = {name: _clean(fields.get(name, "")) for name in _FIELD_CAPS}
    parts = {name: _clip(full[name], cap) for name, cap in _FIELD_CAPS.items()}
    parts["task"] = _clip(_clean(status.task), 80)
    if status.git.last_subject:
        parts["last"] = _clip(_clean(status.git.last_subject), 60)
    text = "\n".join(_lines(status, parts))
    while len(text) > budget:
        # Shorten the longest shrinkable part by the overflow (at least a tenth of it).
        name = max(_SHRINKABLE, key=lambda key: len(parts.get(key, "")))
        current = parts.get(name, "")
        if len(current) <= 8:
            break
        cut = max(len(text) - budget, len(current) // 10)
        parts[name] = _clip(current, max(len(current) - cut, 8))
        text = "\n".join(_lines(status, parts))
    if len(text) > budget:
        # Only fixed-form lines are left; drop from the end, keeping the header.
        lines = text.split("\n")
        while len(lines) > 1 and len("\n".join(lines)) > budget:
            lines.pop()
        text = "\n".join(lines)
    return text, any(parts[name] != full[name] for name in _FIELD_CAPS)


def state_block(
    project: StateProject | None = None,
    *,
    store: Store | None = None,
    session_id: str | None = None,
    now: datetime | None = None,
) -> str:
    """Gather and render in one call; with ``store``, the session lines are included."""
    where = project or StateProject.open()
    session = previous = None
    if store is not None:
        if session_id:
            session = session_record(store, session_id)
        previous = previous_session(store, session_id)
    return render_state_block(gather(where, session=session, previous=previous, now=now))
