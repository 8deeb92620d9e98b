"""The store commands through click's runner, and the entry point as a real process."""

from __future__ import annotations

import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.hosts import claude_code
from contextward.store import CORE_MIGRATIONS, SCHEMA_MIGRATIONS, Store, database_path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_init_creates_then_keeps(project: Path) -> None:
    code, out, _ = run("init")
    assert code == 0
    assert out.splitlines()[1:] == [
        "  created .contextward/.gitignore",
        "  created .contextward/contextward.db",
        "  created .contextward/config.toml",
        "  created .contextward/contract.md",
    ]
    (project / ".contextward" / "contract.md").write_text("mine\n")
    code, out, _ = run("init")
    assert code == 0 and "  kept    .contextward/contract.md" in out
    assert (project / ".contextward" / "contract.md").read_text() == "mine\n"
    gitignore = (project / ".contextward" / ".gitignore").read_text().splitlines()
    assert "contextward.db" in gitignore and "contract.md" not in gitignore


def test_init_applies_every_layer_so_the_schema_never_moves_later(project: Path) -> None:
    assert run("init")[0] == 0
    fresh = json.loads(run("status", "--json")[1])
    run("recall", "anything")  # the first use of the recall index
    run("checkpoint", "--focus", "ship it")  # and of the session-state layer
    assert json.loads(run("status", "--json")[1])["store"] == fresh["store"]
    header = json.loads(run("export")[1].splitlines()[0])
    assert header["migrations"] == [
        "store.0001_ledgers",
        "state.0001_events_by_session",
        "recall.0001_index",
        "recall.0002_reindex_short_plurals",
    ]


def test_every_opener_creates_and_upgrades_to_the_same_schema(
    project: Path, tmp_path: Path
) -> None:
    assert run("init")[0] == 0
    with Store.open(project) as initialised:
        by_init = initialised.applied_migrations()

    by_verify = tmp_path / "verify"
    by_verify.mkdir()
    os.chdir(by_verify)  # the fixture's monkeypatch.chdir restores the cwd
    assert run("verify", "--", sys.executable, "-c", "pass")[0] == 0

    by_hook = tmp_path / "hook"
    by_hook.mkdir()
    failure = {
        "session_id": "s1",
        "cwd": str(by_hook),
        "hook_event_name": "PostToolUseFailure",
        "tool_name": "Bash",
        "tool_input": {"command": "make"},
        "tool_use_id": "t1",
        "error": "Exit code 1",
    }
    claude_code.run(io.BytesIO(json.dumps(failure).encode()), io.StringIO(), io.StringIO(), env={})

    # An older store, built before the other layers' tables were used: any opener upgrades it.
    older = tmp_path / "older"
    Store.open(older, migrations=CORE_MIGRATIONS).close()
    for root in (by_verify, by_hook, older):
        with Store.open(root, create=False) as store:
            assert store.applied_migrations() == by_init
            assert store.schema_version == len(by_init)


def test_note_and_journal(project: Path) -> None:
    # An owner decision has one home: STATE.md, the same line `contextward decide` writes.
    assert run("note", "decision", "Use WAL", "--tag", "db,perf", "--tag", "sqlite") == (
        0,
        "noted decision in STATE.md (owner)\n",
        "contextward: warning: a decision in STATE.md takes no tags: 3 left out\n",
    )
    assert run("note", "decision", "Use uv") == (0, "noted decision in STATE.md (owner)\n", "")
    assert "Use WAL" in (project / "STATE.md").read_text()
    assert run("journal", "--type", "decision", "--json")[1] == "[]\n"
    assert run("note", "risk", "Staging is shared", "--tag", "db")[:2] == (
        0,
        "noted j-1 risk [db] (owner)\n",
    )
    code, out, _ = run("note", "lesson", "mock the clock")
    assert code == 0 and out.splitlines()[1].startswith("hint: ")
    code, out, _ = run("journal", "--type", "risk", "--json")
    assert code == 0
    assert [(e["id"], e["text"], e["tags"], e["trusted"]) for e in json.loads(out)] == [
        ("j-1", "Staging is shared", ["db"], True)
    ]
    code, out, _ = run("journal")
    assert out.splitlines()[0].endswith("· lesson · owner · mock the clock")


def test_note_rejects_unknown_types(project: Path) -> None:
    code, _, err = run("note", "decree", "x")
    assert code == 2 and err.startswith("contextward: error: Invalid value for 'TYPE'")


def test_read_commands_do_not_create_the_store(project: Path) -> None:
    assert run("journal") == (0, "journal: no entries\n", "")
    assert run("evidence") == (0, "evidence: no runs yet\n", "")
    assert run("loops") == (0, "loops: none\n", "")
    code, out, _ = run("status")
    assert code == 0 and out.startswith("contextward status · no store yet")
    assert not (project / ".contextward").exists()


def test_status_reports_counts(project: Path) -> None:
    run("note", "risk", "migrations are irreversible")
    code, out, _ = run("status", "--json")
    data = json.loads(out)
    assert code == 0
    assert data["journal"]["total"] == 1 and data["evidence"]["runs"] == 0
    assert data["contract"] == {"seed": 12, "personal": 0, "project": 0}


def test_contract_commands(project: Path) -> None:
    assert run("contract", "add", "Keep the API stable") == (
        0,
        "added 13-keep-the-api-stable to the project layer\n",
        "",
    )
    assert run("contract", "add", "Prefer stdlib", "--global")[0] == 0
    code, out, _ = run("contract", "list")
    assert out.splitlines()[-2:] == [
        "14-prefer-stdlib [personal] Prefer stdlib",
        "13-keep-the-api-stable [project] Keep the API stable",
    ]
    code, _, err = run("contract", "remove", "14-prefer-stdlib")
    assert code == 2 and "use --global" in err
    assert run("contract", "remove", "14-prefer-stdlib", "--global")[0] == 0
    code, _, err = run("contract", "remove", "01-follow-the-owner")
    assert code == 2 and "seeds cannot be removed" in err


def test_doctor_and_export(project: Path) -> None:
    run("init")
    run("note", "note", "export me AKIAIOSFODNN7EXAMPLE")
    run("verify", "--", "false && echo AKIAIOSFODNN7EXAMPLE")
    code, out, _ = run("doctor")
    assert code == 0 and out.endswith("doctor: ok\n")
    code, out, err = run("export")
    rows = [json.loads(line) for line in out.splitlines()]
    footer = rows.pop()
    assert code == 0 and err == f"exported {len(rows)} rows\n"
    assert rows[0]["ledger"] == "header" and rows[0]["schema_version"] == 2
    assert footer == {
        "ledger": "footer",
        "rows": len(rows),
        "sha256": hashlib.sha256(
            "".join(f"{line}\n" for line in out.splitlines()[:-1]).encode()
        ).hexdigest(),
    }
    journal = [r for r in rows if r["ledger"] == "journal"]
    assert journal[0]["text"] == "export me [secret:aws-access-key]"
    assert sum(r["ledger"] == "contract" for r in rows) == 12
    (attempt,) = [r for r in rows if r["ledger"] == "attempt"]
    assert attempt["outcome"] == "fail" and "AKIA" not in attempt["streak_key"]


def test_doctor_reports_config_problems(project: Path) -> None:
    run("init")
    (project / ".contextward" / "config.toml").write_text("loop_block_after = -1\n")
    code, out, err = run("doctor")
    assert code == 1
    assert "warning config_value: project config: loop_block_after must be between 2 and 100" in out
    assert "contextward: warning" not in err
    assert "info    repair_hint: fix or delete the named setting in that config.toml" in out


def test_doctor_names_temporary_files_left_by_a_killed_write(project: Path) -> None:
    run("init")
    (project / "STATE.md").write_text("# State\n", encoding="utf-8")
    (project / ".STATE.md.k3j9.tmp").write_text("half a state file", encoding="utf-8")
    (project / ".contextward" / ".config.toml.x1.tmp").write_text("", encoding="utf-8")
    code, out, _ = run("doctor")
    assert code == 1
    assert "stale_temp: .STATE.md.k3j9.tmp was left by an interrupted write" in out
    assert "stale_temp: .contextward/.config.toml.x1.tmp" in out
    assert "half a state file" not in out
    assert (project / ".STATE.md.k3j9.tmp").exists()  # reported, never deleted


def test_doctor_warns_of_a_state_file_too_large_to_read(project: Path) -> None:
    run("init")
    with (project / "STATE.md").open("wb") as handle:
        handle.truncate(33 * 2**20)  # sparse: no 33 MiB written
    code, out, _ = run("doctor")
    assert code == 1 and "state_too_large: STATE.md is 33 MiB, over the 32 MiB" in out


def test_doctor_without_a_store(project: Path) -> None:
    code, out, _ = run("doctor")
    assert code == 0 and "store_missing" in out


@pytest.mark.parametrize("loss", ["emptied", "blank", "removed"])
def test_doctor_warns_when_an_initialised_store_lost_its_database(project: Path, loss: str) -> None:
    run("init")
    run("note", "lesson", "mock the clock")
    path = database_path(project)
    for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        extra.unlink(missing_ok=True)
    if loss == "emptied":  # a crash, a full disk, a sync tool
        path.write_bytes(b"")
    elif loss == "blank":  # an SQLite file with no tables in it
        path.unlink()
        blank = sqlite3.connect(path)
        blank.executescript("CREATE TABLE t (x); DROP TABLE t;")
        blank.close()
    else:  # `git clean -X`: the database is git-ignored, config.toml and contract.md stay
        path.unlink()
    code, out, _ = run("doctor", "--json")
    findings = {f["code"]: f["level"] for f in json.loads(out)["findings"]}
    assert (code, findings) == (1, {"store_lost": "warning", "repair_hint": "info"})
    # Doctor changes nothing: the empty file is not quietly migrated into a new store.
    assert path.exists() == (loss != "removed")
    assert loss != "emptied" or path.stat().st_size == 0
    run("init")  # the recovery the hint names
    assert run("doctor")[0] == 0


COMMANDS = [
    ("status",),
    ("journal",),
    ("evidence",),
    ("loops",),
    ("note", "note", "x"),
    ("export",),
    ("verify", "--", "true"),
    ("init",),
]


@pytest.mark.parametrize("args", COMMANDS, ids=[a[0] for a in COMMANDS])
def test_damaged_database_is_one_clear_line_everywhere(
    project: Path, args: tuple[str, ...]
) -> None:
    with Store.open(project) as store:
        store.journal.add("note", "secret-free row")
    database_path(project).write_bytes(b"garbage, not sqlite " * 500)
    code, out, err = run(*args)
    assert code == 2
    assert err == (
        "contextward: error: the store database is damaged (file is not a database);"
        " run `contextward doctor`\n"
    )
    assert "Traceback" not in out + err


def test_doctor_names_the_damage(project: Path) -> None:
    Store.open(project).close()
    database_path(project).write_bytes(b"garbage, not sqlite " * 500)
    code, out, _ = run("doctor")
    assert code == 1
    assert "error   store_damaged:" in out and "repair_hint" in out


def test_entry_point_as_a_real_process(project: Path, tmp_path: Path) -> None:
    env_home = str(tmp_path / "home")
    proc = subprocess.run(
        [sys.executable, "-m", "contextward.cli", "note", "correction", "use rg, not grep"],
        capture_output=True,
        text=True,
        cwd=project,
        env={"CONTEXTWARD_HOME": env_home, "PATH": "/usr/bin:/bin"},
        check=False,
    )
    if "No module named contextward.cli.__main__" in proc.stderr:
        proc = subprocess.run(
            [
                sys.executable,
                "-c",
                "from contextward.cli import main; main()",
                "note",
                "correction",
                "use rg, not grep",
            ],
            capture_output=True,
            text=True,
            cwd=project,
            env={"CONTEXTWARD_HOME": env_home, "PATH": "/usr/bin:/bin"},
            check=False,
        )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "noted j-1 correction (owner)\n", "")


def test_doctor_re_derives_and_lists_mismatches(project: Path) -> None:
    run("init")
    run("verify", "--", "true")
    run("verify", "--", "false")
    with Store.open(project) as store, store.write() as conn:
        conn.execute("UPDATE evidence SET verdict = 'ok' WHERE exit_code = 1")
        conn.execute("UPDATE journal SET tags = 'not json'")
        conn.execute("DELETE FROM attempts WHERE evidence_seq = 2")
        conn.execute(
            "INSERT INTO journal (created_at, type, text, tags, provenance)"
            " VALUES ('t', 'note', 'x', '[', 'owner')"
        )
    code, out, _ = run("doctor", "--json")
    found = {f["code"]: f["message"] for f in json.loads(out)["findings"] if f["level"] == "error"}
    assert code == 1
    assert found == {
        "json_invalid": "1 rows whose JSON column does not parse",
        "verdict_mismatch": "1 evidence runs whose verdict contradicts their exit code",
        "attempt_missing": "1 evidence runs without their loop-brake attempt",
    }


def test_status_human_view(project: Path) -> None:
    run("note", "risk", "Use WAL")
    run("note", "note", "agent view", "--tag", "x")
    run("verify", "--", "exit 1")
    run("verify", "--", "exit 1")
    code, out, _ = run("status")
    lines = out.splitlines()
    assert code == 1  # a blocked loop is a warning
    # A store a command created has the schema `init` gives (docs/store.md shows it).
    assert lines[0] == f"contextward status · schema {len(SCHEMA_MIGRATIONS)}"
    assert lines[1] == "journal: 2 entries (owner 2 · agent 0) · prompts 0"
    assert lines[2].startswith("evidence: 2 runs · last ev-0002 exit 1 FAIL ")
    assert lines[3] == "loops: BLOCKED `exit 1` · failed 2 time(s) in a row"
    assert lines[4] == "contract: 12 constraints (12 seed · 0 personal · 0 project)"


@pytest.mark.parametrize("command", ["journal", "evidence", "intent", "recall"])
def test_a_limit_of_0_is_refused_not_read_as_an_empty_store(
    command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [command, "--limit", "0"])
    assert result.exit_code == 2 and "--limit" in result.output
