"""Where the project store and the personal layer live.

Owns: finding the project root (the git worktree root, else the host's project
folder when the start is inside it, else the starting directory), the ``.contextward/`` layout, and the personal directory
(``$CONTEXTWARD_HOME``, else ``$XDG_CONFIG_HOME/contextward``, else
``~/.config/contextward``).

Must never: create anything. Callers decide when a directory may be made.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: The project store folder, at the project root.
STORE_DIR = ".contextward"
#: The SQLite database inside the store folder (ignored by git).
DB_NAME = "contextward.db"
#: Owner-authored files inside the store folder (meant for git).
CONFIG_NAME = "config.toml"
CONTRACT_NAME = "contract.md"


def project_root(start: Path | None = None, *, host_project: Path | None = None) -> Path:
    """The git worktree root above ``start`` (a ``.git`` dir or file), else ``host_project``
    when ``start`` is inside it, else ``start`` itself.

    ``host_project`` is the folder the host says the session works in
    (``$CLAUDE_PROJECT_DIR``): outside git it keeps every ``cd`` of the agent in one
    store, where the starting directory alone would make a store per folder.
    """
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    if host_project is not None:
        named = host_project.resolve()
        if named == here or named in here.parents:
            return named
    return here


def store_dir(root: Path) -> Path:
    return root / STORE_DIR


def database_path(root: Path) -> Path:
    return store_dir(root) / DB_NAME


def personal_dir(env: Mapping[str, str] | None = None) -> Path:
    """The personal layer's folder; it is read, never created implicitly."""
    env = os.environ if env is None else env
    home = env.get("CONTEXTWARD_HOME")
    if home:
        return Path(home)
    xdg = env.get("XDG_CONFIG_HOME")
    base = Path(xdg) if xdg else Path.home() / ".config"
    return base / "contextward"


__all__ = [
    "CONFIG_NAME",
    "CONTRACT_NAME",
    "DB_NAME",
    "STORE_DIR",
    "database_path",
    "personal_dir",
    "project_root",
    "store_dir",
]
