"""Atomic writes of user-visible files (settings, STATE.md, config), and opening a
file a host names without hanging on it.

A leaf module: stdlib only. A write goes to a temporary file in the same
folder, is flushed and fsynced, then renamed over the target, so a reader or
a crash never sees half a file. The target's permission bits are kept; a new
file gets the mode the umask gives any new file (0644 under umask 022), as the
owner's other files have.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO

__all__ = ["atomic_write_bytes", "atomic_write_text", "open_regular"]


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading if it is a regular file, else ``OSError``.

    Opened without blocking first, so a FIFO or a device named as a transcript
    is refused instead of waiting forever for a writer. A path the OS cannot
    take (a NUL byte, a lone surrogate) is an ``OSError`` too.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (ValueError, UnicodeError) as exc:
        raise OSError(f"not a usable path ({type(exc).__name__})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError("not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically, creating parent folders."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically, creating parent folders, keeping its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        mode = None
    try:
        fd, tmp = _temporary(path)
    except OSError as exc:  # named for the file being written, not for a temporary name
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename == tmp:
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        raise
    _fsync_dir(path.parent)


def _temporary(path: Path) -> tuple[int, str]:
    """A new, empty ``.NAME.XXXX.tmp`` beside ``path``, opened for writing.

    Created with 0666 for the umask to narrow, as any new file is: ``mkstemp``'s
    fixed 0600 would make a new STATE.md unreadable to the owner's other tools
    and users, unlike the config files beside it. ``O_EXCL`` keeps it ours.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    flags |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    for _ in range(tempfile.TMP_MAX):
        tmp = str(path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(17, "no free temporary name", str(path))


def _fsync_dir(folder: Path) -> None:
    # Make the rename itself durable; not every platform can open a folder.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
