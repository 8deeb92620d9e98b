"""The host-neutral hook engine: what contextward does at each moment of a session.

Host adapters (``claude_code``, ``codex``, ``gemini``) turn their payloads into
calls here and the ``Reply`` back into their own output fields. The engine
owns the policy of each moment:

- session start: the brief and state block (after a compaction, the restore block first);
- a prompt: recorded once for intent; only lines new since the last injection go back;
- before a shell command: loop brake (deny), risky command (ask), else silence;
- after a tool: the outcome once per tool call (loop brake, evidence for test commands,
  files modified);
- before compaction: snapshot of what must survive, stored; guidance for the summariser;
- the summary seen (Claude: SubagentStop; any host: post-compaction): checked and stored;
- stop / end: the session's automatic log entry when no checkpoint was written.

Must never: print (adapters do), or raise past ``run_hook`` in a host adapter.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

from .. import spool
from ..errors import StoreError
from ..fsutil import open_regular
from ..printable import counted, one_line
from ..redact import mask
from ..store import Store, personal_dir, project_root, store_dir
from ..store.paths import CONFIG_NAME
from ..store.text import storable, storable_id
from . import toolcall

if TYPE_CHECKING:
    from ..inspect import Message

#: Everything a hook injects stays below the host's 10,000-character cap.
MAX_INJECT = 9500
#: A prompt's delta is small by design: the brief itself is not sent again.
MAX_DELTA = 1500
#: PreCompact reads at most the last this many bytes of a transcript (32 MiB: about 8 s
#: of typical text at the measured 4 MB/s; dense prose is read only as far as
#: ``INSPECT_SECONDS`` allows).
TRANSCRIPT_TAIL = 32 << 20
#: PreCompact's inspection ends within this many seconds of the hook's start (hosts
#: give PreCompact 30 s as installed): of prose too dense to read whole in time, the
#: last messages are read, and the guidance says how many were left out.
INSPECT_SECONDS = 15.0
#: At most this many of the session's recorded owner prompts stand in for a transcript
#: a compaction hook could not read.
MAX_PROMPTS_IN_PLACE = 200
#: Why a shell call the host reports as done has no exit status to trust.
BACKGROUND = "background: the command was only started; its exit status was never seen"
INTERRUPTED = "interrupted: the command was stopped before it finished"

Decision = Literal["deny", "ask"]


@dataclass(frozen=True, slots=True)
class Reply:
    """What the engine asks the host to do. Empty: say nothing at all."""

    context: str = ""  # injected for the model
    decision: Decision | None = None  # for a tool call
    reason: str = ""  # why, shown to the model / the user
    plain: str = ""  # plain stdout (PreCompact guidance for the summariser)

    @property
    def empty(self) -> bool:
        return not (self.context or self.decision or self.plain)


SILENT = Reply()


@dataclass(frozen=True, slots=True)
class Session:
    """Where a hook runs: the project, the host's session id, and the environment."""

    root: Path
    session_id: str
    host: str
    env: Mapping[str, str]

    @classmethod
    def locate(cls, cwd: object, session_id: object, host: str, env: Mapping[str, str]) -> Session:
        named = host_project(env)
        start = Path(cwd) if isinstance(cwd, str) and cwd and Path(cwd).is_dir() else None
        sid = session_id if isinstance(session_id, str) and session_id else "unknown"
        root = project_root(start or named or Path.cwd(), host_project=named)
        return cls(root, storable_id(sid[:200]), host, env)

    def open(self) -> Store:
        from ..store.config import load_config

        # The host's environment names the personal layer; its retention applies too. A
        # lock another process holds is waited for briefly, never up to the host's timeout.
        store = Store.open(
            self.root,
            retention=load_config(self.root, env=self.env).retention(),
            wait_s=HOOK_WAIT_S,
        )
        try:
            toolcall.drain(store)
        except BaseException:
            store.close()
            raise
        return store


#: The variables a host names its project folder in, first that names a folder wins
#: (``fastpath.HOST_PROJECT_VARIABLES`` reads the same, without importing this module).
HOST_PROJECT_VARIABLES = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")


def host_project(env: Mapping[str, str]) -> Path | None:
    """The project folder the host names. Outside git it is the project for any cwd inside
    it, so an agent that ``cd``s into a subfolder keeps one store (``store.paths``)."""
    for variable in HOST_PROJECT_VARIABLES:
        value = env.get(variable)
        if value and Path(value).is_dir():
            return Path(value)
    return None


#: How long a hook waits for a lock on the store in all before failing open (hosts time a
#: hook out at 10 s, as ``contextward install`` writes; the rest is the hook's work).
HOOK_WAIT_S = 3.0

#: Comma-separated hook event names (or "all") that contextward answers with silence.
OFF_ENV = "CONTEXTWARD_HOOKS_OFF"


def switched_off(event: str, env: Mapping[str, str]) -> bool:
    """True when the owner turned this event off (``CONTEXTWARD_HOOKS_OFF=PreToolUse,...``)."""
    off = {part.strip().lower() for part in env.get(OFF_ENV, "").split(",")}
    return "all" in off or event.lower() in off


Handler = Callable[[Session, Mapping[str, Any]], Reply]


def dispatch(
    payload: Mapping[str, Any],
    env: Mapping[str, str],
    *,
    host: str,
    handlers: Mapping[str, Handler],
    render: Callable[[str, Reply], str],
) -> str:
    """One host payload to the host's stdout: its handler's reply in the host's fields."""
    event = payload["hook_event_name"]
    handler = handlers.get(event)
    if handler is None or switched_off(event, env):
        return ""
    session = Session.locate(payload.get("cwd"), payload.get("session_id"), host, env)
    return render(event, handler(session, payload))


def text_field(payload: Mapping[str, Any], key: str) -> str:
    """A string field of a payload (a lone surrogate repaired); anything else reads as empty."""
    value = payload.get(key)
    return storable(value) if isinstance(value, str) else ""


def bounded(text: str, limit: int = MAX_INJECT) -> str:
    """``text`` within ``limit`` characters, cut at the end of a line (else of a word),
    saying so."""
    if len(text) <= limit:
        return text
    note = "\n(cut to stay short: run `contextward brief` for the rest)"
    head = text[: limit - len(note)]
    end = head.rfind("\n")
    if end < len(head) // 2:
        end = head.rfind(" ")  # one long line: end on a word
    return (head[:end] if end > 0 else head).rstrip() + note


def session_start(session: Session, *, source: str) -> Reply:
    """The brief and state block; after a compaction, the restore block first.

    On a resume the host replays the earlier injection, so an unchanged brief
    is not sent again. After a compaction the owner's own statements are left
    out: the summary and the restore block carry conversation items, and a
    kept item must not come back twice.
    """
    from ..brief import render_brief
    from ..brief.restore import plan_restore, render_restore
    from ..state import session_start as start

    watch = _watched(session)
    seen = spool.stamps(watch)
    try:
        with session.open() as store:
            known = store.sessions.get(session.session_id)
            start(store, session.session_id, host=session.host)
            parts = []
            if source == "compact":
                restore = render_restore(plan_restore(store, session_id=session.session_id))
                if restore:
                    parts.append(restore)
            brief = render_brief(
                store, session_id=session.session_id, env=session.env, earlier_sessions=True
            )
            replayed = (
                source == "resume"
                and known is not None
                and known.data.get("brief_digest") == brief.digest
            )
            if source == "compact":
                parts.append(brief.without("owner_statements", "restore"))
            elif not replayed:
                parts.append(brief.text)
            state = _state_block(session, store)
            if state:
                parts.append(state)
            _remember_injection(store, session, brief.text, brief.digest)
            _remember_fields(store, session, _current_fields(session))
    except StoreError as exc:
        # The database is damaged, read-only or busy past the wait: what lives in files
        # still reaches the session (a write that failed half-way changed nothing).
        return _without_store(session, exc)
    spool.write_cache(_store_dir(session), session.session_id, watch, seen, brief.digest)
    return Reply(context=bounded("\n\n".join(p for p in parts if p)))


def _without_store(session: Session, exc: StoreError) -> Reply:
    """What a session start can still inject when the store database cannot be opened
    (damaged, read-only, busy past the wait): one line saying so and why, then what
    lives in files — the contract, STATE.md's decisions and its state block."""
    from ..brief import render_file_brief

    why = one_line(mask(f"contextward: the project memory could not be read ({exc.code}: {exc})"))
    brief = render_file_brief(session.root, env=session.env)
    parts = [why, brief.text, _state_block(session, None)]
    return Reply(context=bounded("\n\n".join(p for p in parts if p)))


def prompt(session: Session, text: str, prompt_id: object) -> Reply:
    """Record the owner's prompt once; inject only brief lines not injected before, and
    the Current fields of STATE.md a checkpoint changed since they were shown."""
    from ..brief import render_brief
    from ..brief.state_block import changed_fields

    watch = _watched(session)
    before = spool.stamps(watch)
    pid = prompt_id if isinstance(prompt_id, str) and prompt_id else None
    with contextlib.ExitStack() as stack:
        try:
            store = stack.enter_context(session.open())
            recorded = store.prompts.record(text, session_id=session.session_id, prompt_id=pid)
        except StoreError as exc:
            # A store busy past the hook's wait: the prompt waits in the spool (masked).
            if exc.code != "store_busy" or not _spool_prompt(session, text, pid):
                raise
            return SILENT
        if recorded is None:
            return SILENT  # the same prompt fired twice
        data = _session_data(store, session)
        brief = render_brief(store, session_id=session.session_id, env=session.env)
        spool.write_cache(_store_dir(session), session.session_id, watch, before, brief.digest)
        # A checkpoint written since the state block was injected (STATE.md changed, so
        # the fast path did not answer): its focus, blockers, next reach the agent now.
        fields = _current_fields(session)
        shown = data.get("state_fields")
        new: list[str] = []
        if fields is not None and isinstance(shown, dict):
            changed = changed_fields(fields, shown)
            if changed:
                new += ["project state (STATE.md) changed:", *changed]
                _remember_fields(store, session, fields)
        elif fields is not None:
            _remember_fields(store, session, fields)  # no state block shown yet: from now
        if brief.digest == data.get("brief_digest") and not new:
            return SILENT
        known = data.get("brief_lines")
        seen = set(known) if isinstance(known, list) else set()
        for section in brief.sections:
            # The owner's own words are already in the conversation: never echo them back.
            if section.name == "owner_statements":
                continue
            fresh = [line for line in section.lines if _line_key(line) not in seen]
            if fresh:
                new += [f"{section.title}:", *fresh]
        _remember_injection(store, session, brief.text, brief.digest)
    if not new:
        return SILENT
    delta = "contextward: new in the project record since the brief:\n" + "\n".join(new)
    return Reply(context=bounded(delta, MAX_DELTA))


def _spool_prompt(session: Session, text: str, prompt_id: str | None) -> bool:
    """Keep a prompt the store could not take for the next store open; False when the
    spool cannot take it either."""
    from ..store.database import utc_now
    from ..store.prompts import spool_record

    record = spool_record(
        text, session_id=session.session_id, prompt_id=prompt_id, created_at=utc_now()
    )
    return spool.append_prompt(_store_dir(session), record)


def pre_shell(session: Session, command: str) -> Reply:
    """Loop brake first (deny), then risky commands (ask); benign commands get silence."""
    from ..guard.confirm import question
    from ..guard.loops import decide, record_refusal
    from ..guard.risky import MAX_COMMAND_CHARS
    from ..store.config import Config, load_config

    if not command.strip():
        return SILENT
    try:
        cfg = load_config(session.root, env=session.env)
    except Exception:
        cfg = None  # a config that cannot be read: the defaults, asking included
    # The owner may turn the question off (``risk_confirm = false``); the brake still stands.
    why = question(command) if cfg is None or cfg.risk_confirm else ""
    ask = Reply(decision="ask", reason=why) if why else SILENT
    if len(command) > MAX_COMMAND_CHARS:
        # Asked about whatever the brake would say: a command of megabytes must not cost
        # the host's timeout to fingerprint.
        return ask
    try:
        threshold = (cfg or Config()).loop_block_after
        with session.open() as store:
            decision = decide(store, command, threshold=threshold, session_id=session.session_id)
            if not decision.allowed:
                record_refusal(store, decision, source=session.host, session_id=session.session_id)
                return Reply(decision="deny", reason=decision.reason)
    except Exception:
        # The brake needs the store; the risky check does not. A store that cannot be
        # opened (busy, read-only, damaged) must not let a destructive command through.
        if ask is SILENT:
            raise
    return ask


#: Why a shell command in a payload over the size cap is put to the owner: it was not read.
UNREAD = (
    "contextward: this tool call's payload is larger than 8 MiB and was not read;"
    " check the command before it runs"
)


def post_tool(
    session: Session,
    *,
    tool_name: str,
    tool_use_id: str,
    tool_input: Mapping[str, object],
    failed: bool,
    error: str = "",
    output: str = "",
    output_chars: int | None = None,
    unfinished: str = "",
) -> Reply:
    """Record one tool call's outcome, once per tool call id. ``output_chars``: the size of
    what the tool returned, as the host reported it, or a failed call's error text (the
    budget adds it up); a test run is counted once, with its evidence run (``verify`` in
    the budget).
    ``unfinished``: why the host's report is no exit status (started in the background,
    interrupted); such a run is never a success.

    A store busy past the hook's wait does not lose the call: it is spooled, masked, for
    the next hook or command that opens the store (``toolcall``)."""
    call = toolcall.observe(
        session_id=session.session_id,
        host=session.host,
        root=session.root,
        tool_name=tool_name,
        tool_use_id=tool_use_id,
        tool_input=tool_input,
        failed=failed,
        error=error,
        output=output,
        output_chars=output_chars,
        unfinished=unfinished,
        patched=tuple(_patched(tool_input)),
    )
    try:
        with session.open() as store:
            toolcall.record(store, call)
    except StoreError as exc:
        # Nothing of the call was written (one transaction): keep it for later.
        if exc.code != "store_busy" or not toolcall.spool_call(session.root, call):
            raise
    return SILENT


#: The file lines of a patch as Codex's ``apply_patch`` writes it.
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M
)


def _patched(tool_input: Mapping[str, object]) -> list[str]:
    """The files a patch in ``tool_input`` touches ("*** Update File: src/app.py")."""
    texts = [v for v in tool_input.values() if isinstance(v, str)]
    texts += [
        v
        for value in tool_input.values()
        if isinstance(value, list)
        for v in value
        if isinstance(v, str)
    ]
    return list(
        dict.fromkeys(
            m.group(1) or m.group(2)
            for text in texts
            if "*** Begin Patch" in text
            for m in _PATCH_FILE.finditer(text)
        )
    )


def pre_compact(
    session: Session, transcript_path: object, *, trigger: str, transcript_format: str | None = None
) -> Reply:
    """Snapshot what must survive (stored) and hand the guidance to the summariser."""
    from ..compaction import capture, within_time
    from ..inspect import Message
    from ..thresholds import policy_for

    deadline = time.monotonic() + INSPECT_SECONDS
    label = f"{session.host}:{trigger}"
    read = left_out = 0
    size = _size(transcript_path)
    prompts: list[Message] = []
    with session.open() as store, contextlib.ExitStack() as stack:
        # An unreadable, empty or unrecognised transcript must not cost the snapshot of
        # the project record, which is what matters most.
        messages = _transcript_tail(stack, transcript_path, transcript_format)
        cut = messages is not None and size > TRANSCRIPT_TAIL  # only its end is read
        if messages is None or cut:
            # What the owner said in this session, as the prompt hooks recorded it.
            said = store.prompts.list(limit=MAX_PROMPTS_IN_PLACE, session_id=session.session_id)
            prompts = [Message(f"prompt-{p.seq}", "user", p.text) for p in reversed(said)]
        if messages is None:
            # No transcript to read: the owner's prompts stand in for it ("never push to
            # main" must survive).
            messages = prompts
        else:
            if cut and prompts:
                # Only the end is read: the owner's prompts of the session come first, so
                # a rule said before that end is not lost (a copy in the end merges in).
                messages = itertools.chain(prompts, messages)
            config = policy_for(store.root, session.env) if store.root else None
            affordable = within_time(messages, deadline=deadline, config=config)
            messages, read, left_out = (
                affordable.messages,
                len(affordable.messages),
                affordable.left_out,
            )
        taken = capture(
            store, messages, session_id=session.session_id, label=label, env=session.env
        )
        _session_data(store, session)
        # Where the transcript ended: the summary of this compaction is written after it.
        pending = {"pending_snapshot": taken.record.seq, "pending_transcript_bytes": size}
        store.sessions.update(session.session_id, pending)
    guidance = taken.guidance
    if cut:
        # Said, so the summariser knows what it was not told of.
        tail = f"{TRANSCRIPT_TAIL / (1 << 20):g} MiB"
        owner = f", and the owner's {counted(len(prompts), 'prompt')} recorded this session"
        guidance = (
            f"(contextward read the last {tail} of the transcript{owner if prompts else ''}.)"
            f"\n\n{guidance}"
        )
    if left_out:
        # First, so the cap never cuts it.
        guidance = (
            f"(contextward read the last {read} messages of the transcript; the"
            f" {left_out} before them were too long to read within {INSPECT_SECONDS:g} s.)"
            f"\n\n{guidance}"
        )
    return Reply(plain=bounded(guidance))


def _size(path: object) -> int:
    """The size of the file at ``path`` (0 if there is none to read)."""
    if not (isinstance(path, str) and path):
        return 0
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


def _transcript_tail(
    stack: contextlib.ExitStack[Any],
    path: object,
    transcript_format: str | None,
    *,
    after: int = 0,
) -> Iterable[Message] | None:
    """The messages of the transcript at ``path`` from its last ``TRANSCRIPT_TAIL`` bytes,
    and none before byte ``after`` (read lazily while ``stack`` is open), or None when
    there is none to read."""
    from ..inspect import InspectError, open_transcript

    if not (isinstance(path, str) and path):
        return None
    try:
        stream = stack.enter_context(open_regular(path))  # never a FIFO
        _skip_to_tail(stream, TRANSCRIPT_TAIL, after=after)
        return open_transcript(stream, transcript_format).messages
    except (OSError, InspectError):
        return None


def _skip_to_tail(stream: BinaryIO, tail: int, *, after: int = 0) -> None:
    """Position ``stream`` on the first whole line of its last ``tail`` bytes, and not
    before byte ``after`` (where the file ended earlier; ignored if it is shorter now).

    A host kills a hook after about a minute (Claude Code: 60 s) and what is about
    to be compacted is the end of the session, so a huge transcript is read from
    there; the earlier part was compacted before, or is the oldest of it.
    """
    size = stream.seek(0, 2)
    start = max(size - tail, after if after <= size else 0)
    if start <= 0:
        stream.seek(0)
        return
    stream.seek(start - 1)
    stream.readline(tail)  # the line the cut fell into (none, when it falls on a line's start)


def summary_seen(session: Session, summary: str, *, source: str) -> Reply:
    """Check a compaction summary against the pending snapshot and store the report."""
    from ..compaction import check_summary

    if not summary.strip():
        return SILENT
    with session.open() as store:
        data = _session_data(store, session)
        pending = data.get("pending_snapshot")
        if source == "subagent" and not isinstance(pending, int):
            return SILENT  # a subagent that is not a compaction summariser
        record = store.snapshots.get(pending) if isinstance(pending, int) else None
        check_summary(
            store, summary, session_id=session.session_id, source=source, snapshot_record=record
        )
    return SILENT


def summary_from_transcript(
    session: Session, transcript_path: object, *, transcript_format: str | None = None
) -> None:
    """After a compaction whose summary no hook has seen (a host that fired neither its
    summariser's stop nor a post-compaction event): the summary is the transcript's last
    one; check it, so the restore states what the summary lost, not every critical item
    as "could not be checked"."""
    from ..brief.restore import latest_check
    from ..inspect import InspectError

    with session.open() as store:
        record = store.snapshots.latest(session_id=session.session_id)
        if record is None or latest_check(store, record.seq) is not None:
            return
        ended = _session_data(store, session).get("pending_transcript_bytes")
    summary = ""
    with contextlib.ExitStack() as stack:
        # Only a summary written after the snapshot's transcript ended is this compaction's:
        # an earlier one is the summary of the compaction before.
        after = ended if isinstance(ended, int) and ended > 0 else 0
        messages = _transcript_tail(stack, transcript_path, transcript_format, after=after)
        with contextlib.suppress(OSError, InspectError):
            for message in messages or ():
                if message.summary:
                    summary = message.text
    if summary.strip():
        summary_seen(session, summary, source="transcript")


def mark_restore_due(session: Session) -> None:
    """For hosts without a post-compaction session start: restore on the next prompt."""
    with session.open() as store:
        _session_data(store, session)  # a compaction may be the first event a session shows
        store.sessions.update(session.session_id, {"restore_due": True})
        # The next prompt must take the full path, which brings the restore block.
        store.record_changed(session.session_id)


def restore_after_compaction(session: Session) -> str:
    """The restore block once after a compaction that ``mark_restore_due`` recorded."""
    from ..brief.restore import plan_restore, render_restore

    with session.open() as store:
        if not _session_data(store, session).get("restore_due"):
            return ""
        store.sessions.update(session.session_id, {"restore_due": False})
        return render_restore(plan_restore(store, session_id=session.session_id))


def compaction_done(session: Session) -> None:
    with session.open() as store:
        store.sessions.update(session.session_id, {"pending_snapshot": None})


def stop(session: Session, *, final: bool) -> Reply:
    """End of a turn (idle) or of the session: the automatic log entry when due."""
    from ..state import StateProject, session_end

    with session.open() as store:
        session_end(
            store, session.session_id, project=StateProject.open(session.root), idle=not final
        )
    return SILENT


# --- helpers -------------------------------------------------------------------


def _store_dir(session: Session) -> str:
    return str(store_dir(session.root))


def _watched(session: Session) -> list[str]:
    """Every file a prompt's answer depends on; the fast path answers while none changed."""
    from ..state import StateError, StateProject
    from ..store.contract import personal_contract_path, project_contract_path

    home = personal_dir(session.env)
    files = [
        Path(spool.generation_path(_store_dir(session))),
        # What only this session's brief shows (its loop streaks): another session's
        # tool calls bump their own, and leave this session's prompts on the fast path.
        Path(spool.generation_path(_store_dir(session), session.session_id)),
        project_contract_path(session.root),
        personal_contract_path(session.env),
        Path(_store_dir(session)) / CONFIG_NAME,
        home / CONFIG_NAME,
    ]
    with contextlib.suppress(StateError):
        files.append(StateProject.open(session.root).state_path)
    return [str(path) for path in files]


def _state_block(session: Session, store: Store | None) -> str:
    """The state block, or one line saying why STATE.md was not read: a state file the
    state layer refuses (a symlink out of the project, a damaged file) must not cost the
    session its brief and contract."""
    from ..brief.state_block import state_block
    from ..state import StateError, StateProject

    try:
        project = StateProject.open(session.root)
        return state_block(project, store=store, session_id=session.session_id)
    except StateError as exc:
        return one_line(mask(f"contextward: STATE.md not read ({exc.code}: {exc})"))


def _current_fields(session: Session) -> Mapping[str, str] | None:
    """STATE.md's Current fields (read on change: one ``stat`` when it did not), or None
    when the state layer refuses the file."""
    from ..state import StateError, StateProject, read_state

    try:
        return read_state(StateProject.open(session.root)).fields
    except StateError:
        return None


def _remember_fields(store: Store, session: Session, fields: Mapping[str, str] | None) -> None:
    """What the session was shown of the Current fields (digests only)."""
    from ..brief.state_block import field_digests

    if fields is not None:
        store.sessions.update(session.session_id, {"state_fields": field_digests(fields)})


def _session_data(store: Store, session: Session) -> dict[str, object]:
    row = store.sessions.get(session.session_id)
    if row is None:
        store.sessions.start(session.session_id, host=session.host)
        return {}
    return dict(row.data)


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _line_key(line: str) -> str:
    return hashlib.sha256(" ".join(line.split()).encode()).hexdigest()[:16]


def _remember_injection(store: Store, session: Session, text: str, digest: str) -> None:
    _session_data(store, session)
    store.sessions.update(
        session.session_id,
        {"brief_digest": digest, "brief_lines": sorted({_line_key(line) for line in _lines(text)})},
    )
