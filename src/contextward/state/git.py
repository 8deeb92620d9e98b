"""Git awareness: branch, uncommitted files, ahead/behind, last commit — cached for 30 seconds.

Owns asking ``git`` (two read-only subprocesses: ``status --porcelain=v2`` and
``log -1``) and the cache that keeps a state block from paying for them each
turn: in process, and in a small JSON file under ``.contextward/`` (when it exists) so that
short-lived hook processes share it. Works outside a repository, with no
commits, a detached HEAD or no upstream; a missing or failing ``git`` becomes
a reason string, never an exception. It never changes the repository
(``GIT_OPTIONAL_LOCKS=0`` keeps ``status`` from refreshing the index).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

#: How long a git reading is reused, in seconds.
TTL = 30.0
SCHEMA_VERSION = 1
#: At most this many changed files are stat'ed for their modification time.
_MTIME_SAMPLE = 500
_TIMEOUT = 5.0


@dataclass(frozen=True)
class GitState:
    """What git says about a worktree, at ``checked_at`` (epoch seconds)."""

    repo: bool
    reason: str = ""  # why there is nothing to say, when ``repo`` is false or git failed
    branch: str = ""  # empty when detached
    head: str = ""  # short commit id; empty before the first commit
    upstream: str = ""
    ahead: int = 0
    behind: int = 0
    uncommitted: int = 0
    last_subject: str = ""
    last_time: int = 0  # commit time of HEAD, epoch seconds; 0 before the first commit
    changes: tuple[tuple[str, float], ...] = ()  # (path, mtime) of uncommitted files, sampled
    checked_at: float = 0.0

    @property
    def detached(self) -> bool:
        return self.repo and not self.branch and bool(self.head)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GitState:
        names = {f.name: f.type for f in fields(cls)}
        kept = {k: v for k, v in data.items() if k in names}
        kept["changes"] = tuple((str(path), float(when)) for path, when in kept.get("changes", ()))
        return cls(**kept)

    def changed_since(self, since: float | None, *, exclude: str = "") -> int:
        """Uncommitted files modified after ``since`` (epoch s; None: all), except ``exclude``."""
        return sum(
            1 for path, when in self.changes if path != exclude and (since is None or when > since)
        )


_MEMO: dict[Path, GitState] = {}


def git_state(
    root: Path, *, cache_file: Path | None = None, now: float | None = None, ttl: float = TTL
) -> GitState:
    """The git state of ``root``, from memory or ``cache_file`` when younger than ``ttl``."""
    clock = time.time() if now is None else now
    cached = _MEMO.get(root)
    if cached is None and cache_file is not None:
        cached = _read_cache(cache_file)
    if cached is not None and 0 <= clock - cached.checked_at < ttl:
        _MEMO[root] = cached
        return cached
    state = read_git(root, now=clock)
    _MEMO[root] = state
    if cache_file is not None:
        _write_cache(cache_file, state)
    return state


def forget(root: Path, *, cache_file: Path | None = None) -> None:
    """Drop the cached reading (after we changed something git would report)."""
    _MEMO.pop(root, None)
    if cache_file is not None:
        with contextlib.suppress(OSError):
            cache_file.unlink()


def read_git(root: Path, *, now: float | None = None) -> GitState:
    """Ask git now (no cache)."""
    clock = time.time() if now is None else now
    status = _git(root, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal")
    if isinstance(status, str) and status.startswith("!"):
        return GitState(repo=False, reason=status[1:], checked_at=clock)
    assert isinstance(status, bytes)
    info = _parse_status(status.decode("utf-8", "replace"), root)
    last = _git(root, "log", "-1", "--format=%ct%x1f%s")
    subject, when = "", 0
    if isinstance(last, bytes) and b"\x1f" in last:
        stamp, _, text = last.decode("utf-8", "replace").strip().partition("\x1f")
        subject = text
        with contextlib.suppress(ValueError):
            when = int(stamp)
    return GitState(
        repo=True,
        last_subject=subject,
        last_time=when,
        checked_at=clock,
        **info,
    )


def _git(root: Path, *args: str) -> bytes | str:
    """stdout, or ``"!reason"`` when git is missing or the folder is not a repository."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"}
    try:
        done = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            env=env,
            timeout=_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        return "!git is not installed"
    except subprocess.TimeoutExpired:
        return "!git timed out"
    except OSError:
        return "!git could not be run"
    if done.returncode != 0:
        if b"not a git repository" in done.stderr:
            return "!not a git repository"
        return "!git failed"
    return done.stdout


def _parse_status(text: str, root: Path) -> dict[str, Any]:
    branch = head = upstream = ""
    ahead = behind = uncommitted = 0
    paths: list[str] = []
    tokens = iter(text.split("\0"))
    for token in tokens:
        if token.startswith("# "):
            key, _, value = token[2:].partition(" ")
            if key == "branch.oid" and value != "(initial)":
                head = value[:7]
            elif key == "branch.head" and value != "(detached)":
                branch = value
            elif key == "branch.upstream":
                upstream = value
            elif key == "branch.ab":
                for part in value.split():
                    with contextlib.suppress(ValueError):
                        if part.startswith("+"):
                            ahead = int(part[1:])
                        elif part.startswith("-"):
                            behind = int(part[1:])
            continue
        kind = token[:2]
        if kind in ("1 ", "2 ", "u ", "? "):
            uncommitted += 1
            # Field counts before the path: ordinary 8, renamed 9, unmerged 10, untracked 1.
            skip = {"1 ": 8, "2 ": 9, "u ": 10, "? ": 1}[kind]
            parts = token.split(" ", skip)
            if len(parts) > skip:
                paths.append(parts[skip])
            if kind == "2 ":
                next(tokens, None)  # a rename's original path
    return {
        "branch": branch,
        "head": head,
        "upstream": upstream,
        "ahead": ahead,
        "behind": behind,
        "uncommitted": uncommitted,
        "changes": _mtimes(root, paths),
    }


def _mtimes(root: Path, paths: list[str]) -> tuple[tuple[str, float], ...]:
    found: list[tuple[str, float]] = []
    for name in paths[:_MTIME_SAMPLE]:
        with contextlib.suppress(OSError):
            found.append((name.rstrip("/"), (root / name).stat().st_mtime))
    return tuple(found)


def _read_cache(path: Path) -> GitState | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        return None
    state = data.get("state")
    if not isinstance(state, dict):
        return None
    try:
        return GitState.from_dict(state)
    except (TypeError, ValueError):
        return None


def _write_cache(path: Path, state: GitState) -> None:
    # Best effort: a cache that cannot be written only costs the next call a git run.
    payload = json.dumps({"schema_version": SCHEMA_VERSION, "state": state.to_dict()})
    with contextlib.suppress(OSError):
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(payload, encoding="utf-8")
        os.replace(tmp, path)
