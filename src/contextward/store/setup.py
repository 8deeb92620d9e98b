"""``contextward init``: seed a project's store, configuration and contract.

Owns: creating ``.contextward/`` with its ``.gitignore``, the database (all
migrations applied), ``config.toml`` with every default, and an empty
``contract.md``. Existing files are never overwritten.

Must never: touch the personal layer, or rewrite an owner-authored file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import StoreError
from .config import render_defaults
from .contract import initial_contract, project_contract_path
from .database import Store, write_gitignore
from .paths import CONFIG_NAME, STORE_DIR, project_root, store_dir


@dataclass(frozen=True)
class InitResult:
    root: Path
    created: tuple[str, ...]
    kept: tuple[str, ...]


def initialise(start: Path | None = None) -> InitResult:
    """Create whatever is missing of the project store; report what was created and kept."""
    root = project_root(start)
    directory = store_dir(root)
    created: list[str] = []
    kept: list[str] = []
    db_existed = (directory / "contextward.db").exists()
    gitignore_existed = (directory / ".gitignore").exists()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        write_gitignore(directory)
    except OSError as exc:
        raise StoreError(
            f"cannot create {STORE_DIR}/ ({exc.strerror or 'I/O error'})", code="store_unavailable"
        ) from None
    (kept if gitignore_existed else created).append(f"{STORE_DIR}/.gitignore")
    with Store.open(root) as store:
        store.prune()
    (kept if db_existed else created).append(f"{STORE_DIR}/contextward.db")
    for path, text in (
        (directory / CONFIG_NAME, render_defaults()),
        (project_contract_path(root), initial_contract()),
    ):
        name = f"{STORE_DIR}/{path.name}"
        if path.exists():
            kept.append(name)
            continue
        try:
            _write_new(path, text)
        except OSError as exc:
            raise StoreError(
                f"cannot write {name} ({exc.strerror or 'I/O error'})", code="store_unavailable"
            ) from None
        created.append(name)
    return InitResult(root, tuple(created), tuple(kept))


def _write_new(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    # link() fails if another process created the file meanwhile: never overwrite.
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass
    finally:
        os.unlink(tmp)


__all__ = ["InitResult", "initialise"]
