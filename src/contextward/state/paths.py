"""Path confinement for project files named by users or models (STATE.md, the plans folder, tasks).

A path is resolved (``..`` and symlinks, as far as they exist) before it is
compared, so neither ``../x`` nor a symlink pointing outside lets it escape.
It never creates, reads or writes anything.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import StateError


def confine(
    base: Path, candidate: str | os.PathLike[str], *, what: str, shown: str | None = None
) -> Path:
    """``candidate`` (relative to ``base`` unless absolute) resolved, if it stays inside ``base``.

    Raises ``StateError("path_escape")`` naming ``what`` and ``shown`` (default: the path).
    """
    label = shown if shown is not None else os.fspath(candidate)
    root = base.resolve()
    raw = Path(candidate).expanduser()
    try:
        resolved = (raw if raw.is_absolute() else root / raw).resolve()
    except (OSError, RuntimeError):  # a symlink loop
        raise StateError("path_escape", f"{what} {label}: cannot be resolved") from None
    if resolved != root and not resolved.is_relative_to(root):
        raise StateError("path_escape", f"{what} {label}: outside {root.name or root}")
    return resolved


def find_root(start: Path | None = None) -> Path:
    """The git worktree root above ``start`` (a ``.git`` folder or file), else ``start`` itself.

    A stat walk, not a ``git`` subprocess, because this runs on every hook call.
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / ".git").exists():
            return folder
    return here
