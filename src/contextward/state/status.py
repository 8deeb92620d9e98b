"""Everything the state block reports, gathered in one value: STATE.md, task, git, session.

Owns collecting facts cheaply (STATE.md re-parsed only on change, git
cached for 30 s, a few ``stat`` calls for the task's artifacts, one session
lookup) and deriving the obligations from them. Every failure to read a
source becomes a short reason in the value, never an exception: a hook must
be able to render state even when STATE.md is junk or git is missing.
It never writes and never formats text (that is ``brief.state_block``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from . import file
from .document import StateView
from .errors import StateError
from .fields import parse_stamp, utc_now
from .git import GitState, git_state
from .project import StateProject
from .session import SessionRecord
from .task import artifact_status


@dataclass(frozen=True)
class StateStatus:
    """The facts one state block shows."""

    now: datetime
    state_file: str  # relative path, for display
    view: StateView = field(default_factory=StateView)
    state_exists: bool = False
    state_problem: str = ""  # why STATE.md could not be read
    task: str = ""
    artifacts: tuple[tuple[str, bool], ...] = ()
    task_problem: str = ""
    git: GitState = field(default_factory=lambda: GitState(repo=False, reason="not checked"))
    session: SessionRecord | None = None
    previous: SessionRecord | None = None  # the last session that ended before this one

    @property
    def checkpoint_at(self) -> datetime | None:
        return parse_stamp(self.view.updated)

    @property
    def previous_without_checkpoint(self) -> bool:
        previous = self.previous
        if previous is None or previous.checkpointed:
            return False
        # A checkpoint written since then answers it.
        checkpoint = self.checkpoint_at
        ended = previous.ended_at or previous.updated_at
        return checkpoint is None or checkpoint < ended.replace(microsecond=0)

    @property
    def files_since_checkpoint(self) -> int:
        """Files changed after the last checkpoint, by the session record or by git's mtimes."""
        since = self.checkpoint_at
        counted = 0
        if self.session is not None:
            counted = self.session.files_changed_since(since)
        if counted:
            return counted
        # The stamp has whole seconds: a change within the checkpoint's second counts as before it.
        limit = None if since is None else since.timestamp() + 1
        return self.git.changed_since(limit, exclude=self.state_file) if self.git.repo else 0

    @property
    def obligations(self) -> tuple[str, ...]:
        found: list[str] = []
        changed = self.files_since_checkpoint
        if changed:
            noun = "file" if changed == 1 else "files"
            found.append(f"checkpoint due ({changed} {noun} changed since the last one)")
        if self.git.repo and self.git.uncommitted:
            n = self.git.uncommitted
            found.append(f"{n} uncommitted {'file' if n == 1 else 'files'}")
        if self.git.repo and self.git.upstream and self.git.ahead:
            n = self.git.ahead
            found.append(f"{n} unpushed {'commit' if n == 1 else 'commits'}")
        return tuple(found)


def gather(
    project: StateProject,
    *,
    session: SessionRecord | None = None,
    previous: SessionRecord | None = None,
    now: datetime | None = None,
    git: GitState | None = None,
) -> StateStatus:
    """Collect the facts for ``project``; ``session``/``previous`` come from the session ledger."""
    clock = now or utc_now()
    view, exists, problem = StateView(), False, ""
    try:
        loaded = file.load(project.state_path)
        view, exists = loaded.view, loaded.exists
    except StateError as exc:
        problem = str(exc)
    task = view.fields.get("task", "").strip()
    artifacts: tuple[tuple[str, bool], ...] = ()
    task_problem = ""
    if task:
        try:
            artifacts = artifact_status(project, task)
        except StateError as exc:
            task_problem = {
                "path_escape": "outside the plans folder",
                "not_found": "not found",
            }.get(exc.code, "unreadable")
        except OSError:
            task_problem = "unreadable"
    reading = git or git_state(project.root, cache_file=project.git_cache, now=clock.timestamp())
    return StateStatus(
        now=clock,
        state_file=project.relative(project.state_path),
        view=view,
        state_exists=exists,
        state_problem=problem,
        task=task,
        artifacts=artifacts,
        task_problem=task_problem,
        git=reading,
        session=session,
        previous=previous,
    )
