"""``contextward mcp``: every capability as a tool of an MCP server on stdio (official SDK v2).

Tools call the same library functions as the CLI. What the model writes is
recorded with agent provenance and never rendered as trusted: notes and
decisions land in the journal as ``agent`` (a model's decision stays
unverified until the owner adopts it), contract rows go to the agent section
of the project layer, which can never remove a seed or touch the personal
layer. Paths are confined to the project; transcripts and snapshots are
passed inline. Annotations are honest hints: ``verify`` runs a shell command,
so it is destructive and open-world.

Must never: print to stdout (the protocol owns it), or import on a hook path.
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as _SDKToolError
from mcp.types import ToolAnnotations
from pydantic import BeforeValidator, Field, StrictBool, ValidationError, WithJsonSchema
from pydantic_core import PydanticCustomError

from .. import __version__
from ..core import ContextGuardError
from ..errors import ConfigError, ContextwardError
from ..guard.evidence import TIMEOUT_RANGE
from ..inspect import InspectError, InspectionResult, Message
from ..inspect.message import listed
from ..inspect.provider import REFUSED_WHY
from ..printable import counted, one_line
from ..recall import MAX_LIMIT as RECALL_MAX_LIMIT
from ..redact import mask
from ..store import Store, project_root
from ..store.config import Config, load_config
from ..store.text import storable_id
from . import toolcall
from .mcp_stdio import serve_stdio

if TYPE_CHECKING:
    from ..inspect.provider import Answered

F = TypeVar("F", bound=Callable[..., Any])
INSTRUCTIONS = (
    "contextward keeps this project's critical context: standing constraints, decisions, "
    "rejected approaches, open work, state and evidence. Read `brief` and `status` at the "
    "start; record decisions and lessons as they happen; run `verify` before claiming "
    "success and cite its ev- id; after a compaction call `restore`."
)


def _verbatim(value: object) -> object:
    """Undo the SDK's JSON pre-parse of a text argument.

    The SDK json-decodes any string argument not annotated exactly ``str``, so
    ``why='{"client_secret": "x"}'`` arrived as a dict, failed validation, and the
    error echoed the value (a secret, unmasked) back. Text stays text.
    """
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False)
    return value


def _answer(value: object) -> object:
    """A model's answer: its text, or the JSON object or array itself (as text); anything
    else is refused naming every type accepted (a number would be named "string_type")."""
    if value is None or isinstance(value, str | dict | list):
        return _verbatim(value)
    raise PydanticCustomError(
        "string_object_or_array_type", "the answer is a string, an object or an array"
    )


#: An optional free-text argument from the model (kept as the model wrote it).
Text = Annotated[str | None, BeforeValidator(_verbatim)]
#: A model's answer to ``inspect_prompt``: its text, or the JSON value itself.
Answer = Annotated[
    str | None,
    BeforeValidator(_answer),
    WithJsonSchema(
        {
            "anyOf": [{"type": "string"}, {"type": "object"}, {"type": "array"}, {"type": "null"}],
            "default": None,
            "description": "A model's answer to inspect_prompt: its text, or the JSON itself.",
        }
    ),
]

#: A count argument: refused outside 1..N (its schema says so), never clamped or read
#: as "all" in silence.
Upto50 = Annotated[int, Field(ge=1, le=50)]
# Recall's own cap (docs/limits.md): the schema states it, so a model never sends more.
UptoRecall = Annotated[int, Field(ge=1, le=RECALL_MAX_LIMIT)]
Upto100 = Annotated[int, Field(ge=1, le=100)]
Upto200 = Annotated[int, Field(ge=1, le=200)]


#: ``verify``'s timeout in seconds, within the range the CLI's ``--timeout`` takes.
Seconds = Annotated[float | None, Field(ge=TIMEOUT_RANGE[0], le=TIMEOUT_RANGE[1])]

READ = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)
RUN = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)


class ToolError(_SDKToolError):
    """A tool call the server refuses: the model gets an error result whose message is
    structural (a code and a reason), never conversation content."""


class _Server(MCPServer):
    """The SDK's server, but a call whose arguments fail validation is answered with
    the field names and what each should be, never the rejected values (the SDK's
    text quotes them, and they are the caller's data: a secret, a transcript), and
    stdio is served by ``mcp_stdio``, which answers every request it cannot parse."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is not None and isinstance(arguments, dict):
            # A misspelt or invented argument ("querry", "action") would be dropped in
            # silence and the call answered as if it were not there: named, never echoed
            # beyond its name's first characters.
            known = set(tool.parameters.get("properties", {}))
            unknown = sorted(str(key)[:40] for key in arguments if key not in known)
            if unknown:
                names = "; ".join(f"{one_line(mask(key))}: unknown_argument" for key in unknown)
                raise ToolError(f"invalid_arguments for {name}: {names}")
        try:
            return await super().call_tool(name, arguments, context)
        except _SDKToolError as exc:
            if str(exc).startswith("Unknown tool"):
                raise ToolError("unknown_tool: no tool of that name") from None  # not echoed
            if isinstance(exc.__cause__, ToolError):
                # The tool refused the call: the SDK's "Error executing tool …:" prefix
                # gives way to the one shape every refusal has, "<code> for <tool>: …".
                raise ToolError(_shaped(name, str(exc.__cause__))) from None
            if not isinstance(exc.__cause__, ValidationError):
                raise
            problems = sorted(
                {
                    _problem(err)
                    for err in exc.__cause__.errors(include_input=False, include_url=False)
                }
            )
            raise ToolError(f"invalid_arguments for {name}: {'; '.join(problems)}") from None

    async def run_stdio_async(self) -> None:
        """Serve on stdio through our transport, which answers the lines the SDK's drops."""
        lowlevel = self._lowlevel_server
        options = lowlevel.create_initialization_options()
        await serve_stdio(lambda read, write: lowlevel.run(read, write, options))


_CODED = re.compile(r"(?P<code>[a-z][a-z_]*): (?P<reason>.*)", re.DOTALL)


def _shaped(tool: str, message: str) -> str:
    """A tool's refusal as ``<code> for <tool>: <reason>``, the shape of the refusals of
    its arguments (``invalid_arguments for journal: limit: greater_than_equal 1``)."""
    coded = _CODED.fullmatch(message)
    if coded is None:
        return f"tool_error for {tool}: {message}"
    return f"{coded['code']} for {tool}: {coded['reason']}"


def _problem(err: Mapping[str, Any]) -> str:
    """One refused field: its name, what was wrong, and a bound it broke (a number of
    our schema, never the value sent)."""
    where = ".".join(str(part) for part in err["loc"]) or "arguments"
    bounds = [
        f"{value:g}"
        for value in (err.get("ctx") or {}).values()
        if isinstance(value, int | float) and not isinstance(value, bool)
    ]
    return f"{where}: {' '.join([err['type'], *bounds])}"


#: The variables that name the served project, first set wins; unset, the cwd is served.
PROJECT_DIR_VARIABLES = ("CONTEXTWARD_PROJECT_DIR", "CLAUDE_PROJECT_DIR")


def project_dir() -> Path:
    """The project the server serves: the folder ``CONTEXTWARD_PROJECT_DIR`` (else
    ``CLAUDE_PROJECT_DIR``) names, else the cwd. A named folder that is not there is a
    ``ConfigError``: falling back to the cwd would write the agent's notes and checkpoints
    into another project, where the intended one never sees them."""
    for variable in PROJECT_DIR_VARIABLES:
        configured = os.environ.get(variable)
        if not configured:
            continue
        if not Path(configured).is_dir():
            raise ConfigError(
                f"{variable} names no directory ({configured}): set it to the project's "
                "folder, or unset it to serve the current directory",
                code="project_dir_missing",
            )
        return project_root(Path(configured))
    return project_root(Path.cwd())


def confined(root: Path, relative: str) -> Path:
    """A project file named by the model, refused when it leaves the project."""
    candidate = Path(relative)
    if candidate.is_absolute():
        raise ToolError(
            "invalid_arguments: absolute paths are refused; name a path inside the project"
        )
    resolved = (root / candidate).resolve()
    if resolved != root.resolve() and root.resolve() not in resolved.parents:
        raise ToolError("invalid_arguments: the path leaves the project")
    return resolved


@contextmanager
def _store(root: Path, *, create: bool = True) -> Iterator[Store]:
    cfg = load_config(root)
    with Store.open(root, create=create, retention=cfg.retention()) as store:
        toolcall.drain(store)  # tool calls a hook spooled while the store was busy
        yield store


def _config(root: Path) -> Config:
    return load_config(root)


def _session() -> str | None:
    """The session the server's environment names, as the store keeps it (as the hooks
    do: repaired, and hashed when it holds a secret, so it is never stored or echoed)."""
    value = os.environ.get("CONTEXTWARD_SESSION_ID", "").strip()
    return storable_id(value[:200]) if value else None


@dataclass(frozen=True, slots=True)
class _Read:
    """The messages read from a tool's ``messages`` and what was skipped, by reason."""

    messages: list[Message]
    skipped: dict[str, int]


def _messages(messages: list[dict[str, Any]]) -> _Read:
    """Read ``messages``; none readable is an error naming the skip reasons (never content)."""
    from ..inspect import open_transcript

    data = json.dumps({"messages": messages}).encode()
    transcript = open_transcript(io.BytesIO(data), "messages")
    read = list(transcript.messages)
    skipped = dict(sorted(transcript.skips.counts.items()))
    if not read:
        why = listed(skipped)
        raise ToolError(
            "invalid_arguments: "
            + (f"no message could be read (skipped: {why})" if why else "messages is empty")
        )
    return _Read(read, skipped)


def _answered(answer: str | None) -> Answered | None:
    """Provider mode from a model's answer to ``inspect_prompt`` (None: rules mode)."""
    from ..inspect.provider import MAX_ANSWER_BYTES, Answered

    if answer is None:
        return None
    if len(answer.encode("utf-8", "surrogatepass")) > MAX_ANSWER_BYTES:
        raise ToolError(f"invalid_request: the answer is larger than {MAX_ANSWER_BYTES:,} bytes")
    return Answered(answer)


def _notes(answer: str | None, result: InspectionResult, read: _Read) -> dict[str, Any]:
    """What a result adds to the contract (our words and counts only): why an answer was
    not used (``fallback_reason``), how many of its proposals were refused
    (``provider_rejected``) or left out as repeats (``provider_repeated``), how many of
    the rules' unsure finds it passed by (``provider_passed``), and the messages skipped
    by reason (``skipped``)."""
    notes: dict[str, Any] = {}
    if answer is not None and result.fallback_reason:
        notes["fallback_reason"] = result.fallback_reason
    elif answer is not None:
        if result.provider_rejected:
            notes["provider_rejected"] = result.provider_rejected
        if result.provider_repeated:
            notes["provider_repeated"] = result.provider_repeated
        if result.provider_passed:
            notes["provider_passed"] = result.provider_passed
        if result.provider_refused:
            notes["provider_refused"] = result.provider_refused
    if read.skipped:
        notes["skipped"] = read.skipped
    return notes


#: Above the notes a guidance result ends with: what was skipped or not used.
NOTES_HEADING = "Notes for the host (not part of the guidance; leave them out of the summary):"


def _said(notes: Mapping[str, Any]) -> list[str]:
    """The notes as lines of a text result."""
    lines = []
    if "fallback_reason" in notes:
        lines.append(f"contextward: answer not used ({notes['fallback_reason']})")
    if "provider_rejected" in notes:
        lines.append(
            f"contextward: {counted(notes['provider_rejected'], 'proposal')} of the answer "
            "not used (not found verbatim in the messages, of no known kind, tool output "
            "proposed as a rule, or a fragment of a sentence)"
        )
    if "provider_repeated" in notes:
        lines.append(
            f"contextward: {counted(notes['provider_repeated'], 'proposal')} of the answer "
            "left out as word-for-word repeats of an earlier one"
        )
    if "provider_passed" in notes:
        lines.append(
            f"contextward: {counted(notes['provider_passed'], 'unsure find')} of the rules "
            "that the answer passed by dropped as noise (of the owner's words, only plain remarks)"
        )
    if "provider_refused" in notes:
        lines.append(
            f"contextward: {counted(notes['provider_refused'], 'proposal')} of the answer "
            + REFUSED_WHY
        )
    if "skipped" in notes:
        lines.append(f"contextward: messages skipped ({listed(notes['skipped'])})")
    return lines


def build_server() -> MCPServer:
    """The server with every tool registered; each call opens the project it serves."""
    # WARNING: the SDK logs every failed call at INFO with the name the client sent,
    # which could be anything (a secret, an escape); the client gets the error itself.
    server = _Server(
        "contextward", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )

    def tool(annotations: ToolAnnotations, title: str) -> Callable[[F], F]:
        register = server.tool(title=title, annotations=annotations)

        def wrap(fn: F) -> F:
            @functools.wraps(fn)
            def guarded(*args: Any, **kwargs: Any) -> Any:
                try:
                    return fn(*args, **kwargs)
                except (ContextwardError, ContextGuardError, InspectError) as exc:
                    # The reason may repeat an argument (a task name, a type): the SDK
                    # logs it and the host shows it, so never a secret or an escape.
                    raise ToolError(one_line(mask(f"{exc.code}: {exc}"))) from None

            register(guarded)
            return fn

        return wrap

    @tool(READ, "Project status")
    def status() -> dict[str, Any]:
        """Store, journal, evidence, loops and contract at a glance."""
        from ..status import project_status

        root = project_dir()
        return project_status(root, _config(root))

    @tool(READ, "Session brief")
    def brief() -> str:
        """The bounded brief: contract, owner statements, decisions, corrections, precedents, loops, evidence."""
        from ..brief import render_brief

        root = project_dir()
        with _store(root) as store:
            return render_brief(store, session_id=_session(), earlier_sessions=True).text

    @tool(READ, "Restore block")
    def restore() -> str:
        """Critical items the last compaction summary lost or changed, verbatim."""
        from ..brief.restore import plan_restore, render_restore

        with _store(project_dir()) as store:
            plan = plan_restore(store, session_id=_session())  # the session's own, when named
            return render_restore(plan, max_chars=20_000) or "nothing to restore"

    @tool(WRITE, "Checkpoint the session state")
    def checkpoint(
        *,
        focus: Text = None,
        phase: Literal["planning", "implementing", "testing", "reviewing", "shipping"]
        | None = None,
        blockers: Text = None,
        next: Text = None,
        handoff: Text = None,
        task: Text = None,
    ) -> str:
        """Update STATE.md's Current fields (facts only; other lines are kept)."""
        from ..state import StateProject, checkpoint_written
        from ..state import checkpoint as write

        values = {
            "focus": focus,
            "phase": phase,
            "blockers": blockers,
            "next": next,
            "handoff": handoff,
            "task": task,
        }
        given = {k: v for k, v in values.items() if v is not None}
        if not given:
            raise ToolError("invalid_arguments: give at least one field")
        project = StateProject.open(project_dir())
        write(given, project=project)
        session = _session()
        if session is not None:
            # This session's checkpoint, not the one of every session running beside it.
            with _store(project.root) as store:
                checkpoint_written(store, session, project=project)
        return f"checkpoint written: {', '.join(sorted(given))}"

    @tool(WRITE, "Record a decision (unverified)")
    def decide(text: str, rejected: StrictBool = False, why: Text = None) -> dict[str, Any]:
        """Record a decision or rejected approach as the agent's (unverified until the owner adopts it)."""
        from ..state.notes import note as record

        body = f"[REJECTED] {text}" if rejected else text
        if why:
            body = f"{body} — because {why}"
        with _store(project_dir()) as store:
            noted = record(store, "decision", body, provenance="agent", session_id=_session())
        return {"id": noted.ref, "provenance": "agent", "trusted": False}

    @tool(WRITE, "Journal a note (unverified)")
    def note(
        type: Literal["decision", "correction", "risk", "note", "lesson"],
        text: str,
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Journal a note as the agent's (agent provenance, never shown as trusted)."""
        from ..state.notes import note as record

        with _store(project_dir()) as store:
            noted = record(
                store, type, text, tags=tags or (), provenance="agent", session_id=_session()
            )
        return {
            "id": noted.ref,
            "type": noted.type,
            "tags": list(noted.tags),
            "provenance": "agent",
            "hints": list(noted.hints),
        }

    @tool(READ, "Journal")
    def journal(
        limit: Upto200 = 10,
        type: Literal["decision", "correction", "risk", "note", "lesson"] | None = None,
    ) -> list[dict[str, Any]]:
        """Journal entries, newest first, each with its provenance."""
        with _store(project_dir()) as store:
            return [e.to_dict() for e in store.journal.list(limit=limit, type=type)]

    @tool(READ, "Recall")
    def recall(
        *,
        query: str = "",
        type: Text = None,
        tags: list[str] | None = None,
        limit: UptoRecall = 8,
        evidence_id: Text = None,
        cmd: Text = None,
    ) -> dict[str, Any]:
        """Ranked search over decisions, corrections, lessons and evidence; every hit has a trust label."""
        from ..recall import RecallQuery
        from ..recall import recall as search
        from ..state import recall_source  # registers STATE.md decisions as a source

        del recall_source
        wanted = RecallQuery(query, type, tuple(tags or ()), limit, evidence_id, cmd)
        with _store(project_dir()) as store:
            return search(store, wanted).to_dict()

    @tool(READ, "Owner intent")
    def intent(limit: Upto50 = 5) -> dict[str, Any]:
        """What the owner wants, needs, forbade and corrected, from recorded prompts."""
        from ..guard.intent import owner_intent

        with _store(project_dir()) as store:
            return owner_intent(store, limit=limit).to_dict()

    @tool(RUN, "Verify with a command")
    def verify(command: str, timeout_s: Seconds = None) -> dict[str, Any]:
        """Run a shell command (bash -c) and record it as evidence (ev-NNNN); UNTRUSTED when
        masked. ``timeout_s``: seconds (1 to 900), else the project's ``verify_timeout_s``."""
        from ..guard.evidence import run_verified

        root = project_dir()
        cfg = _config(root)
        with _store(root) as store:
            result = run_verified(
                store,
                command,
                timeout_s=timeout_s if timeout_s is not None else cfg.verify_timeout_s,
                cwd=root,
                threshold=cfg.loop_block_after,
                digest_chars=cfg.verify_digest_chars,
                session_id=_session(),
            )
        if result.run is None:
            return {"refused": True, "reason": result.decision.reason}
        return result.run.to_dict()

    @tool(READ, "Evidence runs")
    def evidence(limit: Upto100 = 5, evidence_id: Text = None) -> list[dict[str, Any]]:
        """Recorded evidence runs, newest first (or one by its ev- id)."""
        with _store(project_dir()) as store:
            if evidence_id is not None:
                run = store.evidence.get(evidence_id)
                if run is None:  # the id is the model's: not repeated
                    raise ToolError("not_found: no evidence run has that id (ev-NNNN)")
                return [run.to_dict()]
            return [r.to_dict() for r in store.evidence.list(limit=limit)]

    @tool(READ, "Open loops")
    def loops() -> list[dict[str, Any]]:
        """Commands failing (or unproven) in a row: what each streak counted (``failed``
        runs, ``unproven`` exits 0 of test runs, ``streak`` in words, as a refusal says),
        and whether the loop brake now refuses the next identical attempt."""
        from ..guard.loops import open_loops

        root = project_dir()
        with _store(root) as store:
            found = open_loops(store, threshold=_config(root).loop_block_after)
        return [loop.to_dict() for loop in found]

    @tool(READ, "Scope audit")
    def diff(baseline: Text = None) -> dict[str, Any]:
        """How much the work changed against a baseline (ok / warn / hard)."""
        from ..guard.scope import ScopeThresholds, audit_scope

        root = project_dir()
        cfg = _config(root)
        thresholds = ScopeThresholds(
            warn_lines=cfg.diff_warn_lines,
            hard_lines=cfg.diff_hard_lines,
            warn_files=cfg.diff_warn_files,
        )
        return audit_scope(root, baseline=baseline, thresholds=thresholds).to_dict()

    @tool(READ, "Preflight")
    def preflight(tools: list[str] | None = None) -> dict[str, Any]:
        """Which tools exist here and their versions (bounded time)."""
        from ..guard.preflight import preflight as probe

        root = project_dir()
        return probe(tuple(tools or _config(root).preflight_tools), cwd=root).to_dict()

    @tool(READ, "Context budget")
    def budget(
        used_tokens: Annotated[int | None, Field(ge=0)] = None,
        window_tokens: Annotated[int | None, Field(ge=1)] = None,
    ) -> dict[str, Any]:
        """Context watermarks and tool-output volume of this session."""
        from ..guard.budget import session_budget

        root = project_dir()
        with _store(root) as store:
            return session_budget(
                store,
                session_id=_session(),
                warn_pct=_config(root).ctx_warn_pct,
                used_tokens=used_tokens,
                window_tokens=window_tokens,
            ).to_dict()

    @tool(READ, "Orientation")
    def orientation() -> dict[str, Any]:
        """A bounded digest of the repository: tree, languages, conventions files."""
        from ..guard.orientation import orient

        return orient(project_dir()).to_dict()

    @tool(WRITE, "Contract")
    def contract(add: Text = None) -> list[dict[str, Any]]:
        """The standing constraints in force; ``add`` proposes a project constraint (agent, unverified)."""
        from ..store.contract import add_constraint, load_contract

        root = project_dir()
        if add is not None:  # an empty one is refused, as from the CLI
            add_constraint(root, add, layer="project", provenance="agent")
        return [
            {
                "id": c.id,
                "text": c.text,
                "layer": c.layer,
                "provenance": c.provenance,
                "trusted": c.trusted,
            }
            for c in load_contract(root).constraints
        ]

    @tool(READ, "Provider-mode prompt")
    def inspect_prompt(messages: list[dict[str, Any]] | None = None) -> str:
        """What provider mode asks a model about these messages ({role, content}); without
        messages, the question alone (for a model that already holds the conversation; the
        messages still go with the answer). Answer it with JSON and pass that as `answer` to
        inspect, guidance or snapshot with the same messages. How the answer is read: each
        proposal's `kind` is one of the kinds the prompt lists and its `content` is copied
        verbatim from one message (`source`, the id shown in brackets, is a hint); a proposal
        not found is not used and counted as `provider_rejected`. The same policy decides
        every item; an assistant statement no proposal names is dropped as noise (counted
        as `provider_passed`), the owner's word is kept. An answer that cannot be used (no JSON, no proposal found)
        gives the rules' result and says why in `fallback_reason`."""
        from ..inspect.provider import ProviderAnswerError, asked, instructions

        if messages is None:
            return instructions()
        try:
            return asked(_messages(messages).messages)
        except ProviderAnswerError as exc:  # our own words: the transcript is too large
            raise ToolError(f"provider_error: {exc}") from None

    @tool(READ, "Inspect a conversation")
    def inspect(messages: list[dict[str, Any]], answer: Answer = None) -> dict[str, Any]:
        """Candidate memories of messages ({role, content}) with keep / drop / review;
        `answer`: a model's answer to inspect_prompt (provider mode)."""
        from ..inspect import inspect_messages
        from ..thresholds import policy_for

        read = _messages(messages)
        result = inspect_messages(
            read.messages, config=policy_for(project_dir()), provider=_answered(answer)
        )
        return {**result.to_dict(), **_notes(answer, result, read)}

    @tool(READ, "Compaction guidance")
    def guidance(messages: list[dict[str, Any]], answer: Answer = None) -> str:
        """What a summary of these messages must preserve, can discard, should weigh;
        `answer`: a model's answer to inspect_prompt (provider mode)."""
        from ..inspect import build_guidance, inspect_messages
        from ..thresholds import policy_for

        read = _messages(messages)
        result = inspect_messages(
            read.messages, config=policy_for(project_dir()), provider=_answered(answer)
        )
        text = build_guidance(result).text()
        said = _said(_notes(answer, result, read))
        # After the guidance, marked as the host's: a host that hands the text to its
        # summariser as it is must not have these read as part of what to preserve.
        return "\n".join([text, "", NOTES_HEADING, *said]) if said else text

    @tool(WRITE, "Snapshot before compaction")
    def snapshot(messages: list[dict[str, Any]], answer: Answer = None) -> dict[str, Any]:
        """Store the snapshot of what must survive (messages plus the project's record); returns
        it. `answer`: a model's answer to inspect_prompt (provider mode)."""
        from ..compaction import capture

        provider = _answered(answer)
        read = _messages(messages)
        with _store(project_dir()) as store:
            taken = capture(
                store, read.messages, session_id=_session(), label="mcp", provider=provider
            )
        return {
            "snapshot_seq": taken.record.seq,
            **taken.snapshot.to_dict(),
            **_notes(answer, taken.result, read),
        }

    @tool(WRITE, "Check a summary")
    def check(summary: str, snapshot: dict[str, Any] | None = None) -> dict[str, Any]:
        """Check a summary against the latest stored snapshot, and store the report (what
        `restore` reads); with a `snapshot` passed in, the report is only returned, never
        stored, so `restore` does not see it."""
        from ..compaction import check_summary
        from ..core import FactsVerifier, Snapshot, verify_context

        if not summary.strip():
            # As the CLI: checked, an empty summary reports every item lost and, stored,
            # would replace the report of the summary the host did write.
            raise ToolError("invalid_arguments: summary: empty (nothing to check)")
        if snapshot is not None:
            return verify_context(Snapshot.from_dict(snapshot), summary, FactsVerifier()).to_dict()
        with _store(project_dir()) as store:
            outcome = check_summary(store, summary, session_id=_session(), source="mcp")
        if outcome is None:
            session = _session()
            # Other sessions' snapshots may be there: this one is checked against its own.
            whose = (
                f"of this session (CONTEXTWARD_SESSION_ID={one_line(session)[:80]})"
                if session
                else "stored"
            )
            raise ToolError(f"not_found: no snapshot {whose} yet; call snapshot first or pass one")
        return outcome.report.to_dict()

    @tool(READ, "Load a task's planning artifacts")
    def load(task: str) -> str:
        """Summarise a task folder under the plans folder (paths confined to the project)."""
        from ..state import StateProject, load_task, render_summary

        return render_summary(load_task(StateProject.open(project_dir()), task))

    return server


def serve() -> None:
    """Run the server on stdio until the client closes it."""
    build_server().run()
