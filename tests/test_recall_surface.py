"""The public surfaces of recall and brief, and what they must not import."""

from __future__ import annotations

import ast
from pathlib import Path

from contextward import brief, recall


def test_recall_surface() -> None:
    assert {
        "Document",
        "Hit",
        "RecallIndex",
        "RecallQuery",
        "RecallResult",
        "VersionedSource",
        "recall",
        "register_source",
    } <= set(recall.__all__)


def test_brief_surface() -> None:
    assert {"Brief", "BriefCaps", "brief_if_changed", "render_brief"} <= set(brief.__all__)


def test_recall_and_brief_import_no_higher_layer() -> None:
    for package, forbidden in (
        (recall, ("brief", "hosts", "cli", "state")),
        (brief, ("hosts", "cli")),
    ):
        for path in Path(package.__file__).parent.glob("*.py"):
            tree = ast.parse(path.read_text())
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.level == 2:
                    assert (node.module or "").split(".")[0] not in forbidden, path.name
