"""STATE.md decisions are found by recall, read from the file (no second copy)."""

from __future__ import annotations

from pathlib import Path

from contextward.recall import RecallQuery, recall
from contextward.state import StateProject, read_state, record_decision
from contextward.state.adoption import adopt_journal_decisions
from contextward.state.recall_source import SOURCE
from contextward.store import Store


def test_decisions_are_searchable_and_follow_the_file(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    project = StateProject.open(tmp_path)
    record_decision("Use SQLite in WAL mode", why="one file, stdlib", project=project)
    record_decision("Redis for caching", rejected=True, why="another service", project=project)
    with Store.open(tmp_path) as store:
        hits = recall(store, RecallQuery("sqlite wal")).hits
        assert [(h.ref.startswith("state:"), h.trust, h.text) for h in hits] == [
            (True, "owner", "Use SQLite in WAL mode — one file, stdlib")
        ]
        rejected = recall(store, RecallQuery("redis")).hits
        assert [h.text for h in rejected] == ["[REJECTED] Redis for caching — another service"]
        # A hand edit removes the decision: recall follows the file, nothing stale remains.
        text = project.state_path.read_text().replace("- Use SQLite in WAL mode", "- Use Postgres")
        project.state_path.write_text(text)
        assert recall(store, RecallQuery("sqlite wal")).hits == ()
        assert SOURCE == "state"


def test_owner_journal_decisions_move_once(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    project = StateProject.open(tmp_path)
    with Store.open(tmp_path) as store:
        store.journal.add("decision", "Keep the CLI thin")
        store.journal.add("decision", "Agent idea", provenance="agent")
        store.journal.add("note", "not a decision")
        assert adopt_journal_decisions(store, project) == 1
        assert adopt_journal_decisions(store, project) == 0
    assert [d.text for d in read_state(project).decisions] == ["Keep the CLI thin"]
