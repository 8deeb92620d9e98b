"""``contextward bridge --stdio``: serve the JSONL bridge (protocol v1) to a host shim."""

from __future__ import annotations

import click

from ..hosts.bridge import DEFAULT_TIMEOUT, MAX_TIMEOUT, serve_stdio
from ..hosts.bridge_ops import default_registry
from ._io import BadInput, require_stdio


@click.command("bridge")
@click.option("--stdio", is_flag=True, help="Speak JSONL on stdin/stdout (the only transport).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.001, max=MAX_TIMEOUT),
    default=DEFAULT_TIMEOUT,
    show_default=True,
    metavar="S",
    help="Seconds a request may run unless it sends timeout_ms.",
)
def command(stdio: bool, timeout: float) -> None:
    """Serve JSONL protocol v1 (docs/bridge.md) until end of input. Frames only on stdout."""
    if not stdio:
        raise BadInput("bridge needs --stdio (the only transport)")
    require_stdio()
    raise SystemExit(serve_stdio(default_registry(), default_timeout=timeout))
