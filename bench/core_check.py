"""Check throughput: 1,000 items against 1 MB of context."""

from __future__ import annotations

import random

from bench.timing import median_seconds
from contextward.core import ContextItem, LiteralVerifier, verify_context
from contextward.core.snapshot import Snapshot


def corpus(seed: int = 7, size: int = 1_000_000, items: int = 1000) -> tuple[Snapshot, str]:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(5000)]
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(vocab)
        words.append(word)
        length += len(word) + 1
    needles = [" ".join(rng.choice(vocab) for _ in range(8)) for _ in range(items)]
    # Half the items occur in the context, half do not.
    context = " ".join(words) + " " + " ".join(needles[: items // 2])
    snapshot = Snapshot(
        tuple(ContextItem(f"i{n}", "fact", text, n % 3 == 0) for n, text in enumerate(needles))
    )
    return snapshot, context[: size + 50_000]


def run() -> list[dict[str, object]]:
    snapshot, context = corpus()
    literal = median_seconds(lambda: verify_context(snapshot, context, LiteralVerifier()))
    return [
        {
            "name": "check literal 1000 items x 1 MB",
            "value": round(literal * 1000, 1),
            "unit": "ms",
        },
    ]
