"""How owners replace things, said the many ways people say it: is the old one retired?

``bench/data/inspect/probe/replacements.json`` holds short sessions written by a helper
asked to probe the rules (English and Chinese, terse, polite, non-native, lowercase):
64 in which the owner replaces a decision, rule, value or plan said earlier ("let's go
with SQS", "make it 5 attempts", "drop the redis idea", "改主意了…", "X 先不上了"), and 32
controls in which nothing is replaced but the words look alike ("also add …", "should we
switch to Y?", the assistant alone proposing a change). Each names the statement that
must end superseded, the replacement that must stay current, and what may go either
way. Every session opens with a neutral request and reply, so the statement replaced is
never the owner's opening request. The probe was written after the rules it first
measured and has since been used to improve them: it is a development set, like
``dev/``, and its figures say what the rules read, not how they generalise.

``unseen.json`` says how they generalise: 60 replacements and 30 controls of the same
shape, written later by another helper who saw neither the rules nor the first probe.
No rule has been tuned on it, so ``make eval`` shows its totals only, never which
sessions it misses (the held-out discipline of ``inspect_eval``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.inspect_provider import Recording, Replay, digest, record_into
from contextward.hosts.bridge_library import HostCandidates
from contextward.inspect import Candidate, Message, inspect_messages
from contextward.inspect.provider import asked

DATA = Path(__file__).parent / "data" / "inspect" / "probe" / "replacements.json"
UNSEEN = DATA.with_name("unseen.json")
#: A second development probe: 70 hard replacements (a bare value, no cue) and 35 controls.
HARD = DATA.with_name("replacements2.json")
#: Provider mode's recorded answers: ``provider/<probe>/<session id>.json``.
RECORDED = DATA.with_name("provider")
_OPENING = {
    "en": [
        ("user", "I'm working on the backend repo today, I'll give you a few things to do."),
        ("assistant", "Sure, go ahead."),
    ],
    "zh": [("user", "今天在后端仓库上干活，我陆续给你几个任务。"), ("assistant", "好的，请说。")],
}
_CJK = re.compile(r"[\u4e00-\u9fff]")


@dataclass
class Tally:
    sessions: int = 0
    found: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)


def _find(candidates: tuple[Candidate, ...], text: str) -> Candidate | None:
    want = " ".join(text.split()).casefold()
    return next((c for c in candidates if want in " ".join(c.content.split()).casefold()), None)


def _sessions(data: Path) -> list[dict[str, Any]]:
    return list(json.loads(data.read_text(encoding="utf-8"))["sessions"])


def _language(session: dict[str, Any]) -> str:
    return "zh" if _CJK.search(session["messages"][0]["content"]) else "en"


def messages(session: dict[str, Any]) -> list[Message]:
    """The session as inspected: the neutral opening, then its own messages."""
    turns = [
        *_OPENING[_language(session)],
        *((m["role"], m["content"]) for m in session["messages"]),
    ]
    return [Message(f"m{n}", r, t) for n, (r, t) in enumerate(turns)]


def _recording(data: Path, sid: str) -> Recording | None:
    return Recording.load(data.stem, sid, RECORDED)


def score(data: Path | None = None, *, provider: bool = False) -> dict[str, Tally]:
    """Per group ("replacements, en", "controls, zh", …): sessions, found, wrong, for
    the probe in ``data`` (the development probe by default). ``provider``: in provider
    mode, from the recorded answers (a session without a current one runs in rules mode,
    as it would live)."""
    data = data or DATA
    tallies: dict[str, Tally] = {}
    for session in _sessions(data):
        lang = _language(session)
        recording = _recording(data, session["id"]) if provider else None
        host = HostCandidates(Replay(recording)) if recording is not None else None
        result = inspect_messages(messages(session), provider=host)
        matched = set()
        found = True
        for text in session["replaced"]:
            c = _find(result.candidates, text)
            found = found and c is not None and c.superseded_by is not None
            matched |= {c.id} if c is not None else set()
        matched |= {c.id for t in session["either"] if (c := _find(result.candidates, t))}
        current = {c.id for t in session["current"] if (c := _find(result.candidates, t))}
        wrong = [
            c
            for c in result.candidates
            if c.superseded_by and (c.id not in matched or c.id in current)
        ]
        group = f"{'replacements' if session['replaces'] else 'controls'}, {lang}"
        tally = tallies.setdefault(group, Tally())
        tally.sessions += 1
        if wrong:
            tally.wrong.append(session["id"])
        elif session["replaces"] and found:
            tally.found += 1
        elif session["replaces"]:
            tally.missed.append(session["id"])
    return dict(sorted(tallies.items(), key=lambda kv: (kv[0].startswith("controls"), kv[0])))


def rows(tallies: dict[str, Tally] | None = None) -> list[list[str]]:
    return [
        [
            group,
            str(t.sessions),
            f"{t.found} of {t.sessions}" if group.startswith("replacements") else "–",
            str(len(t.wrong)),
        ]
        for group, t in (score() if tallies is None else tallies).items()
    ]


HEAD = ["sessions", "count", "old statement retired", "something current retired"]
BOTH_HEAD = [
    "sessions",
    "count",
    "rules: old retired",
    "rules: current retired",
    "provider: old retired",
    "provider: current retired",
]


def both_rows(data: Path) -> list[list[str]]:
    """Rules and provider mode side by side, one row per group."""
    rules, provider = score(data), score(data, provider=True)
    return [[*row, *theirs[2:]] for row, theirs in zip(rows(rules), rows(provider), strict=True)]


def probes() -> tuple[tuple[str, Path], ...]:
    """Every probe, with its title in the report."""
    return (
        ("replacement phrasings (probe/replacements.json; a development set)", DATA),
        ("hard replacement phrasings (probe/replacements2.json; a development set)", HARD),
        ("unseen replacement phrasings (probe/unseen.json; never tuned on)", UNSEEN),
    )


def evaluate() -> str:
    lines = []
    for title, data in probes():
        lines.append(f"{title}; provider mode from {recorded(data)} recorded answers")
        lines.append("  " + "".join(f"{h:>26}" for h in BOTH_HEAD))
        for row in both_rows(data):
            lines.append("  " + "".join(f"{v:>26}" for v in row))
        if data != UNSEEN:
            missed = [m for t in score(data).values() for m in t.missed]
            lines.append(f"  missed by the rules: {' '.join(missed) or 'none'}")
    return "\n".join(lines)


def recorded(data: Path) -> str:
    """How many sessions of ``data`` have a current recorded answer ("90 of 90")."""
    every = _sessions(data)
    return f"{sum(_answered(data, session) for session in every)} of {len(every)}"


def _answered(data: Path, session: dict[str, Any]) -> bool:
    found = _recording(data, session["id"])
    return found is not None and found.prompt_sha256 == digest(asked(messages(session)))


def export(out: Path, *, missing: bool = False) -> int:
    """Write every probe session's provider prompt under a neutral number (``missing``:
    only those no current recording answers)."""
    out.mkdir(parents=True, exist_ok=True)
    every = [(data, s) for _, data in probes() for s in _sessions(data)]
    if missing:
        every = [(data, s) for data, s in every if not _answered(data, s)]
    every.sort(key=lambda pair: digest(pair[0].stem + "/" + pair[1]["id"]))
    mapping = {}
    for number, (data, session) in enumerate(every, 1):
        key = f"{number:03d}"
        text = asked(messages(session))
        (out / f"{key}.prompt.txt").write_text(text, encoding="utf-8")
        mapping[key] = {"probe": data.stem, "session": session["id"], "prompt_sha256": digest(text)}
    (out / "map.json").write_text(json.dumps(mapping, indent=1) + "\n", encoding="utf-8")
    print(f"{len(mapping)} prompts in {out}")
    return 0


def record(source: Path, model: str) -> int:
    """Record every ``source/NNN.answer.txt`` as the answer to its prompt."""
    return record_into(source, model, RECORDED, "probe")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.inspect_probe")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("score", help="print the probes' scores (the default)")
    exp = sub.add_parser("export", help="write every session's provider prompt")
    exp.add_argument("dir", type=Path)
    exp.add_argument("--missing", action="store_true", help="only sessions with no recording")
    imp = sub.add_parser("import", help="record the answers written beside the prompts")
    imp.add_argument("dir", type=Path)
    imp.add_argument("--model", required=True, help="which model answered, as recorded")
    args = parser.parse_args(argv)
    if args.command == "export":
        return export(args.dir, missing=args.missing)
    if args.command == "import":
        return record(args.dir, args.model)
    print(evaluate())
    return 0


if __name__ == "__main__":
    sys.exit(main())
