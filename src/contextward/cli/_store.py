"""Shared plumbing for commands that use the project store.

Owns: mapping ``ContextwardError`` (store damaged, bad input, contract
refusals) to one line on stderr and exit 2, opening the store for reading
(never creating it) or writing, and printing configuration warnings.

Must never: contain SQL or policy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ..errors import ContextwardError, StoreError
from ..hosts import toolcall
from ..store import Store, project_root
from ..store.config import Config, load_config
from ._io import BadInput


@contextmanager
def errors() -> Iterator[None]:
    """Turn a ``ContextwardError`` into a one-line ``BadInput`` (exit 2)."""
    try:
        yield
    except ContextwardError as exc:
        raise BadInput(str(exc)) from None


def config(root: Path | None = None, *, quiet: bool = False) -> Config:
    loaded = load_config(root or project_root())
    if not quiet:
        for warning in loaded.warnings:
            click.echo(f"contextward: warning: {warning}", err=True)
    return loaded


@contextmanager
def read_store(cfg: Config | None = None) -> Iterator[Store | None]:
    """Yield the store for reading; ``None`` when there is no store yet (nothing is created)."""
    root = project_root()
    retention = (cfg or load_config(root)).retention()
    with errors():
        try:
            store = Store.open(root, create=False, retention=retention)
        except StoreError as exc:
            if exc.code != "store_missing":
                raise
            yield None
            return
        with store:
            toolcall.drain(store)  # tool calls a hook spooled while the store was busy
            yield store


@contextmanager
def write_store(cfg: Config | None = None) -> Iterator[Store]:
    """Yield the store for writing, creating ``.contextward/`` when needed."""
    root = project_root()
    retention = (cfg or load_config(root)).retention()
    with errors(), Store.open(root, retention=retention) as store:
        toolcall.drain(store)
        yield store


__all__ = ["config", "errors", "read_store", "write_store"]
