"""What a bounded guidance keeps when a session has more memories than it may list.

A real compaction segment holds hundreds of kept candidates; the guidance lists at most
60 (and 8,000 characters). The labelled sessions are short, so each one's must-preserve
section is capped here at a few items to put the same pressure on it. Scored on the
labels: the owner's goals and standing rules (said by the user), all current critical
items, those of the session's last third (the work in hand), and superseded items shown.
The guidance as it chooses is compared with the earlier choice, the first items in
reading order (critical first), computed here on the same candidates.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

from bench.inspect_eval import HELD_OUT, Session, overlaps, render, sessions
from contextward.core.item import STANDING
from contextward.inspect import Candidate, InspectionResult, build_guidance, inspect_stream
from contextward.inspect.guidance import Limits

CAPS = (5, 10, 20)
Chooser = Callable[[InspectionResult, int], Sequence[Candidate]]


def chosen(result: InspectionResult, cap: int) -> Sequence[Candidate]:
    """What the guidance lists as must-preserve under a cap of ``cap`` items."""
    return build_guidance(result, limits=Limits(must_preserve=cap)).must_preserve


def reading_order(result: InspectionResult, cap: int) -> Sequence[Candidate]:
    """The earlier choice: the first kept items, critical first, in reading order."""
    keep = [c for c in result.candidates if c.action == "keep"]
    return sorted(keep, key=lambda c: (not c.critical, c.position))[:cap]


@dataclass
class Shown:
    standing: int = 0
    standing_shown: int = 0
    critical: int = 0
    critical_shown: int = 0
    late: int = 0
    late_shown: int = 0
    superseded: int = 0
    superseded_shown: int = 0

    def add(self, session: Session, result: InspectionResult, shown: Sequence[Candidate]) -> None:
        ids = {c.id for c in shown}
        texts = {str(m["id"]): str(m["content"]) for m in session.messages}
        roles = {str(m["id"]): m["role"] for m in session.messages}
        where = {str(m["id"]): n for n, m in enumerate(session.messages)}
        for label in session.labels:
            if label.disputed:
                continue
            size = {c.id: overlaps(label, c, texts) for c in result.candidates}
            best = max(result.candidates, key=lambda c: size[c.id], default=None)
            listed = best is not None and size[best.id] > 0 and best.id in ids
            if label.superseded:
                self.superseded += 1
                self.superseded_shown += listed
                continue
            if roles.get(label.source) == "user" and STANDING & set(label.kinds):
                self.standing += 1
                self.standing_shown += listed
            if label.critical:
                self.critical += 1
                self.critical_shown += listed
                if 3 * where.get(label.source, 0) >= 2 * len(session.messages):
                    self.late += 1
                    self.late_shown += listed

    def merge(self, other: Shown) -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def cells(self) -> list[str]:
        def pct(a: int, b: int) -> str:
            return f"{100 * a / b:.1f}%" if b else "n/a"

        return [
            pct(self.standing_shown, self.standing),
            pct(self.critical_shown, self.critical),
            pct(self.late_shown, self.late),
            f"{self.superseded_shown} of {self.superseded}",
        ]


def score(splits: Sequence[str], cap: int) -> dict[str, Shown]:
    out = {"guidance": Shown(), "reading order": Shown()}
    choosers: dict[str, Chooser] = {"guidance": chosen, "reading order": reading_order}
    for split in splits:
        for session in sessions(split):
            result = inspect_stream(io.BytesIO(render(session)))
            for name, choose in choosers.items():
                out[name].add(session, result, choose(result, cap))
    return out


HEAD = ("owner's goals and rules", "current critical", "critical, last third", "superseded")


def rows() -> list[list[str]]:
    """One row per set, cap and chooser: the four shares of ``HEAD``."""
    out = []
    for name, splits in (("dev", ("dev",)), ("held-out", HELD_OUT)):
        for cap in CAPS:
            for chooser, shown in score(splits, cap).items():
                out.append([name, str(cap), chooser, *shown.cells()])
    return out


def evaluate() -> str:
    lines = [
        "bounded guidance (must-preserve capped per session, as a long session's 60 are "
        "of hundreds; rules mode): share of labelled items listed",
        f"  {'set':<9} {'cap':>3}  {'chosen by':<13}" + "".join(f" {h:>24}" for h in HEAD),
    ]
    for name, cap, chooser, *cells in rows():
        shares = "".join(f" {cell:>24}" for cell in cells)
        lines.append(f"  {name:<9} {cap:>3}  {chooser:<13}{shares}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(evaluate())
