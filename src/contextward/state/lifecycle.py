"""Session lifecycle for host hooks: start, tool call, file modified, end or idle.

Owns recording a host session in the store (the ``sessions`` table, and
``events`` rows for tool calls and file changes, so concurrent hook
processes never lose a count and a repeated hook is counted once), and the
automatic STATE.md Log entry for a session that ends or goes idle without
a checkpoint. Counts are derived from events when read, never kept as a
second tally. It never prints and never raises for a missing session: hooks
arrive out of order, so any call starts the session it names.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ..store import Session, Store
from ..store.migrations import STATE_MIGRATIONS
from . import file
from .errors import StateError
from .fields import parse_stamp
from .paths import confine
from .project import StateProject
from .session import ACTIVE, ENDED, IDLE, SessionRecord
from .writer import append_log

TOOL_EVENT = "state.tool_call"
FILE_EVENT = "state.file_modified"
#: A checkpoint a session is known to have written, with the ``updated`` stamp it wrote.
CHECKPOINT_EVENT = "state.checkpoint"
#: Idle notifications fire after every turn: at most one idle entry per session this often.
IDLE_LOG_INTERVAL = timedelta(minutes=15)
#: File names quoted in an automatic log entry, at most.
LOGGED_FILES = 5


def prepare(store: Store) -> None:
    """Apply the state layer's migrations (a no-op once applied)."""
    store.apply(STATE_MIGRATIONS)


def _now(store: Store) -> datetime:
    return parse_stamp(store.clock()) or datetime.now(UTC)


def _ensure(store: Store, session_id: str, *, reactivate: bool = True) -> Session:
    """The session row, started when unknown (hooks arrive out of order) or resumed when idle."""
    found = store.sessions.get(session_id)
    if found is None or (reactivate and found.status != ACTIVE):
        return store.sessions.start(session_id)
    return found


def session_start(store: Store, session_id: str, *, host: str = "") -> SessionRecord:
    """Start (or resume) a session."""
    prepare(store)
    store.sessions.start(session_id, host=host)
    record = session_record(store, session_id)
    assert record is not None
    return record


def tool_called(
    store: Store,
    session_id: str,
    *,
    key: str | None = None,
    tool: str = "",
    output_chars: int | None = None,
    evidence: bool = False,
) -> bool:
    """Count one tool call; ``key`` (e.g. ``tool_use_id``) makes a repeated hook count once;
    ``output_chars``, when the host reported the output, is what the budget adds up;
    ``evidence``: a test run whose evidence row the budget counts instead (``verify``).

    Returns False when the call was already counted.
    """
    prepare(store)
    _ensure(store, session_id)
    event_key = f"tool:{session_id}:{key}" if key else None
    payload: dict[str, object] = {"tool": tool}
    if output_chars is not None:
        payload["output_chars"] = output_chars
    if evidence:
        payload["evidence"] = True
    added = store.events.add(TOOL_EVENT, payload, key=event_key, session_id=session_id)
    return added is not None


def file_modified(
    store: Store, session_id: str, path: str | Path, *, project: StateProject
) -> bool:
    """Record that a project file changed; a path outside the project is not recorded."""
    try:
        resolved = confine(project.root, path, what="file")
    except StateError:
        return False
    prepare(store)
    _ensure(store, session_id)
    relative = project.relative(resolved)
    store.events.add(FILE_EVENT, {"path": relative}, session_id=session_id)
    return True


def checkpoint_written(store: Store, session_id: str, *, project: StateProject) -> None:
    """Note that ``session_id`` wrote the checkpoint STATE.md now holds (the MCP tool or
    the command line run with a session named, a shell call of ``contextward
    checkpoint`` a host reported): that session checkpointed, the others running beside
    it did not, and each of them still gets its automatic Log entry when it ends."""
    try:
        updated = file.load(project.state_path).view.updated
    except StateError:
        return
    prepare(store)
    store.events.add(CHECKPOINT_EVENT, {"updated": updated}, session_id=session_id)


def session_record(store: Store, session_id: str) -> SessionRecord | None:
    """The session with its counts, or None when unknown."""
    row = store.sessions.get(session_id)
    return None if row is None else _record(store, row)


def previous_session(store: Store, session_id: str | None) -> SessionRecord | None:
    """The most recently updated session, other than ``session_id``, that ended or went idle."""
    rows = store.query(
        "SELECT id FROM sessions WHERE status != ? AND id != ? ORDER BY updated_at DESC LIMIT 1",
        (ACTIVE, session_id or ""),
    )
    return session_record(store, str(rows[0]["id"])) if rows else None


@dataclass(frozen=True)
class SessionEnd:
    record: SessionRecord
    logged: bool  # an automatic Log entry was written


def session_end(
    store: Store, session_id: str, *, project: StateProject, idle: bool = False
) -> SessionEnd:
    """End a session (or mark it idle); auto-log it when no checkpoint was written while it ran."""
    prepare(store)
    started = _ensure(store, session_id, reactivate=False)
    now = _now(store)
    before = _record(store, started)
    checkpointed = _checkpointed(store, started, project)
    logged = False
    if not checkpointed and _should_log(before, now, idle=idle):
        append_log(_entry(before, now, idle=idle), auto=True, project=project, now=now)
        logged = True
    store.sessions.update(
        session_id,
        {
            "checkpointed": checkpointed,
            **({"auto_logged_at": now.isoformat()} if logged else {}),
        },
    )
    store.sessions.end(session_id, status=IDLE if idle else ENDED)
    record = session_record(store, session_id)
    assert record is not None
    return SessionEnd(record, logged)


def _checkpointed(store: Store, session: Session, project: StateProject) -> bool:
    """Whether ``session`` wrote a checkpoint while it ran.

    Its own, when one is recorded as its (``checkpoint_written``). Else STATE.md's
    checkpoint, when it was written after the session started and is not recorded as
    another session's: a checkpoint no session was named for (the owner's shell, an MCP
    server without ``CONTEXTWARD_SESSION_ID``) may have been this one's. Another
    session's checkpoint is never this one's: it cancelled every running session's
    automatic Log entry.
    """
    mine = store.query(
        "SELECT 1 FROM events WHERE session_id = ? AND kind = ? AND created_at >= ? LIMIT 1",
        (session.id, CHECKPOINT_EVENT, session.started_at),
    )
    if mine:
        return True
    try:
        view = file.load(project.state_path).view
    except StateError:
        return False
    stamp = parse_stamp(view.updated)
    since = parse_stamp(session.started_at) or datetime.now(UTC)
    # ``updated`` is to the second. One stamped in the second the session started was
    # written just before it (a script's checkpoint, then the host): an agent cannot
    # checkpoint within its session's first second, so that one does not count.
    if stamp is None or stamp <= since.replace(microsecond=0):
        return False
    theirs = store.query(
        "SELECT 1 FROM events WHERE kind = ? AND session_id IS NOT ?"
        " AND json_extract(payload, '$.updated') = ? LIMIT 1",
        (CHECKPOINT_EVENT, session.id, view.updated),
    )
    return not theirs


def _should_log(record: SessionRecord, now: datetime, *, idle: bool) -> bool:
    last = record.auto_logged_at
    # Hosts report idle after every turn: an idle entry needs 15 minutes since the start
    # or the last automatic entry, so a session's log is not one line per turn.
    if idle and now - (last or record.started_at) < IDLE_LOG_INTERVAL:
        return False
    if last is None:
        return True
    # Nothing happened since the last automatic entry: it already says everything.
    return record.last_activity is not None and record.last_activity > last


def _entry(record: SessionRecord, now: datetime, *, idle: bool) -> str:
    minutes = int(record.duration_seconds(now) // 60)
    files = sorted(record.files, key=lambda name: (-record.files[name], name))
    named = ", ".join(files[:LOGGED_FILES])
    if len(files) > LOGGED_FILES:
        named += f", +{len(files) - LOGGED_FILES} more"
    what = "went idle" if idle else "ended"
    text = (
        f"Session {what} without a checkpoint: {minutes} min, "
        f"{record.tool_calls} tool calls, {len(files)} files modified"
    )
    return f"{text} ({named})" if named else text


def _record(store: Store, row: Session) -> SessionRecord:
    tool_calls = store.query(
        "SELECT COUNT(*) AS n, MAX(created_at) AS last FROM events"
        " WHERE session_id = ? AND kind = ?",
        (row.id, TOOL_EVENT),
    )[0]
    files = store.query(
        "SELECT json_extract(payload, '$.path') AS path, MAX(created_at) AS at FROM events"
        " WHERE session_id = ? AND kind = ? GROUP BY 1",
        (row.id, FILE_EVENT),
    )
    changed: dict[str, float] = {}
    for item in files:
        when = parse_stamp(str(item["at"]))
        if item["path"] and when is not None:
            changed[str(item["path"])] = when.timestamp()
    activity = [parse_stamp(str(tool_calls["last"] or ""))]
    activity += [datetime.fromtimestamp(t, UTC) for t in changed.values()]
    known = [moment for moment in activity if moment is not None]
    started = parse_stamp(row.started_at) or datetime.now(UTC)
    data = row.data
    return SessionRecord(
        id=row.id,
        started_at=started,
        updated_at=parse_stamp(row.updated_at) or started,
        status=row.status,
        ended_at=parse_stamp(row.ended_at or ""),
        host=row.host,
        tool_calls=int(tool_calls["n"]),
        files=changed,
        checkpointed=bool(data.get("checkpointed", False)),
        auto_logged_at=parse_stamp(str(data.get("auto_logged_at", ""))),
        last_activity=max(known) if known else None,
    )
