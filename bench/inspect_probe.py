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

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from contextward.inspect import Candidate, Message, inspect_messages

DATA = Path(__file__).parent / "data" / "inspect" / "probe" / "replacements.json"
UNSEEN = DATA.with_name("unseen.json")
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


def score(data: Path | None = None) -> dict[str, Tally]:
    """Per group ("replacements, en", "controls, zh", …): sessions, found, wrong, for
    the probe in ``data`` (the development probe by default)."""
    tallies: dict[str, Tally] = {}
    for session in json.loads((data or DATA).read_text(encoding="utf-8"))["sessions"]:
        lang = "zh" if _CJK.search(session["messages"][0]["content"]) else "en"
        turns = [*_OPENING[lang], *((m["role"], m["content"]) for m in session["messages"])]
        result = inspect_messages([Message(f"m{n}", r, t) for n, (r, t) in enumerate(turns)])
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


def evaluate() -> str:
    lines = []
    for title, data in (
        ("replacement phrasings (probe/replacements.json; a development set)", DATA),
        ("unseen replacement phrasings (probe/unseen.json; never tuned on)", UNSEEN),
    ):
        lines.append(title)
        lines.append("  " + "".join(f"{h:>28}" for h in HEAD))
        tallies = score(data)
        for row in rows(tallies):
            lines.append("  " + "".join(f"{v:>28}" for v in row))
        if data == DATA:
            missed = [m for t in tallies.values() for m in t.missed]
            lines.append(f"  missed: {' '.join(missed) or 'none'}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(evaluate())
