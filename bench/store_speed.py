"""Store append throughput: one process, and eight processes writing at once.

Each append is its own short write transaction (as in real use), on a real
WAL database in a temporary directory.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.timing import median_seconds
from contextward.store import Store

ROWS = 2_000
WORKERS = 8
WORKER_ROWS = 500
WORKER_RUNS = 100

_WORKER = r"""
import sys, time
from pathlib import Path
from contextward.store import Store
root, rows, runs = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
store = Store.open(root)
go = root / "go"
while not go.exists():
    time.sleep(0.001)
for k in range(rows):
    store.journal.add("note", f"row {k} of a concurrent writer", tags=["bench"])
for k in range(runs):
    store.evidence.record(command=f"echo {k}", fingerprint=f"echo {k}", streak_key=f"echo {k}",
        cwd=".", exit_code=0, duration_ms=1, verdict="ok", reasons=(), digest="ok",
        output_bytes=2, attempt_outcome="success")
store.close()
"""


def _single(root: Path) -> tuple[float, float]:
    with Store.open(root) as store:
        start = time.perf_counter()
        for k in range(ROWS):
            store.journal.add("note", f"row {k} of a single writer", tags=["bench"])
        journal = time.perf_counter() - start
        start = time.perf_counter()
        for k in range(ROWS // 4):
            store.evidence.record(
                command=f"echo {k}",
                fingerprint=f"echo {k}",
                streak_key=f"echo {k}",
                cwd=".",
                exit_code=0,
                duration_ms=1,
                verdict="ok",
                reasons=(),
                digest="ok",
                output_bytes=2,
                attempt_outcome="success",
            )
        evidence = time.perf_counter() - start
    return ROWS / journal, (ROWS // 4) / evidence


def _concurrent(root: Path) -> float:
    Store.open(root).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(root), str(WORKER_ROWS), str(WORKER_RUNS)]
        )
        for _ in range(WORKERS)
    ]
    time.sleep(1.0)  # every interpreter started and opened the store
    start = time.perf_counter()
    (root / "go").touch()
    for proc in procs:
        if proc.wait(timeout=600) != 0:
            raise RuntimeError("a benchmark worker failed")
    elapsed = time.perf_counter() - start
    with Store.open(root) as store:
        rows = store.journal.counts()["total"] + store.evidence.count()
    if rows != WORKERS * (WORKER_ROWS + WORKER_RUNS):
        raise RuntimeError(f"rows lost: {rows}")
    return rows / elapsed


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as many:
        journal_rate, evidence_rate = _single(Path(one))
        open_ms = median_seconds(lambda: Store.open(Path(one)).close(), repeat=21) * 1000
        concurrent_rate = _concurrent(Path(many))
    return [
        {"name": "store append journal, 1 process", "value": round(journal_rate), "unit": "rows/s"},
        {
            "name": "store append evidence, 1 process",
            "value": round(evidence_rate),
            "unit": "rows/s",
        },
        {
            "name": f"store append, {WORKERS} processes ({WORKER_ROWS}+{WORKER_RUNS} each)",
            "value": round(concurrent_rate),
            "unit": "rows/s",
        },
        {"name": "store open (existing, migrated)", "value": round(open_ms, 2), "unit": "ms"},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']}: {row['value']} {row['unit']}")
