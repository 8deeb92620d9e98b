"""Fixtures shared by the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh project folder (a git work tree) as the current directory, with its own
    personal layer and no session id inherited from the environment."""
    root = tmp_path / "proj"
    root.mkdir()
    (root / ".git").mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    return root
