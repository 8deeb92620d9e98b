"""Scope audit: how much work a tree holds against a baseline, as ok / warn / hard.

Owns reading ``git diff --numstat`` (tracked and staged work against a
baseline commit) and a bounded scan of untracked, non-ignored files, and the
verdict against line and file thresholds. A scan that hit a cap reports its
counts as a lower bound and is at least a warning.

Never writes to the repository, never runs anything but read-only ``git``
subcommands, never reads an untracked file past its byte cap or follows a
symlink, and never returns file content — only paths and counts.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import ContextwardError

__all__ = [
    "FileChange",
    "ScopeError",
    "ScopeLimits",
    "ScopeReport",
    "ScopeThresholds",
    "audit_scope",
]

Verdict = Literal["ok", "warn", "hard"]

#: git's well-known empty tree: the baseline of a repository with no commit yet.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_GIT_TIMEOUT = 30.0
_SNIFF = 8192


class ScopeError(ContextwardError):
    """The audit cannot run: ``not_a_repo``, ``bad_baseline``, ``git_missing``, ``git_failed``."""

    default_code = "git_failed"


@dataclass(frozen=True)
class ScopeThresholds:
    """When a diff becomes a warning or hard. A value is exceeded when the count is above it."""

    warn_lines: int = 400
    hard_lines: int = 800
    warn_files: int = 10
    hard_files: int | None = None


@dataclass(frozen=True)
class ScopeLimits:
    """Caps on the untracked scan; hitting one makes the counts a lower bound."""

    max_untracked_files: int = 1000
    max_file_bytes: int = 1_000_000
    max_total_bytes: int = 8_000_000


@dataclass(frozen=True)
class FileChange:
    """One changed path; ``binary`` files and symlinks count as files with zero lines.

    A rename git detects is one change at its new ``path``, ``renamed_from`` the old
    one, counted by its content change only.
    """

    path: str
    added: int
    deleted: int
    untracked: bool = False
    binary: bool = False
    symlink: bool = False
    renamed_from: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "added": self.added,
            "deleted": self.deleted,
            "untracked": self.untracked,
            "binary": self.binary,
            "symlink": self.symlink,
            "renamed_from": self.renamed_from,
        }


@dataclass(frozen=True)
class ScopeReport:
    """The audit: per-file counts, totals, caps hit and the verdict with its reasons."""

    baseline: str
    baseline_commit: str
    files: tuple[FileChange, ...]
    verdict: Verdict
    reasons: tuple[str, ...] = ()
    capped: tuple[str, ...] = ()
    thresholds: ScopeThresholds = field(default_factory=ScopeThresholds)

    @property
    def added(self) -> int:
        return sum(f.added for f in self.files)

    @property
    def deleted(self) -> int:
        return sum(f.deleted for f in self.files)

    @property
    def lines(self) -> int:
        return self.added + self.deleted

    @property
    def lower_bound(self) -> bool:
        """True when a cap stopped the scan: the real counts are at least these."""
        return bool(self.capped)

    def to_dict(self) -> dict[str, object]:
        return {
            "schema_version": 1,
            "baseline": self.baseline,
            "baseline_commit": self.baseline_commit,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "files": len(self.files),
            "added": self.added,
            "deleted": self.deleted,
            "lines": self.lines,
            "lower_bound": self.lower_bound,
            "capped": list(self.capped),
            "thresholds": {
                "warn_lines": self.thresholds.warn_lines,
                "hard_lines": self.thresholds.hard_lines,
                "warn_files": self.thresholds.warn_files,
                "hard_files": self.thresholds.hard_files,
            },
            "changes": [f.to_dict() for f in self.files],
        }


def audit_scope(
    cwd: Path | str = ".",
    *,
    baseline: str | None = None,
    thresholds: ScopeThresholds | None = None,
    limits: ScopeLimits | None = None,
) -> ScopeReport:
    """Audit the worktree containing ``cwd`` against ``baseline`` (default ``HEAD``)."""
    thresholds = thresholds or ScopeThresholds()
    limits = limits or ScopeLimits()
    if shutil.which("git") is None:
        raise ScopeError("git is not installed", code="git_missing")
    start = Path(cwd)
    top = _git(start, "rev-parse", "--show-toplevel", code="not_a_repo").strip()
    root = Path(top)
    ref = "HEAD" if baseline is None else baseline
    commit = _resolve_baseline(root, ref, explicit=baseline is not None)
    tracked = _tracked_changes(root, commit)
    seen = {f.path for f in tracked}
    # Stop reading untracked files once the hard line threshold is certainly
    # exceeded: the verdict cannot get worse, so the rest would be wasted I/O.
    budget = thresholds.hard_lines - sum(f.added + f.deleted for f in tracked)
    untracked, capped = _untracked_changes(root, limits, seen, stop_above=budget)
    files = tuple(sorted((*tracked, *untracked), key=lambda f: f.path))
    verdict, reasons = _verdict(files, thresholds, capped)
    return ScopeReport(ref, commit, files, verdict, reasons, capped, thresholds)


def _verdict(
    files: tuple[FileChange, ...], thresholds: ScopeThresholds, capped: tuple[str, ...]
) -> tuple[Verdict, tuple[str, ...]]:
    lines = sum(f.added + f.deleted for f in files)
    count = len(files)
    hard: list[str] = []
    warn: list[str] = []
    if lines > thresholds.hard_lines:
        hard.append(f"lines {lines} > hard {thresholds.hard_lines}")
    elif lines > thresholds.warn_lines:
        warn.append(f"lines {lines} > warn {thresholds.warn_lines}")
    if thresholds.hard_files is not None and count > thresholds.hard_files:
        hard.append(f"files {count} > hard {thresholds.hard_files}")
    elif count > thresholds.warn_files:
        warn.append(f"files {count} > warn {thresholds.warn_files}")
    if capped:
        warn.append("untracked scan capped: counts are a lower bound")
    if hard:
        return "hard", (*hard, *warn)
    if warn:
        return "warn", tuple(warn)
    return "ok", ()


def _git(root: Path, *args: str, code: str = "git_failed") -> str:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args],
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise ScopeError(f"{root}: folder not found", code="not_a_repo") from None
    except NotADirectoryError:
        raise ScopeError(f"{root}: not a folder", code="not_a_repo") from None
    except subprocess.TimeoutExpired:
        raise ScopeError(f"git {args[0]} timed out", code="git_failed") from None
    if done.returncode != 0:
        what = "not inside a git worktree" if code == "not_a_repo" else f"git {args[0]} failed"
        raise ScopeError(what, code=code)
    return done.stdout.decode("utf-8", "surrogateescape")


def _resolve_baseline(root: Path, ref: str, *, explicit: bool) -> str:
    if ref.startswith("-") or not ref.strip():
        raise ScopeError("baseline must name a commit", code="bad_baseline")
    try:
        out = _git(
            root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
        )
    except ScopeError:
        if not explicit:
            return EMPTY_TREE  # a repository without a first commit: everything is new
        raise ScopeError(
            "baseline is not a commit in this repository", code="bad_baseline"
        ) from None
    return out.strip()


#: git's file mode of a symlink, and of the side of an added or deleted path that is absent.
_LINK_MODE, _NO_MODE = "120000", "000000"
#: Rename detection, spelled out so that no git config (``diff.renames``,
#: ``diff.renameLimit``) changes the numbers: git's default 50 % similarity, and
#: git's default limit of candidate files (past it renames count as delete + add).
_RENAMES = ("--find-renames", "-l1000")


def _tracked_changes(root: Path, commit: str) -> list[FileChange]:
    # The worktree against the baseline covers staged and unstaged work alike. A
    # rename (`git mv`) is one change counted by its content change: a moved file is
    # not new work. --raw rides along for the file modes: git counts a symlink's
    # target as a line of text, and a symlink is a file with zero lines here.
    out = _git(root, "diff", "--raw", "--numstat", "-z", *_RENAMES, "--no-ext-diff", commit, "--")
    tokens = out.split("\0")
    links: set[str] = set()
    changes: list[FileChange] = []
    at = 0
    while at < len(tokens):
        record = tokens[at]
        if not record:
            at += 1
        elif record.startswith(":"):  # ":old-mode new-mode old-sha new-sha status", path(s)
            old_mode, new_mode, _, _, status = record[1:].split(" ", 4)
            paths = 2 if status[:1] in ("R", "C") else 1  # a rename names old and new
            if {old_mode, new_mode} <= {_LINK_MODE, _NO_MODE}:
                links.add(tokens[at + paths])
            at += 1 + paths
        else:  # "added<TAB>deleted<TAB>path", or "added<TAB>deleted<TAB>", old, new
            added, deleted, path = record.split("\t", 2)
            renamed_from = None
            if not path:
                renamed_from, path = tokens[at + 1], tokens[at + 2]
                at += 2
            at += 1
            binary = added == "-"
            if path in links:
                changes.append(FileChange(path, 0, 0, symlink=True, renamed_from=renamed_from))
                continue
            changes.append(
                FileChange(
                    path,
                    0 if binary else int(added),
                    0 if binary else int(deleted),
                    binary=binary,
                    renamed_from=renamed_from,
                )
            )
    return changes


def _untracked_changes(
    root: Path, limits: ScopeLimits, seen: set[str], *, stop_above: int
) -> tuple[list[FileChange], tuple[str, ...]]:
    out = _git(root, "ls-files", "--others", "--exclude-standard", "-z")
    paths = [p for p in out.split("\0") if p and p not in seen]
    capped: list[str] = []
    if len(paths) > limits.max_untracked_files:
        capped.append(f"more than {limits.max_untracked_files} untracked files")
        paths = paths[: limits.max_untracked_files]
    changes: list[FileChange] = []
    total_bytes = 0
    lines = 0
    for index, rel in enumerate(sorted(paths)):
        if lines > stop_above:
            capped.append(f"stopped after {index} untracked files: hard threshold exceeded")
            break
        room = min(limits.max_file_bytes, limits.max_total_bytes - total_bytes)
        if room <= 0:
            capped.append(f"untracked bytes cap {limits.max_total_bytes} reached")
            break
        change, used, truncated = _count_untracked(root / rel, rel, room)
        if change is None:
            continue
        if truncated:
            capped.append(f"{rel}: read only the first {room} bytes")
        total_bytes += used
        lines += change.added
        changes.append(change)
    return changes, tuple(capped)


def _count_untracked(path: Path, rel: str, room: int) -> tuple[FileChange | None, int, bool]:
    try:
        info = os.lstat(path)
    except OSError:
        return None, 0, False
    if stat.S_ISLNK(info.st_mode):
        return FileChange(rel, 0, 0, untracked=True, symlink=True), 0, False
    if not stat.S_ISREG(info.st_mode):
        return None, 0, False
    try:
        with open(path, "rb") as handle:
            data = handle.read(room)
    except OSError:
        return FileChange(rel, 0, 0, True, True), 0, False
    truncated = info.st_size > room
    if b"\0" in data[:_SNIFF]:
        return FileChange(rel, 0, 0, True, True), len(data), truncated
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") and not truncated else 0)
    return FileChange(rel, lines, 0, True, False), len(data), truncated
