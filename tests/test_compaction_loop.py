"""The compaction loop in the store: snapshot kept, check stored, restore until preserved."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.brief import render_brief
from contextward.brief.restore import RestorePlan, plan_restore, render_restore
from contextward.cli import main
from contextward.cli.compaction_cmds import restored_items
from contextward.compaction import capture, check_summary, messages_since_compaction, summary_text
from contextward.core import ContextItem
from contextward.inspect import Message
from contextward.state import StateProject, record_decision
from contextward.store import Store
from contextward.store.contract import add_constraint

CONVERSATION = [
    Message("u1", "user", "Goal: ship OAuth login for the billing service."),
    Message("u2", "user", "Never push to main; open a PR instead."),
    Message("a1", "assistant", "Decision: store OAuth links in PostgreSQL, table oauth_accounts."),
]
KEPT_ALL = (
    "Goal: ship OAuth login for the billing service. Never push to main; open a PR instead. "
    "Decision: store OAuth links in PostgreSQL, table oauth_accounts."
)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return Store.open(tmp_path)


def _next_session(store: Store, ended: str, new: str) -> None:
    """Session ``ended`` ends (its host said so), then session ``new`` starts."""
    store.sessions.start(ended)
    store.sessions.end(ended)
    store.sessions.start(new)


def test_a_lost_item_stays_in_the_brief_until_a_check_finds_it_preserved(store: Store) -> None:
    taken = capture(store, CONVERSATION, session_id="s")
    assert "Never push to main; open a PR instead." in taken.guidance
    outcome = check_summary(
        store, "Goal: ship OAuth login for the billing service.", session_id="s"
    )
    assert outcome is not None and not outcome.report.ok
    plan = plan_restore(store, session_id="s")
    assert plan.checked and {i.content for i in plan.items} == {
        "Never push to main; open a PR instead.",
        "Decision: store OAuth links in PostgreSQL, table oauth_accounts.",
    }
    assert "Never push to main; open a PR instead." in render_brief(store).text
    check_summary(store, KEPT_ALL, session_id="s")
    assert plan_restore(store, session_id="s").items == ()
    assert "still in force" not in render_brief(store).text


def test_a_changed_item_is_restored_with_its_status(store: Store) -> None:
    capture(store, CONVERSATION, session_id="s")
    check_summary(
        store, KEPT_ALL.replace("Never push to main", "Pushing to main is fine"), session_id="s"
    )
    block = render_restore(plan_restore(store, session_id="s"))
    assert "- [constraint] (changed) Never push to main; open a PR instead." in block


def test_without_a_check_every_critical_item_is_restored(store: Store) -> None:
    capture(store, CONVERSATION, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert not plan.checked and len(plan.items) == 3
    assert "could not be checked" in render_restore(plan)


def test_the_project_record_joins_the_snapshot(store: Store) -> None:
    assert store.root is not None
    add_constraint(store.root, "Emails go through the outbox service only.")
    record_decision("Use pnpm, not npm.", project=StateProject.open(store.root))
    taken = capture(store, CONVERSATION, session_id="s")
    contents = {i.content: i.critical for i in taken.snapshot.items}
    assert contents["Emails go through the outbox service only."] is True
    assert any("Use pnpm, not npm." in c for c in contents)
    assert "Emails go through the outbox service only." in taken.guidance


def test_a_second_compaction_keeps_what_the_first_summary_dropped(store: Store) -> None:
    capture(store, CONVERSATION, session_id="s")
    after = [
        Message("c1", "user", "Goal: ship OAuth login.", summary=True),
        Message("u9", "user", "go on"),
    ]
    taken = capture(store, after, session_id="s")
    assert "Never push to main; open a PR instead." in {i.content for i in taken.snapshot.items}


@pytest.mark.parametrize(
    ("rule", "flipped"),
    [("Never push to main.", "Pushing to main is fine."), ("不要改公共 API", "可以改公共 API。")],
)
def test_a_summary_that_flipped_an_owner_rule_is_never_carried_as_the_owners_word(
    store: Store, rule: str, flipped: str
) -> None:
    said = [
        Message("u1", "user", "We need a CSV export for the reports service."),
        Message("u2", "user", rule),
    ]
    capture(store, said, session_id="s")
    summary = f"1. Primary Request and Intent:\n   The user wants a CSV export. {flipped}\n"
    check_summary(store, summary, session_id="s")
    second = [
        Message("c1", "user", summary, summary=True),
        Message("a1", "assistant", "Working on the export now."),
    ]
    taken = capture(store, second, session_id="s")
    # The owner's rule is carried; the summary's flip of it is dropped, not a [goal].
    contents = {i.content for i in taken.snapshot.items}
    assert rule in contents and flipped not in contents
    must = taken.guidance.split("Can discard")[0]
    assert flipped not in must and rule in taken.guidance
    check_summary(store, "The user wants a CSV export.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert rule in block and flipped not in block


def test_a_carried_decision_the_owner_switched_from_is_not_restored(store: Store) -> None:
    sqs = "Drop the redis idea, we'll use SQS for the export job queue instead."
    first = [Message("u1", "user", "We need a CSV export."), Message("u2", "user", sqs)]
    capture(store, first, session_id="s")
    check_summary(store, "CSV export for the reports service.", session_id="s")
    switch = "Switch the export job queue from SQS to Kafka, ops already runs a Kafka cluster."
    second = [
        Message("c1", "user", "CSV export for the reports service.", summary=True),
        Message("u3", "user", switch),
    ]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert sqs not in contents and switch in contents
    check_summary(store, "CSV export. The export job queue uses Kafka.", session_id="s")
    assert sqs not in render_restore(plan_restore(store, session_id="s"))


def test_a_decision_the_owner_replaced_after_a_compaction_is_not_restored(store: Store) -> None:
    first = [
        Message("u1", "user", "Goal: a nightly export of the orders."),
        Message("u2", "user", "Use SQLite for the job queue."),
    ]
    capture(store, first, session_id="s")
    check_summary(store, "Goal: a nightly export of the orders.", session_id="s")
    # The summary dropped the SQLite decision; after it the owner replaces that decision.
    second = [
        Message("c1", "user", "Goal: a nightly export of the orders.", summary=True),
        Message("u3", "user", "Actually, use Postgres for the job queue instead of SQLite."),
    ]
    taken = capture(store, second, session_id="s")
    contents = {i.content for i in taken.snapshot.items}
    assert "Use SQLite for the job queue." not in contents
    assert "Actually, use Postgres for the job queue instead of SQLite." in contents
    check_summary(store, "Goal: a nightly export. Postgres holds the job queue.", session_id="s")
    assert "SQLite for the job queue." not in render_restore(plan_restore(store, session_id="s"))


@pytest.mark.parametrize("turns", [0, 10, 40])
def test_a_decision_a_summary_kept_and_the_owner_replaced_later_is_not_carried(
    store: Store, turns: int
) -> None:
    kept = "Goal: build the invoice export. Use MySQL for the invoice store."
    capture(store, [Message("u1", "user", kept)], session_id="s")
    check_summary(store, kept, session_id="s")
    second = [Message("c1", "user", kept, summary=True)]
    for n in range(turns):  # ordinary work between the summary and the change
        second += [
            Message(f"a{n}", "assistant", f"Edited exporter/part_{n}.py; the tests pass."),
            Message(f"u{n}", "user", "next"),
        ]
    change = "Actually, use PostgreSQL for the invoice store instead of MySQL."
    second.append(Message("u9", "user", change))
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert "Use MySQL for the invoice store." not in contents and change in contents


def test_a_summarys_own_replacement_never_retires_the_owners_decision(store: Store) -> None:
    capture(store, [Message("u1", "user", "Use MySQL for the token store.")], session_id="s")
    made_up = "Decision: use PostgreSQL for the token store instead of MySQL."
    check_summary(store, made_up, session_id="s")
    second = [Message("c1", "user", made_up, summary=True), Message("u2", "user", "go on")]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert "Use MySQL for the token store." in contents


def test_a_rule_the_owner_lifted_after_a_compaction_is_not_carried(store: Store) -> None:
    rule = "Never push to main; open a PR instead."
    capture(
        store,
        [Message("u1", "user", "Goal: ship the export."), Message("u2", "user", rule)],
        session_id="s",
    )
    check_summary(store, "Goal: ship the export.", session_id="s")
    second = [
        Message("c1", "user", "Goal: ship the export.", summary=True),
        Message("u3", "user", "Pushing to main is fine now."),
    ]
    assert rule not in {i.content for i in capture(store, second, session_id="s").snapshot.items}


def test_the_assistants_own_replaced_plan_is_not_carried_but_the_owners_rule_is(
    store: Store,
) -> None:
    first = [
        Message("u1", "user", "Goal: cache the catalogue pages."),
        Message("a1", "assistant", "I'll use memcached for the page cache."),
        Message("u2", "user", "Never push to main."),
    ]
    taken = capture(store, first, session_id="s")
    plan = next(i.id for i in taken.snapshot.items if "memcached" in i.content)
    assert taken.record.data["assistant_items"] == [plan]
    check_summary(store, "Goal: cache the catalogue pages.", session_id="s")
    switch = "Switching the page cache to Redis instead of memcached, since we run Redis."
    second = [
        Message("c1", "user", "Goal: cache the catalogue pages.", summary=True),
        Message("a2", "assistant", switch),
        # The assistant's word never retires what the owner said.
        Message("a3", "assistant", "Pushing to main is fine for this fix."),
    ]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert "I'll use memcached for the page cache." not in contents
    assert {switch, "Never push to main."} <= contents


def test_a_carried_item_of_the_agent_keeps_its_mark_in_the_next_guidance(store: Store) -> None:
    """A walkthrough saw `[decision, agent]` in the first guidance and a plain `[decision]`
    for the same carried item in the second, presented as if the owner had said it."""
    plan = "I'll use memcached for the page cache."
    first = [
        Message("u1", "user", "Goal: cache the catalogue pages."),
        Message("a1", "assistant", plan),
        Message("u2", "user", "Never push to main."),
    ]
    assert f"[decision, agent] {plan}" in capture(store, first, session_id="s").guidance
    check_summary(store, "Goal: cache the catalogue pages.", session_id="s")
    second = [
        Message("c1", "user", "Goal: cache the catalogue pages.", summary=True),
        Message("u3", "user", "Add a purge endpoint too."),
    ]
    guidance = capture(store, second, session_id="s").guidance
    assert f"- [decision, agent] {plan}" in guidance
    assert "- [constraint] Never push to main." in guidance


def test_a_count_of_tries_changed_in_other_words_after_a_compaction_is_not_carried(
    store: Store,
) -> None:
    """A walkthrough's "Retry at most 3 times." came back as still holding after the owner
    said "Make it 5 retries." in the next segment: times and retries were two units."""
    goal = "Goal: migrate the invoice service to Python 3.12."
    capture(
        store,
        [
            Message("u1", "user", goal),
            Message("u2", "user", "Use 4 workers. Retry at most 3 times."),
        ],
        session_id="s",
    )
    check_summary(store, goal, session_id="s")
    second = [
        Message("c1", "user", goal, summary=True),
        Message("u3", "user", "Actually use 2 workers instead of 4."),
        Message("u4", "user", "Make it 5 retries."),
    ]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert "Retry at most 3 times." not in contents and "Make it 5 retries." in contents
    check_summary(store, goal, session_id="s")
    restored = {i.content for i in plan_restore(store, session_id="s").items}
    assert restored == {"Actually use 2 workers instead of 4.", "Make it 5 retries."}


def test_sessions_never_mix_and_a_busy_store_keeps_each_sessions_check(store: Store) -> None:
    capture(store, CONVERSATION, session_id="a")
    check_summary(store, "Goal: ship OAuth login for the billing service.", session_id="a")
    # A session without a snapshot of its own gets nothing, and checks nothing.
    assert plan_restore(store, session_id="c").items == ()
    assert check_summary(store, KEPT_ALL, session_id="c") is None
    # Many checks of another session since: a's own check is still found.
    capture(store, [Message("u1", "user", "Do not touch the legacy Perl scripts.")], session_id="b")
    for _ in range(60):
        check_summary(store, "Working on the Perl scripts.", session_id="b")
    plan = plan_restore(store, session_id="a")
    assert plan.checked and "Never push to main; open a PR instead." in {
        i.content for i in plan.items
    }


def test_a_restore_block_passed_back_in_is_not_read_as_anyones_word(store: Store) -> None:
    from contextward.brief import restore as restore_block
    from contextward.brief import session_brief, state_block
    from contextward.inspect import guidance, inspect_messages
    from contextward.inspect.message import own_block

    capture(store, CONVERSATION, session_id="s")
    check_summary(store, "Goal: ship OAuth login for the billing service.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    result = inspect_messages(
        [Message("r", "user", block), Message("s", "system", f"  {block}"), *CONVERSATION]
    )
    assert result.skipped == {"contextward_injection": 2}
    assert not any("(lost)" in c.content for c in result.candidates)
    # Every block contextward writes is known by how it begins.
    for header in (
        restore_block.HEADER,
        guidance.HEADER,
        session_brief.HEADER,
        state_block.HEADER,
        render_restore(RestorePlan((CONVERSATION_ITEM,), 1, False, {})),
    ):
        assert own_block(header), header


CONVERSATION_ITEM = ContextItem("c1", "constraint", "Never push to main.", True)


def test_a_long_segments_guidance_leaves_room_for_the_carried_owners_rule(store: Store) -> None:
    def decisions(prefix: str, text: str, count: int) -> list[Message]:
        return [Message(f"{prefix}{n}", "assistant", text.format(n=n)) for n in range(count)]

    rule = "Never push to main; open a PR instead."
    table = "Decision: table audit_{n} keeps its rows for 90 days, then moves to cold storage."
    first = [*decisions("x", table, 30), Message("u1", "user", rule)]
    capture(store, first, session_id="s")
    check_summary(store, "Working on the nightly export.", session_id="s")  # drops them all
    batch = (
        "Decision: batch {n} of the nightly export goes to ledger shard {n} in eu-west-1, "
        "written through the bulk loader with a 30-second statement timeout and retries."
    )
    taken = capture(store, decisions("a", batch, 200), session_id="s")
    assert len(taken.guidance) <= 9000
    record = taken.guidance.split("Also preserve verbatim (the project's standing record):")[1]
    # The owner's rule comes first in the record, and the record has room left for it.
    assert record.splitlines()[1] == f"- [constraint] {rule}"
    assert "more not listed" in taken.guidance  # the segment's own items gave way


def test_a_full_restore_block_states_the_rules_before_the_decisions() -> None:
    from contextward.core import ContextItem

    decisions = tuple(
        ContextItem(f"d{n}", "decision", f"Decision {n}: shard the export by region {n}.", True)
        for n in range(300)
    )
    rule = ContextItem("contract:1", "constraint", "Never push to main.", True)
    plan = RestorePlan((*decisions, rule), 1, True, {})
    block = render_restore(plan)
    assert block.splitlines()[1] == "- [constraint] Never push to main."
    assert "more not shown" in block and "Decision 0:" in block


def test_messages_since_the_last_summary() -> None:
    older = Message("o", "user", "old")
    summary = Message("s", "user", "summary", summary=True)
    newer = Message("n", "user", "new")
    assert [m.id for m in messages_since_compaction([older, summary, newer])] == ["s", "n"]
    assert [m.id for m in messages_since_compaction([older, newer])] == ["o", "n"]


def test_summary_text_takes_the_summary_block() -> None:
    assert summary_text("<analysis>a</analysis>\n<summary>kept</summary>") == "kept"
    assert summary_text("plain text") == "plain text"


def test_compact_test_and_restore_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    transcript = tmp_path / "t.json"
    transcript.write_text('[{"role": "user", "content": "Never push to main."}]')
    summary = tmp_path / "s.md"
    summary.write_text("We fixed the login page.")
    result = CliRunner().invoke(main, ["compact-test", str(transcript), "--summary", str(summary)])
    assert result.exit_code == 1
    assert "- [constraint] (lost) Never push to main." in result.stdout
    assert not (tmp_path / ".contextward").exists()  # a test run writes nothing
    result = CliRunner().invoke(
        main, ["compact-test", str(tmp_path / "nope"), "--summary", str(summary)]
    )
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    (tmp_path / "blank.md").write_text("\n  \n")
    result = CliRunner().invoke(
        main, ["compact-test", str(transcript), "--summary", str(tmp_path / "blank.md")]
    )
    assert result.exit_code == 2 and "blank.md: empty (nothing to check)" in result.stderr
    assert CliRunner().invoke(main, ["restore"]).stdout == "nothing to restore\n"


def test_compact_test_runs_provider_mode_from_an_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.chdir(tmp_path)
    new = "the partner endpoints are flaky, so allow 8 attempts."
    transcript = tmp_path / "t.json"
    transcript.write_text(
        json.dumps(
            [
                {"role": "user", "content": "Never push to main."},
                {"role": "user", "content": new},
            ]
        )
    )
    summary = tmp_path / "s.md"
    summary.write_text("Never push to main.")
    answer = tmp_path / "a.json"
    answer.write_text(
        json.dumps({"candidates": [{"kind": "requirement", "content": new, "source": "m2"}]})
    )
    args = ["compact-test", str(transcript), "--summary", str(summary), "--json"]
    rules = json.loads(CliRunner().invoke(main, args).stdout)
    provider = json.loads(CliRunner().invoke(main, [*args, "--answer", str(answer)]).stdout)
    # The model reads the owner's new limit as a requirement: critical, so restored.
    assert new not in [item["content"] for item in rules["restore"]]
    assert new in [item["content"] for item in provider["restore"]]
    assert {item["status"] for item in provider["restore"]} == {"lost"}
    bad = CliRunner().invoke(main, [*args, "--answer", str(tmp_path / "none.json")])
    assert bad.exit_code == 2 and bad.stderr.count("\n") == 1
    # walk12 #13: the inspection says, as inspect --json does, whether the answer was used.
    assert rules["inspection"] == {
        "mode": "rules",
        "messages": 2,
        "counts": rules["inspection"]["counts"],
    }
    assert provider["inspection"]["mode"] == "provider"
    assert "fallback_reason" not in provider["inspection"]
    (tmp_path / "prose.txt").write_text("I could not find anything worth keeping.")
    fell_back = json.loads(
        CliRunner().invoke(main, [*args, "--answer", str(tmp_path / "prose.txt")]).stdout
    )
    assert fell_back["inspection"]["mode"] == "rules"
    assert fell_back["inspection"]["fallback_reason"]


def test_a_choice_the_owner_pointed_elsewhere_after_a_compaction_is_not_carried(
    store: Store,
) -> None:
    choice = "Use SQLite for the invoice store."
    first = [
        Message("u1", "user", "Goal: ship the invoices export."),
        Message("u2", "user", choice),
    ]
    capture(store, first, session_id="s")
    check_summary(store, "Goal: ship the invoices export.", session_id="s")
    second = [
        Message("c1", "user", "Goal: ship the invoices export.", summary=True),
        Message("u3", "user", "Switch the invoice store to PostgreSQL."),
    ]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert choice not in contents
    assert "Switch the invoice store to PostgreSQL." in contents


LOGGING = [
    Message("u1", "user", "Build the shop backend. Never push to main."),
    Message("u2", "user", "Use loguru for logging in the worker."),
    Message("a1", "assistant", "Added loguru to worker/main.py."),
    # A replacement with no cue word: supersession keeps both statements current.
    Message(
        "u3",
        "user",
        "Logging in the worker must go through structlog; the platform expects its JSON.",
    ),
]
FOLLOWED = (
    "Goal: build the shop backend; never push to main. Logging in the worker must go "
    "through structlog, since the platform expects its JSON."
)


def test_an_item_the_summary_replaced_as_the_owner_later_did_is_not_restated(
    store: Store,
) -> None:
    taken = capture(store, LOGGING, session_id="s")
    assert "Use loguru for logging in the worker." in {i.content for i in taken.snapshot.items}
    check_summary(store, FOLLOWED, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert plan.items == ()
    assert [(old.content, new.content) for old, new in plan.replaced] == [
        ("Use loguru for logging in the worker.", LOGGING[3].text)
    ]
    assert render_restore(plan) == ""  # nothing is said to "still hold"
    # A summary that lost the rule too restates the rule, and says what it left out.
    check_summary(store, FOLLOWED.replace("never push to main", "push freely"), session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert "Never push to main" in block and "loguru" not in block
    assert "(1 item not restated: replaced by a later statement of the session" in block


def test_a_replacement_is_seen_where_the_later_word_stands_and_by_the_value_it_moves(
    store: Store,
) -> None:
    """A walkthrough's faithful summary of the README's own example restated "Use loguru"
    (placed by a tie on the summary's goal line, apart from the structlog line) and "Set
    the batch size to 500." (the later word shares only the value with it)."""
    said = [
        Message("u1", "user", "Goal: add structured logging to the ingest worker."),
        Message("u2", "user", "Use loguru for logging in the worker."),
        Message(
            "u3",
            "user",
            "Logging in the worker must go through structlog, as the platform team says.",
        ),
        Message("u4", "user", "Set the batch size to 500."),
        Message("u5", "user", "hmm, 500 is too big for the staging box, go with 100."),
    ]
    capture(store, said, session_id="s")
    summary = (
        "Goal: add structured logging to the ingest worker.\n"
        "Logging in the worker must go through structlog, as the platform team says.\n"
        "The batch size is 100 (500 was too big for the staging box)."
    )
    check_summary(store, summary, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert plan.items == ()
    assert [(old.content, new.content) for old, new in plan.replaced] == [
        ("Set the batch size to 500.", said[4].text),
        ("Use loguru for logging in the worker.", said[2].text),
    ]
    # A summary that went back to the old value, or lost the new one, restores the new one.
    for wrong in (summary.replace("is 100", "is 500"), summary.split("\nThe batch", 1)[0]):
        check_summary(store, wrong, session_id="s")
        assert "go with 100" in render_restore(plan_restore(store, session_id="s"))


@pytest.mark.parametrize(
    "later",
    [
        # The agent's word never retires the owner's.
        Message("a2", "assistant", "Logging in the worker must go through structlog now."),
        # A rejected approach is no replacement.
        Message("u3", "user", "We rejected structlog for logging in the worker: too slow."),
    ],
)
def test_a_later_statement_without_the_authority_to_replace_never_hides_an_item(
    store: Store, later: Message
) -> None:
    capture(store, [*LOGGING[:3], later], session_id="s")
    check_summary(store, FOLLOWED, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert "Use loguru for logging in the worker." in {i.content for i in plan.items}
    assert plan.replaced == ()


def test_an_earlier_statement_the_summary_went_back_to_never_hides_the_later_one(
    store: Store,
) -> None:
    reverted = [LOGGING[0], LOGGING[3], LOGGING[2], LOGGING[1]]  # loguru is the later word
    capture(store, reverted, session_id="s")
    check_summary(store, FOLLOWED, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert "Use loguru for logging in the worker." in {i.content for i in plan.items}


def test_the_restore_command_lists_what_it_did_not_restate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps([{"role": m.role, "content": m.text} for m in LOGGING]))
    summary = tmp_path / "s.md"
    summary.write_text(FOLLOWED)
    args = ["compact-test", str(transcript), "--summary", str(summary)]
    result = CliRunner().invoke(main, args)
    assert "Not restated: replaced by a later statement" in result.stdout
    assert "  later: [requirement] Logging in the worker must go through structlog" in result.stdout
    data = json.loads(CliRunner().invoke(main, [*args, "--json"]).stdout)
    assert data["restore"] == []
    assert [r["item"]["content"] for r in data["replaced_later"]] == [LOGGING[1].text]


def test_a_summary_saying_the_owner_replaced_an_item_is_believed_when_the_owner_did(
    store: Store,
) -> None:
    said = [
        Message("u1", "user", "Build the shop backend."),
        Message("u2", "user", "Use mongo for the event log."),
        Message("u3", "user", "nah, keep the event log in postgres, we already run it."),
    ]
    summary = "Goal: build the shop backend. The event log lives in Postgres (jsonb), not mongo."
    capture(store, said, session_id="s")
    check_summary(store, summary, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert [old.content for old, _ in plan.replaced] == ["Use mongo for the event log."]
    # The same summary with no such word from the owner is a summary error: restated.
    capture(store, said[:2], session_id="t")
    check_summary(store, summary, session_id="t")
    plan = plan_restore(store, session_id="t")
    assert [i.content for i in plan.items] == ["Use mongo for the event log."]
    assert plan.replaced == ()


def test_a_goal_is_never_read_as_replaced(store: Store) -> None:
    goal = [
        Message("u1", "user", "Goal: a nightly export of the orders to S3."),
        Message("u2", "user", "The nightly export of the orders goes to GCS."),
    ]
    capture(store, goal, session_id="s")
    check_summary(store, "The nightly export of the orders goes to GCS.", session_id="s")
    plan = plan_restore(store, session_id="s")
    assert [i.kind for i in plan.items] == ["goal"] and plan.replaced == ()


@pytest.mark.parametrize(
    ("said", "summary"),
    [
        (
            ["给导出接口加分页，每页 50 条。", "每页改成 200 条吧，前端要一次拉多一点。"],
            "任务：导出接口分页，每页 200 条（原来 50 条，前端要一次拉多一点）。",
        ),
        (
            [
                "Add retries to the webhook sender: 3 attempts with exponential backoff.",
                "make it 7 attempts",
            ],
            "Task: webhook sender retries, now 7 attempts (raised from 3), exponential backoff.",
        ),
    ],
)
def test_a_goal_whose_detail_changed_is_restated_with_the_change_beside_it(
    store: Store, said: list[str], summary: str
) -> None:
    messages = [Message(f"u{n}", "user", text) for n, text in enumerate(said)]
    capture(store, messages, session_id="s")
    check_summary(store, summary, session_id="s")
    plan = plan_restore(store, session_id="s")
    (goal,) = plan.items
    assert goal.content == said[0] and plan.replaced == ()
    assert plan.since[goal.id].content == said[1]
    assert render_restore(plan).splitlines()[1].endswith(f'(since changed by: "{said[1]}")')
    # A summary that kept the old detail is an error about the change, not about the goal.
    capture(store, messages, session_id="t")
    check_summary(store, summary.replace("200", "50").replace("7", "3"), session_id="t")
    assert plan_restore(store, session_id="t").since == {}


def test_a_later_statement_about_another_thing_never_hides_an_item(store: Store) -> None:
    timeouts = [
        Message("u1", "user", "Build the shop backend."),
        Message("u2", "user", "The payments service timeout must be 30 seconds."),
        Message("u3", "user", "The search service timeout must be 10 seconds."),
    ]
    capture(store, timeouts, session_id="s")
    wrong = (
        "Goal: build the shop backend. The payments service timeout must be 10 seconds. "
        "The search service timeout must be 10 seconds."
    )
    check_summary(store, wrong, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert [i.content for i in plan.items] == [timeouts[1].text] and plan.replaced == ()


def test_compact_test_says_why_a_failed_check_restores_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    transcript = tmp_path / "t.json"
    said = [
        {"role": "user", "content": "Build the export; ship it on Friday."},
        {"role": "assistant", "content": "The export job takes about 4 minutes on staging."},
    ]
    transcript.write_text(json.dumps(said))
    summary = tmp_path / "s.md"
    summary.write_text("Goal: build the export and ship it on Friday.")
    result = CliRunner().invoke(main, ["compact-test", str(transcript), "--summary", str(summary)])
    assert "result: NOT OK" in result.stdout
    assert "nothing to restore: what the summary lost or changed is not critical" in result.stdout
    assert "kept every critical item" not in result.stdout


def test_a_carried_value_the_owner_raised_in_the_next_segment_is_not_restored(
    store: Store,
) -> None:
    first = [
        Message("u1", "user", "We're building the reservations API; goal: beta on March 3."),
        Message("u2", "user", "Set the booking rate limit to 5 requests per minute per IP."),
    ]
    capture(store, first, session_id="s")
    kept = (
        "Goal: reservations API, beta on March 3. Booking rate limit: 5 requests per minute per IP."
    )
    check_summary(store, kept, session_id="s")
    second = [
        Message("c1", "user", kept, summary=True),
        Message(
            "u3",
            "user",
            "Booking rate limit: 20 per minute per IP, the 5 was hurting group bookings.",
        ),
    ]
    taken = capture(store, second, session_id="s")
    assert "Set the booking rate limit to 5 requests per minute per IP." not in taken.guidance
    check_summary(store, "Booking rate limit is 20 requests per minute per IP.", session_id="s")
    assert "5 requests" not in render_restore(plan_restore(store, session_id="s"))


def test_the_restore_block_says_which_items_are_the_agent_s_word(store: Store) -> None:
    capture(store, CONVERSATION, session_id="s")
    check_summary(store, "Goal: ship OAuth login for the billing service.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert "- [constraint] (lost) Never push to main; open a PR instead." in block
    assert (
        "(lost; the agent's word, not the owner's) Decision: store OAuth links in PostgreSQL"
        in block
    )


def test_a_terse_item_is_restored_with_what_it_replaced(store: Store) -> None:
    said = [
        Message("u1", "user", "Build the export worker."),
        Message("u2", "user", "Set the DB pool size to 10."),
        Message("a1", "assistant", "Done."),
        Message("u3", "user", "Bump it to 20."),
    ]
    capture(store, said, session_id="s")
    check_summary(store, "Goal: build the export worker.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert '(lost) Bump it to 20. (in place of: "Set the DB pool size to 10.")' in block
    assert "- [decision] (lost) Set the DB pool size to 10." not in block  # not restated itself


SUMMARY_OF_DECISIONS = (
    "The user is adding a CSV export endpoint. Decisions: export job state in Postgres; "
    "HTTP client is requests; 导出文件用 UTF-8 编码。"
)


def test_a_terse_item_quotes_the_carried_owner_item_it_replaced(store: Store) -> None:
    """ "Actually use httpx instead of requests." replaces the owner's "Use requests for
    the HTTP client." (carried from the last snapshot) and the summary's sentence about
    three things: the restore quotes the owner's item, never the summary's sentence."""
    first = [
        Message("u1", "user", "We're adding a CSV export endpoint to the reports service."),
        Message("u2", "user", "Use Postgres for the export job state."),
        Message("u3", "user", "Use requests for the HTTP client."),
    ]
    capture(store, first, session_id="s")
    check_summary(store, SUMMARY_OF_DECISIONS, session_id="s")
    second = [
        Message("c1", "user", SUMMARY_OF_DECISIONS, summary=True),
        Message("u4", "user", "Actually use httpx instead of requests."),
    ]
    capture(store, second, session_id="s")
    check_summary(store, "The user is adding a CSV export endpoint.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert (
        '(lost) Actually use httpx instead of requests. (in place of: "Use requests for the '
        'HTTP client.")' in block
    )


def test_a_terse_item_that_replaced_only_a_summary_sentence_quotes_nothing(store: Store) -> None:
    said = [
        Message("c1", "user", SUMMARY_OF_DECISIONS, summary=True),
        Message("u1", "user", "Actually use httpx instead of requests."),
    ]
    capture(store, said, session_id="s")
    check_summary(store, "The user is adding a CSV export endpoint.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert "(lost) Actually use httpx instead of requests." in block
    assert "in place of" not in block


def test_a_later_setting_of_another_thing_never_explains_a_summary_error(store: Store) -> None:
    said = [
        Message("u1", "user", "做一个订单服务。"),
        Message("u2", "user", "接口超时设成 5 秒。"),
        Message("a1", "assistant", "好的。"),
        Message("u3", "user", "数据库连接超时设成 3 秒。"),
    ]
    capture(store, said, session_id="s")
    check_summary(
        store, "做一个订单服务。接口超时改为 3 秒，与数据库连接超时一致。", session_id="s"
    )
    plan = plan_restore(store, session_id="s")
    assert "接口超时设成 5 秒。" in [i.content for i in plan.items] and plan.replaced == ()


def test_restore_json_gives_a_goal_the_statement_that_changed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    said = ["给导出接口加分页，每页 50 条。", "每页改成 200 条吧，前端要一次拉多一点。"]
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps([{"role": "user", "content": text} for text in said]))
    summary = tmp_path / "s.md"
    summary.write_text(
        "任务：导出接口分页，每页 200 条（原来 50 条，前端要一次拉多一点）。", encoding="utf-8"
    )
    args = ["compact-test", str(transcript), "--summary", str(summary), "--json"]
    (goal,) = json.loads(CliRunner().invoke(main, args).stdout)["restore"]
    assert (goal["content"], goal["since"]["content"]) == tuple(said)


def test_a_rule_the_owner_made_an_exception_to_is_restated_with_the_leave_beside_it(
    store: Store,
) -> None:
    said = [
        Message("u1", "user", "We're hardening the billing service before launch."),
        Message("u2", "user", "Do not add any new dependencies to the project."),
        Message("u3", "user", "You can add pydantic, it's fine, the security team approved it."),
    ]
    capture(store, said, session_id="s")
    check_summary(
        store,
        "Task: harden the billing service before launch. No new dependencies, except "
        "pydantic, which the security team approved.",
        session_id="s",
    )
    plan = plan_restore(store, session_id="s")
    (rule,) = plan.items
    assert rule.content == said[1].text and plan.replaced == ()
    assert render_restore(plan).splitlines()[1].endswith(f'(since allowed: "{said[2].text}")')
    # An exception the owner never gave is a summary error: the rule alone, restated.
    capture(store, said[:2], session_id="t")
    check_summary(store, "No new dependencies, except requests.", session_id="t")
    plan = plan_restore(store, session_id="t")
    assert said[1].text in {i.content for i in plan.items} and plan.since == {}


def test_the_restore_block_hands_the_model_words_only(store: Store) -> None:
    """Forced fix: an escape sequence and a bidi override in an item reached the model
    through the bridge's and Codex's restore block (the CLI cleaned them)."""
    rule = "Never push to \x1b[31mmain\x1b[0m; \u202eopen a PR\u202c first.\u200b"
    capture(store, [Message("u1", "user", rule)], session_id="s")
    check_summary(store, "Nothing about it.", session_id="s")
    text = render_restore(plan_restore(store, session_id="s"))
    assert "Never push to main; open a PR first." in text
    assert not any(ch in text for ch in "\x1b\u202e\u202c\u200b")


def test_a_rule_in_the_contract_and_in_the_session_is_one_item(store: Store) -> None:
    assert store.root is not None
    add_constraint(store.root, "Never push to main")
    said = [
        Message("u1", "user", "Goal: ship the export."),
        Message("u2", "user", "Never push to main."),
    ]
    taken = capture(store, said, session_id="s")
    rules = [i for i in taken.snapshot.items if "push to main" in i.content.lower()]
    assert [(i.content, i.critical) for i in rules] == [("Never push to main.", True)]
    check_summary(store, "Goal: ship the export.", session_id="s")
    assert render_restore(plan_restore(store, session_id="s")).count("push to main") == 1


def test_an_owner_message_a_summary_quotes_is_replaced_by_a_later_quote(store: Store) -> None:
    said = [
        "Never push directly to main; always open a PR.",
        "Use Postgres for the export job state.",
        "Use requests for the HTTP client.",
        "Switch the export job state from Postgres to SQLite.",
        "Actually use httpx instead of requests.",
    ]
    summary = "6. All user messages:\n" + "".join(f'   - "{text}"\n' for text in said)
    capture(store, [Message("u0", "user", "Build the CSV export.")], session_id="s")
    second = [Message("c1", "user", summary, summary=True), Message("u9", "user", "go on")]
    taken = capture(store, second, session_id="s")
    contents = {i.content for i in taken.snapshot.items}
    # What the owner replaced, quoted by the summary, is not kept as the owner's word.
    assert "Use Postgres for the export job state." not in contents
    assert "Use requests for the HTTP client." not in contents
    assert "Actually use httpx instead of requests." in contents
    must = taken.guidance.split("Can discard")[0]
    assert "Use Postgres" not in must and "Use requests" not in must


def test_a_new_session_is_shown_the_last_sessions_goal_open_work_and_decisions(
    store: Store,
) -> None:
    conversation = [
        *CONVERSATION,
        Message("u3", "user", "Use Postgres for the sessions table too."),
        Message("a2", "assistant", "Still open: fix the redirect URI in auth/callback.py."),
    ]
    capture(store, conversation, session_id="A")
    # The summary lost the rule and kept the rest: the rule is restored, the rest was
    # left to the summary, which a new session never sees.
    check_summary(
        store,
        "Goal: ship OAuth login for the billing service. Decision: store OAuth links in "
        "PostgreSQL, table oauth_accounts. Use Postgres for the sessions table too. "
        "Still open: fix the redirect URI in auth/callback.py.",
        session_id="A",
    )
    _next_session(store, "A", "B")
    text = render_brief(store, session_id="B", earlier_sessions=True).text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("last session's work"))
    assert lines[at + 1 : at + 5] == [
        "- [goal] Goal: ship OAuth login for the billing service.",
        "- [todo] (agent) Still open: fix the redirect URI in auth/callback.py.",
        "- [decision] (agent) Decision: store OAuth links in PostgreSQL, table oauth_accounts.",
        "- [decision] Use Postgres for the sessions table too.",
    ]
    # What the restore section shows is not repeated; the session's own compaction,
    # whose summary is in its context, is not shown again either.
    assert text.count("Never push to main; open a PR instead.") == 1
    assert (
        "last session's work" not in render_brief(store, session_id="A", earlier_sessions=True).text
    )
    # Within a session (a prompt's delta), nothing of it.
    assert "last session's work" not in render_brief(store, session_id="B").text


def _two_compactions(store: Store, said: list[str], summary: str) -> str:
    """The owner's messages, a first summary that keeps nothing, then a second capture
    that reads ``summary`` as the host's: its guidance."""
    capture(store, [Message(f"u{n}", "user", text) for n, text in enumerate(said)], session_id="s")
    check_summary(store, "CSV export for the reports service.", session_id="s")
    second = [Message("c1", "user", summary, summary=True), Message("u9", "user", "go on")]
    return capture(store, second, session_id="s").guidance


RULES = [
    "We're adding a CSV export endpoint to the reports service.",
    "Never push directly to main; always open a PR.",
    "Don't use pandas for the CSV writer: it adds 40 MB to the lambda bundle.",
]


@pytest.mark.parametrize(
    "restated",
    [
        "Rejected: pandas for the CSV writer (adds 40 MB to the lambda bundle).",
        "Pandas was ruled out for the CSV writer (40 MB).",
    ],
)
def test_a_summary_restating_the_owners_rejected_approach_is_never_discardable(
    store: Store, restated: str
) -> None:
    """A walkthrough's guidance listed "[rejected] Rejected: pandas …" (the summary's
    words) under "Can discard" and the owner's rule under "Also preserve verbatim"."""
    guidance = _two_compactions(store, RULES, f"CSV export for the reports service. {restated}")
    assert restated not in guidance  # folded into the owner's rule: listed nowhere
    assert f"- [constraint] {RULES[2]}" in guidance.split("Also preserve verbatim")[1]


def test_a_restatement_the_rules_call_noise_is_not_listed_to_discard(store: Store) -> None:
    """ "Counters in Redis." has no cue the rules read: noise, and listed under "Can
    discard", telling the summariser to drop the owner's decision in other words."""
    owner = "Use Redis for the rate limit counters."
    guidance = _two_compactions(store, [owner], "CSV export. Counters in Redis. Summary:")
    assert "Counters in Redis." not in guidance  # folded into the owner's decision
    assert f"- [decision] {owner}" in guidance
    assert "- [transient] Summary:" in guidance  # noise that restates nothing stays


def test_the_guidance_command_lists_a_summarys_restatement_nowhere(tmp_path: Path) -> None:
    owner = "Use Redis for the rate limit counters."
    transcript = tmp_path / "session.json"
    messages = [
        {"role": "user", "content": f"Add rate limiting to the gateway. {owner}"},
        {"role": "assistant", "content": "Looking at the gateway."},
        {
            "role": "user",
            "content": "This session is being continued from a previous conversation that ran"
            " out of context. The summary below covers the earlier portion of the conversation."
            "\n\nSummary:\n- Counters in Redis.\n- Writing tests for the token bucket.",
        },
        {"role": "user", "content": "Go on."},
    ]
    transcript.write_text(json.dumps(messages), encoding="utf-8")
    for args in ([], ["--json"]):
        result = CliRunner().invoke(main, ["guidance", str(transcript), *args])
        assert result.exit_code == 0 and owner in result.stdout
        assert "Counters in Redis." not in result.stdout
    assert "Writing tests for the token bucket." in result.stdout  # says more: kept


def test_a_summary_restating_an_owner_rule_is_not_restored_beside_it(store: Store) -> None:
    """A walkthrough restored "Rules: never push directly to main, always open a PR."
    (summary 2's words) next to the owner's "Never push directly to main; …"."""
    summary = (
        "The user is adding a CSV export endpoint to the reports service. Rules: never push "
        "directly to main, always open a PR. Rejected: pandas for the CSV writer (adds 40 MB "
        "to the lambda bundle)."
    )
    _two_compactions(store, RULES, summary)
    snapshot = plan_restore(store, session_id="s")
    check_summary(store, "A test for the encoding path was added.", session_id="s")
    plan = plan_restore(store, session_id="s")
    assert snapshot.items and [i.content for i in plan.items] == RULES
    assert plan.summary == frozenset()


def test_a_summarys_own_statement_is_restored_as_its_word(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = "Never push directly to main; always open a PR."
    more = "Rules: never push directly to main; releases are cut from the release-7 branch."
    guidance = _two_compactions(store, [RULES[0], said], f"CSV export. {more}")
    # More than the owner's rule: kept, as the summary's word, never as the owner's.
    assert f"- [constraint, summary] {more}" in guidance
    check_summary(store, "CSV export for the reports service.", session_id="s")
    block = render_restore(plan_restore(store, session_id="s")).splitlines()
    assert block[1:] == [
        f"- [constraint] (lost) {said}",
        f"- [constraint] (lost; a compaction summary's word, not the owner's) {more}",
    ]
    brief = render_brief(store).text
    assert f"- [constraint] (a compaction summary's word, not the owner's) {more}" in brief
    # Carried to the next compaction, it keeps its mark.
    third = [Message("c2", "user", "CSV export.", summary=True), Message("u10", "user", "next")]
    assert f"- [constraint, summary] {more}" in capture(store, third, session_id="s").guidance
    monkeypatch.chdir(tmp_path)
    assert store.root is not None
    check_summary(store, "CSV export.", session_id="s")
    restored = json.loads(CliRunner().invoke(main, ["restore", "--json"]).stdout)["items"]
    assert {(i["content"], i.get("said_by")) for i in restored} == {
        (more, "summary"),
        (RULES[0], None),
        (said, None),
    }


def test_the_owner_saying_a_summarys_words_makes_them_the_owners(store: Store) -> None:
    rule = "Releases are cut from the release-7 branch."
    capture(store, [Message("u0", "user", "Build the CSV export.")], session_id="s")
    second = [
        Message("c1", "user", f"CSV export. {rule}", summary=True),
        Message("u1", "user", rule),
    ]
    taken = capture(store, second, session_id="s")
    assert taken.record.data["summary_items"] == []
    assert f"- [fact] {rule}" in taken.guidance.splitlines()


def test_a_carried_summary_statement_gives_way_to_the_agents_later_switch(store: Store) -> None:
    """A summary's sentence is the summariser's word, carried or not: the agent's later
    word retires it as it would in the summary's own segment (the owner's, only theirs)."""
    capture(store, [Message("u0", "user", "Goal: cache the catalogue pages.")], session_id="s")
    plan = "Decision: use memcached for the page cache."
    second = [
        Message("c1", "user", f"Goal: cache the catalogue pages. {plan}", summary=True),
        Message("u1", "user", "go on"),
    ]
    taken = capture(store, second, session_id="s")
    assert plan in {i.content for i in taken.snapshot.items if i.critical}
    check_summary(store, "Goal: cache the catalogue pages.", session_id="s")
    switch = "Switching the page cache to Redis instead of memcached, since we run Redis."
    third = [
        Message("c2", "user", "Goal: cache the catalogue pages.", summary=True),
        Message("a1", "assistant", switch),
    ]
    contents = {i.content for i in capture(store, third, session_id="s").snapshot.items}
    assert plan not in contents and switch in contents


def test_a_chinese_summary_flipping_an_owner_rule_with_a_full_width_comma_is_dropped(
    store: Store,
) -> None:
    rule = "不要改公共 API，外部客户在用。"
    flipped = "可以改公共 API，没关系。"
    capture(
        store,
        [Message("u1", "user", "给报表服务加 CSV 导出。"), Message("u2", "user", rule)],
        session_id="s",
    )
    check_summary(store, f"给报表服务加 CSV 导出。{flipped}", session_id="s")
    second = [Message("c1", "user", f"给报表服务加 CSV 导出。{flipped}", summary=True)]
    contents = {i.content for i in capture(store, second, session_id="s").snapshot.items}
    assert rule in contents and flipped not in contents


def test_a_carried_summary_statement_the_owner_then_says_gives_way_to_the_owners(
    store: Store,
) -> None:
    capture(store, [Message("u0", "user", "Build the CSV export.")], session_id="s")
    claim = "Rules: releases are cut from the release-7 branch; never push directly to main."
    second = [Message("c1", "user", f"CSV export. {claim}", summary=True)]
    taken = capture(store, second, session_id="s")
    assert [
        i.content for i in taken.snapshot.items if i.id in taken.record.data["summary_items"]
    ] == [claim]
    check_summary(store, "CSV export.", session_id="s")
    said = "Never push directly to main, and cut releases from the release-7 branch."
    third = [Message("c2", "user", "CSV export.", summary=True), Message("u1", "user", said)]
    taken = capture(store, third, session_id="s")
    contents = [i.content for i in taken.snapshot.items]
    assert said in contents and claim not in contents and claim not in taken.guidance


def test_a_summary_sentence_read_as_a_flip_of_an_owner_rule_is_never_listed_to_discard(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cause of a walkthrough's "Can discard: - [rejected] Rejected: pandas …": the
    verifier read the faithful sentence as a flip of the owner's rule (since fixed), the
    sentence was dropped as the summary's word against the owner's, and the guidance
    listed what was dropped to discard. Whatever the verifier says, the owner's rule is
    what the guidance lists; the summary's sentence about it is listed nowhere."""
    from contextward import compaction

    class Misreading(compaction.FactsVerifier):
        def verify(self, items: list[ContextItem], context: str) -> list[dict[str, object]]:
            found = super().verify(items, context)
            for item, finding in zip(items, found, strict=True):
                if "pandas" in item.content and item.content.startswith("Don't"):
                    finding.update(status="changed", reason="changed: negation flipped (removed)")
            return found

    monkeypatch.setattr(compaction, "FactsVerifier", Misreading)
    restated = "Rejected: pandas for the CSV writer (adds 40 MB to the lambda bundle)."
    guidance = _two_compactions(
        store, RULES, f"The user wants a CSV export for the reports service. {restated}"
    )
    assert "pandas" not in guidance.split("Also preserve verbatim")[0]
    assert f"- [constraint] {RULES[2]}" in guidance


def test_a_new_sessions_brief_states_a_rule_the_summary_lost_once(store: Store) -> None:
    rule = "Never push directly to main; always open a PR."
    for text in [RULES[0], rule, "不要改公共 API。"]:
        store.prompts.record(text, session_id="s")
    capture(store, [Message("u1", "user", RULES[0]), Message("u2", "user", rule)], session_id="s")
    check_summary(store, "CSV export for the reports service.", session_id="s")
    _next_session(store, "s", "next")
    text = render_brief(store, session_id="next", earlier_sessions=True).text
    assert text.count(rule) == 1 and f"- [constraint] {rule}" in text
    assert "- constraint (earlier session): 不要改公共 API。" in text


def test_a_new_session_is_told_which_of_the_last_sessions_work_a_summary_said(
    store: Store,
) -> None:
    capture(store, [Message("u0", "user", "Goal: build the CSV export.")], session_id="A")
    summary = "Goal: build the CSV export. Pending: wire the download button."
    check_summary(store, summary, session_id="A")
    capture(store, [Message("c1", "user", summary, summary=True)], session_id="A")
    check_summary(store, summary, session_id="A")
    _next_session(store, "A", "B")
    lines = render_brief(store, session_id="B", earlier_sessions=True).text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("last session's work"))
    assert "- [todo] (summary) Pending: wire the download button." in lines[at + 1 :]


def test_a_terse_answer_is_restored_with_the_question_it_answers(store: Store) -> None:
    # walk12 #11: "不用了。" had been restored with nothing saying what it answered.
    said = [
        Message("u1", "user", "给订单导出接口加分页，每页 50 条。"),
        Message("a1", "assistant", "导出测试通过。要不要给导出失败加自动重试？"),
        Message("u2", "user", "不用了。"),
        Message(
            "a2",
            "assistant",
            "The token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 — shall I use it?",
        ),
        Message("u3", "user", "No, never."),
    ]
    capture(store, said, session_id="s")
    check_summary(store, "给订单导出接口加分页，每页 50 条。", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert '(lost) 不用了。 (answering: "要不要给导出失败加自动重试？")' in block
    restored = restored_items(plan_restore(store, session_id="s"))
    assert {"content": "不用了。", "answering": "要不要给导出失败加自动重试？"}.items() <= next(
        item for item in restored if item["content"] == "不用了。"
    ).items()
    assert '(lost) No, never. (answering: "The token is [secret:github-token] —' in block
    assert "ghp_a1B2" not in block
    stored = store.snapshots.latest(session_id="s")
    assert stored is not None
    assert "ghp_a1B2" not in json.dumps(stored.data)


def test_an_answer_after_the_owner_s_own_turn_gets_no_question(store: Store) -> None:
    said = [
        Message("u1", "user", "给订单导出接口加分页，每页 50 条。"),
        Message("a1", "assistant", "要不要给导出失败加自动重试？"),
        Message("u2", "user", "先看看日志。"),
        Message("u3", "user", "不用了。"),
    ]
    capture(store, said, session_id="s")
    check_summary(store, "给订单导出接口加分页，每页 50 条。", session_id="s")
    block = render_restore(plan_restore(store, session_id="s"))
    assert "answering" not in block


@pytest.mark.parametrize(
    "summary",
    [
        "Goal: add an export endpoint. The owner rejected the plan to cache the export "
        "results in Redis for an hour; keep it simple.",
        "Goal: add an export endpoint. Caching the export results in Redis was dropped.",
        "Goal: add an export endpoint. We decided against caching the export results in Redis.",
        "Goal: add an export endpoint. The owner vetoed caching the export results in Redis.",
    ],
)
def test_an_agent_plan_the_summary_says_was_dropped_is_named_not_restated_as_holding(
    store: Store, summary: str
) -> None:
    """The owner's "Hmm, I'd rather keep it simple for now." reads as no veto to the rules;
    the summary, which read it, says the plan was dropped."""
    plan_text = "I suggest we cache the export results in Redis for an hour."
    capture(
        store,
        [
            Message("u1", "user", "Goal: add an export endpoint."),
            Message("a1", "assistant", plan_text),
            Message("u2", "user", "Hmm, I'd rather keep it simple for now."),
        ],
        session_id="s",
    )
    check_summary(store, summary, session_id="s")
    plan = plan_restore(store, session_id="s")
    assert plan_text not in {item.content for item in plan.items}
    assert plan_text in {item.content for item in plan.dropped}
    block = render_restore(plan)
    held, _, named = block.partition("The summary says these plans of the agent's were dropped")
    assert plan_text not in held and plan_text in named


def test_an_owner_rule_the_summary_says_was_dropped_is_still_restated(store: Store) -> None:
    rule = "Never push to main; open a PR instead."
    capture(
        store,
        [Message("u1", "user", "Goal: add an export endpoint."), Message("u2", "user", rule)],
        session_id="s",
    )
    check_summary(
        store, "Goal: add an export endpoint. The no-push-to-main rule was dropped.", session_id="s"
    )
    block = render_restore(plan_restore(store, session_id="s"))
    assert f"(changed) {rule}" in block and "plans of the agent's were dropped" not in block


def test_restore_on_the_command_line_is_one_sessions_when_a_session_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two sessions compacted, each summary losing its own rule: a session's shell (its
    # CONTEXTWARD_SESSION_ID) is shown what its own summary lost, as its hooks show it.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    with Store.open(tmp_path) as store:
        for sid, rule in (("a", "Never push to main."), ("b", "Do not edit the migrations.")):
            capture(store, [Message(f"{sid}1", "user", rule)], session_id=sid)
            check_summary(store, "We fixed the login page.", session_id=sid)

    def restored(*args: str, env: dict[str, str] | None = None) -> list[str]:
        result = CliRunner().invoke(main, ["restore", "--json", *args], env=env)
        assert result.exit_code == 1, result.output
        return [item["content"] for item in json.loads(result.stdout)["items"]]

    monkeypatch.delenv("CONTEXTWARD_SESSION_ID", raising=False)
    assert restored() == ["Do not edit the migrations."]  # the project's last
    assert restored(env={"CONTEXTWARD_SESSION_ID": "a"}) == ["Never push to main."]
    assert restored("--session", "a") == ["Never push to main."]
    assert restored("--session", "b", env={"CONTEXTWARD_SESSION_ID": "a"}) == [
        "Do not edit the migrations."
    ]
    result = CliRunner().invoke(main, ["restore", "--session", "c"])
    assert (result.exit_code, result.stdout) == (0, "nothing to restore\n")
