"""Every package declares one sorted public surface."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import contextward
from contextward import core


def packages() -> list[str]:
    found = ["contextward"]
    for info in pkgutil.walk_packages(contextward.__path__, "contextward."):
        if info.ispkg and info.name != "contextward.examples":
            found.append(info.name)
    return found


def isort_style(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 keeps: CONSTANTS, then Classes, then functions."""
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


@pytest.mark.parametrize("name", packages())
def test_all_is_sorted_and_resolvable(name: str) -> None:
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported is not None, f"{name} has no __all__"
    assert list(exported) == sorted(exported, key=isort_style)
    for symbol in exported:
        assert hasattr(module, symbol), f"{name}.{symbol}"


def test_core_surface() -> None:
    assert {
        "ContextGuard",
        "ContextGuardError",
        "ContextItem",
        "LiteralVerifier",
        "Snapshot",
        "VerificationReport",
        "averify_context",
        "verify_context",
    } <= set(core.__all__)


def test_core_imports_nothing_of_ours_but_itself() -> None:
    for path in Path(core.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("contextward"), path.name
            if isinstance(node, ast.ImportFrom) and node.level > 1:
                pytest.fail(f"{path.name} imports outside core")
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("contextward"), path.name
