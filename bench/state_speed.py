"""State block speed: rendering when nothing changed (budget <= 5 ms in process), and its parts.

Builds a real git repository with a STATE.md, a task folder and a store with
an active session in a temporary folder, warms the caches once, then times
``state_block`` — what a host hook calls every turn. Also times what a
change costs: a git refresh (the 30 s cache expired) and parsing a 10 MB
STATE.md.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from bench.timing import median_seconds
from contextward.brief.state_block import state_block
from contextward.state import (
    StateProject,
    checkpoint,
    file_modified,
    read_git,
    read_state,
    record_decision,
    session_start,
    tool_called,
)
from contextward.state import file as state_file
from contextward.store import Store

_GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=_GIT_ENV, check=True, capture_output=True)


def _project(root: Path) -> StateProject:
    _git(root, "init", "-q", "-b", "main")
    for n in range(20):
        (root / f"file{n}.py").write_text(f"x = {n}\n")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "initial import")
    (root / "file3.py").write_text("changed\n")
    task = root / "plans" / "t1"
    task.mkdir(parents=True)
    (task / "goal.md").write_text("# Goal\n")
    (task / "plan.md").write_text("# Plan\n")
    project = StateProject.open(root)
    checkpoint(
        {"focus": "bench", "phase": "testing", "next": "measure", "task": "t1"},
        project=project,
    )
    for n in range(10):
        record_decision(f"decision {n}", rejected=n % 4 == 0, project=project)
    return project


def run() -> list[dict[str, object]]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        project = _project(root)
        with Store.open(root) as store:
            session_start(store, "bench")
            for n in range(50):
                tool_called(store, "bench", key=f"t{n}")
            for n in range(5):
                file_modified(store, "bench", f"file{n}.py", project=project)
            state_block(project, store=store, session_id="bench")  # warm: git cache, parse
            with_session = median_seconds(
                lambda: state_block(project, store=store, session_id="bench"), repeat=51
            )
        without_store = median_seconds(lambda: state_block(project), repeat=51)
        git_refresh = median_seconds(lambda: read_git(root), repeat=9)
        entry = "- [2026-01-01 10:00] " + "x" * 80 + "\n"
        project.state_path.write_text("## Current\nfocus: big\n## Log\n" + entry * 110_000)

        def parse_big() -> None:
            state_file._CACHE.clear()
            read_state(project)

        big = median_seconds(parse_big, repeat=3)
    return [
        {
            "name": "state block, nothing changed (with session)",
            "value": round(with_session * 1000, 2),
            "unit": "ms",
        },
        {
            "name": "state block, nothing changed (no store)",
            "value": round(without_store * 1000, 2),
            "unit": "ms",
        },
        {
            "name": "state git refresh (cache expired)",
            "value": round(git_refresh * 1000, 1),
            "unit": "ms",
        },
        {"name": "state STATE.md 10 MB parse", "value": round(big * 1000, 1), "unit": "ms"},
    ]


if __name__ == "__main__":
    for row in run():
        print(f"{row['name']:<48} {row['value']:>10} {row['unit']}")
