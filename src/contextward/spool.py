"""The hook fast path's files: the prompt spool, the record generation, the session caches.

A leaf module (stdlib only, cheap to import) shared by the store and the hook
fast path, so that a prompt that changes nothing costs little more than an
interpreter start:

- ``spool-prompts.jsonl``: prompts the fast path accepted, appended under an
  exclusive lock; the store drains it into its ``prompts`` ledger on open,
  holding the lock until the prompts are committed (``claim_prompts``).
  Only prompts that cannot contain a secret (``secret_hints``) go here; anything
  else takes the full path, which masks before storing.
- ``contextward.db-spool-tools.jsonl``: tool calls a hook could not record because
  the store stayed busy past the hook's wait (masked by the caller; at most
  ``MAX_TOOL_SPOOL`` bytes), drained by the next hook that opens the store
  (``claim_tools``). Named under ``contextward.db-*`` so every store's
  ``.gitignore``, old ones included, keeps it out of git.
- ``record.gen``: replaced (new inode) whenever something every session's
  brief shows changes (journal entries, compaction checks, a loop reset, a
  write that names no session); its stat is the project's generation.
- ``hook-cache/<session>.gen``: the same for what only that session's prompt
  brief shows (its loop streaks, its evidence runs), so that one session's
  tool calls do not send every other session's next prompt down the full path.
- ``hook-cache/<session>.json``: what the last full answer for a session saw
  (the stats of every file its brief depends on); equal stats mean nothing to
  inject.

Must never: import anything of contextward, or mask: it only routes.
"""

from __future__ import annotations

import os

from . import minijson

# No json, typing, contextlib or collections imports at module level: this
# module is on the hook fast path, where each costs more than the work it does.

SPOOL_NAME = "spool-prompts.jsonl"
TOOL_SPOOL_NAME = "contextward.db-spool-tools.jsonl"
#: The tool spool stops taking records at this size (a store busy for that long is broken,
#: and the spool must not fill the disk meanwhile).
MAX_TOOL_SPOOL = 4 << 20
GENERATION_NAME = "record.gen"
CACHE_DIR = "hook-cache"
#: The hook cache's layout; a cache of another version is not trusted (one of version 1
#: watched no session generation, so it would miss the session's own loop streaks).
CACHE_VERSION = 2
#: A spool line longer than this is not written (the full path takes the prompt).
MAX_LINE = 64 * 1024

Stamp = list[int] | None


def append_prompt(store_dir: str, record: dict[str, object]) -> bool:
    """Append one prompt record to the spool; False when it could not be written."""
    return _append(os.path.join(store_dir, SPOOL_NAME), record, None)


def append_tool(store_dir: str, record: dict[str, object]) -> bool:
    """Append one tool-call record (already masked) to the tool spool; False when it could
    not be written: a line over ``MAX_LINE``, a spool at ``MAX_TOOL_SPOOL``, an I/O error."""
    return _append(os.path.join(store_dir, TOOL_SPOOL_NAME), record, MAX_TOOL_SPOOL)


def _append(path: str, record: dict[str, object], cap: int | None) -> bool:
    import fcntl

    line = minijson.dumps(record) + "\n"
    data = line.encode("utf-8", "surrogatepass")
    if len(data) > MAX_LINE:
        return False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if cap is not None and os.fstat(fd).st_size + len(data) > cap:
            return False
        os.write(fd, data)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


class PromptClaim:
    """The spooled records, held under the spool's lock until the store has them.

    ``done()`` empties the spool; leaving without it (an error, a kill) keeps
    every line for the next store open, so a record is never lost between the
    spool and the ledger. Re-reading lines already stored is harmless: the
    ledger ignores a prompt key (a tool call id) it has seen.
    """

    def __init__(self, fd: int, records: list[dict[str, object]], skipped: int) -> None:
        self._fd: int | None = fd
        self.records = records
        self.skipped = skipped

    def done(self, keep: list[dict[str, object]] | None = None) -> None:
        """Empty the spool, but for the records in ``keep`` (written back, in order)."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            if keep:
                os.lseek(self._fd, 0, os.SEEK_SET)
                os.write(self._fd, "".join(minijson.dumps(r) + "\n" for r in keep).encode())
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # releases the lock
            self._fd = None

    def __enter__(self) -> PromptClaim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def claim_prompts(store_dir: str) -> PromptClaim | None:
    """Lock the spool and read every prompt in it (None: nothing spooled).

    Appends wait while the claim is held; call ``done()`` once the prompts are stored.
    """
    return _claim(os.path.join(store_dir, SPOOL_NAME), "text")


def claim_tools(store_dir: str) -> PromptClaim | None:
    """Lock the tool spool and read every tool-call record in it (None: nothing spooled, or
    another process is draining it: no hook waits behind another's drain)."""
    return _claim(os.path.join(store_dir, TOOL_SPOOL_NAME), "tool", wait=False)


def _claim(path: str, field: str, *, wait: bool = True) -> PromptClaim | None:
    """Every record of the spool at ``path`` whose ``field`` is a string, under its lock;
    without ``wait``, None while another process holds the lock (it is draining)."""
    import fcntl
    import json

    try:
        if os.stat(path).st_size == 0:
            return None
        fd = os.open(path, os.O_RDWR)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    except BaseException:
        os.close(fd)
        raise
    try:
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except BaseException:
        os.close(fd)
        raise
    records: list[dict[str, object]] = []
    skipped = 0
    for raw in b"".join(chunks).splitlines():
        try:
            record = json.loads(raw.decode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):  # not UTF-8, not JSON, an integer too long
            skipped += 1
            continue
        if isinstance(record, dict) and isinstance(record.get(field), str):
            records.append(record)
        else:
            skipped += 1
    return PromptClaim(fd, records, skipped)


def generation_path(store_dir: str, session_id: str | None = None) -> str:
    """The project's generation file, or with ``session_id`` that session's. Two ids
    that share a file name bump each other's: a needless full path, never a missed one."""
    if session_id is None:
        return os.path.join(store_dir, GENERATION_NAME)
    return os.path.join(store_dir, CACHE_DIR, f"{_safe(session_id)}.gen")


def bump_generation(store_dir: str, session_id: str | None = None) -> None:
    """Mark the record changed for every session, or with ``session_id`` for that
    session's prompts only: replace the generation file (a new inode every time)."""
    path = generation_path(store_dir, session_id)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        if session_id is not None:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="ascii") as handle:
            handle.write(str(os.getpid()))
        os.replace(tmp, path)
    except OSError:
        pass


def stamps(paths: list[str]) -> list[Stamp]:
    """The stat of each path that identifies its content version (None: absent)."""
    out: list[Stamp] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)
            continue
        out.append([st.st_ino, st.st_mtime_ns, st.st_size])
    return out


def _safe(session_id: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in session_id)[:120] or "_"


def cache_path(store_dir: str, session_id: str) -> str:
    return os.path.join(store_dir, CACHE_DIR, f"{_safe(session_id)}.json")


def read_cache(store_dir: str, session_id: str) -> dict[str, object] | None:
    try:
        with open(cache_path(store_dir, session_id), encoding="utf-8") as handle:
            data = minijson.loads(handle.read())
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def write_cache(
    store_dir: str, session_id: str, watch: list[str], seen: list[Stamp], digest: str
) -> None:
    """Record what the full path answered from: ``seen`` are the stamps taken *before* it
    read anything, so a change made while it ran is never hidden (atomic; best effort)."""
    import json

    path = cache_path(store_dir, session_id)
    body = {
        "schema_version": CACHE_VERSION,
        "watch": list(watch),
        "stamps": list(seen),
        "digest": digest,
    }
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(body, handle)
        os.replace(tmp, path)
    except OSError:
        pass


def unchanged(cache: dict[str, object]) -> bool:
    """True when every watched file has the stat the cache recorded (and the cache is of
    this version: an older one may not watch everything the answer depends on)."""
    if cache.get("schema_version") != CACHE_VERSION:
        return False
    watch = cache.get("watch")
    recorded = cache.get("stamps")
    if not isinstance(watch, list) or not all(isinstance(p, str) for p in watch):
        return False
    return isinstance(recorded, list) and stamps(watch) == recorded
