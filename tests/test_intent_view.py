"""Owner intent from recorded prompts and journal rows."""

from __future__ import annotations

import sqlite3

import pytest

from contextward.guard.intent import classify, owner_intent
from contextward.store import Store


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("No, that's not what I asked for.", "correction"),
        ("Actually use the v2 endpoint.", "correction"),
        ("You forgot the migration.", "correction"),
        ("Never push to main.", "constraint"),
        ("Please don't touch the lockfile.", "constraint"),
        ("Always run the linter first.", "constraint"),
        ("We need a rollback plan.", "need"),
        ("It must work offline.", "need"),
        ("I want the brief under 2 KB.", "want"),
        ("Now audit the plugin.", "want"),
        ("Could you rename the module?", "want"),
        ("Reinstall the venv", "want"),
        ("I prefer small commits.", "preference"),
        ("Use rg rather than grep.", "want"),
        ("The build is slow today.", "statement"),
        ("I want to check something", "want"),
        # Chinese owners say the same things
        ("不对，我说的是用 rg 不是 grep。", "correction"),
        ("不要改公共 API。", "constraint"),
        ("永远不要直接推送到 main 分支。", "constraint"),
        ("别动 migrations 目录。", "constraint"),
        ("我们需要在周五前上线。", "need"),
        ("帮我把导出接口加上分页。", "want"),
        ("最好用 uv 而不是 pip。", "preference"),
        ("今天构建有点慢。", "statement"),
    ],
)
def test_classify(text: str, kind: str) -> None:
    assert classify(text)[0] == kind


def test_classify_returns_the_sentence_that_carries_the_kind() -> None:
    assert classify("The tests are slow. Never skip them though! Thanks.") == (
        "constraint",
        "Never skip them though!",
    )


def ticking_store() -> Store:
    ticks = iter(range(1000))
    conn = sqlite3.connect(":memory:", isolation_level=None)
    return Store(conn, clock=lambda: f"2026-01-01T00:00:{next(ticks):03d}Z")


def test_view_is_newest_first_with_counts_and_provenance_split() -> None:
    store = ticking_store()
    store.prompts.record("Never push to main.")
    store.prompts.record("The build is slow.")
    store.journal.add("correction", "use rg, not grep")
    store.journal.add("note", "The owner wants the diff split in two", provenance="agent")
    store.journal.add("note", "I want to check the logs", provenance="agent")  # agent's own words
    view = owner_intent(store, limit=10)
    assert [(i.kind, i.provenance, i.ref) for i in view.items] == [
        ("want", "agent", "j-2"),
        ("correction", "owner", "j-1"),
        ("statement", "owner", "p-2"),
        ("constraint", "owner", "p-1"),
    ]
    assert (view.owner, view.agent) == (3, 1)
    assert view.counts["constraint"] == 1
    assert view.to_dict()["items"][0]["text"] == "The owner wants the diff split in two"


def test_limit_and_masking() -> None:
    store = Store.memory()
    token = "ghp_" + "d" * 36
    store.prompts.record(f"I need token {token} in CI")
    for n in range(6):
        store.prompts.record(f"statement {n}")
    view = owner_intent(store, limit=2)
    assert len(view.items) == 2
    assert view.owner == 7
    assert all(token not in i.text for i in owner_intent(store, limit=10).items)


def test_every_kind_a_prompt_says_is_listed_not_only_the_strongest() -> None:
    store = ticking_store()
    store.prompts.record(
        "We need a CSV export for the reports service. Never push to main. "
        "Goal: ship it by Thursday. The build is slow."
    )
    view = owner_intent(store, limit=10)
    assert [(i.kind, i.text) for i in view.items] == [
        ("constraint", "Never push to main."),
        ("need", "We need a CSV export for the reports service."),
        ("want", "Goal: ship it by Thursday."),
    ]
    assert all(i.ref == "p-1" for i in view.items)
