"""Where a project's state lives: the repository root, STATE.md, the plans folder, our data folder.

Owns the state settings (file path, plans folder, log cap, artifact names)
and resolving them under the project root with confinement, so no
configured or given path can point outside the repository. It never reads
or writes STATE.md itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.config import load_config
from .errors import StateError
from .paths import confine, find_root

#: The planning artifacts a task folder is expected to hold, in display order.
ARTIFACTS: tuple[str, ...] = ("goal.md", "anchor.md", "plan.md", "summary.md")
DATA_DIR = ".contextward"


@dataclass(frozen=True)
class StateConfig:
    """State settings; ``from_mapping`` reads them from the configuration layers."""

    file: str = "STATE.md"
    plans: str = "plans"
    log_cap: int = 200
    artifacts: tuple[str, ...] = ARTIFACTS

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> StateConfig:
        """Read ``state_file``, ``plans_dir``, ``state_log_cap``, ``state_artifacts`` (e.g. the
        store's ``Config.as_dict()``); a missing or wrongly typed value keeps its default."""
        default = cls()
        file = data.get("state_file")
        plans = data.get("plans_dir")
        cap = data.get("state_log_cap")
        artifacts = data.get("state_artifacts")
        return cls(
            file=file if isinstance(file, str) and file.strip() else default.file,
            plans=plans if isinstance(plans, str) and plans.strip() else default.plans,
            log_cap=cap
            if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0
            else default.log_cap,
            artifacts=tuple(a for a in artifacts if isinstance(a, str) and a)
            if isinstance(artifacts, list | tuple)
            else default.artifacts,
        )


@dataclass(frozen=True)
class StateProject:
    """Resolved, confined locations for one project."""

    root: Path
    state_path: Path
    plans_dir: Path
    config: StateConfig

    @classmethod
    def open(cls, start: Path | None = None, config: StateConfig | None = None) -> StateProject:
        """The project containing ``start`` (default: the current directory).

        Raises ``StateError("path_escape")`` when the configured STATE.md path or
        plans folder leaves the repository.
        """
        root = find_root(start)
        settings = config or StateConfig.from_mapping(load_config(root).as_dict())
        state_path = confine(root, settings.file, what="state file")
        if state_path == root:
            raise StateError("path_escape", f"state file {settings.file}: names the project root")
        plans_dir = confine(root, settings.plans, what="plans folder")
        return cls(root, state_path, plans_dir, settings)

    @property
    def data_dir(self) -> Path:
        return self.root / DATA_DIR

    @property
    def git_cache(self) -> Path | None:
        """The shared git cache; ``*.tmp`` so the store's ``.gitignore`` already ignores it.

        None when ``.contextward/`` does not exist: a cache must never be the reason
        an untracked folder appears in someone's repository.
        """
        return self.data_dir / "git-status.cache.tmp" if self.data_dir.is_dir() else None

    def relative(self, path: Path) -> str:
        """``path`` relative to the root, with forward slashes (for display)."""
        try:
            return path.relative_to(self.root).as_posix() or "."
        except ValueError:
            return path.name
