"""Benchmarks and quality evaluations. Not part of the test suite.

Each benchmark module exposes ``run() -> list[dict]`` (rows with at least
``name``, ``value`` and ``unit``); ``python -m bench`` runs them all, prints a
table and writes ``bench/results/latest.json``. Evaluation modules expose
``evaluate() -> str`` (a printable report) for ``python -m bench.eval``.
"""

#: Benchmark modules run by ``make bench``, in order.
BENCHMARKS: tuple[str, ...] = ("bench.core_check",)

#: Evaluation modules run by ``make eval``, in order.
EVALUATIONS: tuple[str, ...] = ()
