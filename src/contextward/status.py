"""The project at a glance: store, journal, evidence, loops and contract, as JSON-safe data.

One function shared by ``contextward status`` and the MCP ``status`` tool.
Must never: create the store (a project without one reports ``store: None``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import StoreError
from .guard.loops import open_loops
from .store import Store
from .store.config import Config
from .store.contract import load_contract

__all__ = ["project_status"]


def project_status(root: Path, cfg: Config) -> dict[str, Any]:
    """Counts and the latest facts; ``blocked`` is how many loops the brake now refuses."""
    contract = load_contract(root)
    data: dict[str, Any] = {
        "store": None,
        "contract": {
            layer: sum(1 for c in contract.constraints if c.layer == layer)
            for layer in ("seed", "personal", "project")
        },
        "config_warnings": len(cfg.warnings),
        "blocked": 0,
    }
    try:
        store = Store.open(root, create=False, retention=cfg.retention())
    except StoreError as exc:
        if exc.code != "store_missing":
            raise
        return data
    with store:
        last = store.evidence.last()
        loops = open_loops(store, threshold=cfg.loop_block_after)
        data["store"] = {"schema_version": store.schema_version}
        data["journal"] = store.journal.counts()
        data["prompts"] = len(store.prompts.list(limit=cfg.retention_prompts))
        data["evidence"] = {
            "runs": store.evidence.count(),
            "last": None if last is None else last.to_dict(),
        }
        data["loops"] = [
            {
                "command": loop.command,
                "failures": loop.failures,
                "failed": loop.counted.failed,
                "unproven": loop.counted.unproven,
                "streak": loop.describe(),
                "blocked": loop.blocked,
            }
            for loop in loops
        ]
        data["blocked"] = sum(1 for loop in loops if loop.blocked)
    return data
