"""Provider mode: a host's model reads the transcript; its answer is untrusted.

Owns the ``CandidateProvider`` protocol, the prompt a host's model is asked
(``prompt``, ``SYSTEM``, ``SCHEMA``), the parsing of its answer and the
validation of what it returns. A proposal is accepted only when its kind is
known and its content is found verbatim in the transcript (in the message it
names, if it names one); importance comes from our own kind table and
confidence is capped, so the same policy re-decides every proposal. What a
proposal says it ``replaces`` counts only when that text is found verbatim in
an earlier message. Any failure of the provider is reported as a reason and
the caller falls back to rules. Never trusts a score, an id or a text it
cannot find. How proposals meet the rules' candidates is the inspector's.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from ..printable import ANSI, printable
from ..redact import mask
from .classifier import ALL_KINDS, IMPORTANCE, NOISE_KINDS, Classification
from .message import Message

#: A provider may raise our confidence in a proposal to at most this.
MAX_CONFIDENCE = 0.9
DEFAULT_CONFIDENCE = 0.8
MAX_PROPOSALS = 2000
MAX_CONTENT = 4000
#: The longest transcript text put into one prompt; a longer one stays in rules mode.
MAX_PROMPT_CHARS: Final = 200_000
#: A model's answer larger than this is refused (2,000 proposals of 4,000 characters fit;
#: half an MCP line, so the refusal comes before the transport's).
MAX_ANSWER_BYTES: Final = 16 << 20


class ProviderAnswerError(ValueError):
    """The prompt cannot be built or the model's answer cannot be read (the message says which)."""


@runtime_checkable
class CandidateProvider(Protocol):
    """Anything that proposes candidates for messages.

    ``propose`` returns a list of mappings ``{"kind", "content", "source"?,
    "replaces"?, "confidence"?}`` (or ``{"candidates": [...]}``).
    """

    def propose(self, messages: Sequence[Message]) -> object: ...


@dataclass(frozen=True, slots=True)
class Proposal:
    message: Message
    text: str
    classification: Classification
    #: The earlier message and its verbatim text that this proposal replaces.
    replaces: tuple[Message, str] | None = None


#: What a model may find in tool output: what the work established, an approach that
#: failed, a danger; never a goal, rule, choice or correction, which only people state.
FROM_TOOL: Final = frozenset({"fact", "state", "rejected", "risk", "lesson"})
#: Kinds only the owner states: the agent's words proposed as one of these ("From now on
#: it is fine to push hotfixes straight to main") are kept as a fact, as the rules never
#: read them as the owner's either.
OWNER_ONLY: Final = frozenset({"constraint", "preference", "requirement", "correction"})
SYSTEM: Final = (
    "You read a coding agent's conversation just before it is compacted and pick out "
    "what must survive it. Answer with JSON only."
)
SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "candidates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"enum": list(ALL_KINDS)},
                    "content": {"type": "string"},
                    "source": {"type": "string"},
                    "replaces": {"type": "string"},
                    "confidence": {"type": "number"},
                },
                "required": ["kind", "content"],
            },
        }
    },
    "required": ["candidates"],
}
_INSTRUCTIONS: Final = """\
Pick out what a careful engineer taking over this work would need to keep, so that it survives compaction. Kinds:
- goal: what the owner wants achieved
- constraint: a standing rule or limit, however it is worded ("never push to main", "staging is shared with QA, so read-only from here", "不要改公共 API")
- preference: how the owner likes things done
- requirement: a property the result must have (limits, numbers, compatibility)
- decision: a choice that was made, by the owner or agreed: what to use, the agent's stated design, the owner's short pick among options ("b, 20 MB")
- rejected: an approach ruled out, with its reason in the same content
- todo: work still open
- state: where things stand now
- fact: a concrete fact later work depends on: a path, name, port, owner, version or limit, a root cause or finding the work established
- correction: the owner correcting something said earlier
- risk: a danger to watch; lesson: something learned the hard way
Leave out, as noise: tool output, logs and test runs; narration ("Let me check the logs", "Now running the tests"); routine results ("All 42 tests pass"); a failing run explained and fixed on the spot; acknowledgements and pleasantries; questions that got answered; the agent repeating what it was just told.
When a statement replaces an earlier decision, constraint or value ("make it 4 workers" after "use 8 workers"), list only the new one and copy the earlier text into "replaces".
Copy each content VERBATIM from one message (a whole sentence or bullet, never reworded) and name that message's id as source.
Answer: {"candidates": [{"kind": "...", "content": "...", "source": "...", "replaces": "..."}]}

Messages:"""


def prompt(messages: Sequence[Message]) -> str:
    """What the model is asked about ``messages`` (secrets masked).

    Every message as it is while that fits ``MAX_PROMPT_CHARS`` (so recorded answers stay
    answers to this prompt); past that, each tool output cut to its first
    ``TOOL_PREVIEW_CHARS`` characters, as tool output is noise but for a line or two;
    past that too, refused.
    """
    for cut in (None, TOOL_PREVIEW_CHARS):
        shown = _render(messages, cut)
        if shown is not None:
            return shown
    raise ProviderAnswerError(
        f"transcript too large for the model: over {MAX_PROMPT_CHARS:,} characters even "
        f"with each tool output cut to {TOOL_PREVIEW_CHARS}"
    )


#: Why a proposal's ``replaces`` is not followed (``provider_refused``), as the CLI and the
#: MCP server say it.
REFUSED_WHY: Final = (
    "whose `replaces` was not followed (a word or two of a statement, the owner's word "
    "named by the agent's or a tool output's, or the owner's rule by a statement that "
    "does not read as replacing it)"
)

#: A tool output's first characters shown when the whole transcript would not fit.
TOOL_PREVIEW_CHARS: Final = 400


def _render(messages: Sequence[Message], cut: int | None) -> str | None:
    lines = [_INSTRUCTIONS]
    size = len(_INSTRUCTIONS)
    for message in messages:
        # A line inside a tool's output that passes for the owner's ("[u9] user: …")
        # gains nothing: an answer is judged by the message its text is found in
        # (``FROM_TOOL``).
        text = mask(message.text)
        if cut is not None and message.role == "tool" and len(text) > cut:
            text = f"{text[:cut]} … [{len(text) - cut:,} more characters of tool output]"
        line = f"[{mask(message.id)}] {message.role}: {text}"
        size += len(line) + 1
        if size > MAX_PROMPT_CHARS:
            return None
        lines.append(line)
    return "\n".join(lines)


def instructions() -> str:
    """The question without a transcript, for a model that already holds the conversation
    (an MCP client's agent): it answers about the messages it passes along and names no
    source, which is then found by its verbatim text."""
    head, _, _ = _INSTRUCTIONS.rpartition("Messages:")
    body = head.replace(" and name that message's id as source", "").replace(
        ', "source": "..."', ""
    )
    return f"{SYSTEM}\n\n{body}Messages: the ones you pass with your answer."


def asked(messages: Sequence[Message]) -> str:
    """The whole text a model is given: ``SYSTEM``, a blank line, then ``prompt`` (what
    ``contextward inspect --prompt`` prints; a host gets the two parts apart)."""
    return f"{SYSTEM}\n\n{prompt(messages)}"


def parse_answer(text: str) -> object:
    """The JSON value in a model's answer: an object, or the bare list of proposals, alone or
    inside a code fence or prose.

    Tried in turn: the whole text, each code fence, each balanced object or list in the
    prose, and from the first bracket to the last of its kind. The first value that
    proposes something of a known kind wins, else the first object or list read: the
    answer of a model that restates the format first ('The format is {"candidates":
    [{"kind": "...", …}]}. Here is mine:' and a fence) is read, not the example. Failing
    that, the proposals written one object a line, else the first object or list read."""
    found: object = None
    single: list[object] = []  # proposals written one by one
    seen = False
    for balanced, part in _parts(text):
        seen = True
        try:
            value = json.loads(part)
        except (ValueError, RecursionError):  # malformed, or an integer too long to convert
            continue
        if _proposes(value):
            return value
        if balanced and _proposes([value]):
            single.append(value)
        elif found is None and isinstance(value, Mapping | list):
            found = value
    if single or found is not None:
        return single or found
    if not seen:
        raise ProviderAnswerError("the model's answer holds no JSON")
    raise ProviderAnswerError("the model's answer is malformed JSON")


_FENCE = re.compile(r"```[\w+-]*[^\S\n]*\n(.*?)```", re.S)
#: Where a scan for balanced brackets stops: brackets, and quotes and escapes inside them.
_BRACKETS = re.compile(r'[][{}"\\]')


def _parts(text: str) -> Iterator[tuple[bool, str]]:
    """The texts ``parse_answer`` tries, in order, each with whether it is one of the
    balanced top-level values; together a few times ``text`` at most."""
    if text.lstrip()[:1] in ("{", "["):
        yield False, text
    for fence in _FENCE.finditer(text):
        yield False, fence.group(1)
    for part in _balanced(text):
        yield True, part
    spans = [(text.find(a), text.rfind(b)) for a, b in ("{}", "[]")]
    for start, end in sorted((start, end) for start, end in spans if 0 <= start < end):
        yield False, text[start : end + 1]


def _balanced(text: str) -> Iterator[str]:
    """Each top-level object or list of ``text``, in one pass: a bracket closed by the wrong
    kind starts the scan over; quotes count only inside brackets (prose has apostrophes)."""
    stack: list[str] = []
    start = 0
    quoted = False
    escaped = -1  # the position of the character a backslash escapes
    for match in _BRACKETS.finditer(text):
        char, at = match.group(), match.start()
        if quoted:
            if at == escaped:
                continue
            if char == "\\":
                escaped = at + 1
            elif char == '"':
                quoted = False
            continue
        if char in "{[":
            if not stack:
                start = at
            stack.append("}" if char == "{" else "]")
        elif char in "}]":
            if not stack:
                continue
            if stack.pop() != char:
                stack.clear()
            elif not stack:
                yield text[start : at + 1]
        elif char == '"' and stack:
            quoted = True


def _proposes(value: object) -> bool:
    """Whether a JSON value is an answer proposing something of a known kind."""
    if isinstance(value, Mapping):
        value = value.get("candidates")
    return isinstance(value, list) and any(
        isinstance(item, Mapping) and _kind(item.get("kind")) is not None for item in value
    )


class Answered:
    """A `CandidateProvider` from a model's answer already in hand, as the model wrote it
    (``contextward inspect --answer``)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def propose(self, messages: Sequence[Message]) -> object:
        return parse_answer(self.text)


@dataclass(frozen=True, slots=True)
class Proposed:
    """What became of a model's answer: the proposals used, how many were rejected, how
    many repeated an earlier one word for word (left out, not rejected), and why the
    answer was not used at all, if it was not."""

    proposals: list[Proposal]
    rejected: int = 0
    repeated: int = 0
    fallback: str | None = None


def propose(provider: CandidateProvider, messages: Sequence[Message]) -> Proposed:
    """Validated proposals, how many were rejected or repeated, and a fallback reason if
    the provider failed."""
    try:
        raw = provider.propose(messages)
    except ProviderAnswerError as exc:  # its message is ours and never quotes the answer
        return Proposed([], fallback=str(exc))
    except Exception as exc:  # a foreign model bridge: any failure means "use rules"
        return Proposed([], fallback=f"provider raised {type(exc).__name__}")
    if isinstance(raw, Mapping):
        raw = raw.get("candidates")
    if not isinstance(raw, list):
        return Proposed([], fallback="provider output is not a list of candidates")
    # A model that loops repeats one proposal many times: the copies say nothing more and
    # must not use up the cap that the distinct proposals after them count against.
    raw, repeated = _unrepeated(raw)
    if len(raw) > MAX_PROPOSALS:
        return Proposed([], fallback=f"provider proposed more than {MAX_PROPOSALS} candidates")
    order = {id(m): n for n, m in enumerate(messages)}
    by_id = {m.id: m for m in messages}
    by_id.update((masked, m) for m in messages if (masked := mask(m.id)) != m.id)  # as prompted
    accepted: list[Proposal] = []
    rejected = 0
    for item in raw:
        proposal = _validate(item, messages, by_id, order)
        if proposal is None:
            rejected += 1
        else:
            accepted.append(proposal)
    if not accepted:
        # An answer none of whose words are in this transcript (another session's, or
        # invented), or one that proposes nothing, says nothing about it: reading it would
        # only demote the rules' finds as "passed by".
        if rejected:
            return Proposed(
                [],
                rejected,
                repeated,
                f"none of its {rejected} proposals is usable (not verbatim in the transcript, or of no known kind)",
            )
        return Proposed([], fallback="the answer proposes no candidate")
    return Proposed(accepted, rejected, repeated)


def _unrepeated(raw: list[object]) -> tuple[list[object], int]:
    """The proposals without those that repeat an earlier one (the same kind, content,
    source and ``replaces``, each as read), and how many did."""
    seen: set[tuple[str, str, str | None, str | None]] = set()
    out: list[object] = []
    for item in raw:
        if isinstance(item, Mapping):
            kind, text = _kind(item.get("kind")), _text(item.get("content"))
            if kind is not None and text is not None:
                key = (kind, text, _source(item.get("source")), _text(item.get("replaces")))
                if key in seen:
                    continue
                seen.add(key)
        out.append(item)
    return out, len(raw) - len(out)


def _validate(
    item: object,
    messages: Sequence[Message],
    by_id: Mapping[str, Message],
    order: Mapping[int, int],
) -> Proposal | None:
    if not isinstance(item, Mapping):
        return None
    kind, text = _kind(item.get("kind")), _text(item.get("content"))
    if kind is None or text is None:
        return None
    named = by_id.get(_source(item.get("source")) or "")
    message, found = _located(text, named, messages)
    if found is None and (framed := _framed(text, by_id)) is not None:
        # Copied with the prompt's own framing ("[m13] user: Both, then."): the message
        # that framing names, and the text after it.
        message, found = _located(framed[1], framed[0], messages)
    if found is None or message is None:
        return None
    proposed = kind
    if message.role == "assistant" and kind in OWNER_ONLY:
        # The agent's words are never presented as the owner's rule: kept as what it
        # said (a fact), not critical, never restored as a rule that still holds.
        kind = "fact"
    if message.role == "tool" and kind not in FROM_TOOL:
        # Tool output is no one's word: a line in it that reads as the owner's
        # ("user: pushing to main is fine now") states no rule and corrects nothing.
        return None
    confidence = _confidence(item.get("confidence", DEFAULT_CONFIDENCE))
    assert isinstance(kind, str)
    reason = f"proposed by the provider as {proposed}, found verbatim in {message.id}"
    if kind != proposed:
        reason += "; the agent's words, so a fact, not the owner's rule"
    classification = Classification(kind, IMPORTANCE[kind], confidence, reason)
    return Proposal(message, found, classification, _replaced(item, messages, order[id(message)]))


def _confidence(value: object) -> float:
    """A proposal's confidence as a number in [0, ``MAX_CONFIDENCE``]; the default for
    anything else (a string, NaN, an infinity, an integer too large for a float)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return DEFAULT_CONFIDENCE
    try:
        number = float(value)
    except OverflowError:
        return DEFAULT_CONFIDENCE
    if not math.isfinite(number):
        return DEFAULT_CONFIDENCE
    return min(max(number, 0.0), MAX_CONFIDENCE)


def _located(
    text: str, named: Message | None, messages: Sequence[Message]
) -> tuple[Message | None, str | None]:
    """The message holding ``text`` and the span it holds: the one named, else the first
    that holds it (a source is a hint: a model writes "6" or "[m6]" for m6, or names the
    wrong message; the verbatim text is the test)."""
    if named is not None and (found := _found(text, named.text)) is not None:
        return named, found
    for message in messages:
        if (found := _found(text, message.text)) is not None:
            return message, found
    return None, None


#: A message's line as the prompt shows it: "[id] role: text".
_FRAME = re.compile(r"\[([^\]\n]{1,200})\] ?(user|assistant|tool|system): ?(?=\S)")


def _framed(text: str, by_id: Mapping[str, Message]) -> tuple[Message, str] | None:
    """A text copied with the prompt's framing of one of the messages ("[m13] user: Both,
    then."): that message and the text after the framing, which a summariser copying a
    line whole may include; None for any other text."""
    match = _FRAME.match(text)
    if match is None:
        return None
    message = by_id.get(match[1])
    if message is None or message.role != match[2]:
        return None
    return message, text[match.end() :]


def _kind(value: object) -> str | None:
    """A known kind, however cased ("Decision")."""
    kind = value.strip().lower() if isinstance(value, str) else None
    return kind if kind in ALL_KINDS else None


def _source(value: object) -> str | None:
    """The message id a proposal names: ``"m6"``, ``"[m6]"`` as the prompt shows it, ``6``."""
    if isinstance(value, str):
        return value.strip().removeprefix("[").removesuffix("]")
    # (An integer of thousands of digits names no message, and ``str`` refuses it.)
    return str(value) if type(value) is int and abs(value) < 10**18 else None


#: Typographic quotes and apostrophes, one for one with the plain ones a message may hold.
_PLAIN = str.maketrans("‘’‚‛′“”„‟″", "'''''\"\"\"\"\"")


def _found(text: str, where: str) -> str | None:
    """``text`` as ``where`` holds it: verbatim, or with typographic quotes where it has
    plain ones or the other way round (a model retypes "I'll" as "I’ll"), or as the prompt
    showed it, each secret masked ("[secret:anthropic-key]"); None if absent."""
    if text in where:
        return text
    at = where.translate(_PLAIN).find(text.translate(_PLAIN))
    if at >= 0:
        return where[at : at + len(text)]
    if "[secret:" in text:
        return _unmasked(text, where)
    return None if where.isprintable() else _as_shown(text, where)


def _as_shown(text: str, where: str) -> str | None:
    """The span of ``where`` that a terminal shows as ``text``: the prompt printed to one
    (``contextward inspect --prompt``) has no escape sequences and shows a control as a
    space (``printable``), and a model copies what it was shown. The span keeps them."""
    kept: list[int] = []  # where each character left after the escapes was in ``where``
    last = 0
    for escape in ANSI.finditer(where):
        kept.extend(range(last, escape.start()))
        last = escape.end()
    kept.extend(range(last, len(where)))
    shown = printable("".join(where[n] for n in kept))
    if len(shown) != len(kept):
        return None  # taking the escapes out made another one: not a span of ``where``
    at = shown.translate(_PLAIN).find(text.translate(_PLAIN))
    return where[kept[at] : kept[at + len(text) - 1] + 1] if at >= 0 else None


_PLACEHOLDER = re.compile(r"\[secret:[a-z0-9_-]{1,40}\]")
#: A proposal holding more placeholders than this is not looked for.
_MAX_SECRETS = 8
#: Where in a message a proposal's masked text is tried: at most this many places.
_MAX_TRIES = 64


def _unmasked(text: str, where: str) -> str | None:
    """The span of ``where`` that masks to ``text``: the secret the prompt hid is the
    owner's, and the candidate keeps it verbatim (every output masks it again).

    Each placeholder stands for a run of 8 to 4,096 characters with no space. The words
    between them anchor the search: tried only where the first word is (or, for a text
    that starts with a secret, where the word after it is, from the start of its run or
    after a sign inside it: "key=…"), so a long token with no space costs no more than a
    short one. A text that is secrets and little else says nothing to keep."""
    parts = _PLACEHOLDER.split(text)
    # The words, and how many placeholders stand side by side before each word after the
    # first: two side by side are one run (two runs could split a token every way).
    words, gaps, run = [parts[0]], [], 0
    for part in parts[1:]:
        run += 1
        if part:
            words.append(part)
            gaps.append(run)
            run = 0
    if run:
        words.append("")
        gaps.append(run)
    if (
        not gaps
        or sum(gaps) > _MAX_SECRETS
        or max(len(word.strip()) for word in words) < 3
        or not all(word in where for word in words)
    ):
        return None
    pattern = re.escape(words[0])
    for gap, word in zip(gaps, words[1:], strict=True):
        # Lazy, up to the next word; at the end, up to where the token ends.
        pattern += rf"\S{{{8 * gap},{4096 * gap}}}?" + (
            re.escape(word) if word else r"(?=[\s.,;:!?)\]}'\"]|$)"
        )
    found = re.compile(pattern)
    for start in _starts(words, gaps[0], where):
        match = found.match(where, start)
        if match is not None and mask(match.group()) == text:
            return match.group()
    return None


def _starts(words: list[str], gap: int, where: str) -> Iterator[int]:
    """Where in ``where`` a masked text of ``words`` (the first ``gap`` secrets side by
    side after the first word) may start, at most ``_MAX_TRIES`` places."""
    anchor = words[0] or words[1]
    at, tries = where.find(anchor), 0
    while at >= 0 and tries < _MAX_TRIES:
        if words[0]:
            yield at
            tries += 1
        else:
            # The run the secrets are in ends at the word: from its start, or after a
            # sign inside it ("token=…", "'…").
            begin = at
            while begin > 0 and at - begin < 4096 * gap and not where[begin - 1].isspace():
                begin -= 1
            for start in [begin, *(n + 1 for n in range(begin, at) if not where[n].isalnum())]:
                if tries >= _MAX_TRIES or at - start < 8 * gap:
                    break
                yield start
                tries += 1
        at = where.find(anchor, at + 1)


def _text(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if text and len(text) <= MAX_CONTENT else None


def _replaced(
    item: Mapping[object, object], messages: Sequence[Message], before: int
) -> tuple[Message, str] | None:
    """The latest earlier message holding the text the proposal says it replaces."""
    text = _text(item.get("replaces"))
    if text is None or _kind(item.get("kind")) in NOISE_KINDS:
        return None
    texts = [text]
    if (framed := _FRAME.match(text)) is not None:
        texts.append(text[framed.end() :])
    for m in reversed(messages[:before]):
        for each in texts if m.role != "tool" else ():
            if (found := _found(each, m.text)) is not None:
                return m, found
    return None
