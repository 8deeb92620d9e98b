"""The state block: exact text, git variants, masking, and the 250-token bound."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.brief.state_block import (
    CUT_NOTE,
    MAX_TOKENS,
    age,
    estimate_tokens,
    render_state_block,
)
from contextward.state.document import StateDocument
from contextward.state.git import GitState
from contextward.state.session import SessionRecord
from contextward.state.status import StateStatus

NOW = datetime(2026, 4, 11, 14, 35, 0, tzinfo=UTC)

STATE = """# State
## Current
focus: Implementing Layer 2 hard enforcement
phase: implementing
blockers: WeakMap cache produces 0 hits
next: Fix token cache, npm publish v0.2.0
handoff: Execute step 4 — custom tools
task: 260410-media-guard
updated: 2026-04-11T14:23:00Z
## Decisions
- a [2026-04-11]
- b [2026-04-11]
- [REJECTED] c — d [2026-04-11]
"""

GIT = GitState(
    repo=True,
    branch="main",
    head="abc1234",
    upstream="origin/main",
    ahead=1,
    uncommitted=2,
    last_subject="add git conventions",
    last_time=int((NOW - timedelta(minutes=89)).timestamp()),
    changes=(("src/a.py", (NOW - timedelta(minutes=5)).timestamp()), ("STATE.md", 0.0)),
)

SESSION = SessionRecord(
    id="s",
    started_at=NOW - timedelta(minutes=23),
    updated_at=NOW,
    tool_calls=14,
    files={f"f{n}.py": (NOW - timedelta(minutes=2)).timestamp() for n in range(5)},
)


def status(**changes: object) -> StateStatus:
    base: dict[str, object] = {
        "now": NOW,
        "state_file": "STATE.md",
        "view": StateDocument.parse(STATE).view(),
        "state_exists": True,
        "task": "260410-media-guard",
        "artifacts": (
            ("goal.md", True),
            ("anchor.md", True),
            ("plan.md", True),
            ("summary.md", False),
        ),
        "git": GIT,
        "session": SESSION,
    }
    base.update(changes)
    return StateStatus(**base)  # type: ignore[arg-type]


def test_the_full_block() -> None:
    assert render_state_block(status()) == (
        "## Project state (contextward)\n"
        "focus: Implementing Layer 2 hard enforcement\n"
        "phase: implementing\n"
        "blockers: WeakMap cache produces 0 hits\n"
        "next: Fix token cache, npm publish v0.2.0\n"
        "handoff: Execute step 4 — custom tools\n"
        "State updated: 12 min ago\n"
        "Decisions: 2 locked, 1 rejected\n"
        "Task: 260410-media-guard — goal.md ✓, anchor.md ✓, plan.md ✓, summary.md ✗\n"
        'Git: main, 2 uncommitted, 1 ahead, 0 behind. Last: "add git conventions" (89 min ago)\n'
        "Session: 23 min, 14 tool calls, 5 files modified\n"
        "Obligations: checkpoint due (5 files changed since the last one); "
        "2 uncommitted files; 1 unpushed commit"
    )


def test_no_state_file_outside_git_no_session() -> None:
    text = render_state_block(
        status(
            view=StateDocument.parse("").view(),
            state_exists=False,
            task="",
            artifacts=(),
            git=GitState(repo=False, reason="not a git repository"),
            session=None,
        )
    )
    assert text == (
        "## Project state (contextward)\n"
        "STATE.md: none yet (contextward checkpoint creates it)\n"
        "Git: not a git repository"
    )


def test_detached_head_no_upstream_and_no_commits() -> None:
    detached = GitState(repo=True, head="abc1234", uncommitted=0, last_subject="x", last_time=1)
    assert "Git: detached at abc1234, 0 uncommitted, no upstream." in render_state_block(
        status(git=detached)
    )
    empty = GitState(repo=True, branch="main", uncommitted=1)
    assert "Git: main, no commits yet, 1 uncommitted, no upstream." in render_state_block(
        status(git=empty)
    )


def test_task_problems_and_unreadable_state_are_facts() -> None:
    text = render_state_block(
        status(task="../etc", artifacts=(), task_problem="outside the plans folder")
    )
    assert "Task: ../etc (outside the plans folder)" in text
    text = render_state_block(status(state_problem="STATE.md: not a regular file"))
    assert "STATE.md: unreadable (STATE.md: not a regular file)" in text


def test_secrets_and_junk_in_hand_edited_fields_are_masked() -> None:
    view = StateDocument.parse(
        "## Current\nfocus: deploy with ghp_abcdefghijklmnopqrstuvwxyz0123456789 \udcff\n"
    ).view()
    text = render_state_block(status(view=view))
    assert "ghp_abcdef" not in text
    assert "focus: deploy with [secret:github-token] ?" in text


field_text = st.text(min_size=0, max_size=600)


@settings(max_examples=60)
@given(st.lists(field_text, min_size=5, max_size=5), st.text(max_size=300))
def test_never_over_the_token_budget(values: list[str], subject: str) -> None:
    keys = ("focus", "blockers", "next", "handoff", "task")
    lines = ["## Current"] + [
        f"{key}: {' '.join(value.split())}" for key, value in zip(keys, values, strict=True)
    ]
    view = StateDocument.parse("\n".join(lines)).view()
    git = GitState(repo=True, branch="b" * 200, head="abc1234", last_subject=subject, last_time=1)
    text = render_state_block(status(view=view, task=view.fields.get("task", ""), git=git))
    assert estimate_tokens(text) <= MAX_TOKENS
    assert text.startswith("## Project state (contextward)")


def test_ages() -> None:
    assert age(NOW - timedelta(seconds=59), NOW) == "just now"
    assert age(NOW - timedelta(minutes=90), NOW) == "90 min ago"
    assert age(NOW - timedelta(hours=5), NOW) == "5 h ago"
    assert age((NOW - timedelta(days=3)).timestamp(), NOW) == "3 d ago"


HANDOFF = (
    "Reviewer: start with plan.md step 3, then the migration notes in docs/migrate.md; "
    "the flaky test in tests/test_sync.py is known (issue 88) and can be skipped locally; "
    "staging was reset this morning so seed it first with make seed. "
    "IMPORTANT: do not merge PR 41 until the migration ran."
)


def test_a_handoff_as_long_as_a_checkpoint_accepts_is_shown_whole() -> None:
    assert 240 < len(HANDOFF) <= 400
    view = StateDocument.parse(f"## Current\nfocus: parser\nhandoff: {HANDOFF}\n").view()
    text = render_state_block(status(view=view, session=None))
    assert f"handoff: {HANDOFF}" in text.splitlines()
    assert CUT_NOTE not in text


def test_a_field_cut_to_fit_says_where_the_full_text_is() -> None:
    long = "word " * 80
    view = StateDocument.parse(
        f"## Current\nfocus: {long}\nblockers: {long}\nnext: {long}\nhandoff: {HANDOFF}\n"
    ).view()
    text = render_state_block(status(view=view))
    assert text.splitlines()[-1] == CUT_NOTE
    assert "…" in text and estimate_tokens(text) <= MAX_TOKENS
