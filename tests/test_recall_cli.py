"""``contextward recall`` and ``contextward brief`` through click's runner in a temp project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.store import Store


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "personal"))
    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    return tmp_path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_recall_without_a_store_searches_state_md_and_creates_nothing(project: Path) -> None:
    note = "Nudge: no store in this project yet: only STATE.md was searched"
    code, out, _ = invoke("recall", "auth")
    assert (code, out) == (1, f'recall "auth" · 0 hits\n{note}\n')
    # `decide` writes STATE.md alone: its decisions are found before any store exists.
    assert invoke("decide", "Keep auth tokens in the OS keychain.")[0] == 0
    code, out, _ = invoke("recall", "keychain")
    assert code == 0, out
    head, *rest = out.splitlines()[1:]
    assert head.startswith("state:") and " · decision · owner · STATE.md · " in head
    assert rest == ["  Keep auth tokens in the OS keychain.", note]
    assert not (project / ".contextward").exists()


def test_a_query_holding_quotes_is_shown_escaped_and_one_hit_is_one(project: Path) -> None:
    with Store.open(project) as store:
        store.journal.add("lesson", 'the "unbalanced quote bug in the parser')
    code, out, _ = invoke("recall", '"unbalanced')
    assert code == 0 and out.splitlines()[0] == 'recall "\\"unbalanced" · 1 hit'


def test_recall_prints_trust_labels_tags_and_nudges(project: Path) -> None:
    with Store.open(project) as store:
        store.journal.add("lesson", "Mock the clock, don't bump the timeout", tags=["auth"])
        store.journal.add("note", "auth timeout again in CI", provenance="agent")
    code, out, _ = invoke("recall", "auth", "timeout")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == 'recall "auth timeout" · 2 hits'
    assert {line.split(" · ")[2] for line in lines if line.startswith("j-")} == {
        "owner",
        "agent-unverified",
    }
    assert "  tags: auth" in lines
    assert lines[-1] == (
        "Nudge: agent-unverified hits are the agent's own notes, not owner authority."
    )


def test_recall_json_and_filters(project: Path) -> None:
    with Store.open(project) as store:
        store.journal.add("decision", "Use WAL", tags=["db"])
        store.journal.add("note", "WAL checkpoint", tags=["db"])
    code, out, _ = invoke("recall", "--type", "decision", "--tag", "db", "--json")
    assert code == 0
    data = json.loads(out)
    assert [h["ref"] for h in data["hits"]] == ["j-1"]


def test_recall_bad_input_is_one_line_exit_2(project: Path) -> None:
    with Store.open(project) as store:
        store.journal.add("note", "x")
    code, out, err = invoke("recall", "--evidence-id", "seven")
    assert (code, out) == (2, "")
    assert err == "contextward: error: an evidence id looks like ev-0007\n"
    code, _, err = invoke("recall", "--limit", "99")
    assert code == 2
    assert err.count("\n") == 1


def test_recall_rebuild_flag(project: Path) -> None:
    with Store.open(project) as store:
        store.journal.add("decision", "Use WAL")
    assert invoke("recall", "wal")[0] == 0
    assert invoke("recall", "--rebuild", "wal")[0] == 0


def test_brief_prints_digest_and_skips_an_unchanged_one(project: Path) -> None:
    code, out, _ = invoke("brief")
    assert code == 0
    assert out.startswith("## contextward brief\ncontract:\n")
    digest = out.splitlines()[-1].removeprefix("digest: ")
    assert not (project / ".contextward").exists()
    code, out, err = invoke("brief", "--since", digest)
    assert (code, out, err) == (0, "", f"brief unchanged (digest {digest})\n")
    with Store.open(project) as store:
        store.journal.add("decision", "Use WAL")
    code, out, _ = invoke("brief", "--since", digest, "--json")
    data = json.loads(out)
    assert data["digest"] != digest
    assert "- Use WAL (j-1)" in data["text"]


def test_recall_command_finds_state_decisions(project: Path) -> None:
    from contextward.state import StateProject, record_decision

    record_decision("Use SQLite in WAL mode", why="one file", project=StateProject.open(project))
    Store.open(project).close()
    code, out, _ = invoke("recall", "sqlite")
    assert code == 0
    assert " · decision · owner · " in out.splitlines()[1]
    assert "Use SQLite in WAL mode" in out


def test_recall_json_never_echoes_a_secret_or_a_huge_query(project: Path) -> None:
    secret = "sk-live-0123456789abcdefSECRETVALUE"
    code, out, _ = invoke("recall", f"AKIAIOSFODNN7EXAMPLE {secret}", "--json")
    data = json.loads(out)
    assert code in (0, 1) and "AKIA" not in out and "secretvalue" not in out.lower()
    assert data["query"] == "[secret:aws-access-key] [secret:openai-key]"
    code, out, _ = invoke("recall", "word " * 50_000, "--json")
    assert code in (0, 1) and len(out) < 10_000
    code, out, _ = invoke("recall", "word " * 50_000)  # the text header too
    assert code in (0, 1) and len(out.splitlines()[0]) < 2_000


def test_an_undated_state_decision_has_no_empty_date_field(project: Path) -> None:
    Store.open(project).close()
    (project / "STATE.md").write_text(
        "# State\n\n## Current\n\n## Decisions\n\n- Use WAL for the store\n\n## Log\n"
    )
    code, out, _ = invoke("recall", "wal")
    head = out.splitlines()[1]
    assert code == 0 and head.startswith("state:")
    assert head.split(" · ")[1:] == ["decision", "owner", "STATE.md"]
