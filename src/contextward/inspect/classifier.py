"""Rule classification of one unit, aware of who said it and where.

Owns the mapping from cues (lexicon) to a kind with an importance, a
confidence and a human reason. The user's word outranks the assistant's: an
assistant cannot impose a constraint, requirement or preference, and its
narration ("Let me check…") is transient. The first user message is where
goals live. Never decides keep/drop (that is the policy) and never rewrites
text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..core.item import KINDS
from ..core.textnorm import arabic
from ..redact import mask
from . import lexicon as lx
from .message import Role
from .segment import Unit

#: Kinds worth remembering (the core's item kinds), and the noise kinds.
MEMORY_KINDS: tuple[str, ...] = KINDS
NOISE_KINDS: tuple[str, ...] = ("tool_output", "transient")
ALL_KINDS: tuple[str, ...] = MEMORY_KINDS + NOISE_KINDS
#: Kinds whose loss breaks later work: they are marked critical.
CRITICAL_KINDS = frozenset(
    {"goal", "constraint", "requirement", "decision", "rejected", "todo", "correction"}
)
#: How much each kind matters, before role and signal strength.
IMPORTANCE: dict[str, float] = {
    "goal": 0.95,
    "constraint": 0.95,
    "correction": 0.9,
    "requirement": 0.9,
    "decision": 0.9,
    "rejected": 0.85,
    "todo": 0.85,
    "preference": 0.8,
    "state": 0.8,
    "fact": 0.8,
    "risk": 0.8,
    "lesson": 0.8,
    "transient": 0.1,
    "tool_output": 0.05,
}


@dataclass(frozen=True, slots=True)
class Context:
    """Where a unit was said: the speaker's role, a compaction summary, the opening request,
    right after a failed tool run."""

    role: Role
    summary: bool = False
    opening: bool = False
    #: The message right after a tool run that failed.
    after_error: bool = False
    #: The owner's message right after an assistant's message that ends with a plan or a
    #: proposal ("I suggest caching the search endpoint too."): a bare "No." declines it.
    after_proposal: bool = False


@dataclass(frozen=True, slots=True)
class Classification:
    kind: str
    importance: float
    confidence: float
    reason: str
    replaces: bool = False


_QUESTION = re.compile(r"[?？]\s*$")
# "No.", "no thanks", "Don't.", "不要。": a refusal and nothing else.
_BARE_REFUSAL = re.compile(
    r"^(?:no|nah|no,? thanks?|no,? thank you|(?:please )?don'?t|please no|"
    r"不要|不用|不了|别|不要了|不必)[\s.!。！]*$"
)
_WOULD = re.compile(r"\b(?:would|wouldn'?t)\b")
_NUMBER = re.compile(r"\d")
_LIST_TITLE = re.compile(r"^[^:：\n]{1,40}[:：]$")
# Words after "instead of" / "rather than" that name nothing: "rather than per
# partition", "instead of changing consent behaviour".
_VAGUE = frozenset(
    re.findall(
        r"\S+",
        "the a an this that it to be only just yet now and or but so then "
        "per in on at for with by from of as via into onto over under about "
        "using doing making having adding changing change going waiting",
    )
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{3,}")
_INSTEAD_OF = re.compile(
    r"\b(?:instead of|rather than|not|scratch|forget(?: about)?|ditch|drop)\s+"
    # A second word only when capitalised ("Amazon SQS"), whatever the flags say.
    r"(?:the\s+|a\s+|an\s+|that\s+|my\s+)?([`\w./-]+(?-i:\s[A-Z][\w./-]*)?)|"
    r"(?:而不是|不用|不再\S?)\s*([\w./-]+)|"
    # "不扩了", "那就不压缩了": the thing no longer done, named by its verb.
    r"(?:^|[，,。\s]|就|先)不(?:再)?([\u4e00-\u9fff]{1,3})了",
    re.I,
)


#: A look whose purpose is to learn something: a next step, however concrete.
_TO_LEARN = re.compile(r"\bto (?:see|find out|check|understand|figure out|learn)\b|\band see\b")
#: "… in middleware/ratelimit.go", "… under pkg/auth": where a thing will live.
_PLACED = re.compile(
    r"\b(?:in|into|under|inside)\s+`?[\w.-]+/[\w./-]+|\b(?:in|into)\s+`?[\w-]+\.\w{1,4}\b"
)


def classify(unit: Unit, ctx: Context, index: int = 0) -> Classification:
    """The kind of ``unit`` (the ``index``-th of its message) said in ``ctx``, with why."""
    text = lx.narrow(unit.text)
    low = text.lower()
    if unit.boilerplate:
        return _noise("transient", 0.95, "the host's boilerplate around a compaction summary")
    if unit.heading or (ctx.summary and lx.SUMMARY_BOILERPLATE.search(low)):
        return _noise("transient", 0.9, "a heading or summary boilerplate")
    if unit.code:
        return _noise("transient", 0.8, "a code block or command line")
    lx.focus(low)  # searched for many cues below: its tokens are found once
    if (
        16 <= len(text) < 400  # a key is long; "ok" is not worth masking
        and " " not in text.strip()
        and _ONLY_SECRETS.fullmatch(mask(text).strip())
    ):
        # A pasted key and nothing else: kept, it would only say "[secret:…]".
        return _noise("transient", 0.9, "a secret and nothing else (masked)")
    heft = weight(text)  # how long it reads; many rules below compare it
    if _list_title(text, ctx) and not (
        # "Run this before every commit:" is a rule, "Here is the log from prod, figure
        # out why:" a request: the owner's, not a title of what follows.
        ctx.role == "user"
        and (
            _STANDING_LEAD.search(low)
            or lx.ASKS.search(low)
            # "Make these changes to the reports service:" opening the session is its goal.
            or (ctx.opening and index == 0 and not _bare_title(text))
        )
    ):
        return _noise("transient", 0.85, "the title of a list")
    if lx.ACK.match(low):
        return _noise("transient", 0.95, "an acknowledgement")
    if lx.HOLD.match(low):
        return _noise("transient", 0.9, "a pause ('wait', 'hold on'): what it changes comes next")
    if ctx.role == "user" and heft < 40 and lx.PICK.match(low):
        return _noise("transient", 0.85, "a reply picking from the assistant's list")
    if ctx.role == "user" and heft < 40 and lx.APPROVAL.match(low):
        return _noise("transient", 0.85, "the user approving what the assistant proposed")
    if ctx.role == "user" and _BARE_REFUSAL.match(low):
        if ctx.after_proposal and index == 0:
            # "No.", "Don't.", "不要。" right after "I suggest caching the search endpoint
            # too.": the owner turning the proposal down, as "nope" does.
            return _mem("correction", 0.9, "the user turns down what was just proposed", True)
        # A refusal of nothing said: no rule, nothing to keep.
        return _noise("transient", 0.85, "a bare refusal with nothing it turns down")
    # Whether it corrects (the user's correction rule) and whether it replaces (every memory
    # reads that, and so about 95% of the units that get this far): each searched once, here.
    corrects = lx.CORRECTION.search(low) is not None
    replaces = corrects or lx.SUPERSEDE.search(low) is not None

    if ctx.role == "assistant":
        echo = lx.ECHO.match(low)
        if echo and (heft < 60 or lx.COMPLY.match(low[echo.end() - 1 :])):
            return _noise("transient", 0.85, "the assistant echoing what it was told")
        # Right after a failed run the switch is its own answer to the failure
        # ("Switching to Postgres tsvector instead."), a new plan, not an echo.
        if (
            lx.SWITCH_ECHO.match(low)
            and heft < 40
            and not lx.REASON.search(low)
            and not ctx.after_error
        ):
            return _noise("transient", 0.85, "the assistant restating the switch it was told")
        if (
            ctx.after_error
            and lx.FIXED.search(low)
            and not lx.REJECTED.search(low)
            and not lx.TODO.search(low)
        ):
            return _noise("transient", 0.85, "a failing run explained and fixed on the spot")
        if lx.TESTS_ONLY.match(low):
            return _noise("transient", 0.9, "a test run reported by the assistant")
        if lx.IMMEDIATE.search(low) and lx.TODO.search(low) and "still" not in low and heft < 70:
            return _noise("transient", 0.85, "the step the assistant takes next")
        if (
            (lx.PROGRESSIVE.match(low) or lx.MOVING_ON.match(low))
            and (heft < 50 or (low.startswith("now ") and not _NUMBER.search(text)))
            and heft < 100
            and not replaces
        ):
            return _noise("transient", 0.9, "the assistant saying what it is doing now")
        if lx.LET_ME_TAIL.match(low) and heft < 110:
            return _noise("transient", 0.85, "the assistant narrating its next step")
        if _narrates(text, low) and not replaces and not lx.TODO_DEADLINE.search(low):
            return _noise("transient", 0.9, "the assistant narrating its next step")
    speaker: str = "the user" if ctx.role == "user" else ctx.role
    if ctx.summary:
        speaker = "a compaction summary"
    # Every label ends with its colon: text without one is not searched for them.
    labelled = (":" in low or "：" in low) and lx.LABEL_ANY.match(low)
    for kind, label in lx.LABELS if labelled else ():
        if label.match(low):
            if kind in ("constraint", "requirement", "preference") and ctx.role == "assistant":
                return _mem(kind, 0.75, f"labelled {kind}, but said by the assistant", replaces)
            return _mem(kind, 0.95, f"labelled '{kind}' by {speaker}", replaces)
    authority = ctx.role in ("user", "system")
    if (
        ctx.role == "user"
        and corrects
        and (not _QUESTION.search(text) or lx.SUGGESTION.match(low))
        and not lx.WH_QUESTION.match(low)
    ):
        return _mem("correction", 0.9, "the user corrects an earlier statement", True)
    if lx.REJECTED.search(low):
        conf = 0.9 if lx.REASON.search(low) else 0.82
        why = "with its reason" if conf > 0.85 else "without a stated reason"
        return _mem("rejected", conf, f"an approach ruled out by {speaker}, {why}", replaces)
    if authority and lx.STRONG_PREFERENCE.search(low) and not _QUESTION.search(text):
        return _mem("preference", 0.88, f"a preference of {speaker}", replaces)
    if (
        authority
        and (lx.CONSTRAINT_START.match(low) or lx.CONSTRAINT.search(low))
        and not _QUESTION.search(text)
    ):
        return _mem("constraint", 0.9, f"a standing rule from {speaker}", replaces)
    if lx.DECISION.search(low) and not _QUESTION.search(text):
        return _mem(
            "decision", 0.9 if authority else 0.85, f"a choice stated by {speaker}", replaces
        )
    if ctx.role == "user" and lx.USE.match(low):
        return _mem("decision", 0.88, "the user names what to use", replaces)
    if (lx.TODO.search(low) or _not_yet(low)) and (
        ctx.role != "assistant" or not lx.NARRATION.match(low) or lx.TODO_DEADLINE.search(low)
    ):
        return _mem("todo", 0.85, f"open work noted by {speaker}", replaces)
    if authority and lx.GOAL.search(low):
        return _mem("goal", 0.9, f"what {speaker} wants achieved", replaces)
    if (
        ctx.role == "user"
        and ctx.opening
        and lx.has_content(low)
        and (index == 0 or lx.IMPERATIVE.match(low))
        and (not _QUESTION.search(text) or lx.REQUEST_QUESTION.match(low))
    ):
        return _mem("goal", 0.85, "the opening request of the user", replaces)
    # "超时设成五秒" sets a value as "超时设成 5 秒" does: numerals are read in digits.
    if ctx.role == "user" and lx.SETS.match(arabic(low)) and not _QUESTION.search(text):
        return _mem("decision", 0.85, "the user sets a named thing to a value", replaces)
    if ctx.role == "user" and lx.SUGGESTION.match(low) and lx.has_content(low):
        return _mem("decision", 0.82, "the user proposes a course of action", replaces)
    if ctx.role == "user" and _LIMITS.match(low) and not _QUESTION.search(text):
        return _mem("requirement", 0.85, "a limit the user sets", replaces)
    if ctx.role == "user" and lx.KEEP_IMPERATIVE.match(low):
        if "compatib" in low or "兼容" in low:
            return _mem("requirement", 0.85, "a compatibility the user keeps", replaces)
        return _mem("preference", 0.85, "how the user wants something kept", replaces)
    if authority and lx.PREFERENCE.search(low):
        return _mem("preference", 0.85, f"a preference of {speaker}", replaces)
    if authority and lx.REQUIREMENT.search(low) and not _QUESTION.search(text):
        return _mem("requirement", 0.85, f"a requirement from {speaker}", replaces)
    if ctx.role == "assistant" and lx.CONSTRAINT_START.match(low):
        return _mem("constraint", 0.7, "a rule stated only by the assistant", replaces)
    if lx.RISK.search(low):
        return _mem("risk", 0.8, f"a risk noted by {speaker}", replaces)
    if lx.LESSON.search(low):
        return _mem("lesson", 0.8, f"a lesson noted by {speaker}", replaces)
    if ctx.role == "assistant" and lx.PROPOSAL.match(low) and not _QUESTION.search(text):
        return _mem("decision", 0.82, "a course of action the assistant proposes", replaces)
    if ctx.role == "assistant" and lx.DESIGN.search(low) and not _QUESTION.search(text):
        return _mem("decision", 0.82, "how the assistant says the system will behave", replaces)
    if lx.STATE.search(low) and not _QUESTION.search(text):
        return _mem("state", 0.82, f"the current state, per {speaker}", replaces)
    if (
        ctx.role == "assistant"
        and lx.INTENT.match(low)
        and _NAMES_TOOL.search(text)
        and not (_QUESTION.search(text) or lx.EPILOGUE.search(low) or lx.INVESTIGATE.match(low))
    ):
        # "I'll use Redis for the cache." is a plan; "the API uses Redis" is a fact; "I'll
        # start by looking at services/gateway" narrates the next step.
        return _mem("decision", 0.8, "the assistant states how it will build something", replaces)
    if lx.FACT.search(low) and not _QUESTION.search(text):
        return _mem("fact", 0.82, f"a fact later work depends on, per {speaker}", replaces)
    if (
        ctx.role == "user"
        and lx.LOOK_FIRST.match(low)
        and heft < 60
        and not (_NUMBER.search(text) or lx.IDENTIFIER.search(text))
    ):
        return _noise("transient", 0.8, "the user's word for the very next step")
    if ctx.role == "user" and (lx.IMPERATIVE.search(low) or lx.REQUEST_QUESTION.match(low)):
        if lx.REPLACE_STRONG.search(low) and not lx.ADDITIVE.search(low):
            return _mem("correction", 0.88, "the user asks to replace something said", True)
        return _mem("todo", 0.82, "a request of the user", replaces)
    if ctx.role == "assistant" and lx.RESOLVED.search(low):
        return _noise("transient", 0.85, "a failing run explained and fixed on the spot")
    if (
        ctx.role == "assistant"
        and replaces
        and (lx.INTENT.match(low) or lx.NARRATION.match(low))
        and heft > 30
    ):
        return _mem("decision", 0.82, "the assistant replaces an earlier approach", replaces)
    if ctx.role == "assistant" and lx.COMPLY.match(low) and not _PLACED.search(low):
        # "I'll keep the limiter in middleware/ratelimit.go." places a thing: a plan.
        return _noise("transient", 0.85, "the assistant promising to follow a rule")
    if ctx.role == "assistant" and lx.TODO_DEADLINE.search(low) and lx.INTENT.match(low):
        return _mem("todo", 0.82, "work the assistant commits to before a deadline", replaces)
    if ctx.role == "assistant" and _narrates(text, low):
        return _noise("transient", 0.9, "the assistant narrating its next step")
    if (
        ctx.role == "assistant"
        and lx.INTENT.match(low)
        and (heft > 30 or _NAMES_TOOL.search(text))
        and not lx.EPILOGUE.search(low)
    ):
        return _mem("decision", 0.8, "the assistant states how it will build something", replaces)
    if ctx.role == "assistant" and lx.NARRATION.match(low) and not _WOULD.search(low):
        # "Installing the NDK in a workflow step would re-download 1 GB per run" weighs an
        # approach; it does not narrate a step.
        return _noise("transient", 0.9, "the assistant narrating its next step")
    if _QUESTION.search(text) or (lx.WH_QUESTION.match(low) and heft < 90):
        return _noise("transient", 0.85, f"a question from {speaker}")
    detail = bool(
        _NUMBER.search(text)  # the cheap test first
        or lx.IDENTIFIER.search(text)
        or (_CJK.search(text) and _LATIN.search(text))
    )
    if ctx.role == "user" and (detail or heft > 40 or unit.bullet or lx.has_content(low)):
        if (
            lx.REPLACE_STRONG.search(low)
            and not lx.ADDITIVE.search(low)
            and not _QUESTION.search(text)
        ):
            return _mem("correction", 0.85, "the user replaces something said earlier", True)
        if lx.OWNER_ASIDE.search(low) and heft < 100 and not _NUMBER.search(text):
            return _noise("transient", 0.8, "the user reacting, or doing something themselves")
        if lx.PLEASE.search(low) and not _QUESTION.search(text):
            # "Commit messages in English, please.": asked of the agent, with no cue word.
            return _mem("requirement", 0.82, "the user asks it of the agent (please)", replaces)
        return _mem("fact", 0.8, "a statement of the user (the user's word is kept)", replaces)
    if ctx.role == "assistant" and _CJK.search(text) and lx.FINDING.search(low) and heft > 40:
        return _mem("fact", 0.8, "a finding explained by the assistant", replaces)
    if (
        ctx.role == "assistant"
        and not _QUESTION.search(text)
        and lx.FINDING_EN.search(low)
        and heft > 60
    ):
        return _mem("fact", 0.8, "a cause explained by the assistant", replaces)
    if detail and heft > 25:
        return _mem("fact", 0.8, f"a concrete finding stated by {speaker}", replaces)
    if authority and detail and heft > 30:
        return _mem("fact", 0.7, f"a detail from {speaker} with no clear kind", replaces)
    if ctx.role == "assistant" and lx.LIMITATION.search(low):
        # "Changing the partition table cannot be done over OTA": a limit later work meets.
        return _mem("fact", 0.8, "a limitation the assistant found", replaces)
    if ctx.role == "assistant" and (lx.IMPERATIVE.match(low) or lx.USE.match(low)) and heft > 40:
        # A step of the assistant's plan: "Use the remote cache for task outputs, …".
        return _mem("decision", 0.8, "a step of the assistant's plan", replaces)
    if ctx.role != "user" and heft > (50 if ctx.role == "assistant" else 25):
        # Substantive but unrecognised: not certain enough to drop alone.
        return _noise(
            "transient", 0.6, f"a substantive statement by {speaker} with no memory signal"
        )
    return _noise("transient", 0.85 if ctx.role == "assistant" else 0.8, "no memory signal")


# What a unit that held only secrets reads as once they are masked.
_ONLY_SECRETS = re.compile(r"(?:\[secret:[\w-]+\][\s,;.]*)+")
# "Limit it to 5 attempts per minute per IP.", "cap uploads at 20 MB": a limit the owner sets.
_LIMITS = re.compile(r"^(?:please,? )?(?:limit|cap|throttle|rate[- ]limit)\b.{0,60}?\d")
# "Run this before every commit:", "Use this config exactly:": an owner's lead-in that
# says how always to do something is an instruction, not a title.
_STANDING_LEAD = re.compile(
    r"\b(?:every|each|always|never|exactly|must|only|whenever)\b|每次|总是|必须|一律|务必"
)


def _list_title(text: str, ctx: Context) -> bool:
    """ "Options:", "**Plan:**", "From the code and the measurement with the PPK2:".

    A compaction summary's "Decisions: use X" lines are content, so there only a
    short title without a colon inside counts.
    """
    bare = text.strip("*_ ")
    if not bare.endswith((":", "：", ":\n", "：\n")):
        return False  # a title ends with its colon ("$" lets a newline follow it)
    if _bare_title(text):
        return True
    return bare.endswith((":", "：")) and weight(text) < 70 and not ctx.summary


def _bare_title(text: str) -> bool:
    """ "Options:", "背景：": a short title that says nothing of its own."""
    return _LIST_TITLE.match(text.strip("*_ ")) is not None and weight(text) < 30


def _not_yet(low: str) -> bool:
    """ "The purge command isn't scheduled in the cron config yet." """
    return low.rstrip(" .!。").endswith(" yet") and ("n't" in low or "not " in low)


# "I'll store invoices in SQLite.", "I'll use react-hook-form for the form.": a short
# plan that names what it builds with.
_NAMES_TOOL = re.compile(
    r"\b(?:in|with|via|using|use|adopt|switch to|go with) `?"
    r"(?:[A-Z][\w.+-]+|[a-z][a-z\d]*[-_.][\w.-]*[a-z\d])"
)


def _narrates(text: str, low: str) -> bool:
    """ "I'll check the logs first": the assistant's next step, not a design.

    "I'll read the events in chunks of 100k rows with …" is long and concrete: a design.
    """
    if not lx.INVESTIGATE.match(low):
        return False
    if _TO_LEARN.search(low):
        return True  # "I'll start by looking at services/gateway to see how it routes"
    return weight(text) < 70 or not (_NUMBER.search(text) or lx.IDENTIFIER.search(text))


def weight(text: str) -> int:
    """Length with a CJK character counted like a short word, so thresholds fit both scripts."""
    if text.isascii():  # O(1): no CJK to count
        return len(text)
    return len(text) + 2 * len(_CJK.findall(text))


def replacing(low: str) -> bool:
    """Whether lowercased text says it replaces something ("instead", "actually", "改用")."""
    return bool(lx.SUPERSEDE.search(low) or lx.CORRECTION.search(low))


def replaced_subject(text: str) -> str | None:
    """What a superseding statement says it replaces ("instead of X"), if named."""
    match = _INSTEAD_OF.search(text)
    if not match:
        return None
    subject = (match.group(1) or match.group(2) or match.group(3) or "").strip("`.,;:")
    if match.group(3):
        return subject
    if len(subject) < 2 or subject.casefold() in _VAGUE:
        return None
    return subject


# Classifications are values, and few differ: each is made once.
@cache
@cache
def _mem(kind: str, confidence: float, reason: str, replaces: bool) -> Classification:
    # One object for each of the few verdicts (a reason names a kind and a speaker): a
    # batch of them sent to the inspecting process (``apart``) holds each once.
    return Classification(kind, IMPORTANCE[kind], confidence, reason, replaces)


@cache
def _noise(kind: str, confidence: float, reason: str) -> Classification:
    return Classification(kind, IMPORTANCE[kind], confidence, reason)
