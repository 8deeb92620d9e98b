"""How well two people agree on the inspection labels: the ceiling of the quality bar.

``bench/data/inspect/independent/SPLIT/NAME.txt`` holds a session labelled again from
scratch by an independent annotator who saw only the unlabelled text and the labelling
spec (never the first labels, the classifier or its output). Here that annotator is
scored as if it were the product, by the scorer of ``bench/inspect_eval.py`` and on the
same candidates: a candidate the annotator marked is kept (dropped, as the policy drops
it, if they marked it superseded), every other one is dropped. Human agreement bounds
what any inspector can score against one person's labels, so the same table also scores
rules and provider mode against each annotator and against what both agree on.

``python -m bench.inspect_agreement`` (part of ``make eval``).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import replace

from bench import inspect_provider
from bench.inspect_eval import (
    DATA,
    HELD_OUT,
    Label,
    Score,
    Session,
    load,
    overlap,
    overlaps,
    render,
    sessions,
)
from contextward.inspect import InspectionResult, inspect_stream

INDEPENDENT = DATA / "independent"


def independent(split: str) -> list[tuple[Session, Session]]:
    """(first labels, independent labels) for every session of ``split`` labelled twice.

    Raises ``ValueError`` if the two files differ in anything but their labels.
    """
    out = []
    for first in sessions(split):
        path = INDEPENDENT / split / f"{first.name}.txt"
        if not path.is_file():
            continue
        second = load(path)
        if second.messages != first.messages:
            raise ValueError(f"{split}/{first.name}: the independent copy changed the text")
        out.append((first, second))
    return out


def _own(session: Session) -> list[Label]:
    """The annotator's own marks: not the spans an auditor added (``{{?:…}}``)."""
    return [label for label in session.labels if label.kinds != ("?",)]


def as_annotated(result: InspectionResult, annotator: Session) -> InspectionResult:
    """``result``'s candidates with the decisions ``annotator``'s labels imply."""
    own = _own(annotator)
    texts = {str(m["id"]): str(m["content"]) for m in annotator.messages}
    out = []
    for c in result.candidates:
        marked = [label for label in own if overlaps(label, c, texts)]
        stale = bool(marked) and all(label.superseded for label in marked)
        out.append(
            replace(
                c,
                kind=marked[0].kinds[0] if marked else c.kind,
                action="keep" if marked and not stale else "drop",
                superseded_by="independent annotator" if stale else None,
                supersedes=(),
            )
        )
    return replace(result, candidates=tuple(out))


def agreed(first: Session, second: Session) -> Session:
    """``first`` with only what both annotators agree on scored.

    A span is a memory if both mark it, with the same verdict on whether a later
    message replaces it; what only one of them marks counts as neither memory nor noise
    (as a disputed span does), and what neither marks is noise.
    """
    theirs, own = _own(second), _own(first)
    labels = []
    for label in first.labels:
        match = [other for other in theirs if overlap(label, other)]
        agree = any(other.superseded == label.superseded for other in match)
        labels.append(replace(label, disputed=label.disputed or not agree))
    labels += [
        replace(other, kinds=("?",), disputed=True)
        for other in theirs
        if not any(overlap(label, other) for label in own)
    ]
    return replace(first, labels=labels)


#: Which labels each group of columns is scored against, and the systems it scores.
GROUPS = (
    ("against A's labels", ("annotator B", "rules", "provider")),
    ("against B's labels", ("annotator A", "rules", "provider")),
    ("against A and B agreed", ("rules", "provider")),
)


def scores(splits: Sequence[str] = HELD_OUT) -> list[tuple[str, Score]]:
    """The agreement table's columns, titled "SYSTEM vs LABELS", in ``GROUPS`` order."""
    titles = [f"{name} vs {title[8:]}" for title, names in GROUPS for name in names]
    columns = [Score() for _ in titles]
    for split in splits:
        for a, b in independent(split):
            rules = inspect_stream(io.BytesIO(render(a)))
            provider = inspect_provider.result(split, a)
            both = agreed(a, b)
            for column, (truth, system) in zip(
                columns,
                [
                    (a, as_annotated(rules, b)),
                    (a, rules),
                    (a, provider),
                    (b, as_annotated(rules, a)),
                    (b, rules),
                    (b, provider),
                    (both, rules),
                    (both, provider),
                ],
                strict=True,
            ):
                column.add(truth, system)
    return list(zip(titles, columns, strict=True))


def summary(splits: Sequence[str] = HELD_OUT) -> str:
    pairs = [pair for split in splits for pair in independent(split)]
    spans = sum(len(_own(b)) for _, b in pairs)
    which = "held-out" if splits == HELD_OUT else "/".join(splits)
    return (
        f"{len(pairs)} {which} sessions, {spans} spans marked by B; a candidate an annotator "
        "marks is kept, every other one dropped"
    )


def evaluate() -> str:
    lines = [
        "inspection: agreement of two annotators (A: the first labels, adjudicated; B: "
        "bench/data/inspect/independent, labelled again from scratch, blind to A)"
    ]
    for splits in (HELD_OUT, ("dev",)):
        if any(independent(split) for split in splits):
            lines += _table(splits)
    return "\n".join(lines)


def _table(splits: Sequence[str]) -> list[str]:
    width = 12
    lines = [
        f"  {summary(splits)}",
        f"  {'':<30}"
        + "".join(f" {title:^{(width + 1) * len(names) - 1}}|" for title, names in GROUPS),
        f"  {'metric':<30}"
        + "".join("".join(f" {name:>{width}}" for name in names) + "|" for _, names in GROUPS)
        + "  target",
    ]
    table = [score.rows() for _, score in scores(splits)]
    for row in zip(*table, strict=True):
        cells, at = "", 0
        for _, names in GROUPS:
            cells += "".join(f" {cell[1]:>{width}}" for cell in row[at : at + len(names)]) + "|"
            at += len(names)
        lines.append(f"  {row[0][0]:<30}{cells}  {row[0][2]}")
    return lines


if __name__ == "__main__":
    print(evaluate())
