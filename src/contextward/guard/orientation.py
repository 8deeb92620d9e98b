"""Orientation: a bounded digest of a repository for an agent that just arrived.

Owns: listing the project's files (``git ls-files`` in a worktree, else a
pruned walk), the top of the tree with file counts, language counts by file
extension, the conventions files (AGENTS.md, CLAUDE.md, CONVENTIONS.md,
README…) with a short masked excerpt each, and a digest of the rendering so
a host injects it once per change.

Must never: read more than :attr:`OrientationLimits.max_files` paths or
:attr:`OrientationLimits.excerpt_chars` of any file, follow a symlink out of
the project, or return unmasked file text.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..printable import one_line
from ..redact import mask
from ..store.text import storable

__all__ = ["CONVENTION_FILES", "ConventionFile", "Orientation", "OrientationLimits", "orient"]

#: Looked for at the project root, in this order.
CONVENTION_FILES: tuple[str, ...] = (
    "AGENTS.md",
    "CLAUDE.md",
    "CONVENTIONS.md",
    ".github/copilot-instructions.md",
    "CONTRIBUTING.md",
    "README.md",
    "README.rst",
    "README",
)
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".contextward",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".tox",
        "dist",
        "build",
        "target",
    }
)
_LANGUAGES = {
    ".py": "Python",
    ".pyi": "Python",
    ".ts": "TypeScript",
    ".tsx": "TypeScript",
    ".js": "JavaScript",
    ".jsx": "JavaScript",
    ".mjs": "JavaScript",
    ".go": "Go",
    ".rs": "Rust",
    ".java": "Java",
    ".kt": "Kotlin",
    ".rb": "Ruby",
    ".php": "PHP",
    ".c": "C",
    ".h": "C",
    ".cc": "C++",
    ".cpp": "C++",
    ".hpp": "C++",
    ".cs": "C#",
    ".swift": "Swift",
    ".scala": "Scala",
    ".sh": "Shell",
    ".bash": "Shell",
    ".sql": "SQL",
    ".md": "Markdown",
    ".rst": "reStructuredText",
    ".toml": "TOML",
    ".yaml": "YAML",
    ".yml": "YAML",
    ".json": "JSON",
    ".html": "HTML",
    ".css": "CSS",
    ".vue": "Vue",
    ".svelte": "Svelte",
    ".lua": "Lua",
    ".dart": "Dart",
    ".ex": "Elixir",
    ".exs": "Elixir",
    ".zig": "Zig",
}


@dataclass(frozen=True)
class OrientationLimits:
    max_files: int = 20_000
    tree_lines: int = 30
    languages: int = 8
    excerpt_chars: int = 400
    excerpt_lines: int = 8


@dataclass(frozen=True)
class ConventionFile:
    path: str
    size: int
    excerpt: str

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "size": self.size, "excerpt": self.excerpt}


@dataclass(frozen=True)
class Orientation:
    """The digest: tree lines, languages, conventions files and what was capped."""

    name: str
    git: bool
    files: int
    tree: tuple[str, ...]
    languages: tuple[tuple[str, int], ...]
    conventions: tuple[ConventionFile, ...]
    capped: tuple[str, ...] = ()
    text: str = field(default="", compare=False)
    digest: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": 1,
            "name": self.name,
            "git": self.git,
            "files": self.files,
            "lower_bound": bool(self.capped),
            "capped": list(self.capped),
            "tree": list(self.tree),
            "languages": [{"language": lang, "files": n} for lang, n in self.languages],
            "conventions": [c.to_dict() for c in self.conventions],
            "digest": self.digest,
        }


def orient(root: Path, *, limits: OrientationLimits | None = None) -> Orientation:
    """The orientation digest of the project at ``root``."""
    limits = limits or OrientationLimits()
    paths, git = _list_files(root, limits.max_files + 1)
    capped: list[str] = []
    if len(paths) > limits.max_files:
        paths = paths[: limits.max_files]
        capped.append(f"listed the first {limits.max_files} files only")
    tree, tree_capped = _tree(paths, limits.tree_lines)
    if tree_capped:
        capped.append(f"tree shows {limits.tree_lines} entries")
    languages = Counter(
        _LANGUAGES[ext] for p in paths if (ext := os.path.splitext(p)[1].lower()) in _LANGUAGES
    ).most_common(limits.languages)
    conventions = tuple(
        found for name in CONVENTION_FILES if (found := _convention(root, name, limits)) is not None
    )
    result = Orientation(
        storable(root.resolve().name),
        git,
        len(paths),
        tree,
        tuple(languages),
        conventions,
        tuple(capped),
    )
    text = render(result)
    return replace(result, text=text, digest=hashlib.sha256(text.encode("utf-8")).hexdigest()[:16])


def render(o: Orientation) -> str:
    """The human (and injectable) text of an orientation."""
    count = f"{o.files}+" if o.capped else str(o.files)
    # A file or folder name may hold a newline or a tab: one name, one line, so a name
    # cannot forge a line of the digest the agent is given ("conventions: …").
    lines = [f"orientation: {one_line(o.name)} · {count} files{' (git)' if o.git else ''}"]
    if o.languages:
        lines.append("languages: " + ", ".join(f"{lang} {n}" for lang, n in o.languages))
    lines.append("tree:")
    lines.extend(f"  {one_line(entry)}" for entry in o.tree)
    if o.conventions:
        lines.append("conventions: " + ", ".join(c.path for c in o.conventions))
        for c in o.conventions:
            lines.append(f"--- {c.path} ({c.size} bytes)")
            lines.extend(f"  {line}" for line in c.excerpt.splitlines())
    else:
        lines.append("conventions: none found (AGENTS.md, CLAUDE.md, README…)")
    if o.capped:
        lines.append("capped: " + "; ".join(o.capped))
    return "\n".join(lines)


def _list_files(root: Path, cap: int) -> tuple[list[str], bool]:
    try:
        done = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        done = None
    if done is not None and done.returncode == 0:
        names = done.stdout.decode("utf-8", "replace").split("\0")
        return sorted(n for n in names if n and not n.startswith(".contextward/"))[:cap], True
    out: list[str] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        rel = os.path.relpath(folder, root)
        for name in sorted(files):
            out.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
            if len(out) >= cap:
                return out, False
    return out, False


def _tree(paths: list[str], cap: int) -> tuple[tuple[str, ...], bool]:
    folders: Counter[str] = Counter()
    top_files: list[str] = []
    for path in paths:
        head, sep, _rest = path.partition("/")
        if sep:
            folders[head] += 1
        else:
            top_files.append(path)
    entries = [f"{name}/ ({n} files)" for name, n in sorted(folders.items())] + top_files
    return tuple(entries[:cap]), len(entries) > cap


def _convention(root: Path, name: str, limits: OrientationLimits) -> ConventionFile | None:
    path = root / name
    try:
        if path.is_symlink() or not path.is_file():
            return None
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(limits.excerpt_chars * 4)
    except OSError:
        return None
    text = head.decode("utf-8", "replace")[: limits.excerpt_chars]
    lines = [line.rstrip() for line in mask(text).splitlines() if line.strip()]
    excerpt = "\n".join(lines[: limits.excerpt_lines])
    if size > len(head) or len(lines) > limits.excerpt_lines or len(text) == limits.excerpt_chars:
        excerpt += "\n…"
    return ConventionFile(name, size, excerpt)
