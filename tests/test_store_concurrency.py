"""Real processes, real SQLite: concurrent appends, a killed writer, a damaged file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextward.errors import StoreError
from contextward.store import Store, database_path

WORKER = r"""
import sys
from pathlib import Path
from contextward.store import Store

root, worker, rows, runs, real = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
go = root / "go"
while not go.exists():
    pass
with Store.open(root) as store:
    for k in range(rows):
        store.journal.add("note", f"w{worker}-row{k}", tags=[f"w{worker}"], provenance="agent")
        if k % 5 == 0 and k // 5 < runs:
            if real:
                from contextward.guard.evidence import run_verified
                run_verified(store, f"test {k} -ge 0 && echo w{worker}", cwd=root, threshold=1000)
            else:
                store.evidence.record(
                    command=f"echo w{worker}-{k}", fingerprint=f"echo w{worker}-{k}",
                    streak_key=f"echo w{worker}-{k}", cwd=".", exit_code=0, duration_ms=1,
                    verdict="ok", reasons=(), digest="", output_bytes=0, attempt_outcome="success",
                )
    # Any evidence not yet written (runs > rows / 5).
    for k in range(max(0, runs - (rows + 4) // 5)):
        store.evidence.record(
            command=f"echo extra-{worker}-{k}", fingerprint="x", streak_key="x", cwd=".",
            exit_code=0, duration_ms=1, verdict="ok", reasons=(), digest="", output_bytes=0,
            attempt_outcome="success",
        )
print("done")
"""


def _run_workers(
    root: Path, *, workers: int, rows: int, runs: int, real: bool
) -> list[subprocess.CompletedProcess[str]]:
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER,
                str(root),
                str(w),
                str(rows),
                str(runs),
                "1" if real else "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(workers)
    ]
    time.sleep(0.3)  # let every interpreter start, then release them together
    (root / "go").touch()
    done = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        done.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    return done


def _check(root: Path, *, workers: int, rows: int, runs: int) -> None:
    with Store.open(root, create=False) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        texts = [r[0] for r in store.query("SELECT text FROM journal")]
        assert len(texts) == workers * rows
        assert set(texts) == {f"w{w}-row{k}" for w in range(workers) for k in range(rows)}
        seqs = [r[0] for r in store.query("SELECT seq FROM evidence")]
        assert len(seqs) == workers * runs
        assert len(set(seqs)) == len(seqs)
        ids = {run.id for run in store.evidence.iter_all()}
        assert len(ids) == workers * runs


def test_eight_processes_append_without_loss(tmp_path: Path) -> None:
    done = _run_workers(tmp_path, workers=8, rows=60, runs=12, real=False)
    for result in done:
        assert result.returncode == 0, result.stderr[-500:]
        assert "locked" not in result.stderr and "Traceback" not in result.stderr
    _check(tmp_path, workers=8, rows=60, runs=12)
    # Racing creators built private copies; only the winner's file remains (beside the
    # generation stamp the writes bumped for the hook fast path).
    names = sorted(p.name for p in (tmp_path / ".contextward").iterdir())
    assert [n for n in names if n.startswith("contextward.db") or n.endswith(".tmp")] == [
        "contextward.db"
    ]
    assert set(names) <= {".gitignore", "contextward.db", "record.gen"}


@pytest.mark.slow
def test_eight_processes_full_scale_with_real_commands(tmp_path: Path) -> None:
    done = _run_workers(tmp_path, workers=8, rows=500, runs=100, real=True)
    for result in done:
        assert result.returncode == 0, result.stderr[-500:]
        assert "locked" not in result.stderr and "Traceback" not in result.stderr
    _check(tmp_path, workers=8, rows=500, runs=100)


KILLED = r"""
import sys
from pathlib import Path
from contextward.store import Store
with Store.open(Path(sys.argv[1])) as store:
    k = 0
    while True:
        store.journal.add("note", f"row {k} " + "x" * 500)
        store.events.add("tick", {"k": k, "pad": "y" * 2000})
        k += 1
"""


def test_a_killed_writer_leaves_a_readable_store(tmp_path: Path) -> None:
    Store.open(tmp_path).close()
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)])
    try:
        deadline = time.monotonic() + 60
        probe = sqlite3.connect(database_path(tmp_path), timeout=10)
        while time.monotonic() < deadline:
            if probe.execute("SELECT COUNT(*) FROM journal").fetchone()[0] >= 200:
                break
            time.sleep(0.02)
        probe.close()
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    with Store.open(tmp_path, create=False) as store:
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count = store.journal.counts()["total"]
        assert count >= 200
        events = store.events.list(limit=100_000)
        # Journal row k is committed before event k: never an event without its row.
        assert len(events) in {count, count - 1}
        entry = store.journal.add("note", "after the crash")
        assert entry.seq == count + 1


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: b"this is not sqlite at all" * 200,
        lambda data: data[:4096] + bytes([0x55]) * (len(data) - 4096),
    ],
    ids=["not-a-database", "malformed-pages"],
)
def test_damaged_database_raises_store_damaged(tmp_path: Path, damage: object) -> None:
    with Store.open(tmp_path) as store:
        for k in range(300):
            store.journal.add("note", f"row {k} " + "z" * 200)
    path = database_path(tmp_path)
    assert callable(damage)
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(StoreError) as info, Store.open(tmp_path, create=False) as store:
        store.journal.list(limit=1000)
    assert info.value.code == "store_damaged"
