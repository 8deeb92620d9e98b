"""Timing helpers shared by benchmarks: medians over repeated runs.

``median_seconds`` times a callable in process; ``median_rows`` combines
whole benchmark runs (each a list of rows) into one row per name holding
the median value and every sample, for benchmarks that measure one run per
call (a subprocess, a fresh database).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence


def median_seconds(fn: Callable[[], object], *, repeat: int = 7, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def median_rows(runs: Sequence[Sequence[dict[str, object]]]) -> list[dict[str, object]]:
    """One row per name (in first-seen order): the median of numeric values, plus ``runs``.

    A value that is not a number in some run keeps the first run's value. Rows
    missing from some runs get the median of the runs that have them.
    """
    order: list[str] = []
    samples: dict[str, list[object]] = {}
    first: dict[str, dict[str, object]] = {}
    for rows in runs:
        for row in rows:
            name = str(row["name"])
            if name not in first:
                order.append(name)
                first[name] = dict(row)
                samples[name] = []
            samples[name].append(row["value"])
    out = []
    for name in order:
        row = first[name]
        values = samples[name]
        if len(values) > 1 and all(
            isinstance(v, int | float) and not isinstance(v, bool) for v in values
        ):
            numbers = [float(v) for v in values if isinstance(v, int | float)]
            middle = statistics.median(numbers)
            as_int = all(isinstance(v, int) for v in values) and middle.is_integer()
            row["value"] = int(middle) if as_int else round(middle, 3)
            row["runs"] = values
        out.append(row)
    return out
