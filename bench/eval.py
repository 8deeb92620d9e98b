"""``make eval``: run every quality evaluation and print its report."""

from __future__ import annotations

import importlib

from bench import EVALUATIONS


def main() -> int:
    for name in EVALUATIONS:
        module = importlib.import_module(name)
        print(module.evaluate())
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
