"""The inspection thresholds a project's configuration sets, read for every caller.

Owns turning the configuration layers (``store.config``) into the inspection's
``PolicyConfig``. A leaf for the commands that inspect and nothing more: it imports
neither the compaction loop nor the brief, so ``contextward inspect`` starts without
them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from .inspect.policy import PolicyConfig
from .store.config import load_config


def policy_for(root: Path | None, env: Mapping[str, str] | None = None) -> PolicyConfig:
    """The inspection thresholds the configuration layers set for the project at ``root``
    (``inspect_keep_confidence = 0.9``, or ``keep_confidence`` under ``[inspect]``)."""
    return PolicyConfig.from_mapping(load_config(root, env=env).policy())
