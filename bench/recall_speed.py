"""Recall latency over 10,000 and 100,000 rows, and the brief on a 10,000-row store.

Targets (DESIGN.md): recall answers in < 20 ms at 100,000 rows; the brief
renders in < 10 ms on a 10,000-row store. Each figure is the median of
repeated calls on a real WAL database in a temporary folder, after the
index is built (the one-time build is reported too). Rows are inserted with
one ``executemany`` per ledger to keep the setup fast; their shape is what
``Journal.add`` and ``EvidenceLedger.record`` store (masked, one line).
Term frequencies follow a Zipf-like law over a synthetic vocabulary, so some
query words are common and some rare, as in a real journal.
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from pathlib import Path

from bench.timing import median_seconds
from contextward.brief import render_brief
from contextward.recall import RecallIndex, RecallQuery, recall
from contextward.store import Store

_TYPES = ("decision", "correction", "risk", "note", "lesson")


def _vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(4, 10))) for _ in range(size)}
    return sorted(words)


def build(root: Path, rows: int, seed: int = 11) -> tuple[Store, list[str]]:
    """A store with ``rows`` journal rows plus one evidence run per ten rows."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    (root / ".git").mkdir(parents=True, exist_ok=True)
    store = Store.open(root)

    def sentence(n: int) -> str:
        return " ".join(rng.choices(vocab, weights, k=n))

    journal = [
        (
            f"2026-{1 + i * 11 // rows:02d}-01T00:00:{i % 60:02d}.{i % 1000:03d}Z",
            rng.choice(_TYPES),
            sentence(rng.randint(6, 30)),
            json.dumps(rng.sample(vocab[:40], k=rng.randint(0, 2))),
            rng.choice(("owner", "agent")),
        )
        for i in range(rows)
    ]
    evidence = [
        (
            "2026-06-01T00:00:00.000Z",
            command,
            command,
            command,
            ".",
            code,
            100,
            "ok" if code == 0 else "fail",
            sentence(20),
            1000,
        )
        for _ in range(rows // 10)
        for command, code in [
            (f"pytest tests/test_{rng.choice(vocab[:300])}.py", rng.choice((0, 1)))
        ]
    ]
    with store.write() as conn:
        conn.executemany(
            "INSERT INTO journal (created_at, type, text, tags, provenance) VALUES (?, ?, ?, ?, ?)",
            journal,
        )
        conn.executemany(
            "INSERT INTO evidence (created_at, command, fingerprint, streak_key, cwd, exit_code,"
            " duration_ms, verdict, digest, output_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            evidence,
        )
        conn.executemany(
            "INSERT INTO prompts (created_at, key, text) VALUES (?, ?, ?)",
            [("2026-06-01T00:00:00.000Z", f"k{i}", sentence(15)) for i in range(rows // 20)],
        )
    return store, vocab


def _queries(vocab: list[str]) -> dict[str, RecallQuery]:
    return {
        "2 common terms": RecallQuery(f"{vocab[3]} {vocab[7]}"),
        "1 rare term": RecallQuery(vocab[4000]),
        "3 mid terms": RecallQuery(f"{vocab[60]} {vocab[90]} {vocab[150]}"),
        "4 terms widened": RecallQuery(f"{vocab[2000]} {vocab[3000]} {vocab[4000]} {vocab[5000]}"),
        "newest, no query": RecallQuery(),
        "type + tag filter": RecallQuery(type="decision", tags=(vocab[5],)),
        "cmd substring": RecallQuery(cmd="pytest tests/test_"),
    }


def measure_recall(rows: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        store, vocab = build(Path(tmp), rows)
        with store:
            start = time.perf_counter()
            index = RecallIndex(store)
            index.sync()
            out.append(
                {
                    "name": f"recall index build {rows:,} rows",
                    "value": round(time.perf_counter() - start, 2),
                    "unit": "s",
                }
            )
            worst = 0.0
            for label, query in _queries(vocab).items():
                seconds = median_seconds(lambda q=query: recall(store, q, index=index), repeat=9)
                worst = max(worst, seconds)
                out.append(
                    {
                        "name": f"recall {rows:,} rows: {label}",
                        "value": round(seconds * 1000, 2),
                        "unit": "ms",
                    }
                )
            out.append(
                {
                    "name": f"recall {rows:,} rows: worst median",
                    "value": round(worst * 1000, 2),
                    "unit": "ms",
                }
            )
    return out


def measure_brief(rows: int = 10_000) -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as tmp:
        store, _ = build(Path(tmp), rows)
        with store:
            seconds = median_seconds(
                lambda: render_brief(store, env={"CONTEXTWARD_HOME": tmp}), repeat=15
            )
            size = len(render_brief(store, env={"CONTEXTWARD_HOME": tmp}).text)
    return [
        {"name": f"brief render {rows:,} rows", "value": round(seconds * 1000, 2), "unit": "ms"},
        {"name": f"brief size {rows:,} rows", "value": size, "unit": "chars"},
    ]


def run() -> list[dict[str, object]]:
    return [*measure_recall(10_000), *measure_recall(100_000), *measure_brief()]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<48} {row['value']:>10} {row['unit']}")
