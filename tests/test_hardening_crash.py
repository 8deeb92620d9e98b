"""Hardening (issue 9, item 3): ``kill -9`` in the middle of every kind of write.

A worker process loops one kind of write; it is killed with SIGKILL while it
writes. Afterwards the store opens, SQLite's integrity check passes, every row
the worker reported committed is there, ``contextward doctor`` exits 0 (or
says how to repair), and user files are either the old or the new version,
never half of one. Kinds: journal, evidence, snapshot and check records,
STATE.md (checkpoint + log), Claude Code settings install/uninstall, the fast
path's spool append, and the spool's drain into the store.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from contextward.state.document import StateDocument
from contextward.store import Store, store_dir

SRC = Path(__file__).resolve().parents[1] / "src"

PRELUDE = r"""
import json, os, sys
sys.path.insert(0, sys.argv[1])
from pathlib import Path
root = Path(sys.argv[2])
done = open(sys.argv[3], "a", buffering=1)   # one line per committed write
"""

WORKERS = {
    "journal": r"""
from contextward.store import Store
with Store.open(root) as store:
    for n in range(10**6):
        store.journal.add("note", f"crash note {n}", provenance="agent")
        done.write(f"{n}\n")
""",
    "evidence": r"""
from contextward.store import Store
with Store.open(root) as store:
    for n in range(10**6):
        store.evidence.record(command=f"pytest -q t{n}", fingerprint=f"f{n}", streak_key=f"k{n}",
            cwd=str(root), exit_code=n % 2, duration_ms=1, verdict="fail" if n % 2 else "ok",
            reasons=(), digest="x" * 500, output_bytes=500, attempt_outcome="fail" if n % 2 else "success")
        done.write(f"{n}\n")
""",
    "records": r"""
from contextward.store import Store
items = [{"id": f"c{i}", "kind": "constraint", "content": "Never push to main. " * 20, "critical": True} for i in range(50)]
with Store.open(root) as store:
    for n in range(10**6):
        store.snapshots.add({"schemaVersion": 1, "items": items}, label=f"s{n}")
        store.check_reports.add({"schemaVersion": 1, "ok": True, "findings": []}, label=f"c{n}")
        done.write(f"{n}\n")
""",
    "state": r"""
from contextward.state import StateProject
from contextward.state.writer import append_log, checkpoint
project = StateProject.open(root)
for n in range(10**6):
    checkpoint({"focus": f"focus {n} " + "y" * 150, "next": f"next {n}"}, project=project)
    append_log(f"milestone {n}", project=project)
    done.write(f"{n}\n")
""",
    "settings": r"""
from contextward.hosts.claude_install import apply, plan_install, plan_uninstall
path = root / ".claude" / "settings.json"
for n in range(10**6):
    apply(plan_install(path, "python -S hook_entry.py claude"))
    apply(plan_uninstall(path))
    done.write(f"{n}\n")
""",
    "spool_append": r"""
from contextward import spool
d = str(root / ".contextward")
for n in range(10**6):
    assert spool.append_prompt(d, {"text": f"spooled prompt {n}", "session_id": "s", "prompt_id": None, "created_at": "2026-11-30T00:00:00Z"})
    done.write(f"{n}\n")
""",
    "spool_drain": r"""
from contextward import spool
from contextward.store import Store
d = str(root / ".contextward")
for n in range(int(sys.argv[4])):
    spool.append_prompt(d, {"text": f"drained prompt {n}", "session_id": "s", "prompt_id": None, "created_at": "2026-11-30T00:00:00Z"})
done.write("spooled\n")
with Store.open(root):
    pass
done.write("drained\n")
""",
}

USER_SETTINGS = {"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, "hooks": {"Stop": []}}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    with Store.open(root):
        pass
    settings = root / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps(USER_SETTINGS), encoding="utf-8")
    return root


def _kill_mid_write(root: Path, kind: str, *, delay: float, extra: str = "0") -> list[str]:
    done = root.parent / f"{kind}.done"
    done.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-c", PRELUDE + WORKERS[kind], str(SRC), str(root), str(done), extra],
        env={**os.environ, "CONTEXTWARD_HOME": str(root.parent / "home")},
    )
    deadline = time.monotonic() + 60
    while not (done.exists() and done.stat().st_size) and proc.poll() is None:
        assert time.monotonic() < deadline, "the worker never wrote"
        time.sleep(0.005)
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return done.read_text(encoding="utf-8").splitlines()


def _doctor(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from contextward.cli import main; main()", "doctor"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "CONTEXTWARD_HOME": str(root.parent / "home")},
        timeout=60,
        check=False,
    )


def _store_is_sound(root: Path) -> None:
    with Store.open(root) as store:
        assert store.query("PRAGMA integrity_check")[0][0] == "ok"
    doctor = _doctor(root)
    assert "Traceback" not in doctor.stderr
    # A temporary file a killed atomic write left is reported (and is all that may be).
    findings = [
        line for line in doctor.stdout.splitlines() if line.startswith(("error", "warning"))
    ]
    assert all("stale_temp:" in line for line in findings), doctor.stdout
    leftovers = [p.name for p in root.glob(".*.tmp")]
    assert all(name in doctor.stdout for name in leftovers)
    assert doctor.returncode in (0, 1) or "contextward init" in doctor.stdout + doctor.stderr, (
        doctor.stdout + doctor.stderr
    )


@pytest.mark.parametrize("kind", ["journal", "evidence", "records"])
def test_a_killed_ledger_writer_loses_no_committed_row(project: Path, kind: str) -> None:
    committed = _kill_mid_write(project, kind, delay=random.uniform(0.02, 0.2))
    _store_is_sound(project)
    with Store.open(project) as store:
        if kind == "journal":
            texts = {str(r["text"]) for r in store.query("SELECT text FROM journal")}
            assert {f"crash note {n}" for n in committed} <= texts
        elif kind == "evidence":
            commands = {str(r["command"]) for r in store.query("SELECT command FROM evidence")}
            assert {f"pytest -q t{n}" for n in committed} <= commands
        else:
            labels = {str(r["label"]) for r in store.query("SELECT label FROM snapshots")}
            assert {f"s{n}" for n in committed} <= labels
            for row in store.query("SELECT data FROM snapshots"):
                assert len(json.loads(row["data"])["items"]) == 50


def test_a_killed_state_writer_leaves_a_whole_state_file(project: Path) -> None:
    prose = "".join(f"Owner note line {i}: keep me exactly.\n" for i in range(3000))
    (project / "STATE.md").write_text(
        "# State\n\n## Current\n\n## Decisions\n\n## Log\n\n## Notes\n\n" + prose,
        encoding="utf-8",
    )
    committed = _kill_mid_write(project, "state", delay=random.uniform(0.02, 0.2))
    text = (project / "STATE.md").read_text(encoding="utf-8")
    view = StateDocument.parse(text).view()
    last = int(committed[-1])
    # The old or the new version, never a mix: focus and next name the same round.
    focus_n = int(view.fields["focus"].split()[1])
    assert focus_n >= last
    assert view.fields["next"] == f"next {focus_n}"
    assert f"milestone {last}" in text
    assert prose in text  # what the writer did not write survives every rewrite
    _store_is_sound(project)


def test_a_killed_installer_keeps_the_users_settings(project: Path) -> None:
    _kill_mid_write(project, "settings", delay=random.uniform(0.01, 0.1))
    settings = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))
    assert settings["model"] == "opus"
    assert settings["permissions"] == USER_SETTINGS["permissions"]
    leftovers = [p.name for p in (project / ".claude").iterdir() if p.name != "settings.json"]
    assert all(name.endswith(".tmp") for name in leftovers)


def test_a_killed_spool_append_loses_no_accepted_prompt(project: Path) -> None:
    committed = _kill_mid_write(project, "spool_append", delay=random.uniform(0.01, 0.1))
    with Store.open(project) as store:
        texts = {str(r["text"]) for r in store.query("SELECT text FROM prompts")}
    # Prompt retention (5,000 by default) may already have pruned the oldest of a long run.
    newest = committed[-4000:]
    assert {f"spooled prompt {n}" for n in newest} <= texts
    _store_is_sound(project)


@pytest.mark.parametrize("round_", range(3))
def test_a_store_killed_while_draining_the_spool_loses_nothing(project: Path, round_: int) -> None:
    """Forced fix: the drain emptied the spool before the prompts were committed."""
    count = 1500
    _kill_mid_write(project, "spool_drain", delay=0.02 + 0.03 * round_, extra=str(count))
    with Store.open(project) as store:
        texts = [str(r["text"]) for r in store.query("SELECT text FROM prompts")]
    assert sorted(texts) == sorted(f"drained prompt {n}" for n in range(count))
    _store_is_sound(project)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(set(WORKERS) - {"spool_drain"}))
def test_repeated_kills_never_damage_anything(project: Path, kind: str) -> None:
    for _ in range(8):
        _kill_mid_write(project, kind, delay=random.uniform(0.0, 0.3))
        _store_is_sound(project)
    assert not list(store_dir(project).glob("contextward.db.*.tmp"))
