"""STATE.md decisions as a recall source, so decisions have one home and are still searchable.

Owns the bridge from ``decision_rows`` to recall's ``VersionedSource``: the
version is STATE.md's (mtime, size, inode), so recall re-reads the file only
when it changed and replaces the rows it had, and no second copy of a
decision is ever stored. Importing this module registers the source under
the name ``state``. It never writes STATE.md or the store.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..recall import Document, VersionedSource, register_source
from . import file
from .document import SUPERSEDED_MARK
from .errors import StateError
from .project import StateProject
from .writer import decision_rows

if TYPE_CHECKING:
    from ..store import Store

SOURCE = "state"


def _project(store: Store) -> StateProject | None:
    if store.root is None:
        return None
    try:
        return StateProject.open(store.root)
    except StateError:
        return None


def state_source(store: Store) -> VersionedSource:
    """The recall source for the project of ``store`` (empty for an in-memory store)."""
    project = _project(store)

    def version() -> str:
        if project is None:
            return "none"
        try:
            signature = file.load(project.state_path).signature
        except StateError:
            return "unreadable"
        return "missing" if signature is None else ":".join(map(str, signature))

    def documents() -> Iterator[Document]:
        if project is None:
            return
        try:
            rows = list(decision_rows(project))
        except StateError:
            return
        for seq, row in enumerate(rows, start=1):
            mark = _MARKS.get(row.kind, "")
            text = f"{mark}{row.text}"
            yield Document(
                seq=seq,
                ref=row.id,
                kind=row.kind,
                trust="owner",
                created_at=row.date,
                text=text.encode("utf-8", "replace").decode("utf-8"),
                label=row.source,
            )

    return VersionedSource(SOURCE, version, documents)


#: How a row that is no decision in force reads in a hit.
_MARKS = {"rejected": "[REJECTED] ", "superseded": SUPERSEDED_MARK}

register_source(SOURCE, state_source)

__all__ = ["SOURCE", "state_source"]
