"""Adapters for agent hosts: the JSONL bridge (and the hook adapters beside it).

Names are resolved on first use, so importing one adapter (a hook on its fast
path) never pays for another (the bridge's threads and frames).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bridge import Bridge, OperationContext, Provider, Registry
    from .bridge_errors import BridgeError, OperationError, ProviderError
    from .bridge_frame import MAX_FRAME_BYTES, PROTOCOL_VERSION
    from .bridge_ops import default_registry

_LAZY = {
    "MAX_FRAME_BYTES": "bridge_frame",
    "PROTOCOL_VERSION": "bridge_frame",
    "Bridge": "bridge",
    "BridgeError": "bridge_errors",
    "OperationContext": "bridge",
    "OperationError": "bridge_errors",
    "Provider": "bridge",
    "ProviderError": "bridge_errors",
    "Registry": "bridge",
    "default_registry": "bridge_ops",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)


__all__ = [
    "MAX_FRAME_BYTES",
    "PROTOCOL_VERSION",
    "Bridge",
    "BridgeError",
    "OperationContext",
    "OperationError",
    "Provider",
    "ProviderError",
    "Registry",
    "default_registry",
]
