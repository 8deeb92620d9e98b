"""Benchmarks and quality evaluations. Not part of the test suite.

Each benchmark module exposes ``run() -> list[dict]`` (rows with at least
``name``, ``value`` and ``unit``); ``python -m bench`` runs them all, prints a
table and writes ``bench/results/latest.json``. Evaluation modules expose
``evaluate() -> str`` (a printable report) for ``python -m bench.eval``.
"""

#: Benchmark modules run by ``make bench``, in order.
BENCHMARKS: tuple[str, ...] = (
    "bench.core_check",
    "bench.facts_speed",
    "bench.hook_speed",
    "bench.inspect_speed",
    "bench.recall_speed",
    "bench.state_speed",
    "bench.store_speed",
)

#: Evaluation modules run by ``make eval``, in order.
EVALUATIONS: tuple[str, ...] = (
    "bench.facts_eval",
    "bench.inspect_eval",
    "bench.inspect_provider",
    "bench.inspect_agreement",
    "bench.inspect_bounded",
    "bench.inspect_probe",
    "bench.restore_probe",
    "bench.peers.compaction_guard",
    "bench.peers.context_guardian",
)
