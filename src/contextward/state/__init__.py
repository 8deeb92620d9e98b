"""Session state: STATE.md (current / decisions / log), checkpoints, git awareness,
obligations, task artifacts and the session lifecycle.

STATE.md is owner-authored and the source of truth for what it holds; its
Decisions section is the single home of trusted decisions. This package
reads it on change, edits it atomically without dropping what it did not
understand, and never prints (``contextward.cli.state_cmds`` does).
"""

from ..store.migrations import STATE_MIGRATIONS
from .adoption import adopt_journal_decisions
from .document import FIELDS, Decision, LogEntry, StateDocument, StateView
from .errors import StateError
from .fields import FIELD_LIMITS, PHASES
from .git import GitState, git_state, read_git
from .lifecycle import (
    SessionEnd,
    checkpoint_written,
    file_modified,
    previous_session,
    session_end,
    session_record,
    session_start,
    tool_called,
)
from .project import StateConfig, StateProject
from .session import SessionRecord
from .status import StateStatus, gather
from .task import TaskSummary, load_task, render_summary
from .writer import (
    Decided,
    DecisionRow,
    append_log,
    checkpoint,
    decide,
    decision_rows,
    read_state,
    record_decision,
)

__all__ = [
    "FIELDS",
    "FIELD_LIMITS",
    "PHASES",
    "STATE_MIGRATIONS",
    "Decided",
    "Decision",
    "DecisionRow",
    "GitState",
    "LogEntry",
    "SessionEnd",
    "SessionRecord",
    "StateConfig",
    "StateDocument",
    "StateError",
    "StateProject",
    "StateStatus",
    "StateView",
    "TaskSummary",
    "adopt_journal_decisions",
    "append_log",
    "checkpoint",
    "checkpoint_written",
    "decide",
    "decision_rows",
    "file_modified",
    "gather",
    "git_state",
    "load_task",
    "previous_session",
    "read_git",
    "read_state",
    "record_decision",
    "render_summary",
    "session_end",
    "session_record",
    "session_start",
    "tool_called",
]
