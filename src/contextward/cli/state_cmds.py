"""``contextward checkpoint | decide | log | load | state``: session state in STATE.md.

Each command parses, calls one ``contextward.state`` function and prints one
line (``load`` and ``state`` print their text). State errors (over-long
fields, path escapes, unreadable files) become one line on stderr, exit 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from ..brief.state_block import estimate_tokens, state_block
from ..errors import StoreError
from ..printable import json_text
from ..state import (
    PHASES,
    StateConfig,
    StateError,
    StateProject,
    checkpoint,
    checkpoint_written,
    decide,
    load_task,
    render_summary,
)
from ..state import append_log as append_log_entry
from ..state.task import task_folder
from ..state.writer import MARKED_REJECTED
from ..store import Store, project_root, session_id_from_env
from ..store.config import load_config
from ..store.text import storable_id
from ._io import BadInput, say


@contextmanager
def _errors() -> Iterator[None]:
    try:
        yield
    except (StateError, StoreError) as exc:
        raise BadInput(str(exc)) from None


def _project() -> StateProject:
    root = project_root()
    with _errors():
        settings = StateConfig.from_mapping(load_config(root).as_dict())
        return StateProject.open(root, settings)


def _field(name: str, text: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(f"--{name}", default=None, metavar="TEXT", help=text)


def _attribute(project: StateProject) -> None:
    """Record the checkpoint as the named session's ($CONTEXTWARD_SESSION_ID), so the
    sessions running beside it still get their automatic Log entry."""
    session = session_id_from_env()
    if session is None:
        return
    try:
        with Store.open(project.root) as store:
            checkpoint_written(store, storable_id(session[:200]), project=project)
    except StoreError as exc:
        say(
            f"contextward: warning: the checkpoint is not recorded as the session's ({exc.code})",
            err=True,
        )


@click.command("checkpoint")
@_field("focus", "What we are working on.")
@click.option(
    "--phase",
    default=None,
    type=click.Choice(PHASES, case_sensitive=False),
    help="Where the work stands.",
)
@_field("blockers", "What is stuck (empty: nothing).")
@_field("next", "What to do next.")
@_field("handoff", "Who continues, and where.")
@_field("task", "Task folder under the plans folder.")
def checkpoint_command(**values: str | None) -> None:
    """Record the current state in STATE.md's Current section (fields, no prose)."""
    project = _project()
    task = values.get("task")
    with _errors():
        # A task outside the plans folder is refused; one not made yet is recorded.
        folder = task_folder(project, task) if task else None
        checkpoint(values, project=project)
    _attribute(project)
    given = [name for name, value in values.items() if value is not None]
    what = ", ".join(given) if given else "no fields changed"
    say(f"checkpoint written to {project.relative(project.state_path)} ({what})")
    if folder is not None and not folder.is_dir():
        say(
            f"contextward: warning: task folder {project.relative(folder)} does not exist yet;"
            " `contextward state` shows it as not found until it does",
            err=True,
        )


@click.command("decide")
@click.argument("text")
@click.option("--rejected", is_flag=True, help="Record a rejected approach instead.")
@click.option("--why", default=None, metavar="TEXT", help="The reason.")
def decide_command(text: str, rejected: bool, why: str | None) -> None:
    """Append a locked decision (or a [REJECTED] approach) to STATE.md's Decisions."""
    project = _project()
    with _errors():
        done = decide(text, rejected=rejected, why=why, project=project)
    # Say what STATE.md holds now: a text that starts with "[REJECTED]" is read back as
    # a rejected approach even without --rejected.
    kind = "rejected approach" if done.decision.rejected else "decision"
    where = project.relative(project.state_path)
    if done.decision.rejected and not rejected:
        say(f"contextward: warning: {MARKED_REJECTED}", err=True)
    if done.repeated:
        say(f"{kind} already recorded in {where} (not added twice)")
        return
    say(f"{kind} recorded in {where}")
    for old in done.replaced:
        say(f"supersedes: {old.text}")


@click.command("log")
@click.argument("text")
def log_command(text: str) -> None:
    """Append a milestone to STATE.md's Log (the oldest entries are trimmed past the cap)."""
    project = _project()
    with _errors():
        append_log_entry(text, project=project)
    say(f"log entry added to {project.relative(project.state_path)}")


@click.command("load")
@click.argument("task")
def load_command(task: str) -> None:
    """Summarise a task folder's planning artifacts (confined to the plans folder)."""
    project = _project()
    with _errors():
        summary = load_task(project, task)
    say(render_summary(summary))


@click.command("state")
@click.option("--json", "as_json", is_flag=True, help="Print the block and its size as JSON.")
def state_command(as_json: bool) -> None:
    """Print the state block a host would inject (session lines when a session is known)."""
    project = _project()
    store: Store | None = None
    try:
        store = Store.open(project.root, create=False)
    except StoreError:
        store = None  # no store yet: nothing recorded about sessions
    try:
        with _errors():
            text = state_block(project, store=store, session_id=session_id_from_env())
    finally:
        if store is not None:
            store.close()
    if as_json:
        payload = {"schema_version": 1, "text": text, "tokens": estimate_tokens(text)}
        click.echo(json_text(payload))
    else:
        say(text)


#: Registered by ``contextward.cli`` (this module has several commands).
commands = (checkpoint_command, decide_command, load_command, log_command, state_command)

__all__ = ["commands"]
