"""The operations the bridge serves: each adapts one library function to a request.

Owns: the default `Registry` (``default_registry``), reading and checking each
operation's arguments, and turning library values into JSON-safe results.

Must never: implement policy itself (inspection, the loop brake, the brief and
the state live in their own packages), read a project file named by a request
outside the project (only a host transcript is read where it is), or let one
missing part of contextward take other operations down: each library is
imported when its operation runs, and a missing one answers
``operation_unavailable``.

Adding an operation is one line in `default_registry`: a function taking
``(request, context)`` and returning a JSON-safe value.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from .. import __version__
from .bridge import Handler, OperationContext, Registry
from .bridge_errors import OperationError
from .bridge_frame import PROTOCOL_VERSION


def default_registry() -> Registry:
    """Every operation of protocol v1; keep the lines sorted by name."""
    registry = Registry()
    registry.add("brief", library("brief"))
    registry.add("check_summary", library("check_summary"))
    registry.add("command_outcome", library("command_outcome"))
    registry.add("guidance", library("guidance"))
    registry.add("inspect", library("inspect"))
    registry.add("loop_check", library("loop_check"))
    registry.add("ping", ping)
    registry.add("record_event", library("record_event"))
    registry.add("record_prompt", library("record_prompt"))
    registry.add("restore", library("restore"))
    registry.add("snapshot", library("snapshot"))
    registry.add("state_block", library("state_block"))
    registry.add("version", lambda request, context: version(registry))
    return registry


def ping(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """``{"pong": true}``: the cheapest liveness check a host can make."""
    return {"pong": True, "protocol_version": PROTOCOL_VERSION}


def version(registry: Registry) -> dict[str, Any]:
    """The package version, the protocol version and the operations served."""
    return {
        "version": __version__,
        "protocol_version": PROTOCOL_VERSION,
        "operations": registry.names(),
    }


def library(name: str, module: str = ".bridge_library") -> Handler:
    """The handler ``name`` of ``module``, imported on its first call.

    The bridge answers ``ping`` at once, and a part of contextward that cannot
    be imported makes only its own operations answer ``operation_unavailable``.
    """

    def handler(request: Mapping[str, Any], context: OperationContext) -> object:
        try:
            found = getattr(importlib.import_module(module, __package__), name)
        except (ImportError, AttributeError):
            raise OperationError(
                "operation_unavailable", f"operation unavailable: {name} is not installed"
            ) from None
        return found(request, context)

    return handler
