"""``make bench``: run every benchmark, print a table, write bench/results/latest.json.

    python -m bench                 # the full run: a 100 MB transcript, medians of 3 runs
    python -m bench --quick         # 20 MB transcript, one run of the one-shot benchmarks
    python -m bench --only bench.hook_speed --only bench.recall_speed

Most benchmarks take medians inside (many calls of the measured thing); the
ones in ``ONE_SHOT`` measure one fresh process or database per call, so
they are run ``--repeat`` times here and the median of each figure is kept,
with every sample in the JSON (``runs``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from bench import BENCHMARKS
from bench.timing import median_rows

#: Benchmarks whose ``run()`` is a single measurement: repeated here for a median.
ONE_SHOT = frozenset({"bench.inspect_speed", "bench.store_speed"})
#: The transcript size of the full run (DESIGN.md's budget is stated for 100 MB).
FULL_INSPECT_MB = "100"
QUICK_INSPECT_MB = "20"
RESULTS = Path(__file__).parent / "results" / "latest.json"


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 MB transcript, no repeats")
    parser.add_argument("--repeat", type=int, default=3, help="runs of a one-shot benchmark")
    parser.add_argument("--only", action="append", default=[], metavar="MODULE")
    parser.add_argument("--output", type=Path, default=RESULTS, help="where the JSON goes")
    args = parser.parse_args(argv)
    unknown = [name for name in args.only if name not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]}; one of: {', '.join(BENCHMARKS)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def run_module(name: str, repeat: int) -> tuple[list[dict[str, object]], float]:
    module = importlib.import_module(name)
    start = time.perf_counter()
    runs = [module.run() for _ in range(repeat if name in ONE_SHOT else 1)]
    rows = median_rows(runs)
    for row in rows:
        row["module"] = name
    return rows, time.perf_counter() - start


def table(rows: list[dict[str, object]]) -> str:
    width = max((len(str(r["name"])) for r in rows), default=10)
    lines: list[str] = []
    module = None
    for row in rows:
        if row.get("module") != module:
            module = row.get("module")
            lines.append(f"## {module}")
        runs = row.get("runs")
        note = f"  (median of {len(runs)})" if isinstance(runs, list) else ""
        lines.append(f"{row['name']!s:<{width}}  {row['value']!s:>10}  {row['unit']}{note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.quick:
        os.environ["CONTEXTWARD_BENCH_INSPECT_MB"] = QUICK_INSPECT_MB
    os.environ.setdefault("CONTEXTWARD_BENCH_INSPECT_MB", FULL_INSPECT_MB)
    repeat = 1 if args.quick else args.repeat
    rows: list[dict[str, object]] = []
    seconds: dict[str, float] = {}
    # Other work on the machine skews every figure; the load average says how much there was.
    load_before = round(os.getloadavg()[0], 2)
    for name in args.only or BENCHMARKS:
        print(f"# {name}", file=sys.stderr, flush=True)
        found, took = run_module(name, repeat)
        rows.extend(found)
        seconds[name] = round(took, 1)
    print(table(rows))
    meta = {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "machine": platform.machine(),
        "system": platform.system(),
        "cpus": os.cpu_count(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "command": " ".join(["python -m bench", *(argv if argv is not None else sys.argv[1:])]),
        "inspect_mb": float(os.environ["CONTEXTWARD_BENCH_INSPECT_MB"]),
        "repeat": repeat,
        "seconds": seconds,
        "load_average": {"start": load_before, "end": round(os.getloadavg()[0], 2)},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps({"meta": meta, "results": rows}, indent=2) + "\n")
    shown = args.output.resolve()
    cwd = Path.cwd().resolve()
    print(f"written: {shown.relative_to(cwd) if shown.is_relative_to(cwd) else shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
