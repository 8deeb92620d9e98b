"""STATE.md on disk: atomic writes, read on change, junk and huge files, concurrent writers."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contextward
from contextward.brief.state_block import render_state_block
from contextward.state import (
    StateConfig,
    StateError,
    StateProject,
    append_log,
    checkpoint,
    decision_rows,
    read_state,
    record_decision,
)
from contextward.state import file as state_file
from contextward.state.git import GitState
from contextward.state.status import gather

NOW = datetime(2026, 4, 11, 14, 0, 5, tzinfo=UTC)


@pytest.fixture
def project(tmp_path: Path) -> StateProject:
    (tmp_path / ".git").mkdir()  # marks the root; no git needed for file tests
    return StateProject.open(tmp_path)


def test_first_checkpoint_creates_the_file(project: StateProject) -> None:
    checkpoint({"focus": "Ship  it\nnow", "phase": "Testing"}, project=project, now=NOW)
    assert project.state_path.read_text() == (
        "# State\n\n## Current\nfocus: Ship it now\nphase: testing\n"
        "updated: 2026-04-11T14:00:05Z\n\n## Decisions\n\n## Log\n"
    )


def test_decisions_and_log_are_appended(project: StateProject) -> None:
    record_decision("Use SQLite", why="stdlib", project=project, now=NOW)
    record_decision("Redis", rejected=True, why="another service", project=project, now=NOW)
    append_log("Plan complete", project=project, now=NOW)
    append_log("Session ended", auto=True, project=project, now=NOW)
    assert project.state_path.read_text() == (
        "# State\n\n## Current\n\n## Decisions\n"
        "- Use SQLite — stdlib [2026-04-11]\n"
        "- [REJECTED] Redis — another service [2026-04-11]\n\n"
        "## Log\n- [2026-04-11 14:00] Plan complete\n"
        "- [auto] [2026-04-11 14:00] Session ended\n"
    )
    rows = list(decision_rows(project))
    assert [(r.text, r.kind, r.trust, r.source) for r in rows] == [
        ("Use SQLite — stdlib", "decision", "owner", "STATE.md"),
        ("Redis — another service", "rejected", "owner", "STATE.md"),
    ]
    assert rows == list(decision_rows(project))  # stable ids
    assert len({r.id for r in rows}) == 2


def test_secrets_are_masked_before_they_are_written(project: StateProject) -> None:
    record_decision("Use key sk-ant-abcdefghijklmnopqrstuvwxyz01", project=project, now=NOW)
    assert "sk-ant-abcdefghij" not in project.state_path.read_text()
    assert "[secret:anthropic-key]" in project.state_path.read_text()


def test_over_long_fields_are_refused_before_writing(project: StateProject) -> None:
    with pytest.raises(StateError) as caught:
        checkpoint({"focus": "x" * 201}, project=project)
    assert caught.value.code == "field_too_long"
    with pytest.raises(StateError) as caught:
        checkpoint({"phase": "dreaming"}, project=project)
    assert caught.value.code == "invalid_field"
    assert not project.state_path.exists()


def test_binary_junk_survives_a_rewrite_byte_for_byte(project: StateProject) -> None:
    junk = b"\xff\xfe\x00garbage\x80\n## Current\nfocus: old\n## Weird \xc3\x28\n\x9f\x9f\n"
    project.state_path.write_bytes(junk)
    checkpoint({"focus": "new"}, project=project, now=NOW)
    assert project.state_path.read_bytes() == junk.replace(
        b"focus: old\n", b"focus: new\nupdated: 2026-04-11T14:00:05Z\n"
    )


def test_write_keeps_the_file_mode_and_leaves_no_temp_files(project: StateProject) -> None:
    project.state_path.write_text("## Current\n")
    project.state_path.chmod(0o640)
    checkpoint({"focus": "x"}, project=project)
    assert stat.S_IMODE(project.state_path.stat().st_mode) == 0o640
    assert sorted(p.name for p in project.root.iterdir()) == [".git", "STATE.md"]


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077], ids=["022", "027", "077"])
def test_a_new_state_md_gets_the_mode_the_umask_gives_the_config_files(
    tmp_path: Path, umask: int
) -> None:
    (tmp_path / ".git").mkdir()
    cli = [sys.executable, "-m", "contextward"]
    package_root = str(Path(contextward.__file__).resolve().parents[1])  # this checkout's
    env = {**os.environ, "CONTEXTWARD_HOME": str(tmp_path / "home"), "PYTHONPATH": package_root}

    def run(*args: str) -> None:
        subprocess.run(
            [*cli, *args],
            cwd=tmp_path,
            env=env,
            preexec_fn=lambda: os.umask(umask),
            capture_output=True,
            check=True,
            timeout=60,
        )

    run("init")
    run("decide", "Use WAL")
    config_mode = stat.S_IMODE((tmp_path / ".contextward" / "config.toml").stat().st_mode)
    state_mode = stat.S_IMODE((tmp_path / "STATE.md").stat().st_mode)
    assert state_mode == config_mode == 0o666 & ~umask
    assert not list(tmp_path.glob(".STATE.md.*"))


def test_read_on_change(project: StateProject) -> None:
    project.state_path.write_text("## Current\nfocus: one\n")
    first = state_file.load(project.state_path)
    assert state_file.load(project.state_path) is first  # unchanged: the cached parse
    project.state_path.write_text("## Current\nfocus: two, longer\n")
    assert read_state(project).fields["focus"] == "two, longer"


def test_a_ten_megabyte_log_is_read_and_capped(project: StateProject) -> None:
    entry = "- [2026-01-01 10:00] " + "x" * 80 + "\n"
    project.state_path.write_text("## Current\nfocus: big\n## Log\n" + entry * 110_000)
    assert project.state_path.stat().st_size > 10_000_000
    assert read_state(project).fields["focus"] == "big"
    append_log("latest", project=project, now=NOW)
    view = read_state(project)
    assert len(view.log) == StateConfig().log_cap
    assert view.log[-1].text == "latest"


def test_too_large_files_are_refused_not_parsed(project: StateProject) -> None:
    with project.state_path.open("wb") as handle:
        handle.truncate(state_file.MAX_BYTES + 1)
    with pytest.raises(StateError) as caught:
        read_state(project)
    assert caught.value.code == "unreadable"


def test_configured_state_path_is_confined(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    inside = StateProject.open(tmp_path, StateConfig(file="docs/STATE.md"))
    assert inside.state_path == tmp_path.resolve() / "docs" / "STATE.md"
    for escape in ("../STATE.md", "/etc/STATE.md", "docs/../../x.md"):
        with pytest.raises(StateError) as caught:
            StateProject.open(tmp_path, StateConfig(file=escape))
        assert caught.value.code == "path_escape"
    (tmp_path / "link").symlink_to(tmp_path.parent)
    with pytest.raises(StateError):
        StateProject.open(tmp_path, StateConfig(file="link/STATE.md"))


_WRITER = """
import sys
from pathlib import Path
from contextward.state import StateProject, record_decision
project = StateProject.open(Path(sys.argv[1]))
for n in range(15):
    record_decision(f"writer {sys.argv[2]} decision {n}", project=project)
"""


def test_concurrent_writers_lose_nothing(project: StateProject) -> None:
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(project.root), str(n)])
        for n in range(4)
    ]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0, 0]
    texts = {d.text for d in read_state(project).decisions}
    assert texts == {f"writer {w} decision {n}" for w in range(4) for n in range(15)}
    assert not [n for n in os.listdir(project.root) if n.endswith(".tmp")]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_any_bytes_read_render_and_rewrite_without_a_crash(
    project: StateProject, junk: bytes
) -> None:
    project.state_path.write_bytes(junk)
    read_state(project)
    text = render_state_block(
        gather(project, git=GitState(repo=False, reason="not a git repository"))
    )
    assert text.startswith("## Project state (contextward)")
    checkpoint({"focus": "f"}, project=project, now=NOW)
    after = project.state_path.read_bytes()
    for line in junk.split(b"\n"):
        if b":" not in line:  # lines that cannot be a field we rewrite are kept verbatim
            assert line in after
