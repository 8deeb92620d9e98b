"""The session brief: bounded sections, trust labels, masking and the digest."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from contextward.brief import MAX_CHARS, BriefCaps, brief_if_changed, render_brief
from contextward.guard.loops import record_outcome
from contextward.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    (tmp_path / ".git").mkdir()  # a project root without running git
    s = Store.open(tmp_path)
    yield s
    s.close()


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"CONTEXTWARD_HOME": str(tmp_path / "personal")}


def passing_run(
    store: Store, command: str = "pytest -q", *, ms: int = 900, session_id: str | None = None
) -> None:
    """An evidence row of a passing ``command``."""
    store.evidence.record(
        command=command,
        fingerprint=command,
        streak_key=command,
        cwd=".",
        exit_code=0,
        duration_ms=ms,
        verdict="ok",
        reasons=(),
        digest="",
        output_bytes=0,
        attempt_outcome="success",
        session_id=session_id,
    )


def section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index(f"{title}:") + 1
    out = []
    for line in lines[start:]:
        if not line.startswith(("- ", "(+")):
            break
        out.append(line)
    return out


def test_empty_store_brief_has_seed_contract_and_no_evidence(
    store: Store, env: dict[str, str]
) -> None:
    brief = render_brief(store, env=env)
    assert brief.text.startswith("## contextward brief\ncontract:\n- 01-")
    assert len(section(brief.text, "contract")) == 12
    assert "decisions:" not in brief.text
    assert brief.text.endswith(
        "last evidence: none yet (run `contextward verify -- CMD` before claiming success)"
    )


def test_caps_say_what_they_hid_and_point_at_recall(store: Store, env: dict[str, str]) -> None:
    for n in range(5):
        store.journal.add("decision", f"decision number {n}", tags=["db"] if n == 4 else ())
    brief = render_brief(store, env=env)
    assert section(brief.text, "decisions") == [
        "- decision number 4 [db] (j-5)",
        "- decision number 3 (j-4)",
        "- decision number 2 (j-3)",
        "(+2 more hidden: contextward recall --type decision)",
    ]
    assert brief.hidden == {"decisions": 2}


def test_agent_rows_are_never_rendered_as_trusted(store: Store, env: dict[str, str]) -> None:
    store.journal.add("decision", "Owner decision stands")
    store.journal.add("decision", "Agent decided to drop the tests", provenance="agent")
    store.journal.add("correction", "Agent says ignore the contract", provenance="agent")
    brief = render_brief(store, env=env)
    assert section(brief.text, "decisions") == ["- Owner decision stands (j-1)"]
    title = "agent notes (unverified: written by the agent, not owner authority)"
    assert section(brief.text, title) == [
        "- correction: Agent says ignore the contract (j-3)",
        "- decision: Agent decided to drop the tests (j-2)",
    ]
    assert "corrections:" not in brief.text


def test_agent_text_is_capped_shorter_than_owner_text(store: Store, env: dict[str, str]) -> None:
    store.journal.add("decision", "o" * 500)
    store.journal.add("note", "a" * 500, provenance="agent")
    caps = BriefCaps()
    brief = render_brief(store, env=env, caps=caps)
    assert "o" * (caps.trusted_chars - 1) + "…" in brief.text
    assert "a" * (caps.agent_chars - 1) + "…" in brief.text
    assert "a" * caps.agent_chars not in brief.text


def test_precedents_owner_statements_loops_and_last_evidence(
    store: Store, env: dict[str, str]
) -> None:
    store.journal.add("lesson", "Mock the clock, do not bump the timeout", tags=["auth"])
    store.prompts.record("hello")
    store.prompts.record("Please keep the diff small. Never push to main.")
    record_outcome(store, "pytest -q", 1)
    record_outcome(store, "pytest -q", 1)
    passing_run(store, "npm run check", ms=1440)
    brief = render_brief(store, env=env)
    assert section(brief.text, "precedents") == ["- Mock the clock, do not bump the timeout (j-1)"]
    assert section(brief.text, "owner said") == [
        "- constraint: Never push to main.",
        "- statement: hello",
    ]
    (loop,) = section(brief.text, "open loops")
    assert loop.startswith("- `pytest -q`: failed 2 time(s) in a row")
    assert brief.text.endswith("last evidence: ev-0001 ok exit 0 1440ms `npm run check`")


def test_owner_contract_rows_have_their_own_budget(
    store: Store, env: dict[str, str], tmp_path: Path
) -> None:
    rows = "\n".join(f"- own-{n}: owner rule {n}" for n in range(8))
    (tmp_path / ".contextward" / "contract.md").write_text(f"# contract\n\n## Owner\n{rows}\n")
    lines = section(render_brief(store, env=env).text, "contract")
    assert sum(line.startswith("- 0") or line.startswith("- 1") for line in lines) == 12
    assert [line for line in lines if line.startswith("- own-")] == [
        f"- own-{n}: owner rule {n}" for n in range(2, 8)
    ]
    assert lines[-1] == "(+2 more hidden: contextward contract list)"


def test_secrets_are_masked(store: Store, env: dict[str, str]) -> None:
    token = "ghp_" + "c" * 36
    store.prompts.record(f"I need the deploy to use token {token}")
    brief = render_brief(store, env=env)
    assert token not in brief.text
    assert "[secret:github-token]" in brief.text


def test_digest_is_stable_and_changes_with_content(store: Store, env: dict[str, str]) -> None:
    first = render_brief(store, env=env)
    again = render_brief(store, env=env)
    assert first == again
    assert brief_if_changed(store, first.digest, env=env) is None
    store.journal.add("decision", "Something new")
    changed = brief_if_changed(store, first.digest, env=env)
    assert changed is not None
    assert changed.digest != first.digest
    assert first.changed_since(None)


def test_brief_stays_bounded_with_many_long_rows(store: Store, env: dict[str, str]) -> None:
    for n in range(30):
        store.journal.add("decision", f"{n} " + "x" * 1900)
        store.journal.add("note", f"{n} " + "y" * 1900, provenance="agent")
        store.prompts.record(f"I want {n} " + "z" * 3000)
    brief = render_brief(store, env=env)
    assert len(brief.text) < MAX_CHARS
    assert brief.to_dict()["hidden"] == {
        "decisions": 27,
        "owner_statements": 18,
        "unverified": 28,
    }


def test_hidden_counts_are_bounded_and_say_so(store: Store, env: dict[str, str]) -> None:
    for n in range(101):
        store.journal.add("decision", f"decision {n}")
    lines = section(render_brief(store, env=env).text, "decisions")
    assert lines[-1] == "(+97 or more hidden: contextward recall --type decision)"


def test_without_leaves_out_named_sections(store: Store, env: dict[str, str]) -> None:
    store.prompts.record("Never push to main.")
    store.journal.add("decision", "Use WAL")
    brief = render_brief(store, env=env)
    assert "owner said:" in brief.text
    text = brief.without("owner_statements")
    assert "owner said:" not in text
    assert "- Use WAL (j-1)" in text
    assert text.endswith(brief.text.splitlines()[-1])
    assert brief.without() == brief.text


def test_state_decisions_join_and_moved_journal_rows_are_not_repeated(
    store: Store, env: dict[str, str], tmp_path: Path
) -> None:
    from contextward.state import StateProject, adopt_journal_decisions, record_decision

    project = StateProject.open(tmp_path)
    store.journal.add("decision", "Keep the CLI thin")
    adopt_journal_decisions(store, project)
    record_decision("Redis for caching", rejected=True, why="another service", project=project)
    lines = section(render_brief(store, env=env).text, "decisions")
    assert [line.rsplit(" (", 1)[0] for line in lines] == [
        "- [REJECTED] Redis for caching — another service",
        "- Keep the CLI thin",
    ]
    assert all(line.endswith(")") and "(state:" in line for line in lines)


def test_a_new_session_starts_with_the_owners_standing_words_of_earlier_sessions(
    store: Store, env: dict[str, str]
) -> None:
    store.prompts.record("Never push to main, always open a PR.", session_id="A")
    store.prompts.record("Fix the flaky login test.", session_id="A")
    store.prompts.record("No, use pnpm instead of npm in this repo.", session_id="A")
    store.prompts.record("Never deploy on Fridays.", session_id="A")
    store.prompts.record("Deploying on Fridays is fine now.", session_id="A")
    started = render_brief(store, env=env, session_id="B", earlier_sessions=True)
    # What still binds, newest first; the task of session A and the lifted rule stay behind.
    assert section(started.text, "owner said") == [
        "- correction (earlier session): No, use pnpm instead of npm in this repo.",
        "- constraint (earlier session): Never push to main, always open a PR.",
    ]
    # Within a session (what a prompt's delta compares), only the session's own words.
    assert "owner said:" not in render_brief(store, env=env, session_id="B").text
    store.prompts.record("Keep the PR small.", session_id="B")
    own = render_brief(store, env=env, session_id="B", earlier_sessions=True)
    # The session's own words do not push the standing rules out: those come first.
    assert section(own.text, "owner said") == [
        "- correction (earlier session): No, use pnpm instead of npm in this repo.",
        "- constraint (earlier session): Never push to main, always open a PR.",
        "- want: Keep the PR small.",
    ]


def test_every_standing_rule_of_earlier_sessions_starts_the_next_one(
    store: Store, env: dict[str, str]
) -> None:
    """A walkthrough's new Gemini session was shown two of the owner's four rules, then
    "(+2 more hidden: contextward intent)": "Never push directly to main" was hidden."""
    said = [
        "We're adding a CSV export endpoint to the reports service.",
        "Never push directly to main; always open a PR.",
        "不要改公共 API。",
        "Use Postgres for the export job state.",
        "We ruled out pandas for the CSV writer: it adds 40 MB to the lambda bundle.",
        "Actually use httpx instead of requests.",
        "Switch the export job state from Postgres to SQLite.",
    ]
    for text in said:
        store.prompts.record(text, session_id="A")
    started = render_brief(store, env=env, session_id="B", earlier_sessions=True)
    assert section(started.text, "owner said") == [
        "- correction (earlier session): Actually use httpx instead of requests.",
        "- rejected (earlier session): We ruled out pandas for the CSV writer: it adds 40 MB"
        " to the lambda bundle.",
        "- constraint (earlier session): 不要改公共 API。",
        "- constraint (earlier session): Never push directly to main; always open a PR.",
    ]
    # Their own cap, and the hidden ones counted.
    few = render_brief(
        store, env=env, session_id="B", earlier_sessions=True, caps=BriefCaps(standing=1)
    )
    assert section(few.text, "owner said")[1:] == ["(+3 more hidden: contextward intent)"]


def test_a_standing_rule_said_several_busy_sessions_ago_still_reaches_a_new_session(
    store: Store, env: dict[str, str]
) -> None:
    store.prompts.record("Never push to main, always open a PR.", session_id="A")
    for n, session in enumerate(("B", "C", "D") * 15):
        store.prompts.record(
            f"Look at the failing job number {n} and tell me why.", session_id=session
        )
    started = render_brief(store, env=env, session_id="E", earlier_sessions=True)
    assert section(started.text, "owner said") == [
        "- constraint (earlier session): Never push to main, always open a PR."
    ]


def test_a_new_session_is_told_the_last_evidence_is_an_earlier_sessions(
    store: Store, env: dict[str, str]
) -> None:
    passing_run(store, session_id="A")
    tail = render_brief(store, env=env, session_id="B").text.splitlines()[-1]
    assert tail == (
        "last evidence: ev-0001 ok exit 0 900ms `pytest -q` "
        "(an earlier session: run it again before claiming success)"
    )
    assert render_brief(store, env=env, session_id="A").text.endswith("`pytest -q`")


def test_evidence_older_than_a_file_change_is_marked_stale(
    store: Store, env: dict[str, str], tmp_path: Path
) -> None:
    from contextward.state import StateProject, file_modified

    def run() -> None:
        passing_run(store, session_id="A")

    def tail() -> str:
        return render_brief(store, env=env, session_id="A").text.splitlines()[-1]

    project = StateProject.open(tmp_path)
    file_modified(store, "A", tmp_path / "app.py", project=project)
    run()
    assert tail() == "last evidence: ev-0001 ok exit 0 900ms `pytest -q`"  # changed before
    time.sleep(0.002)  # the store's timestamps are to the millisecond
    for name in ("app.py", "lib.py", "app.py"):
        file_modified(store, "B", tmp_path / name, project=project)
    assert tail() == (
        "last evidence: ev-0001 ok exit 0 900ms `pytest -q` "
        "(stale: 2 file(s) modified since: run it again before claiming success)"
    )
    time.sleep(0.002)
    run()
    assert tail() == "last evidence: ev-0002 ok exit 0 900ms `pytest -q`"


def test_the_hidden_rows_pointer_names_a_recall_that_lists_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from contextward.cli import main

    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "personal"))

    def cli(*args: str) -> str:
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 0, result.stderr
        return result.stdout

    def pointer() -> str:
        last = section(cli("brief"), "decisions")[-1]
        assert last.startswith("(+1 more hidden: contextward recall ")
        return last.split(": ", 1)[1].rstrip(")")

    cli("init")
    cli("decide", "Redis cache", "--rejected", "--why", "another service")
    for n in (1, 2, 3):
        cli("decide", f"decision {n}")
    # The hidden row is the rejected approach: the pointer's recall lists it.
    assert pointer() == "contextward recall --type rejected"
    assert "Redis cache" in cli(*pointer().split()[1:])
    assert "Redis cache" not in cli("recall", "--type", "decision", "--limit", "20")

    cli("decide", "Memcached", "--rejected")  # now one decision and one rejected are hidden
    last = section(cli("brief"), "decisions")[-1]
    assert last == "(+2 more hidden: contextward recall --type decision (and --type rejected))"
