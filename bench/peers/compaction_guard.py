"""compaction-guard (lexical tier) on the facts evaluation's labelled pairs, beside our verifiers.

compaction-guard checks registered constraint text against a summary and
gives one of seven verdicts. Its stdlib tier (``LexicalDetector``, the
default ``check()`` chain) runs offline with no model; the embedding and
NLI tiers need model weights from a hub at run time, so they are not run
here. Each case of ``bench.facts_eval`` is one item and one summary: the
item's text is registered as the constraint and ``compaction_guard.check``
is called with the summary, exactly as its README shows.

Verdicts map onto our statuses as its own taxonomy defines them:
preserved and paraphrased -> preserved; weakened, mutated and contradicted
-> changed; dropped -> lost; unverifiable -> unknown (never right: every
case has a definite truth). "False preserved" counts a changed or lost item
reported preserved or paraphrased (compaction-guard calls this a false
certification).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from bench import facts_eval
from bench.peers import installed_version, pct, skipped
from contextward.core import FactsVerifier, LiteralVerifier

DISTRIBUTION = "compaction-guard"
STATUSES = ("preserved", "changed", "lost", "unknown")
KIND_TO_STATUS = {
    "preserved": "preserved",
    "paraphrased": "preserved",
    "weakened": "changed",
    "mutated": "changed",
    "contradicted": "changed",
    "dropped": "lost",
    "unverifiable": "unknown",
}


@dataclass(frozen=True)
class Verdicts:
    """One verifier's answers on one labelled set."""

    name: str
    confusion: Counter[tuple[str, str]]
    native: Counter[tuple[str, str]]  # (truth, the tool's own verdict)
    by_operator: Counter[tuple[str, bool]]
    by_lang: Counter[tuple[str, bool]]
    total: int
    seconds: float

    def right(self) -> int:
        return sum(n for (t, p), n in self.confusion.items() if t == p)

    @property
    def accuracy(self) -> float:
        return self.right() / self.total if self.total else 0.0

    def reported(self, status: str) -> int:
        return sum(n for (_t, p), n in self.confusion.items() if p == status)

    def truth(self, status: str) -> int:
        return sum(n for (t, _p), n in self.confusion.items() if t == status)

    def precision(self, status: str) -> str:
        return pct(self.confusion[(status, status)], self.reported(status))

    def recall(self, status: str) -> str:
        return pct(self.confusion[(status, status)], self.truth(status))

    @property
    def false_preserved(self) -> float:
        negatives = self.truth("changed") + self.truth("lost")
        bad = self.confusion[("changed", "preserved")] + self.confusion[("lost", "preserved")]
        return bad / negatives if negatives else 0.0


def _score(
    name: str, cases: Sequence[facts_eval.Case], judge: Callable[[facts_eval.Case], str]
) -> Verdicts:
    confusion: Counter[tuple[str, str]] = Counter()
    native: Counter[tuple[str, str]] = Counter()
    by_operator: Counter[tuple[str, bool]] = Counter()
    by_lang: Counter[tuple[str, bool]] = Counter()
    start = time.perf_counter()
    for case in cases:
        verdict = judge(case)
        status = KIND_TO_STATUS.get(verdict, verdict)
        native[(case.truth, verdict)] += 1
        confusion[(case.truth, status)] += 1
        by_operator[(case.operator, status == case.truth)] += 1
        by_lang[(case.lang, status == case.truth)] += 1
    return Verdicts(
        name, confusion, native, by_operator, by_lang, len(cases), time.perf_counter() - start
    )


def peer_verdicts(cases: Sequence[facts_eval.Case], version: str) -> Verdicts:
    import compaction_guard

    detectors = [compaction_guard.LexicalDetector()]

    def judge(case: facts_eval.Case) -> str:
        report = compaction_guard.check(case.item.content, case.summary, detectors=detectors)
        (finding,) = report.findings
        return str(finding.kind.value)

    return _score(f"compaction-guard {version} lexical", cases, judge)


def our_verdicts(cases: Sequence[facts_eval.Case]) -> list[Verdicts]:
    out = []
    for name, verifier in (
        ("contextward facts", FactsVerifier()),
        ("contextward literal", LiteralVerifier()),
    ):

        def judge(case: facts_eval.Case, v: FactsVerifier | LiteralVerifier = verifier) -> str:
            (finding,) = v.verify([case.item], case.summary)
            return str(finding["status"])

        out.append(_score(name, cases, judge))
    return out


def labelled_sets() -> list[tuple[str, list[facts_eval.Case]]]:
    """The three sets ``bench.facts_eval`` reports, generated the same way."""
    return [
        (
            f"development seed {facts_eval.DEV_SEED}",
            facts_eval.generate(facts_eval.DEV_SEED, facts_eval.CASES),
        ),
        (
            f"held-out seed {facts_eval.HELD_OUT_SEED}",
            facts_eval.generate(facts_eval.HELD_OUT_SEED, facts_eval.CASES),
        ),
        (
            f"held-out templates, seed {facts_eval.HELD_OUT_SEED}",
            facts_eval.generate(facts_eval.HELD_OUT_SEED, 1000, facts_eval.HELD_OUT_TEMPLATES),
        ),
    ]


def results() -> tuple[str | None, list[tuple[str, int, list[Verdicts]]]]:
    """(peer version or None, [(set label, cases, [ours..., peer])])."""
    version = installed_version(DISTRIBUTION)
    out = []
    for label, cases in labelled_sets():
        verdicts = our_verdicts(cases)
        if version is not None:
            verdicts.append(peer_verdicts(cases, version))
        out.append((label, len(cases), verdicts))
    return version, out


def _table(verdicts: Sequence[Verdicts]) -> list[str]:
    width = max(len(v.name) for v in verdicts) + 2
    head = f"  {'metric':<26}" + "".join(f"{v.name:>{width}}" for v in verdicts)
    rows: list[tuple[str, Callable[[Verdicts], str]]] = [
        ("accuracy", lambda v: pct(v.right(), v.total)),
        (
            "accuracy, English",
            lambda v: pct(
                v.by_lang[("en", True)], v.by_lang[("en", True)] + v.by_lang[("en", False)]
            ),
        ),
        (
            "accuracy, Chinese",
            lambda v: pct(
                v.by_lang[("zh", True)], v.by_lang[("zh", True)] + v.by_lang[("zh", False)]
            ),
        ),
        ("false preserved", lambda v: f"{100 * v.false_preserved:.2f}%"),
        ("unknown (no verdict)", lambda v: pct(v.reported("unknown"), v.total)),
    ]
    for status in ("preserved", "changed", "lost"):
        rows.append((f"{status} precision", partial(Verdicts.precision, status=status)))
        rows.append((f"{status} recall", partial(Verdicts.recall, status=status)))
    rows.append(("µs per check", lambda v: f"{1e6 * v.seconds / v.total:.0f}"))
    lines = [head]
    lines.extend(
        f"  {name:<26}" + "".join(f"{fn(v):>{width}}" for v in verdicts) for name, fn in rows
    )
    return lines


def _confusion(v: Verdicts) -> list[str]:
    head = "".join(f"{s:>11}" for s in STATUSES)
    lines = [f"  {v.name}: rows truth, columns reported", f"  {'':<11}{head}"]
    for truth in ("preserved", "changed", "lost"):
        cells = "".join(f"{v.confusion[(truth, s)]:>11}" for s in STATUSES)
        lines.append(f"  {truth:<11}{cells}")
    return lines


def _native(v: Verdicts) -> list[str]:
    kinds = [k for k in KIND_TO_STATUS if any(v.native[(t, k)] for t in STATUSES)]
    lines = [
        f"  {v.name}, its own verdicts: rows truth",
        f"  {'':<11}" + "".join(f"{k:>14}" for k in kinds),
    ]
    for truth in ("preserved", "changed", "lost"):
        lines.append(f"  {truth:<11}" + "".join(f"{v.native[(truth, k)]:>14}" for k in kinds))
    return lines


def _operators(verdicts: Sequence[Verdicts]) -> list[str]:
    lines = ["  accuracy by operator (" + " / ".join(v.name for v in verdicts) + "):"]
    for operator in sorted(facts_eval.OPERATORS):
        cells = []
        for v in verdicts:
            right, wrong = v.by_operator[(operator, True)], v.by_operator[(operator, False)]
            cells.append(f"{right / (right + wrong):.0%}" if right + wrong else "-")
        lines.append(f"    {operator:<11} " + " / ".join(f"{c:>5}" for c in cells))
    return lines


def evaluate() -> str:
    version = installed_version(DISTRIBUTION)
    if version is None:
        return skipped(DISTRIBUTION, "verification peer, lexical tier")
    _, sets = results()
    lines = [
        f"# verification side by side: contextward vs {DISTRIBUTION} {version} "
        "(lexical tier, offline; bench/peers/compaction_guard.py)",
        "  data: bench/facts_eval.py's generated item/summary pairs (truth: preserved, changed, "
        "lost); the peer's verdicts mapped preserved|paraphrased -> preserved, "
        "weakened|mutated|contradicted -> changed, dropped -> lost, unverifiable -> unknown.",
        "  not run: its [embeddings] and [nli] tiers (they download model weights at run time).",
    ]
    for label, count, verdicts in sets:
        lines.append(f"\n## {label}: {count} cases")
        lines.extend(_table(verdicts))
        lines.extend(_confusion(verdicts[0]))
        lines.extend(_confusion(verdicts[-1]))
        lines.extend(_native(verdicts[-1]))
        lines.extend(_operators(verdicts))
    return "\n".join(lines)


if __name__ == "__main__":
    print(evaluate())
