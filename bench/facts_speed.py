"""Facts verifier throughput: 1,000 items against 1 MB of context (budget: < 500 ms).

Two corpora: the literal benchmark's random-word corpus (bench.core_check),
and about 1 MB of realistic session summaries in English and Chinese from the
quality evaluation's generator, with 1,000 of its items (half of them stated
somewhere in the text, changed or not).
"""

from __future__ import annotations

import random

from bench.core_check import corpus
from bench.facts_eval import generate
from bench.timing import median_seconds
from contextward.core import FactsVerifier, verify_context
from contextward.core.snapshot import Snapshot


def summaries_corpus(
    seed: int = 11, size: int = 1_000_000, items: int = 1000
) -> tuple[Snapshot, str]:
    rng = random.Random(seed)
    cases = generate(seed, items)
    parts: list[str] = []
    length = 0
    index = 0
    while length < size:
        case = cases[index % len(cases)]
        # Only the first half of the items is stated; later cycles repeat those summaries.
        summary = (
            case.summary
            if index % len(cases) < items // 2
            else cases[rng.randrange(items // 2)].summary
        )
        parts.append(summary)
        length += len(summary) + 1
        index += 1
    snapshot = Snapshot(tuple(case.item for case in cases))
    return snapshot, "\n".join(parts)[: size + 50_000]


def _median_ms(snapshot: Snapshot, context: str) -> float:
    seconds = median_seconds(lambda: verify_context(snapshot, context, FactsVerifier()), repeat=5)
    return round(seconds * 1000, 1)


def run() -> list[dict[str, object]]:
    return [
        {
            "name": f"check facts 1000 items x 1 MB ({label})",
            "value": _median_ms(*built),
            "unit": "ms",
        }
        for label, built in (("random words", corpus()), ("summaries en+zh", summaries_corpus()))
    ]


if __name__ == "__main__":
    for row in run():
        print(row)
