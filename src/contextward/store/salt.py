"""The store's key salt: a random secret that keys the digest a stored key keeps of a secret.

A streak key of a command holding a secret is stored masked, tagged with a digest of
the unmasked command (``GH_TOKEN=[secret:github-token] ./deploy.sh #variant:…``), so two
tokens stay two streaks. An unsalted digest of a command whose shape is known could be
brute-forced back into a short secret by anyone who can read the database; keyed with
this salt it cannot be without the salt file too.

Owns: the salt file beside the database (``contextward.db-salt``: the store folder's
``.gitignore`` already keeps ``contextward.db-*`` out of git), made on first use from
32 random bytes, mode 0600, written under a private name and linked into place so
processes that race to make it all read the one that won.

Must never: print, log or export the salt, or replace a salt that exists (every key
made with it would stop matching).
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

from ..errors import StoreError

#: The salt file, in the store folder (matched by ``contextward.db-*`` in its .gitignore).
SALT_NAME = "contextward.db-salt"
SALT_BYTES = 32


def key_salt(directory: Path) -> bytes:
    """The salt of the store in ``directory``, made now if it has none yet.

    A store folder where it cannot be made (a read-only mount) gets a salt for this
    process only: no key was ever stored with a salt that does not exist, so nothing is
    lost, and what this process cannot write it does not store either. A salt file that
    exists but cannot be read is ``StoreError(code="store_unavailable")``.
    """
    path = directory / SALT_NAME
    found = _read(path)
    if found is not None:
        return found
    tmp = directory / f"{SALT_NAME}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return os.urandom(SALT_BYTES)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(SALT_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileExistsError):  # another process made it first: it wins
            os.link(tmp, path)
    except OSError:
        return os.urandom(SALT_BYTES)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    found = _read(path)
    if found is None:
        raise StoreError("the store's key salt vanished as it was made", code="store_unavailable")
    return found


def _read(path: Path) -> bytes | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(
            f"cannot read the store's key salt ({exc.strerror or 'I/O error'})",
            code="store_unavailable",
        ) from None
    if len(data) < SALT_BYTES // 2:
        raise StoreError("the store's key salt is damaged", code="store_unavailable")
    return data


__all__ = ["SALT_BYTES", "SALT_NAME", "key_salt"]
