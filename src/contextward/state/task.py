"""Task folders: which planning artifacts exist, and a bounded summary of them in one call.

A task is a folder inside the configured plans folder; it may be named by
its folder name or a path. Every path (the task folder and each file in it)
is resolved — ``..`` and symlinks included — and must stay inside the plans
folder, which itself stays inside the repository; an escape is refused with
``StateError("path_escape")``. Reads are bounded and secret-masked. It never
writes anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..redact import mask
from .errors import StateError
from .paths import confine
from .project import StateProject

#: Characters of one artifact included in a summary, and of the whole summary.
FILE_BUDGET = 3000
TOTAL_BUDGET = 9000
#: Files besides the expected artifacts that are summarised (by suffix), at most MAX_EXTRA.
EXTRA_SUFFIXES = (".md", ".txt")
MAX_EXTRA = 12
#: Bytes read from one artifact at most (its line count covers only these).
READ_LIMIT = 1024 * 1024


@dataclass(frozen=True)
class Artifact:
    name: str
    present: bool
    text: str = ""  # masked, clipped
    lines: int = 0  # lines in the whole file
    clipped: bool = False


@dataclass(frozen=True)
class TaskSummary:
    task: str  # the folder, relative to the repository root
    artifacts: tuple[Artifact, ...]
    #: Files left out, by why: ``outside`` (a symlink out of the plans folder), ``more``
    #: (text files past the first ``MAX_EXTRA``).
    skipped: dict[str, int] = field(default_factory=dict)

    @property
    def present(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.artifacts if a.present)

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.artifacts if not a.present)


def task_folder(project: StateProject, task: str) -> Path:
    """The confined folder a task names (relative to the plans folder, else to the root)."""
    name = task.strip()
    if not name:
        raise StateError("invalid_field", "task is empty")
    candidate = Path(name).expanduser()
    if candidate.is_absolute():
        target = candidate
    elif (project.plans_dir / candidate).exists() or not (project.root / candidate).exists():
        target = project.plans_dir / candidate
    else:
        target = project.root / candidate  # "plans/260411-x" written relative to the root
    return confine(project.plans_dir, target, what="task", shown=name)


def artifact_status(project: StateProject, task: str) -> tuple[tuple[str, bool], ...]:
    """(name, present) for each expected artifact; cheap (one stat each)."""
    folder = task_folder(project, task)
    if not folder.is_dir():
        raise StateError("not_found", f"task {task}: no such folder")
    return tuple((name, (folder / name).is_file()) for name in project.config.artifacts)


def load_task(project: StateProject, task: str) -> TaskSummary:
    """Every expected artifact (present or missing) and other text files, bounded and masked."""
    folder = task_folder(project, task)
    if not folder.is_dir():
        raise StateError("not_found", f"task {task}: no such folder")
    expected = list(project.config.artifacts)
    others = sorted(
        entry.name
        for entry in folder.iterdir()
        if entry.name not in expected
        and entry.suffix.lower() in EXTRA_SUFFIXES
        and not entry.name.startswith(".")
        and entry.is_file()  # a FIFO or a folder named *.md is no text to show
    )
    skipped: dict[str, int] = {}
    if len(others) > MAX_EXTRA:
        skipped["more"] = len(others) - MAX_EXTRA
    budget = TOTAL_BUDGET
    artifacts: list[Artifact] = []
    for name in (*expected, *others[:MAX_EXTRA]):
        try:
            path = confine(project.plans_dir, folder / name, what="artifact", shown=name)
        except StateError:
            skipped["outside"] = skipped.get("outside", 0) + 1  # one stray link, not the load
            continue
        if not path.is_file():
            artifacts.append(Artifact(name, False))
            continue
        artifact = _read(path, name, min(FILE_BUDGET, max(budget, 0)))
        budget -= len(artifact.text)
        artifacts.append(artifact)
    return TaskSummary(project.relative(folder), tuple(artifacts), skipped)


def _read(path: Path, name: str, budget: int) -> Artifact:
    try:
        with path.open("rb") as handle:
            data = handle.read(READ_LIMIT + 1)
    except OSError as exc:
        raise StateError(
            "unreadable", f"artifact {name}: cannot be read ({exc.strerror})"
        ) from None
    text = data[:READ_LIMIT].decode("utf-8", "replace")
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    clipped = len(text) > budget or len(data) > READ_LIMIT
    if len(text) > budget:
        cut = text[:budget]
        # End on a line boundary when one is near, so the excerpt reads cleanly.
        newline = cut.rfind("\n")
        text = cut[: newline + 1] if newline > budget // 2 else cut
    return Artifact(name, True, mask(text.rstrip("\n")), lines, clipped)


def render_summary(summary: TaskSummary) -> str:
    """The text ``contextward load`` prints."""
    present = ", ".join(summary.present) or "none"
    missing = ", ".join(summary.missing) or "none"
    out = [f"# Task {summary.task}", f"present: {present}", f"missing: {missing}"]
    if summary.skipped:
        why = {"outside": "linked out of the plans folder", "more": "more text files not read"}
        out.append(
            "skipped: " + ", ".join(f"{n} {why.get(k, k)}" for k, n in summary.skipped.items())
        )
    for artifact in summary.artifacts:
        if not artifact.present:
            continue
        out += ["", f"## {artifact.name} ({artifact.lines} lines)"]
        if artifact.text:
            out.append(artifact.text)
        if artifact.clipped:
            out.append(f"[… clipped; read {summary.task}/{artifact.name} for the rest]")
    return "\n".join(out)
