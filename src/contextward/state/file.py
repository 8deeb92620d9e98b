"""The STATE.md file: read on change, edited under a lock, replaced atomically.

Owns the bytes on disk. Reads are cached per path and re-parsed only when
the file's (mtime, size, inode) changes, so a hook that renders state every
turn costs one ``stat``. Undecodable bytes survive a rewrite unchanged
(``surrogateescape``). A write goes to a temporary file in the same folder,
is fsynced and renamed over the target; edits run under an advisory lock and
re-read the file first, so two writers never lose each other's lines.
It never interprets the text (that is ``document``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

from ..fsutil import atomic_write_bytes
from .document import StateDocument, StateView
from .errors import StateError

#: Files larger than this are not parsed (a runaway log must not stall a hook).
MAX_BYTES = 32 * 1024 * 1024
ENCODING = "utf-8"
ERRORS = "surrogateescape"

Signature = tuple[int, int, int]


@dataclass(frozen=True)
class Loaded:
    """A parsed STATE.md and what identified it on disk (``None`` when it does not exist)."""

    document: StateDocument
    view: StateView
    signature: Signature | None

    @property
    def exists(self) -> bool:
        return self.signature is not None


_CACHE: dict[Path, Loaded] = {}


def _signature(path: Path) -> Signature | None:
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError("unreadable", f"{path.name}: cannot be read ({exc.strerror})") from None
    if not stat.S_ISREG(info.st_mode):
        raise StateError("unreadable", f"{path.name}: not a regular file")
    return (info.st_mtime_ns, info.st_size, info.st_ino)


def load(path: Path) -> Loaded:
    """The parsed file, from the cache when it did not change since the last load."""
    signature = _signature(path)
    cached = _CACHE.get(path)
    if cached is not None and cached.signature == signature:
        return cached
    if signature is None:
        document = StateDocument.parse("")
    else:
        if signature[1] > MAX_BYTES:
            raise StateError("unreadable", f"{path.name}: larger than {MAX_BYTES} bytes")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise StateError(
                "unreadable", f"{path.name}: cannot be read ({exc.strerror})"
            ) from None
        document = StateDocument.parse(data.decode(ENCODING, ERRORS))
    loaded = Loaded(document, document.view(), signature)
    _CACHE[path] = loaded
    return loaded


def update(
    path: Path, edit: Callable[[StateDocument], StateDocument], *, lock: bool = True
) -> Loaded:
    """Apply ``edit`` to the current file (a fresh template when missing) and write it atomically.

    With ``lock``, concurrent updates of the same file serialise on a lock of its folder.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path.parent if lock else None):
        _CACHE.pop(path, None)
        current = load(path)
        base = current.document if current.exists else StateDocument.empty()
        edited = edit(base)
        atomic_write_bytes(path, edited.text().encode(ENCODING, ERRORS))
        _CACHE.pop(path, None)
        return load(path)


@contextlib.contextmanager
def _locked(folder: Path | None) -> Iterator[None]:
    """An exclusive advisory lock on ``folder`` itself, so no lock file litters the repository."""
    if folder is None or fcntl is None:  # not POSIX: the rename is still atomic
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
