"""``contextward import``: an export loaded back, once, and only when it is one (walk9 #11)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from contextward.cli import main
from contextward.store import Store, database_path


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def remembered() -> dict[str, list[tuple[object, ...]]]:
    """What the store holds of each ledger an import loads, seq numbers left out."""
    with Store.open(create=False) as store:
        return {
            "journal": [
                tuple(r)
                for r in store.query(
                    "SELECT created_at, type, text, tags, provenance, session_id"
                    " FROM journal ORDER BY seq"
                )
            ],
            "prompts": [
                tuple(r)
                for r in store.query("SELECT created_at, session_id, key, text FROM prompts")
            ],
            "evidence": [
                tuple(r)
                for r in store.query(
                    "SELECT created_at, command, fingerprint, streak_key, exit_code, verdict,"
                    " reasons FROM evidence ORDER BY seq"
                )
            ],
        }


def fill(project: Path) -> Path:
    run("init")
    run("note", "lesson", "Pin the database version in CI", "--tag", "db")
    run("note", "note", "token AKIAIOSFODNN7EXAMPLE rotated")
    run("note", "note", "same words twice")
    run("note", "note", "same words twice")
    run("verify", "--", "true")
    with Store.open() as store:
        store.prompts.record("Never push to main.", session_id="s1", prompt_id="p1")
    backup = project.parent / "backup.jsonl"
    assert run("export", "-o", str(backup))[0] == 0
    return backup


def test_an_export_restores_a_lost_store_and_a_second_import_adds_nothing(
    project: Path,
) -> None:
    backup = fill(project)
    before = remembered()
    assert len(before["journal"]) == 4 and len(before["evidence"]) == 1
    database_path(project).unlink()
    for extra in (project / ".contextward").glob("contextward.db-*"):
        extra.unlink()
    run("init")
    code, out, err = run("import", str(backup))
    assert (code, out) == (0, "")
    assert err.splitlines()[:3] == [
        "journal: 4 added, 0 already there",
        "prompt: 1 added, 0 already there",
        "evidence: 1 added, 0 already there",
    ]
    assert err.splitlines()[3].startswith("not imported: ")
    assert remembered() == before
    code, _, err = run("import", str(backup))
    assert code == 0
    assert err.splitlines()[:3] == [
        "journal: 0 added, 4 already there",
        "prompt: 0 added, 1 already there",
        "evidence: 0 added, 1 already there",
    ]
    assert remembered() == before


def test_importing_into_the_store_it_came_from_adds_nothing(project: Path) -> None:
    backup = fill(project)
    before = remembered()
    assert run("import", str(backup))[0] == 0
    assert remembered() == before


def test_a_tampered_export_is_refused_whole(project: Path) -> None:
    backup = fill(project)
    run("note", "note", "written after the export")
    before = remembered()
    lines = backup.read_text().splitlines(keepends=True)
    edited = project.parent / "edited.jsonl"
    edited.write_text("".join(line.replace("rotated", "revoked") for line in lines))
    assert run("import", str(edited)) == (
        2,
        "",
        "contextward: error: the export does not match its checksum: it was edited or cut short\n",
    )
    cut = project.parent / "cut.jsonl"
    cut.write_text("".join(lines[:-3]))
    code, _, err = run("import", str(cut))
    assert (code, err) == (2, "contextward: error: the export has no footer: it was cut short\n")
    assert remembered() == before


def test_a_foreign_or_newer_file_is_refused_with_one_line(project: Path) -> None:
    backup = fill(project)
    before = remembered()
    foreign = project.parent / "foreign.jsonl"
    foreign.write_text('{"id": 1, "text": "hello"}\n')
    code, _, err = run("import", str(foreign))
    assert code == 2 and err.startswith("contextward: error: line 1: ") and err.count("\n") == 1
    header, *rest = backup.read_text().splitlines(keepends=True)
    newer = project.parent / "newer.jsonl"
    newer.write_text(
        json.dumps({**json.loads(header), "schema_version": 99}) + "\n" + "".join(rest)
    )
    code, _, err = run("import", str(newer))
    assert (code, err) == (
        2,
        "contextward: error: export format 99 cannot be imported (a newer contextward wrote it;"
        " this one reads 2)\n",
    )
    assert run("import", str(project.parent / "missing.jsonl"))[0] == 2
    assert remembered() == before
