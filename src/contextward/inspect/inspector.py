"""The inspection pipeline: messages -> atomic units -> classified, merged, linked, decided candidates.

Owns the order of the steps and the bounded treatment of tool output (one
candidate per tool message, its content a short verbatim prefix). Reads its
input once, as a stream, and in rules mode holds a bounded window of drafts:
each candidate goes to a sink once nothing can change it (``_Builder``).
Never invents text: every candidate's content is a verbatim span of one
message.
"""

from __future__ import annotations

import os
import re
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import BinaryIO, NamedTuple, Protocol

from ..redact import mask, prefix
from . import apart, lexicon, supersession
from .candidate import Candidate, InspectionResult, candidate_id
from .classifier import (
    CRITICAL_KINDS,
    IMPORTANCE,
    NOISE_KINDS,
    Classification,
    Context,
    classify,
    replaced_subject,
)
from .continuation import MAX_QUOTES, classify_summary, is_continuation, summary_units
from .digests import Statements
from .draft import Draft
from .lexicon import ASKS, DIGIT, IDENTIFIER, PLEASE, REASON
from .message import Message, fold, own_block
from .policy import PolicyConfig, decide
from .provider import CandidateProvider, Proposal, propose
from .readers import open_transcript
from .segment import Unit, units

#: Noise content is a verbatim prefix of at most this many characters.
NOISE_PREVIEW = 160
#: Provider mode: a rules noise call the model overturns keeps at most this much of its
#: own confidence (the model's own confidence decides).
MAX_CONFIRMED = 0.8
_ASKS_BACK = re.compile(r"[?？]\s*$")
# "以后提交信息用英文写。", "记得…": asked of the agent, as "…, please" is.
_ASKED_OF_ZH = re.compile(r"^(?:以后|今后|往后|请|记得|一律|统一)")
_INSTRUCTS = re.compile(
    r"(?:(?:ok(?:ay)?|yes|yeah|sure|fine|then|also|and|so|please|pls|no|nah|好的?|行|嗯|可以|那)[,，!.。 ]+)*"
    r"(?:(?:let'?s|don'?t|do|leave|skip|keep|put|squash|drop|add|use|make|write|go|try|ship|wait|"
    r"hold|stop|start|merge|rebase|revert|rename|move|split|bump|pin|tell|ask|ping|note|mention|"
    r"log|default|both|neither|just|only|never|always|no need|not)\b|"
    r"先|再|都|就|别|不用|不要|默认|顺便|等|记得|直接|改|加|写|删|留|合|用|上|做|跑|发|提|推|只|每)"
)
#: What makes a line of tool output an error line.
_ERROR = re.compile(
    r"\b(?:error|exception|traceback|failed|fatal|panic|denied|refused|timed? ?out|locked)\b|错误|失败|异常"
    # "ModuleNotFoundError: …", "sqlite3.OperationalError: …", "NullPointerException".
    r"|(?-i:[A-Za-z_]\w*(?:Error|Exception))\b",
    re.I,
)
_ERROR_HINTS = (
    "error",
    "exception",
    "traceback",
    "fail",
    "fatal",
    "panic",
    "denied",
    "refused",
    "timed out",
    "timeout",
    "locked",
    "错误",
    "失败",
    "异常",
)


#: Positions a message spans: itself and the owner messages a summary in it quotes.
_QUOTE_ROOM = MAX_QUOTES + 1


#: A draft is settled (linked with the kind it has then) once this many drafts have
#: followed it: a copy said within that distance merges into it first, as when the whole
#: transcript was read before linking (docs/inspect.md).
LAG = supersession.MAX_BACK
#: Drafts are settled and linked this many at a time: the rules run faster in a batch
#: than between the messages' classification.
BATCH = 4096
#: When another process classifies (``apart``), a smaller batch: while this one links a
#: batch the other fills the pipe between them, and then waits.
BATCH_APART = 1024


class CandidateSink(Protocol):
    """Where an inspection puts each candidate once nothing can change it, by its
    ordinal (its place in transcript order): they come in any order, each once, and a
    later copy of a candidate already put revises it at the end (``revise``)."""

    def put(self, ordinal: int, candidate: Candidate) -> None: ...

    def revise(self, ordinal: int, change: Callable[[Candidate], Candidate]) -> None: ...


class _Collected:
    """A sink holding every candidate: the result of ``inspect_stream``."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Candidate | None] = []

    def put(self, ordinal: int, candidate: Candidate) -> None:
        items = self._items
        if ordinal >= len(items):
            items.extend([None] * (ordinal + 1 - len(items)))
        items[ordinal] = candidate

    def revise(self, ordinal: int, change: Callable[[Candidate], Candidate]) -> None:
        candidate = self._items[ordinal]
        assert candidate is not None, "a candidate is revised after it was put"
        self._items[ordinal] = change(candidate)

    def candidates(self) -> tuple[Candidate, ...]:
        out = tuple(c for c in self._items if c is not None)
        assert len(out) == len(self._items), "every draft became a candidate"
        return out


class _Builder:
    """Accumulates drafts, merging duplicates by their folded text, and (given a sink)
    settles, links and freezes them as the messages are read, so only a bounded window
    of drafts is held: a draft is settled once ``LAG`` drafts follow it, and frozen into
    its candidate once no later statement reaches back to it. A copy of a frozen one
    merges into a patch (a draft holding what the candidate was made of, and the copies'
    sources), made into the revised candidate at the end."""

    def __init__(self, config: PolicyConfig, sink: CandidateSink, batch: int = BATCH) -> None:
        self._batch = batch
        self.drafts: deque[Draft] = deque()  # not yet settled, in order
        #: The ordinal of each statement's draft by the statement's number (``Statements``;
        #: -1: none yet), and the drafts not yet frozen by ordinal.
        self._ordinals = array("q")
        self._live: dict[int, Draft] = {}
        self._made = 0
        self._config, self._sink = config, sink
        self._shared = _Shared()
        self._linker = supersession.Linker()
        # What a frozen candidate was made of (``_State``), shared by the many with the
        # same, by ordinal: a copy of it starts its patch from there.
        self._states = array("I")
        self._state_of: dict[_State, int] = {}
        self._state_list: list[_State] = []
        self._patches: dict[int, Draft] = {}
        #: Copies that changed a settled draft's kind or ``replaces``: it was linked as it
        #: was before (where a streamed inspection may differ from a whole one).
        self.late = 0

    @property
    def hurried(self) -> int:
        """Statements linked before a veto could no longer retire a plan before them."""
        return self._linker.hurried

    def add(
        self,
        message: Message,
        position: int,
        text: str,
        number: int,
        c: Classification,
        *,
        turn: int = 0,
        item: int | None = None,
        role: str | None = None,
        summary: bool = False,
        clean: bool = False,
        also: bool = False,
    ) -> Draft:
        """The draft of statement ``text`` (``number``: its number where the messages
        were read), a new one or the earlier one it copies."""
        ordinals = self._ordinals
        ordinal = ordinals[number] if number < len(ordinals) else -1
        if ordinal < 0:
            ordinal = self._made
            self._made += 1
            if number < len(ordinals):
                ordinals[number] = ordinal
            else:
                # The numbers between are texts no draft took (an error line not kept).
                ordinals.extend([-1] * (number - len(ordinals)))
                ordinals.append(ordinal)
            draft = Draft(
                id=candidate_id(message.id, c.kind, text),
                kind=c.kind,
                content=text,
                importance=c.importance,
                confidence=c.confidence,
                reason=c.reason,
                sources=(message.id,),
                position=position,
                replaces=c.replaces,
                turn=turn,
                # A summary's words are the host's (``system``), not its message's author's.
                role=role or message.role,
                item=item,
                summary=summary,
                ordinal=ordinal,
                clean=clean,
                also=also,
            )
            self._states.append(0)
            self._live[ordinal] = draft
            self.drafts.append(draft)
            return draft
        old = self._live.get(ordinal) or self._patch(ordinal, text)
        was = (old.kind, old.replaces, old.role)
        # Constant time per copy: a source repeats back to back (one message saying it
        # twice) or, with ids a transcript reuses, later; ``_freeze`` folds those.
        if not old.sources or old.sources[-1] != message.id:
            if isinstance(old.sources, tuple):
                old.sources = [*old.sources, message.id]
            else:
                old.sources.append(message.id)
        owner = (role or message.role) == "user" and old.role != "user"
        if (
            c.importance > old.importance
            # The owner saying what the agent said: read as the owner's (an error line's
            # kind, which the output it ended told, stays).
            or (owner and c.importance == old.importance and old.role != "tool")
            or (
                old.kind in ("tool_output", "transient")
                and c.kind not in ("tool_output", "transient")
            )
        ):
            old.kind, old.importance, old.reason = c.kind, c.importance, c.reason
        if owner:
            old.role = "user"  # the owner says what the agent said: the owner's word now
        old.confidence = max(old.confidence, c.confidence)
        old.replaces = old.replaces or c.replaces
        old.summary = old.summary and summary  # the owner said it too: their word
        if old.settled and (old.kind, old.replaces, old.role) != was:
            self.late += 1
        return old

    def _patch(self, ordinal: int, text: str) -> Draft:
        """The patch of the frozen candidate ``ordinal``: what it was made of, the
        sources of its later copies (none yet) and, for what reads it, the copy's words."""
        patch = self._patches.get(ordinal)
        if patch is None:
            kind, importance, confidence, reason, replaces, summary, role = self._state_list[
                self._states[ordinal]
            ]
            patch = Draft("", kind, text, importance, confidence, reason, (), 0, replaces, 0, role)
            patch.summary, patch.ordinal, patch.settled = summary, ordinal, True
            self._patches[ordinal] = patch
        return patch

    def advance(self) -> None:
        """Settle the drafts ``LAG`` behind the last, and freeze what is done."""
        drafts = self.drafts
        if len(drafts) <= LAG + self._batch:
            return
        while len(drafts) > LAG:
            self._settle(drafts.popleft())
        for d in self._linker.link():
            self._let_go(d)

    def finish(self) -> None:
        """No message comes any more: link and freeze the rest, then revise the
        candidates later copies patched."""
        while self.drafts:
            self._settle(self.drafts.popleft())
        # Each let go as its candidate is made: the two are never held whole at once.
        done = self._linker.link(final=True)
        done.reverse()
        while done:
            self._let_go(done.pop())
        config, shared = self._config, self._shared
        for ordinal, patch in self._patches.items():
            self._sink.revise(ordinal, partial(_revised, patch, config, shared))
        self._patches.clear()

    def freeze_all(self) -> None:
        """Freeze every draft as it is (provider mode links and revises them first),
        each let go as its candidate is made."""
        while self.drafts:
            self._let_go(self.drafts.popleft())

    def _settle(self, d: Draft) -> None:
        d.settled = True
        # No draft after it has a turn before its message's: a summary's quoted owner
        # messages take the turns after it (``_QUOTE_ROOM`` positions, one turn each).
        if not self._linker.settle(d, d.turn - d.position % _QUOTE_ROOM):
            self._let_go(d)  # no statement to link: nothing changes it any more

    def _let_go(self, d: Draft) -> None:
        state = (d.kind, d.importance, d.confidence, d.reason, d.replaces, d.summary, d.role)
        n = self._state_of.get(state)
        if n is None:
            n = self._state_of[state] = len(self._state_list)
            self._state_list.append(state)
        self._states[d.ordinal] = n
        self._live.pop(d.ordinal, None)
        self._sink.put(d.ordinal, _freeze(d, self._config, self._shared))


#: What a frozen candidate's patch starts from: kind, importance, confidence, reason,
#: replaces, summary and role.
_State = tuple[str, float, float, str, bool, bool, str]


def _revised(patch: Draft, config: PolicyConfig, shared: _Shared, c: Candidate) -> Candidate:
    """Candidate ``c`` with its later copies (``patch``) merged in, as if they had
    merged into its draft before it was frozen."""
    d = Draft(
        c.id,
        patch.kind,
        c.content,
        patch.importance,
        patch.confidence,
        patch.reason,
        [*c.sources, *patch.sources],
        c.position,
        patch.replaces,
        c.turn,
        patch.role,
        patch.summary,
        None,
        c.supersedes,
        c.superseded_by,
    )
    d.clean = c.clean
    return _freeze(d, config, shared)


def inspect_messages(
    messages: Iterable[Message],
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
    format: str | None = None,
    skipped: dict[str, int] | None = None,
    continued: bool = False,
) -> InspectionResult:
    """Inspect messages (any iterable; read once). ``provider`` proposes extra candidates;
    ``continued``: the messages go on a session already compacted, so the owner's first
    message among them is no opening request (no goal for that alone)."""
    sink = _Collected()
    statements = Statements()
    result = _inspect(
        _reads(messages, statements, continued=continued),
        sink,
        config=config,
        provider=provider,
        format=format,
        skipped=skipped,
        statements=statements,
    )
    return replace(result, candidates=sink.candidates())


class _Read(NamedTuple):
    """One message as the rules read it (``_reads``), before its statements are merged
    with the earlier ones and linked: what a reading process sends the inspecting one.
    A tool message has ``units`` None; our own block passed back in, ``message`` None."""

    message: Message | None
    #: Its place (``_QUOTE_ROOM`` positions a message) and its speaker turn.
    position: int = 0
    turn: int = 0
    #: Who says its statements (``Context.role``) and whether a host's summary does.
    role: str = ""
    summary: bool = False
    #: Its statements: each one's text, the owner message a summary quotes it from (0:
    #: none) and its number in a list, with its kind.
    units: tuple[tuple[str, int, int | None], ...] | None = None
    kinds: tuple[Classification, ...] = ()
    #: A tool message: the start of its output (None: empty) and the error line it ends
    #: with, if it failed.
    first: str | None = None
    error: str | None = None
    #: Its texts found to hold no secret, its id too (``light``): their candidates'
    #: content and first source are not masked again.
    clean: frozenset[str] = frozenset()
    #: Each text's number (``Statements``), in the order of ``units``, or a tool
    #: message's ``first`` and ``error`` (-1: none): a copy has the number of the first.
    statements: tuple[int, ...] = ()
    #: Its texts led in by "Also" or "Plus" (``Unit.also``).
    also: frozenset[str] = frozenset()

    def light(self) -> _Read:
        """The same, its message carrying only what the candidates take (its id and
        role), and its texts that hold no secret found (masking each costs the
        inspecting process more than reading the answer): what crosses to it."""
        m = self.message
        if m is None:
            return self
        texts = [self.first, self.error] if self.units is None else [u[0] for u in self.units]
        # Marked only with the message's id, which is each candidate's first source.
        clean = (
            frozenset(t for t in texts if t is not None and mask(t) == t)
            if mask(m.id) == m.id
            else frozenset()
        )
        return self._replace(message=Message(m.id, m.role, ""), clean=clean)


#: What our own restore block or brief, passed back in, reads as: no one said it.
_OWN = _Read(None)


def _reads(
    messages: Iterable[Message], statements: Statements, *, continued: bool = False
) -> Iterator[_Read]:
    """Each message segmented and classified in its context (the speaker turns, the
    opening request, a failed tool run before it), its texts numbered by ``statements``;
    ``continued``: the messages go on a session already compacted, so the owner's first
    message among them is no opening request. Nothing here depends on another message's
    statements but their numbers."""
    number = statements.number
    opening = not continued  # until the first user message with text has been read
    failed = False  # the last tool run failed
    proposed = False  # the last message was the assistant's, ending with a plan
    turn, speaker = 0, ""
    for index, message in enumerate(messages):
        # Room between two messages' positions for the owner messages a summary quotes.
        position = index * _QUOTE_ROOM
        if message.role != "tool" and own_block(message.text):
            yield _OWN
            continue
        if message.role == "tool":
            first, error, failed = _tool(message)
            numbered = tuple(-1 if t is None else number(t) for t in (first, error))
            yield _Read(message, position, turn, first=first, error=error, statements=numbered)
            proposed = False
            continue
        if message.role != speaker:
            turn, speaker = turn + 1, message.role
        # A host's continuation message is a summary even when its reader did not flag it,
        # and then the host speaks, not the owner.
        summary = message.summary or (
            message.role in ("user", "system") and is_continuation(message.text)
        )
        if summary:
            ctx = Context("system" if message.role == "user" else message.role, summary=True)
            pieces = summary_units(message.text)
            # The summary states the session's goal; "ok continue" after it is no opening.
            opening = False
        else:
            ctx = Context(
                message.role,
                opening=opening and message.role == "user",
                after_error=failed,
                after_proposal=proposed and message.role == "user",
            )
            pieces = units(message.text)
            if message.role == "user" and message.text.strip():
                opening = False
        kinds = (
            classify_summary(pieces)
            if summary
            else _with_code(pieces, [classify(unit, ctx, n) for n, unit in enumerate(pieces)], ctx)
        )
        yield _Read(
            message,
            position,
            turn,
            ctx.role,
            summary,
            tuple((unit.text, unit.quoted, unit.number) for unit in pieces),
            tuple(kinds),
            statements=tuple(number(unit.text) for unit in pieces),
            also=frozenset(unit.text for unit in pieces if unit.also),
        )
        quoted = max((unit.quoted for unit in pieces), default=0)
        if quoted:  # the quoted owner messages took the turns after it
            turn += quoted
        failed = False
        proposed = (
            ctx.role == "assistant" and not summary and bool(kinds) and kinds[-1].kind == "decision"
        )


def _inspect(
    reads: Iterable[_Read],
    sink: CandidateSink,
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
    format: str | None = None,
    skipped: dict[str, int] | None = None,
    batch: int = BATCH,
    statements: Statements | None = None,
) -> InspectionResult:
    """``inspect_messages`` of the messages read (``_reads``), each candidate put in
    ``sink``: in rules mode as soon as nothing can change it (linked ``batch`` drafts at
    a time), in provider mode at the end. The result holds no candidate. ``statements``:
    what numbered the reads, where they were read in this process (provider mode numbers
    the model's new candidates with it)."""
    config = config or PolicyConfig()
    builder = _Builder(config, sink, batch)
    kept_messages: list[Message] | None = [] if provider is not None else None
    count = 0
    pending_error: tuple[Message, str, int, bool] | None = None
    own = 0
    for read in reads:
        count += 1
        message = read.message
        if message is None:
            own += 1  # our own restore block or brief, passed back in: no one said it
            continue
        if kept_messages is not None:
            kept_messages.append(message)
        position, turn = read.position, read.turn
        if read.units is None:  # a tool message: one noise candidate
            if read.first is not None:
                builder.add(
                    message,
                    position,
                    read.first,
                    read.statements[0],
                    _TOOL_OUTPUT,
                    turn=turn,
                    clean=read.first in read.clean,
                )
            if read.error is not None:
                pending_error = (message, read.error, read.statements[1], read.error in read.clean)
            continue
        # An owner message a summary quotes is the owner's word, said again in its own turn
        # and place: a later quote replaces an earlier one as the messages did. The drafts
        # of one message share its position and turn (one int each, not one per draft).
        added = [
            builder.add(
                message,
                position + quoted if quoted else position,
                text,
                statement,
                c,
                turn=turn + quoted if quoted else turn,
                item=number,
                role="user" if quoted else read.role,
                summary=read.summary and not quoted,
                clean=text in read.clean,
                also=text in read.also,
            )
            for (text, quoted, number), c, statement in zip(
                read.units, read.kinds, read.statements, strict=True
            )
        ]
        if pending_error is not None:
            turn += max((quoted for _text, quoted, _number in read.units), default=0)
            _explain(builder, pending_error, added, position, turn)
            pending_error = None
        if kept_messages is None:
            builder.advance()
    mode: str = "rules"
    fallback: str | None = None
    rejected = repeated = passed = refused = 0
    if kept_messages is None:
        builder.finish()
    else:
        # The rules link what the rules found; the model's links come after, from its
        # own words.
        supersession.link(builder.drafts)
    if provider is not None and kept_messages is not None:
        proposed = propose(provider, kept_messages)
        proposals, rejected, repeated, fallback = (
            proposed.proposals,
            proposed.rejected,
            proposed.repeated,
            proposed.fallback,
        )
        if fallback is None:
            where = {id(m): n for n, m in enumerate(kept_messages)}
            assert statements is not None, "provider mode reads the messages in this process"
            named, fragments = _confirm(builder, statements, proposals, where, config)
            rejected += fragments
            if fragments == len(proposals):
                # Nothing but fragments ("Let", "Redis"): read, the answer would only demote
                # the rules' finds as "passed by".
                fallback = (
                    f"none of its {rejected} proposals is usable (not verbatim in the "
                    "transcript, of no known kind, or a fragment of a sentence)"
                )
            else:
                mode = "provider"
                refused = _relink(builder.drafts, proposals, named)
                passed = _passed_by(builder.drafts, named, config)
    if kept_messages is not None:
        builder.freeze_all()
    return InspectionResult(
        candidates=(),
        messages=count,
        mode="provider" if mode == "provider" else "rules",
        format=format,
        skipped=_counted(skipped or {}, {"contextward_injection": own} if own else {}),
        fallback_reason=fallback,
        provider_rejected=rejected,
        provider_repeated=repeated if mode == "provider" else 0,
        provider_passed=passed,
        provider_refused=refused,
    )


def _with_code(
    pieces: list[Unit], kinds: list[Classification], ctx: Context
) -> list[Classification]:
    """The owner's code block or command right after an instruction of theirs that leads
    into it ("Run this before every commit:" and the command) is what the instruction
    names, so it is kept with it, as the same kind; a pasted block after "copy it:"
    stays noise."""
    if ctx.role != "user":
        return kinds
    out = list(kinds)
    led: Classification | None = None  # what the lead made the code after it, if it led
    for n in range(1, len(pieces)):
        lead, c = pieces[n - 1], out[n - 1]
        if not pieces[n].code:
            led = None
        elif (
            lead.text.rstrip().endswith((":", "："))
            and c.kind not in NOISE_KINDS
            and not ASKS.search(lead.text.lower())  # a log to look into stays noise
        ):
            # Of the instruction's kind, so the two are listed together.
            led = Classification(
                c.kind, c.importance, c.confidence, f"what the user's {c.kind} before it names"
            )
        if led is not None:
            out[n] = led  # and every command line after the first ("Run these:")
    return out


def _counted(*counts: Mapping[str, int]) -> dict[str, int]:
    total: dict[str, int] = {}
    for each in counts:
        for reason, n in each.items():
            total[reason] = total.get(reason, 0) + n
    return total


#: A transcript file this large holds thousands of units (about 1,000 a megabyte, 1,700 of
#: dense prose), past ``lexicon.FOCUS_AFTER``: the cues' tokens are read before the first
#: unit, not after 2,000 units searched for every cue (55 ms of a 13.8 MB transcript).
FOCUS_FROM_BYTES = 4 * 1024 * 1024


def _file_size(stream: BinaryIO) -> int:
    """The size of the file ``stream`` reads, or 0 when it is no file (a pipe, bytes)."""
    try:
        return os.fstat(stream.fileno()).st_size
    except (AttributeError, OSError, ValueError):  # no file descriptor (BytesIO), or closed
        return 0


def inspect_stream(
    stream: BinaryIO,
    format: str | None = None,
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
    continued: bool = False,
) -> InspectionResult:
    """Detect (or take) the format, read ``stream`` once and inspect it."""
    sink = _Collected()
    result = _inspect_stream(
        stream, sink, format, config=config, provider=provider, continued=continued
    )
    return replace(result, candidates=sink.candidates())


def inspect_into(
    stream: BinaryIO,
    sink: CandidateSink,
    format: str | None = None,
    *,
    config: PolicyConfig | None = None,
    continued: bool = False,
) -> InspectionResult:
    """``inspect_stream`` in rules mode, each candidate put in ``sink`` (by its ordinal)
    once nothing can change it, so a transcript of any length is inspected in a bounded
    window of drafts. The result holds no candidate: the sink has them."""
    return _inspect_stream(stream, sink, format, config=config, continued=continued)


def _inspect_stream(
    stream: BinaryIO,
    sink: CandidateSink,
    format: str | None = None,
    *,
    config: PolicyConfig | None = None,
    provider: CandidateProvider | None = None,
    continued: bool = False,
) -> InspectionResult:
    transcript = open_transcript(stream, format)
    size = _file_size(stream)
    if size >= FOCUS_FROM_BYTES:
        lexicon.prepare()  # thousands of units to come: the first ones are focused too
    statements = Statements()
    if provider is None and apart.worth_it(size):
        # A second process reads, classifies and numbers while this one links and decides.
        reads = apart.Apart(
            lambda: _reads(transcript.messages, statements, continued=continued),
            lambda: transcript.skips.counts,
            _Read.light,
        )
        result = _inspect(reads, sink, config=config, batch=BATCH_APART)
        skips = reads.result
        assert isinstance(skips, dict), "the reading process sends what it skipped"
    else:
        result = _inspect(
            _reads(transcript.messages, statements, continued=continued),
            sink,
            config=config,
            provider=provider,
            statements=statements,
        )
        skips = transcript.skips.counts
    return replace(result, format=transcript.format, skipped=_counted(skips, result.skipped))


def _ends(text: str, size: int) -> str:
    """The whole lines among the first and the last ``size`` characters of ``text``."""
    head, tail = text[:size], text[-size:]
    return head[: head.rfind("\n") + 1] + (tail[tail.find("\n") + 1 :] if "\n" in tail else "")


#: What every tool message's candidate is.
_TOOL_OUTPUT = Classification(
    "tool_output",
    IMPORTANCE["tool_output"],
    0.95,
    "tool output: command output, logs and test runs are noise",
)


def _tool(message: Message) -> tuple[str | None, str | None, bool]:
    """A tool message's noise candidate's text (None: it is empty), the error line it
    ends with, and whether it failed."""
    text = message.text.strip()
    if not text:
        return None, None, False
    # Prefixes never cut a secret in two (the half would pass the mask).
    first = prefix(text.split("\n", 1)[0].strip(), NOISE_PREVIEW) or prefix(text, NOISE_PREVIEW)
    error = None
    probe = text if len(text) <= 4096 else _ends(text, 2048)
    line = ""
    low = probe.lower()
    # A few substring scans in C beat one pass of a pattern over the whole output.
    failed = message.is_error or any(hint in low for hint in _ERROR_HINTS)
    if failed:
        # The last error line usually names the cause: read the lines from the end.
        line = next((ln.strip() for ln in reversed(probe.split("\n")) if _ERROR.search(ln)), "")
    if line and line in message.text:
        error = prefix(line, NOISE_PREVIEW * 2)
    return first, error, failed


def _explain(
    builder: _Builder,
    error: tuple[Message, str, int, bool],
    added: list[Draft],
    position: int,
    turn: int,
) -> None:
    """Keep a tool error when the next turn abandons an approach without saying why."""
    turned = [d for d in added if d.kind == "rejected" or (d.kind == "decision" and d.replaces)]
    if not turned or any(REASON.search(d.content.lower()) for d in turned):
        return
    message, line, statement, clean = error
    builder.add(
        message,
        position,
        line,
        statement,
        Classification(
            "rejected", 0.8, 0.8, "the error that made the next turn abandon an approach"
        ),
        turn=turn,
        clean=clean,
    )


def _confirm(
    builder: _Builder,
    statements: Statements,
    proposals: list[Proposal],
    where: dict[int, int],
    config: PolicyConfig,
) -> tuple[list[list[Draft]], int]:
    """Provider mode: the host's model confirms the rules' unsure memories and adds what they missed.

    A memory proposal names every draft of its message that it contains or that contains
    it (``_names``); a noise draft it names takes the model's kind. A proposal naming none
    is a new candidate, but a fragment of a statement of the rules (``_fragment``: "Let" of
    "Let me run the tests.", "Redis" of a sentence about Redis) is refused.
    Returns, per proposal, the drafts it names, and how many were fragments.
    """
    by_source: dict[str, list[Draft]] = {}
    for draft in builder.drafts:
        by_source.setdefault(draft.sources[0], []).append(draft)
    named: list[list[Draft]] = []
    fragments = 0
    for p in proposals:
        c = p.classification
        if c.kind in NOISE_KINDS:
            named.append([])
            continue
        text = fold(p.text)
        drafts = by_source.get(p.message.id, [])
        hits = [d for d in drafts if _names(text, d)]
        if not hits and any(_fragment(text, d) for d in drafts):
            fragments += 1
            named.append([])
            continue
        for d in hits:
            if _unsure(d, config) and not _pleasantry(d):
                d.kind, d.importance = c.kind, c.importance
                d.confidence = max(c.confidence, min(d.confidence, MAX_CONFIRMED))
                d.reason = f"{d.reason}; the host's model names it {c.kind}"
        if not hits:
            hits = [
                builder.add(
                    p.message,
                    where[id(p.message)],
                    p.text,
                    statements.number(p.text),
                    c,
                    summary=p.message.summary,
                )
            ]
        named.append(hits)
    return named, fragments


def _passed_by(drafts: Sequence[Draft], named: list[list[Draft]], config: PolicyConfig) -> int:
    """A rules memory no surer than ``config.confirm_confidence`` that no proposal names
    becomes noise, the model having read it and passed it by, unless the user said it (a
    plain remark of theirs excepted: ``_remark``) or it was replaced (a replaced statement is dropped as such, under its own kind: the
    model's ``replaces`` names it). Returns how many memories the model passed by."""
    confirmed = {id(d) for hits in named for d in hits}
    asked = {d.turn for d in drafts if d.role == "assistant" and _ASKS_BACK.search(d.content)}
    passed = 0
    for d in drafts:
        if id(d) in confirmed or d.kind == "tool_output" or d.superseded_by is not None:
            continue
        # The owner's own words are not dropped because another model passed them by,
        # unless the rules too found nothing in them but a plain remark.
        if d.kind == "transient" or (
            _unsure(d, config) and (d.role != "user" or _remark(d, asked))
        ):
            passed += d.kind != "transient"
            if d.role == "user" and d.kind != "transient":
                d.reason = "a plain remark of the user (no name, number, answer or instruction)"
            d.kind, d.importance = "transient", IMPORTANCE["transient"]
            d.confidence = max(d.confidence, config.drop_confidence)
            d.reason = f"{d.reason}; the host's model passed it by"
    return passed


def _remark(d: Draft, asked: set[int]) -> bool:
    """An owner's remark the rules call a fact only for want of a better kind: naming
    nothing concrete (no identifier, no number), answering no question of the agent's,
    giving no instruction and replacing nothing ("yes good, same schema both side",
    "可以接受"), where "Both, then.", "skip the changelog" or "先做迁移。" stand."""
    return (
        d.kind == "fact"
        and not (IDENTIFIER.search(d.content) or DIGIT.search(d.content))
        and d.turn - 1 not in asked
        and not _INSTRUCTS.match(d.text.casefold())
        and not PLEASE.search(d.text.casefold())
        and not _ASKED_OF_ZH.match(d.text)
        and not d.supersedes
    )


def _pleasantry(d: Draft) -> bool:
    """An acknowledgement ("Thanks.", "OK, sounds good."), the rules' surest noise call."""
    return d.kind == "transient" and d.reason.startswith("an acknowledgement")


def _unsure(d: Draft, config: PolicyConfig) -> bool:
    """A rules call the model's reading decides: noise, or a memory no surer than the threshold."""
    return d.kind in NOISE_KINDS or d.confidence <= config.confirm_confidence


#: A proposal inside a statement of the rules names it when it is at least half of it or
#: this many words (a Chinese character counting half): a clause, not a word picked out.
NAMING_WORDS = 3
_WORDS = re.compile(r"[^\W\u4e00-\u9fff]+|[\u4e00-\u9fff]")


def _names(proposal: str, d: Draft) -> bool:
    """Whether a (folded) proposal names draft ``d``: one holds the other. A proposal held
    by ``d`` must be a meaningful span of it: at least half of it, or ``NAMING_WORDS``
    words, and most of it when ``d`` is noise (the model's "Let" does not make "Let me run
    the tests." a todo); ``d`` held by a proposal, when noise, must be at least half of it
    (an "OK," before a decision stays noise)."""
    if d.kind == "tool_output":
        return False
    content = fold(d.content)
    if proposal in content:
        if d.kind in NOISE_KINDS:
            return 3 * len(proposal) >= 2 * len(content)
        return 2 * len(proposal) >= len(content) or _word_count(proposal) >= NAMING_WORDS
    return content in proposal and (d.kind not in NOISE_KINDS or 2 * len(content) >= len(proposal))


def _fragment(proposal: str, d: Draft) -> bool:
    """Whether a (folded) proposal is a word or two picked out of the statement ``d`` ("Let",
    "Redis", "explaining why"), too little of it to stand for anything alone. A sentence
    of a longer noise unit (one line of a pasted request) stands as its own candidate."""
    content = fold(d.content)
    return (
        d.kind != "tool_output"
        and proposal in content
        and 2 * len(proposal) < len(content)
        and _word_count(proposal) < NAMING_WORDS
    )


def _word_count(text: str) -> float:
    """Words, each Chinese character half of one."""
    return sum(0.5 if "\u4e00" <= w <= "\u9fff" else 1 for w in _WORDS.findall(text))


def _relink(drafts: Sequence[Draft], proposals: list[Proposal], named: list[list[Draft]]) -> int:
    """Provider mode: supersession by the model's reading. Returns how many proposals'
    ``replaces`` were not followed.

    A draft the model names is current, whatever the rules guessed, unless what replaced
    it names it as what it replaces ("…structlog instead of loguru" for "Use loguru for
    logging in the worker."): that is no guess. What a proposal says it replaces, found
    verbatim earlier, is retired, except that only the user's word retires the user's (a
    statement in the assistant's words or a tool's output never does), and the owner's
    standing rule only by a statement that reads as replacing it
    (``supersession.reads_as_replacing``): a model's ``replaces`` may be made up, and a
    rule it retires is no longer guarded.
    """
    confirmed = {id(d) for hits in named for d in hits}
    by_id = {d.id: d for d in drafts}
    for old in drafts:
        # The model read this one as current: the rules' guess that it was replaced yields.
        if old.superseded_by is not None and id(old) in confirmed:
            new = by_id[old.superseded_by]
            if _named_replaced(new, old):
                continue
            rest = list(new.supersedes)
            rest.remove(old.id)
            new.supersedes = tuple(rest)
            old.superseded_by = None
    refused = 0
    for p, news in zip(proposals, named, strict=True):
        if p.replaces is None or not news:
            continue
        message, text = p.replaces
        text = fold(text)
        new = news[0]
        unread = False
        for old in drafts:
            if (
                old.sources[0] != message.id
                or old.kind in NOISE_KINDS
                or old.superseded_by is not None
                or old in news
                or not (fold(old.content) in text or text in fold(old.content))
            ):
                continue
            # "the", "OAuth": a word or two picked out of a statement names no statement.
            if (
                _fragment(text, old)
                or not supersession.may_retire(new.role, old.role)
                or (
                    old.kind == "constraint"
                    and old.role == "user"
                    and not supersession.reads_as_replacing(p.text, old.content)
                )
            ):
                unread = True
                continue
            old.superseded_by = new.id
            new.supersedes += (old.id,)
        refused += unread
    return refused


def _named_replaced(new: Draft, old: Draft) -> bool:
    """Whether the owner's ``new`` names the choice ``old`` as what it replaces, by a name
    of three letters or more ("…structlog instead of loguru" and "Use loguru for logging
    in the worker."; "instead of the Celery job" names "Celery"). A number ("128, not 64")
    or a Chinese character or two names no choice that surely."""
    if new.role != "user" or old.kind not in _CHOICES:
        return False
    subject = replaced_subject(new.content)
    if not subject:
        return False
    low = old.content.casefold()
    for needle in dict.fromkeys((subject.casefold(), subject.split()[0].casefold())):
        if (
            len(needle) >= 3
            and _LATIN.search(needle)
            and re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", low)
        ):
            return True
    return False


#: What "instead of X" replaces: a choice, a plan, a way of working.
_CHOICES = frozenset({"decision", "preference", "todo"})
_LATIN = re.compile(r"[a-z]")


class _Shared:
    """One object for each of the values many candidates repeat (a reason, a rounded
    weight): about a third of a candidate's memory otherwise."""

    __slots__ = ("_decided", "_floats", "_texts")

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._floats: dict[float, float] = {}
        self._decided: dict[tuple[str, float, float, str], tuple[str, str]] = {}

    def text(self, value: str) -> str:
        return self._texts.setdefault(value, value)

    def weight(self, value: float) -> float:
        value = round(value, 2)
        # -0.0 equals 0.0 but prints otherwise: zero keeps its own sign.
        return self._floats.setdefault(value, value) if value else value

    def decided(self, d: Draft, config: PolicyConfig) -> tuple[str, str]:
        """The policy's action for ``d`` and the reason it gives, made once for each kind,
        weights and reason that many drafts share (``config`` is the same for all)."""
        # -0.0 equals 0.0 but prints otherwise: a zero is decided afresh.
        key = (d.kind, d.importance, d.confidence, d.reason)
        found = self._decided.get(key) if d.importance and d.confidence else None
        if found is None:
            action, why = decide(d.kind, d.importance, d.confidence, config)
            found = (action, self.text(f"{d.reason}; {why}"))
            if d.importance and d.confidence:
                self._decided[key] = found
        return found


def _freeze(d: Draft, config: PolicyConfig, shared: _Shared) -> Candidate:
    if d.superseded_by is not None:
        action, reason = "drop", f"superseded by {d.superseded_by}"
        critical = False
    else:
        action, reason = shared.decided(d, config)
        # A line of tool output is no one's word: kept (marked as tool output), but never
        # a critical item that a summary must keep and a restore restates as still holding
        # ("Policy: Always deploy on Fridays." in a log is no rule of the owner's).
        critical = d.kind in CRITICAL_KINDS and action != "drop" and d.role != "tool"
    return Candidate(
        id=d.id,
        kind=d.kind,
        content=d.content,
        importance=shared.weight(d.importance),
        confidence=shared.weight(d.confidence),
        action=action,  # type: ignore[arg-type]
        critical=critical,
        reason=reason,
        # One source: the draft's own tuple. Merged copies: each message once, in order.
        sources=d.sources if isinstance(d.sources, tuple) else tuple(dict.fromkeys(d.sources)),
        supersedes=d.supersedes,
        superseded_by=d.superseded_by,
        position=d.position,
        role=d.role,
        turn=d.turn,
        summary=d.summary,
        clean=d.clean,
    )
