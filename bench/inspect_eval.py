"""Inspection quality on the labelled sessions of bench/data/inspect (``make eval``).

Each session is rendered into the transcript format it names (generic
messages, Claude Code JSONL with a title line, a sidechain line and a torn
last line, or pi JSONL), read back through the real readers and inspected.
Spans marked in the session are the memories; every other candidate is
noise. ``dev/`` is the tuning set; ``heldout/`` and ``heldout2/`` (a second
blind set, written before the classifier was re-tuned) are only ever scored. A
keyword baseline (the approach of the systems we replace) is scored on the
same data for comparison.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from contextward.inspect import (
    CRITICAL_KINDS,
    Candidate,
    InspectionResult,
    build_guidance,
    inspect_stream,
)
from contextward.inspect.guidance import Limits
from contextward.inspect.segment import units

DATA = Path(__file__).parent / "data" / "inspect"
_MARK = re.compile(r"\{\{([a-z_|]+|\?)([*!~]?)(\??):(.+?)\}\}", re.S)
_HEAD = re.compile(r"^--- (\S+) (user|assistant|system|tool)(?: (\S+))?(?: (error))?\s*$")


@dataclass(frozen=True)
class Label:
    source: str
    span: str
    kinds: tuple[str, ...]
    critical: bool
    superseded: bool
    #: A second annotator disagreed: ``{{kind?:span}}`` (a memory they call noise) or
    #: ``{{?:span}}`` (noise they call a memory). Adjudicated scores count it as neither.
    disputed: bool = False
    #: Where the span starts in its message's text (-1: not known).
    start: int = -1


@dataclass
class Session:
    name: str
    lang: str
    format: str
    messages: list[dict[str, object]] = field(default_factory=list)
    labels: list[Label] = field(default_factory=list)


def load(path: Path) -> Session:
    text = path.read_text(encoding="utf-8")
    header, _, body = text.partition("\n--- ")
    meta = dict(
        line.split(":", 1)
        for line in header.splitlines()
        if ":" in line and not line.startswith("#")
    )
    session = Session(
        path.stem, meta.get("lang", "en").strip(), meta.get("format", "messages").strip()
    )
    current: list[str] | None = None
    head: re.Match[str] | None = None
    for line in [*("--- " + body).splitlines(), "--- end user"]:
        match = _HEAD.match(line)
        if match is None:
            if current is None:
                raise ValueError(f"{path.name}: text before the first message")
            current.append(line)
            continue
        if head is not None and current is not None:
            mid, role, tool, error = head.groups()
            plain = _strip(mid, "\n".join(current).rstrip("\n"), session.labels)
            message: dict[str, object] = {"id": mid, "role": role, "content": plain}
            if role == "tool":
                message["tool_name"] = tool or "Bash"
                message["is_error"] = bool(error)
            session.messages.append(message)
        head, current = match, []
    return session


def _strip(mid: str, content: str, labels: list[Label]) -> str:
    out: list[str] = []
    size = 0  # of the plain text written so far
    end = 0
    for match in _MARK.finditer(content):
        kinds = tuple(match.group(1).split("|"))
        flag, disputed, span = match.group(2), match.group(3) == "?", match.group(4)
        critical = kinds[0] in CRITICAL_KINDS if flag not in "!~" or not flag else flag == "!"
        before = content[end : match.start()]
        out += [before, span]
        size += len(before)
        labels.append(
            Label(mid, span, kinds, critical, flag == "*", disputed or kinds == ("?",), size)
        )
        size += len(span)
        end = match.end()
    out.append(content[end:])
    return "".join(out)


def sessions(split: str) -> list[Session]:
    return [load(path) for path in sorted((DATA / split).glob("*.txt"))]


# ---------------------------------------------------------------- rendering


def render(session: Session) -> bytes:
    if session.format == "claude-code":
        return _claude(session.messages)
    if session.format == "pi":
        return _pi(session.messages)
    return json.dumps({"messages": session.messages}, ensure_ascii=False).encode()


def _tool_parts(message: dict[str, object]) -> tuple[str, str]:
    text = str(message["content"])
    first, _, rest = text.partition("\n")
    return (first[2:], rest) if first.startswith("$ ") else ("", text)


def _claude(messages: list[dict[str, object]]) -> bytes:
    lines: list[dict[str, object]] = [
        {"type": "summary", "summary": "Session title", "leafUuid": "x"}
    ]
    for m in messages:
        mid, role = str(m["id"]), m["role"]
        if role == "tool":
            command, output = _tool_parts(m)
            use = f"toolu_{mid}"
            lines.append(
                {
                    "type": "assistant",
                    "uuid": f"{mid}-use",
                    "isSidechain": False,
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": use,
                                "name": m.get("tool_name"),
                                "input": {"command": command} if command else {"file_path": "x"},
                            }
                        ],
                    },
                }
            )
            lines.append(
                {
                    "type": "user",
                    "uuid": mid,
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": use,
                                "content": output,
                                "is_error": m.get("is_error", False),
                            }
                        ],
                    },
                }
            )
        else:
            content: object = m["content"]
            if role == "assistant":
                content = [{"type": "thinking", "thinking": "…"}, {"type": "text", "text": content}]
            lines.append({"type": role, "uuid": mid, "message": {"role": role, "content": content}})
    lines.append(
        {
            "type": "user",
            "uuid": "side",
            "isSidechain": True,
            "message": {"role": "user", "content": "subagent prompt"},
        }
    )
    out = "\n".join(json.dumps(line, ensure_ascii=False) for line in lines)
    return (out + '\n{"type":"assistant","uuid":"torn","mess').encode()


def _pi(messages: list[dict[str, object]]) -> bytes:
    lines: list[dict[str, object]] = [
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-23T10:00:00Z"}
    ]
    for m in messages:
        mid, role = str(m["id"]), m["role"]
        if role == "tool":
            command, output = _tool_parts(m)
            lines.append(
                {
                    "type": "message",
                    "id": f"{mid}-call",
                    "message": {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "toolCall",
                                "id": f"call_{mid}",
                                "name": m.get("tool_name"),
                                "arguments": {"command": command},
                            }
                        ],
                    },
                }
            )
            lines.append(
                {
                    "type": "message",
                    "id": mid,
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"call_{mid}",
                        "toolName": m.get("tool_name"),
                        "content": [{"type": "text", "text": output}],
                        "isError": m.get("is_error", False),
                    },
                }
            )
        else:
            lines.append(
                {
                    "type": "message",
                    "id": mid,
                    "message": {"role": role, "content": [{"type": "text", "text": m["content"]}]},
                }
            )
        lines.append({"type": "model_change", "id": f"{mid}-m", "provider": "x", "modelId": "y"})
    return "\n".join(json.dumps(line, ensure_ascii=False) for line in lines).encode()


# ---------------------------------------------------------------- scoring


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def overlap(a: Label, b: Label) -> int:
    """How many characters two labels of the same message share (0 if another message)."""
    if a.source != b.source or a.start < 0 or b.start < 0:
        return 0
    return _same(a.start, len(a.span), b.start, len(b.span))


def overlaps(label: Label, c: Candidate, messages: Mapping[str, str] | None = None) -> int:
    """How much candidate ``c`` is the labelled span: 0 if it is not.

    One text holding the other counts. With the session's ``messages``, so does a
    candidate cut differently from the span that covers at least half of the shorter of
    the two at the same place: "max_ttl 24h is too short — …, so max_ttl must be 48h.
    default_ttl 1h is ok." is the candidate "One change on the numbers: max_ttl 24h is
    too short — …" as much as it is "default_ttl 1h is ok.".
    """
    if label.source not in c.sources:
        return 0
    a, b = _fold(label.span), _fold(c.content)
    if a in b or b in a:
        return min(len(a), len(b))
    content = messages.get(label.source) if messages is not None else None
    at = content.find(c.content) if content is not None and label.start >= 0 else -1
    return _same(label.start, len(label.span), at, len(c.content)) if at >= 0 else 0


def _same(a: int, alen: int, b: int, blen: int) -> int:
    size = min(a + alen, b + blen) - max(a, b)
    return size if size > 0 and 2 * size >= min(alen, blen) else 0


#: The noise rows' sources: the row's name and the role of the message the noise is from.
NOISE_SOURCES = (
    ("tool output", "tool"),
    ("assistant prose", "assistant"),
    ("owner's words", "user"),
)


@dataclass
class Score:
    labels: int = 0
    borderline: int = 0
    critical: int = 0
    critical_kept: int = 0
    retained: int = 0
    kept_labels: int = 0
    kind_right: int = 0
    matched: int = 0
    superseded: int = 0
    superseded_found: int = 0
    superseded_in_must: int = 0
    wrongly_superseded: int = 0
    candidates: int = 0
    review: int = 0
    kept: int = 0
    kept_true: int = 0
    noise: int = 0
    noise_dropped: int = 0
    #: Noise and noise dropped by who said it (the source message's role).
    noise_by: Counter[str] = field(default_factory=Counter)
    noise_dropped_by: Counter[str] = field(default_factory=Counter)
    misses: list[str] = field(default_factory=list)

    def add(self, session: Session, result: InspectionResult, *, adjudicated: bool = True) -> None:
        guidance = build_guidance(result, limits=Limits(10_000, 10_000, 10_000, 10**9))
        must = {c.id for c in guidance.must_preserve}
        texts = {str(m["id"]): str(m["content"]) for m in session.messages}
        roles = {str(m["id"]): str(m["role"]) for m in session.messages}
        owner: dict[str, bool] = {}
        borderline: set[str] = set()
        for label in session.labels:
            if label.kinds == ("?",) and not adjudicated:
                continue  # the writer's call: noise
            border = adjudicated and label.disputed
            size = {c.id: overlaps(label, c, texts) for c in result.candidates}
            best = max(result.candidates, key=lambda c: size[c.id], default=None)
            found = best is not None and size[best.id] > 0
            for c in result.candidates:
                if size[c.id]:
                    owner[c.id] = owner.get(c.id, False) or not (label.superseded or border)
                    if border:
                        borderline.add(c.id)
            if border:
                self.borderline += 1
                continue
            if label.superseded:
                self.superseded += 1
                if found and best is not None:
                    self.superseded_found += best.superseded_by is not None
                    self.superseded_in_must += best.id in must
                continue
            self.labels += 1
            action = best.action if found and best is not None else "missing"
            self.wrongly_superseded += found and best is not None and best.superseded_by is not None
            if found and best is not None:
                self.matched += 1
                self.kind_right += best.kind in label.kinds
                if best.kind not in label.kinds:
                    self.misses.append(
                        f"{session.name}/{label.source}: {label.kinds[0]} as {best.kind} ({action})"
                    )
            if action != "keep":
                self.misses.append(
                    f"{session.name}/{label.source}: {label.kinds[0]} -> {action}: {label.span[:60]}"
                )
            self.retained += action in ("keep", "review")
            self.kept_labels += action == "keep"
            if label.critical:
                self.critical += 1
                self.critical_kept += action == "keep"
        for c in result.candidates:
            self.candidates += 1
            self.review += c.action == "review"
            if c.action == "keep" and not (c.id in borderline and not owner[c.id]):
                self.kept += 1
                self.kept_true += owner.get(c.id, False)
            if c.id not in owner:
                role = roles.get(c.sources[0], c.role) if c.sources else c.role
                self.noise += 1
                self.noise_dropped += c.action == "drop"
                self.noise_by[role] += 1
                self.noise_dropped_by[role] += c.action == "drop"
                if c.action != "drop":
                    self.misses.append(
                        f"{session.name}: noise {c.kind} -> {c.action}: {c.content[:60]}"
                    )

    def rows(self) -> list[tuple[str, str, str]]:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f}%" if b else "n/a"

        return [
            ("critical items auto-kept", pct(self.critical_kept, self.critical), ">= 95%"),
            ("retained (keep + review)", pct(self.retained, self.labels), ">= 98%"),
            ("noise dropped", pct(self.noise_dropped, self.noise), ">= 95%"),
            *(
                (f"  of which {name}", pct(self.noise_dropped_by[role], self.noise_by[role]), "")
                for name, role in NOISE_SOURCES
            ),
            ("review share of candidates", pct(self.review, self.candidates), "<= 10%"),
            ("superseded in must-preserve", str(self.superseded_in_must), "0"),
            ("superseded detected", pct(self.superseded_found, self.superseded), ""),
            ("current items marked superseded", str(self.wrongly_superseded), ""),
            ("keep precision", pct(self.kept_true, self.kept), ""),
            ("keep recall", pct(self.kept_labels, self.labels), ""),
            ("kind accuracy (matched)", pct(self.kind_right, self.matched), ""),
        ]


def score(split: str, *, adjudicated: bool = True) -> tuple[Score, int, int]:
    total = Score()
    data = sessions(split)
    for session in data:
        result = inspect_stream(io.BytesIO(render(session)))
        total.add(session, result, adjudicated=adjudicated)
    return total, len(data), sum(label.kinds != ("?",) for s in data for label in s.labels)


def merged(scores: Iterable[Score]) -> Score:
    """Several splits' scores as one (counts added, miss lists joined)."""
    total = Score()
    for one in scores:
        for f in fields(one):
            setattr(total, f.name, getattr(total, f.name) + getattr(one, f.name))
    return total


# ---------------------------------------------------------------- baseline

_KEYWORDS = (
    ("constraint", re.compile(r"\bmust\b|\brequired\b|必须|不能", re.I)),
    ("decision", re.compile(r"\bdecision\b|\bdecided\b|\bchose\b|决定|选择", re.I)),
    ("todo", re.compile(r"\btodo\b|\bnext step\b|待办|TODO", re.I)),
    ("rejected", re.compile(r"\babandoned\b|\bfailed\b|\brejected\b|放弃", re.I)),
    ("goal", re.compile(r"\bgoal\b|目标", re.I)),
)


def baseline(session: Session) -> InspectionResult:
    """The keyword approach: a few regexes, tool output dropped, everything else to review."""
    out: list[Candidate] = []
    for position, m in enumerate(session.messages):
        mid, text = str(m["id"]), str(m["content"])
        if m["role"] == "tool":
            out.append(
                Candidate(
                    f"b{len(out)}",
                    "tool_output",
                    text[:80],
                    0.1,
                    0.9,
                    "drop",
                    False,
                    "",
                    (mid,),
                    position=position,
                )
            )
            continue
        for unit in units(text):
            kind = next((k for k, rx in _KEYWORDS if rx.search(unit.text)), None)
            action = "keep" if kind else "review"
            out.append(
                Candidate(
                    f"b{len(out)}",
                    kind or "fact",
                    unit.text,
                    0.85 if kind else 0.5,
                    0.85 if kind else 0.5,
                    action,
                    kind is not None,
                    "",
                    (mid,),
                    position=position,
                )
            )
    return InspectionResult(tuple(out), len(session.messages))


def score_baseline(split: str, *, adjudicated: bool = True) -> Score:
    total = Score()
    for session in sessions(split):
        total.add(session, baseline(session), adjudicated=adjudicated)
    return total


# ---------------------------------------------------------------- report


SPLITS = ("dev", "heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6")


HELD_OUT = SPLITS[1:]


def _table(ours: dict[str, Score], base: dict[str, Score]) -> list[str]:
    columns = [*SPLITS, "held-out"]
    ours = {**ours, "held-out": merged(ours[s] for s in HELD_OUT)}
    base = {**base, "held-out": merged(base[s] for s in HELD_OUT)}
    lines = [
        f"  {'metric':<30}" + "".join(f" {c:>9}" for c in columns) + f" {'kw held-out':>12}  target"
    ]
    table = [ours[c].rows() for c in columns] + [base["held-out"].rows()]
    for row in zip(*table, strict=True):
        name, target = row[0][0], row[0][2]
        cells = "".join(f" {cell[1]:>9}" for cell in row[:-1])
        lines.append(f"  {name:<30}{cells} {row[-1][1]:>12}  {target}")
    return lines


def evaluate(show_misses: Iterable[str] = ()) -> str:
    lines = ["inspection quality (bench/data/inspect; labels: memories, everything else noise)"]
    modes: dict[bool, dict[str, Score]] = {True: {}, False: {}}
    for split in SPLITS:
        for adjudicated, by_split in modes.items():
            s, n, labels = score(split, adjudicated=adjudicated)
            by_split[split] = s
        marks = [label for session in sessions(split) for label in session.labels]
        added = sum(label.kinds == ("?",) for label in marks)
        disputed = sum(label.disputed for label in marks) - added
        lines.append(
            f"  {split}: {n} sessions, {labels} labelled spans; a second annotator disputed "
            f"{disputed} and marked {added} more, {modes[True][split].candidates} candidates"
        )
    lines.append("  adjudicated (spans the two annotators disagree on count as neither):")
    lines += _table(modes[True], {s: score_baseline(s) for s in SPLITS})
    lines.append("  first annotator's labels alone:")
    lines += _table(modes[False], {s: score_baseline(s, adjudicated=False) for s in SPLITS})
    for split in show_misses:
        lines.append(f"  misses in {split} (adjudicated):")
        lines.extend(f"    {miss}" for miss in modes[True][split].misses)
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(evaluate(sys.argv[1:]))
