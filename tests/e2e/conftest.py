"""Fixtures of the end-to-end suite: the real Claude Code CLI, installed once, and scenarios.

Owns: registering the ``e2e`` marker, keeping these tests out of any run that did not ask
for them (``-m e2e``), the session-wide install of the pinned CLI into the cache folder
(skipping with a printed reason when the machine cannot run the suite), and a fresh
``Scenario`` per test.
Must never: install into the repo or fail a run because the machine lacks node, npm or
network namespaces (that is a skip, with the reason printed).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import Scenario, cache_root, install_claude, missing_prerequisite


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "e2e: drives the real hosts (Claude Code, pi, OpenCode, Codex) offline; make e2e"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    expression = str(config.getoption("markexpr") or "")
    if "e2e" in expression and "not e2e" not in expression:
        return
    skip = pytest.mark.skip(reason="end-to-end test: run with make e2e (pytest -m e2e)")
    for item in items:
        if "e2e" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    reason = missing_prerequisite()
    if reason is None:
        try:
            return install_claude(cache_root())
        except (OSError, RuntimeError) as exc:
            reason = str(exc)
    print(f"\nend-to-end suite skipped: {reason}", file=sys.stderr)
    pytest.skip(reason)


@pytest.fixture
def scenario(tmp_path: Path, claude_bin: Path) -> Callable[..., Scenario]:
    """Make a fresh scenario (own HOME, git project, TMPDIR) in this test's tmp folder."""
    count = 0

    def make(**fake: object) -> Scenario:
        nonlocal count
        count += 1
        return Scenario(tmp_path / f"s{count}", claude_bin, fake=dict(fake))

    return make
