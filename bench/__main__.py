"""``make bench``: run every benchmark, print a table, write bench/results/latest.json."""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from pathlib import Path

from bench import BENCHMARKS


def main() -> int:
    rows: list[dict[str, object]] = []
    for name in BENCHMARKS:
        module = importlib.import_module(name)
        print(f"# {name}", file=sys.stderr, flush=True)
        rows.extend(module.run())
    width = max((len(str(r["name"])) for r in rows), default=10)
    for row in rows:
        print(f"{row['name']!s:<{width}}  {row['value']!s:>12}  {row['unit']}")
    out = Path(__file__).parent / "results" / "latest.json"
    meta = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    out.write_text(json.dumps({"meta": meta, "results": rows}, indent=2) + "\n")
    print(f"written: {out.relative_to(Path.cwd()) if out.is_relative_to(Path.cwd()) else out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
