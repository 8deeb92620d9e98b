"""Atomic splitting keeps meaning whole and every unit verbatim."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.inspect.segment import _CJK_END, Unit, units


def texts(text: str) -> list[str]:
    return [u.text for u in units(text)]


def test_a_rejection_stays_with_its_reason() -> None:
    assert texts(
        "We tried SQLite first. It kept locking under concurrent writes, so we dropped it. Next item."
    ) == [
        "We tried SQLite first. It kept locking under concurrent writes, so we dropped it.",
        "Next item.",
    ]
    assert texts("SQLite was dropped. Because concurrent writes locked the file.") == [
        "SQLite was dropped. Because concurrent writes locked the file."
    ]


def test_sentences_split_but_abbreviations_and_paths_do_not() -> None:
    assert texts("Use e.g. Postgres 15. Config is in app/settings.py now.") == [
        "Use e.g. Postgres 15.",
        "Config is in app/settings.py now.",
    ]


def test_two_directives_joined_by_and_become_two_items() -> None:
    """A later correction of one ("cloudflare pages, not netlify") must not take the other."""
    assert texts("also use pnpm not npm pls, and host it on netlify, i have an account.") == [
        "use pnpm not npm pls,",
        "host it on netlify, i have an account.",
    ]
    # A list of things, not of directives, stays one sentence.
    assert texts("Add retries, timeouts, and logging to the client.") == [
        "Add retries, timeouts, and logging to the client."
    ]


def test_bullets_become_items() -> None:
    assert units("Plan:\n- add the table\n- write the migration\n1. deploy") == [
        Unit("Plan:"),
        Unit("add the table", bullet=True),
        Unit("write the migration", bullet=True),
        Unit("deploy", bullet=True, number=1),
    ]


def test_code_blocks_and_command_lines_are_never_split() -> None:
    text = "Run this:\n```sh\nmake test. make lint.\n```\n$ git push. --dry-run\nDone."
    assert units(text) == [
        Unit("Run this:"),
        Unit("```sh\nmake test. make lint.\n```", code=True),
        Unit("$ git push. --dry-run", code=True),
        Unit("Done."),
    ]


def test_inline_code_is_not_split() -> None:
    assert texts("Call `a. B` first. Then stop.") == ["Call `a. B` first.", "Then stop."]


def test_chinese_and_japanese_punctuation_split_without_spaces() -> None:
    assert texts("目标：实现 OAuth。不要改公共 API！为什么？今日は晴れ。") == [
        "目标：实现 OAuth。",
        "不要改公共 API！",
        "为什么？",
        "今日は晴れ。",
    ]
    assert texts("SQLite 被放弃了。因为并发写入会锁表。") == [
        "SQLite 被放弃了。因为并发写入会锁表。"
    ]


def test_a_url_or_a_password_is_never_cut_at_its_question_or_exclamation_mark() -> None:
    # Cut, the pieces of "Zebra!Plum42" were each too short to be masked as a password.
    assert texts("My password is Zebra!Plum42 ok") == ["My password is Zebra!Plum42 ok"]
    assert texts("It failed at https://h.example.com/cb?redirect=x please fix it. Then go.") == [
        "It failed at https://h.example.com/cb?redirect=x please fix it.",
        "Then go.",
    ]
    assert texts("postgres://admin:Pa?ss9@db:5432/app is the DSN. Use it.") == [
        "postgres://admin:Pa?ss9@db:5432/app is the DSN.",
        "Use it.",
    ]
    # In CJK text an ASCII mark still ends a sentence with no space after it.
    assert texts("好的!下一步做什么?先改配置。") == ["好的!", "下一步做什么?", "先改配置。"]


# The end marks looked behind for at every position, as ``_CJK_END`` once did: it now
# matches the mark first, for speed, and must cut exactly where this did.
_CJK_END_BEHIND = re.compile(
    r"(?:(?<=[。！？])|(?<=[\u3000-\u9fff\uff00-\uffef][!?]))[”」』）)]*[ \t]*"
)


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab 。！？!?”」)好`\t"))))
def test_a_chinese_sentence_ends_where_its_mark_is_looked_behind_for(text: str) -> None:
    found = [(m.start() + 1, m.end()) for m in _CJK_END.finditer(text)]
    assert found == [m.span() for m in _CJK_END_BEHIND.finditer(text)]


def test_headings_are_marked_and_joiners_dropped() -> None:
    assert units("## Status\nAnd never push to main.") == [
        Unit("## Status", heading=True),
        Unit("never push to main."),
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .。!?\n-`$#因为Itso ")), max_size=120))
def test_every_unit_is_a_verbatim_span(text: str) -> None:
    for unit in units(text):
        assert unit.text and unit.text in text


def test_a_numbered_item_carries_its_number() -> None:
    found = units("Plan:\n1. Retry twice.\n(2) Then give up.\n三、 记日志。\n- A plain bullet.")
    assert [(u.text, u.number) for u in found if u.bullet] == [
        ("Retry twice.", 1),
        ("Then give up.", 2),
        ("记日志。", 3),
        ("A plain bullet.", None),
    ]


def test_a_pasted_log_or_traceback_is_one_block_apart_from_the_request() -> None:
    log = "\n".join(
        f"2026-12-01T10:0{n}:00Z ERROR worker-{n} request failed: timeout" for n in range(3)
    )
    trace = (
        "Traceback (most recent call last):\n"
        '  File "app.py", line 3, in <module>\n'
        '  File "db.py", line 9, in connect'
    )
    text = f"Here is the log from prod, figure out why:\n{log}\nand the trace:\n{trace}\nThanks."
    assert units(text) == [
        Unit("Here is the log from prod, figure out why:"),
        Unit(log, code=True),
        Unit("the trace:"),  # a leading "and" is dropped
        Unit(trace.replace("\n  ", "\n"), code=True),
        Unit("Thanks."),
    ]


def test_a_sentence_about_errors_is_no_log_line() -> None:
    text = "Errors go to stderr.\nLog an ERROR only when a retry gives up."
    assert not any(u.code for u in units(text))


def test_an_ellipsis_inside_a_sentence_does_not_end_it() -> None:
    sql = "Switching the queue to Postgres with SELECT ... FOR UPDATE SKIP LOCKED."
    assert units(sql) == [Unit(sql)]
    assert [u.text for u in units("I tried... Then it failed.")] == [
        "I tried...",
        "Then it failed.",
    ]


def test_a_chinese_rejection_stays_with_what_it_tried() -> None:
    assert texts("先试了 Memcached。内存一直涨，最后放弃了。下一步看队列。") == [
        "先试了 Memcached。内存一直涨，最后放弃了。",
        "下一步看队列。",
    ]
    # Control: what was tried alone, or followed by something other than its dropping.
    assert texts("我们用过 Kafka。") == ["我们用过 Kafka。"]
    assert texts("我们用过 Kafka。现在看延迟。") == ["我们用过 Kafka。", "现在看延迟。"]
