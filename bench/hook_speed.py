"""Hook cost: ``contextward hook claude`` answering UserPromptSubmit, as a ratio to a bare start.

A throwaway git project gets a 10,000-row store and one SessionStart (what a
session does first), then bare ``python -c pass`` starts and hook calls are
timed alternately, each a real process, and the medians compared. The hook
runs exactly as ``contextward install claude`` writes it (``python -S
.../hook_entry.py claude``), with the package byte-compiled as the installer
leaves it. A second figure shows the full path (a prompt after the record
changed), which the budget does not cover but a user pays now and then. A
third is PreCompact on a 100 MB transcript: a host kills a hook after about a
minute (Claude Code: 60 s), and the hook reads only the transcript's end.
Last, PreToolUse on a short command and on a 3 MB one (past the analysis cap it
asks without fingerprinting the command for the loop brake), and PostToolUse
recording a short command.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.inspect_speed import generate
from contextward.hosts.claude_install import ENTRY_SCRIPT, precompile
from contextward.store import Store

ROWS = 10_000
RUNS = 31


def _seed(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    with Store.open(root) as store, store.write() as conn:
        conn.executemany(
            "INSERT INTO journal (created_at, type, text, tags, provenance) VALUES (?, ?, ?, ?, ?)",
            [
                (
                    "2026-01-01T00:00:00Z",
                    "note",
                    f"note number {n} about module {n % 97}",
                    "[]",
                    "owner",
                )
                for n in range(ROWS)
            ],
        )


def _payload(root: Path, event: str, n: int, **extra: object) -> bytes:
    body = {"session_id": "bench", "cwd": str(root), "hook_event_name": event, **extra}
    if event == "UserPromptSubmit":
        body.update(prompt=f"please continue with step {n}", prompt_id=f"p{n}")
    return json.dumps(body).encode()


def _time(argv: list[str], data: bytes = b"") -> float:
    start = time.perf_counter()
    subprocess.run(argv, input=data, capture_output=True, check=False)
    return time.perf_counter() - start


def run() -> list[dict[str, object]]:
    precompile()
    hook = [sys.executable, "-S", str(ENTRY_SCRIPT), "claude"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _seed(root)
        _time(hook, _payload(root, "SessionStart", 0, source="startup"))
        bare, fast = [], []
        for n in range(RUNS):
            bare.append(_time([sys.executable, "-c", "pass"]))
            fast.append(_time(hook, _payload(root, "UserPromptSubmit", n)))
        full = []
        for n in range(7):
            with Store.open(root) as store:
                store.journal.add("correction", f"correction {n}: the port is 844{n}")
            full.append(_time(hook, _payload(root, "UserPromptSubmit", 1000 + n)))
        transcript = root / "transcript.jsonl"
        generate(transcript, 100, 4)
        compact = _time(
            hook, _payload(root, "PreCompact", 0, trigger="auto", transcript_path=str(transcript))
        )
        # A host kills PreToolUse at its timeout (10 s as installed): a command of
        # megabytes must still get its "ask" back.
        shell = {"tool_name": "Bash"}
        huge = "git push --force origin main; echo " + "a " * 1_500_000
        pre_huge = _time(
            hook, _payload(root, "PreToolUse", 0, **shell, tool_input={"command": huge})
        )
        pre = statistics.median(
            _time(hook, _payload(root, "PreToolUse", n, **shell, tool_input={"command": "ls -la"}))
            for n in range(7)
        )
        # Every tool call is recorded after it ran (one row, its loop streak, the budget).
        post = statistics.median(
            _time(
                hook,
                _payload(
                    root,
                    "PostToolUse",
                    n,
                    **shell,
                    tool_use_id=f"toolu_{n}",
                    tool_input={"command": "ls -la"},
                    tool_response={"stdout": "total 0\n", "stderr": "", "interrupted": False},
                ),
            )
            for n in range(7)
        )
    b, f, u = (statistics.median(x) * 1000 for x in (bare, fast, full))
    return [
        {"name": "bare interpreter start (python -c pass)", "value": round(b, 1), "unit": "ms"},
        {"name": "hook UserPromptSubmit, 10k-row store", "value": round(f, 1), "unit": "ms"},
        {
            "name": "hook cost ratio to a bare start (budget 1.3)",
            "value": round(f / b, 2),
            "unit": "x",
        },
        {
            "name": "hook UserPromptSubmit after a record change (full path)",
            "value": round(u, 1),
            "unit": "ms",
        },
        {"name": "hook PreCompact, 100 MB transcript", "value": round(compact, 1), "unit": "s"},
        {"name": "hook PreToolUse, a short command", "value": round(pre * 1000, 1), "unit": "ms"},
        {"name": "hook PreToolUse, a 3 MB command", "value": round(pre_huge, 2), "unit": "s"},
        {"name": "hook PostToolUse, a short command", "value": round(post * 1000, 1), "unit": "ms"},
    ]
