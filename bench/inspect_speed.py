"""Inspection throughput and memory on a generated Claude Code transcript.

The transcript repeats the labelled dev sessions (bench/data/inspect) with
fresh ids, in Claude Code JSONL, until it reaches the target size: 20 MB by
default, ``CONTEXTWARD_BENCH_INSPECT_MB`` to change it (100 for the DESIGN
budget). Each copy's prose has a word of its own in every sentence
(``_varied``): a real session repeats no sentence, and copies read word for
word would be cheaper than real text (the rules cache what they read, and
inspection merges duplicates), about twice as fast as measured. Tool results
are repeated 4x, as real transcripts are dominated by them (and real logs do
repeat); a second run without that (prose only) is the worst case. Each run is
a fresh subprocess so its peak RSS (``ru_maxrss``) is its own. Two throughputs:
``inspect_stream``'s in one process (``CONTEXTWARD_INSPECT_PROCESSES=1``), per
CPU second (``process_time``), so a busy machine does not skew it and the
figure compares with earlier ones; and ``contextward inspect FILE --json``'s
(to /dev/null) by the clock, as a user waits for it, with the second process
that reads and classifies a large file (``inspect/apart.py``) while the first
links and decides, and its CPU seconds (both processes). The peak RSS is the
command's (it spills each candidate as it is frozen), and its reading
process's beside it.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.inspect_eval import sessions
from contextward.inspect import inspect_stream

# Peak RSS from /proc (VmHWM starts afresh at exec); ru_maxrss elsewhere, which on Linux
# would also count the parent's peak from before the fork. ``library``: CPU seconds of
# ``inspect_stream``, the result held whole (the throughput figures); ``cli``: what
# ``contextward inspect FILE --json`` runs, printed to /dev/null (the peak RSS figures:
# the candidates are spilled as they are frozen, so it stays flat).
_CHILD = r"""
import json, os, resource, sys, time
path, how = sys.argv[1], sys.argv[2]
if how == "cli":
    from contextward.cli import main
    null = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(null, 1)
    start, clock = time.process_time(), time.perf_counter()
    try:
        main(["inspect", path, "--json"], standalone_mode=False)
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
    wall = time.perf_counter() - clock
    reader = resource.getrusage(resource.RUSAGE_CHILDREN)
    elapsed = time.process_time() - start + reader.ru_utime + reader.ru_stime
    reader_kb = reader.ru_maxrss
    messages = candidates = None
else:
    os.environ["CONTEXTWARD_INSPECT_PROCESSES"] = "1"
    from contextward.inspect import inspect_stream
    start = time.process_time()
    with open(path, "rb") as f:
        result = inspect_stream(f)
    elapsed = time.process_time() - start
    wall, reader_kb = None, 0
    messages, candidates = result.messages, len(result.candidates)
try:
    with open("/proc/self/status") as status:
        rss = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
except (OSError, StopIteration):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "wall": wall, "rss_kb": rss, "reader_kb": reader_kb,
                  "messages": messages, "candidates": candidates}))
"""


_ENVELOPE = {
    "parentUuid": "6f1c2d0e-8a41-4c55-9d3e-1b7f2a9c0e11",
    "isSidechain": False,
    "userType": "external",
    "cwd": "/srv/dev/projects/billing-service",
    "sessionId": "0c9a7e52-3b1d-4f7a-a2c4-5d8e9f0a1b2c",
    "version": "2.1.240",
    "gitBranch": "feature/oauth-login",
    "timestamp": "2026-11-23T10:14:02.118Z",
}
_USAGE = {
    "input_tokens": 4,
    "cache_creation_input_tokens": 1834,
    "cache_read_input_tokens": 48211,
    "output_tokens": 312,
    "service_tier": "standard",
}


def _line(mid: str, role: str, text: str, tool: bool, realistic: bool) -> dict[str, object]:
    """One Claude Code line; ``realistic`` adds the envelope real transcripts carry."""
    if tool:
        content: object = [{"type": "tool_result", "tool_use_id": mid, "content": text}]
        line: dict[str, object] = {
            "type": "user",
            "uuid": mid,
            "message": {"role": "user", "content": content},
        }
        if realistic:
            # Claude Code stores a tool's output twice: in the block and in toolUseResult.
            line["toolUseResult"] = {
                "stdout": text,
                "stderr": "",
                "interrupted": False,
                "isImage": False,
            }
    else:
        message: dict[str, object] = {"role": role, "content": text}
        if realistic and role == "assistant":
            message = {
                "id": "msg_01" + mid[-20:],
                "type": "message",
                "role": role,
                "model": "claude-opus-4-8",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": _USAGE,
            }
        line = {"type": role, "uuid": mid, "message": message}
    if realistic:
        line = {**_ENVELOPE, **line}
    return line


# Where a sentence starts: a line's first word (after a list marker), or the word after a
# sentence's end.
_LINE_START = re.compile(r"^([ \t]*(?:[-*•][ \t]+|\d+[.)][ \t]+)?)(?=\S)", re.MULTILINE)
_SENTENCE_START = re.compile(r"(?<=[^\d\s][.!?]) (?=\S)|(?<=[。！？])(?=\S)")


def _varied(text: str, rep: int) -> str:
    """``text`` with a word of its own in every sentence: a real session repeats no
    sentence, so a copy must not find its sentences already read (the rules cache what
    they read, and inspection merges duplicates)."""
    text = _SENTENCE_START.sub(lambda m: f"{m.group()}r{rep} ", text)
    return _LINE_START.sub(lambda m: f"{m.group(1)}r{rep} ", text)


def generate(path: Path, megabytes: float, tool_repeat: int, realistic: bool = True) -> int:
    target = int(megabytes * 1024 * 1024)
    data = sessions("dev")
    written = 0
    rep = 0
    with path.open("w", encoding="utf-8") as out:
        while written < target:
            for session in data:
                for m in session.messages:
                    mid = f"{session.name}-{rep}-{m['id']}"
                    text = str(m["content"])
                    tool = m["role"] == "tool"
                    if tool:
                        text = "\n".join([text] * tool_repeat) + f"\n# run {rep}"
                    elif rep:
                        text = _varied(text, rep)
                    encoded = (
                        json.dumps(
                            _line(mid, str(m["role"]), text, tool, realistic), ensure_ascii=False
                        )
                        + "\n"
                    )
                    out.write(encoded)
                    written += len(encoded.encode())
            rep += 1
    return written


def measure(megabytes: float, tool_repeat: int, realistic: bool = True) -> dict[str, float]:
    """Throughput of ``inspect_stream`` in one process, and the clock, CPU and peak RSS
    of ``contextward inspect --json``, each in a fresh process, on one generated
    transcript."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "transcript.jsonl"
        size = generate(path, megabytes, tool_repeat, realistic)
        runs = {}
        for how in ("library", "cli"):
            proc = subprocess.run(
                [sys.executable, "-c", _CHILD, str(path), how],
                capture_output=True,
                text=True,
                check=True,
                cwd=tmp,  # no project's thresholds: the defaults
            )
            runs[how] = json.loads(proc.stdout.splitlines()[-1])
        return {
            "seconds": runs["library"]["seconds"],
            "cli_wall": runs["cli"]["wall"],
            "cli_seconds": runs["cli"]["seconds"],
            "rss_kb": runs["cli"]["rss_kb"],
            "reader_kb": runs["cli"]["reader_kb"],
            "mb": size / 1024 / 1024,
        }


def replacing(turns: int) -> float:
    """CPU seconds to inspect ``turns`` owner turns that each replace the plan before them.

    Every "Use X instead" compares itself with what was said before it; the reach is
    bounded (``FAR_REACH``), so the time grows linearly with the session.
    """
    messages: list[dict[str, str]] = []
    for i in range(turns):
        plan = f"I'll use worker pool variant{i} with {i % 50 + 2} workers for service{i}."
        messages.append({"id": f"a{i}", "role": "assistant", "content": plan})
        ask = f"Use grpc{i} instead for service{i}."
        messages.append({"id": f"u{i}", "role": "user", "content": ask})
    data = json.dumps(messages).encode()
    start = time.process_time()
    result = inspect_stream(io.BytesIO(data))
    elapsed = time.process_time() - start
    assert sum(c.superseded_by is not None for c in result.candidates) == turns
    return elapsed


def copies(n: int) -> float:
    """CPU seconds to inspect ``n`` messages saying the same thing ("ok" from a loop).

    Each copy adds its source to the one candidate they merge into in constant time,
    so the time grows linearly with ``n``.
    """
    roles = ("user", "assistant")
    messages = [{"id": f"k{i}", "role": roles[i % 2], "content": "ok"} for i in range(n)]
    data = json.dumps(messages).encode()
    start = time.process_time()
    result = inspect_stream(io.BytesIO(data))
    elapsed = time.process_time() - start
    assert len(result.candidates) == 1 and len(result.candidates[0].sources) == n
    return elapsed


def pasted(kilobytes: int) -> float:
    """CPU seconds to inspect one owner message holding a pasted token of ``kilobytes``
    (a certificate, base64, a long path) with no space in it.

    Every pattern reads a token from its start and a bounded way into it, so the time
    grows linearly with the paste (a name read to the token's end from every position
    inside it made 40 KB take a minute).
    """
    token = ("QUJD/x-" * (kilobytes * 1024 // 7 + 1))[: kilobytes * 1024]
    messages = [{"id": "u1", "role": "user", "content": f"Here is the cert: {token}"}]
    data = json.dumps(messages).encode()
    start = time.process_time()
    inspect_stream(io.BytesIO(data))
    return time.process_time() - start


def one_message(kilobytes: int) -> float:
    """CPU seconds to inspect one owner message of ``kilobytes`` of prose (a pasted
    document): thousands of sentences in one speaker turn.

    What a statement is compared with is bounded in statements as well as in turns
    (``supersession.MAX_BACK``), so the time grows linearly: 1 MB took 28 s before.
    """
    words = [
        "invoices",
        "uploads",
        "retries",
        "backoff",
        "postgres",
        "buckets",
        "worker",
        "csv",
        "files",
        "night",
        "every",
        "service",
        "stores",
        "reads",
        "failed",
        "s3",
        "with",
        "from",
        "while",
        "in",
        "the",
        "and",
    ]
    draw = random.Random(7)  # the same document every run
    sentences, size = [], 0
    while size < kilobytes * 1024:
        sentence = " ".join(draw.choices(words, k=draw.randint(6, 14))).capitalize() + "."
        sentences.append(sentence)
        size += len(sentence) + 1
    messages = [{"id": "u1", "role": "user", "content": " ".join(sentences)}]
    data = json.dumps(messages).encode()
    start = time.process_time()
    inspect_stream(io.BytesIO(data))
    return time.process_time() - start


def run() -> list[dict[str, object]]:
    megabytes = float(os.environ.get("CONTEXTWARD_BENCH_INSPECT_MB", "20"))
    rows: list[dict[str, object]] = []
    for label, repeat, size, realistic in (
        ("typical", 4, megabytes, True),
        ("typical", 4, megabytes / 4, True),
        ("dense prose (worst case)", 1, megabytes / 4, False),
    ):
        m = measure(size, repeat, realistic)
        name = f"inspect {label} {m['mb']:.0f} MB"
        rows.append(
            {
                "name": f"{name} throughput, one process, per CPU second",
                "value": round(m["mb"] / m["seconds"], 1),
                "unit": "MB/s",
            }
        )
        rows.append(
            {
                "name": f"{name} contextward inspect --json throughput, by the clock",
                "value": round(m["mb"] / m["cli_wall"], 1),
                "unit": "MB/s",
            }
        )
        rows.append(
            {
                "name": f"{name} contextward inspect --json, per CPU second (both processes)",
                "value": round(m["mb"] / m["cli_seconds"], 1),
                "unit": "MB/s",
            }
        )
        rows.append(
            {"name": f"{name} peak RSS", "value": round(m["rss_kb"] / 1024, 1), "unit": "MB"}
        )
        if m["reader_kb"]:
            rows.append(
                {
                    "name": f"{name} peak RSS of the reading process",
                    "value": round(m["reader_kb"] / 1024, 1),
                    "unit": "MB",
                }
            )
    for turns in (2_000, 8_000):
        rows.append(
            {
                "name": f"inspect {turns:,} replacing owner turns",
                "value": round(replacing(turns), 2),
                "unit": "s",
            }
        )
    for n in (16_000, 64_000):
        rows.append(
            {
                "name": f"inspect {n:,} copies of one message",
                "value": round(copies(n), 2),
                "unit": "s",
            }
        )
    for kilobytes in (256, 1024):
        rows.append(
            {
                "name": f"inspect a {kilobytes:,} KB pasted token in one owner message",
                "value": round(pasted(kilobytes), 2),
                "unit": "s",
            }
        )
    rows.append(
        {
            "name": "inspect one 1,024 KB owner message of prose",
            "value": round(one_message(1024), 2),
            "unit": "s",
        }
    )
    return rows


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<45} {row['value']:>8} {row['unit']}")
