"""The facts verifier names each kind of change, in English and Chinese."""

from __future__ import annotations

import pytest

from contextward.core import ContextItem, FactsVerifier, LiteralVerifier, verify_context
from contextward.core.facts import EXCEPTED
from contextward.core.snapshot import Snapshot


def judge(content: str, context: str, kind: str = "constraint") -> tuple[str, str]:
    (finding,) = FactsVerifier().verify([ContextItem("x", kind, content, True)], context)
    return finding["status"], finding["reason"]


FILLER_EN = "The user is building OAuth login. Tests pass (48/48). "
FILLER_ZH = "用户正在开发OAuth登录。上次修改后测试全部通过。"

CASES = [
    # (item, summary, status, reason)
    (
        "Never push to main; open a pull request instead.",
        FILLER_EN + "Never push to main; open a pull request instead.",
        "preserved",
        "preserved: verbatim",
    ),
    (
        "Never push to main; open a pull request instead.",
        FILLER_EN + "NEVER   push to\n  main;  open a pull request instead.",
        "preserved",
        "preserved: verbatim",
    ),
    (
        "You must keep the monthly cloud budget under $500.",
        FILLER_EN + "The monthly cloud budget has to stay under 500 dollars.",
        "preserved",
        "preserved: same meaning (4 of 5 key terms, 1 anchors intact)",
    ),
    (
        "Never push to main; open a pull request instead.",
        FILLER_EN + "Pushing to main is fine now.",
        "changed",
        "changed: negation flipped (removed)",
    ),
    (
        "Use PostgreSQL for the session store.",
        FILLER_EN + "Do not use PostgreSQL for the session store.",
        "changed",
        "changed: negation flipped (added)",
    ),
    (
        "You must run the full test suite before each deploy.",
        FILLER_EN + "You may run the full test suite before each deploy.",
        "changed",
        "changed: obligation weakened",
    ),
    (
        "You must keep the monthly cloud budget under $500.",
        FILLER_EN + "You must keep the monthly cloud budget under $5000.",
        "changed",
        "changed: value swapped (currency)",
    ),
    (
        "You must keep the monthly cloud budget under $500.",
        FILLER_EN + "You must keep the monthly cloud budget under $800 (previously $500).",
        "changed",
        "changed: stale value (currency)",
    ),
    (
        "Store OAuth account links in the table oauth_accounts.",
        FILLER_EN + "Store OAuth account links in the table oauth_users.",
        "changed",
        "changed: identifier swapped (identifier)",
    ),
    (
        "Deploy the service behind /api/v1 routes.",
        FILLER_EN + "Deploy the service behind /api/v2 routes.",
        "changed",
        "changed: identifier swapped (path)",
    ),
    (
        "Store OAuth account links in PostgreSQL.",
        FILLER_EN + "Store OAuth account links in MySQL.",
        "changed",
        "changed: identifier swapped (name)",
    ),
    (
        "You must run the full test suite before each deploy.",
        FILLER_EN + "You must run the full test suite before each deploy. This rule was lifted.",
        "changed",
        "changed: revoked",
    ),
    (
        "You must run the full test suite before each deploy.",
        FILLER_EN,
        "lost",
        "lost: too few key terms matched (1 of 6)",
    ),
    # Chinese
    (
        "不要直接推送到主分支，必须先开合并请求。",
        FILLER_ZH + "不要直接推送到主分支，必须先开合并请求。",
        "preserved",
        "preserved: verbatim",
    ),
    (
        "每月云服务预算必须控制在500美元以内。",
        FILLER_ZH + "每月的云服务预算务必控制在500美元以内。",
        "preserved",
        "preserved: same meaning (8 of 9 key terms, 1 anchors intact)",
    ),
    (
        "不要直接推送到主分支。",
        FILLER_ZH + "可以直接推送到主分支。",
        "changed",
        "changed: negation flipped (removed)",
    ),
    (
        "把会话存到Redis里。",
        FILLER_ZH + "不要把会话存到Redis里。",
        "changed",
        "changed: negation flipped (added)",
    ),
    (
        "部署前必须运行全部测试。",
        FILLER_ZH + "部署前可以运行全部测试。",
        "changed",
        "changed: obligation weakened",
    ),
    (
        "每月云服务预算必须控制在500美元以内。",
        FILLER_ZH + "每月云服务预算必须控制在5000美元以内。",
        "changed",
        "changed: value swapped (currency)",
    ),
    (
        "每月云服务预算必须控制在500美元以内。",
        FILLER_ZH + "每月云服务预算必须控制在800美元（原为500美元）以内。",
        "changed",
        "changed: stale value (currency)",
    ),
    (
        "OAuth账号关联存到oauth_accounts表里。",
        FILLER_ZH + "OAuth账号关联存到oauth_users表里。",
        "changed",
        "changed: identifier swapped (identifier)",
    ),
    (
        "部署前必须运行全部测试。",
        FILLER_ZH + "部署前必须运行全部测试（此条已取消）。",
        "changed",
        "changed: revoked",
    ),
    (
        "部署前必须运行全部测试。",
        FILLER_ZH,
        "lost",
        "lost: too few key terms matched (2 of 7)",
    ),
]


# A walkthrough of the compaction loop found each of these read as preserved.
FLIPS_IN_OTHER_WORDS = [
    (
        "Never push to main.",
        "Main is protected. Always push there directly.",
        "changed: negation flipped (removed)",
    ),
    # A permission or a reminder in a negative word is no negation.
    (
        "Never push to main.",
        "Pushing to main is no problem.",
        "changed: negation flipped (removed)",
    ),
    ("Never push to main.", "Don't forget to push to main.", "changed: negation flipped (removed)"),
    ("不要直接 push 到 main。", "main 上直接 push 没问题。", "changed: negation flipped (removed)"),
    ("不要直接 push 到 main。", "别忘了直接 push 到 main。", "changed: negation flipped (removed)"),
    # A rule said to have lapsed, or struck through.
    ("Never push to main.", "Previously: never push to main.", "changed: revoked"),
    ("Never push to main.", "Never push to main (was the rule until Tuesday).", "changed: revoked"),
    ("Never push to main.", "\n~~Never push to main.~~\n", "changed: revoked"),
    # A hedge beside a verbatim rule, an exception in a word of its own.
    (
        "All endpoints must have integration tests.",
        "All endpoints must have integration tests, where practical.",
        "changed: obligation weakened",
    ),
    (
        "All endpoints must have integration tests.",
        "Integration tests for all endpoints would be nice to have.",
        "changed: obligation weakened",
    ),
    ("Never push to main.", "Never push to main (hotfixes excepted).", EXCEPTED),
    # A neighbouring sentence lends no "not" to one that permits what the item forbids.
    (
        "Do not touch the billing schema.",
        "Do not touch the auth module. The billing schema can be migrated as needed.",
        "changed: negation flipped (removed)",
    ),
    ("超时设成 5 秒。", "超时设成八秒。", "changed: value swapped (duration)"),
    # The same number in another unit of its kind.
    (
        "Set the timeout to 30 seconds.",
        "Set it to 30 minutes.",
        "changed: value swapped (duration)",
    ),
    # The choice turned around.
    ("Use pnpm instead of npm.", "Use npm instead of pnpm.", "changed: negation flipped (added)"),
    # A bound turned the other way.
    (
        "Keep p99 latency under 200ms.",
        "p99 latency must stay over 200ms.",
        "changed: bound flipped",
    ),
    ("Keep p99 latency under 200ms.", "Keep p99 latency > 200ms.", "changed: bound flipped"),
    ("Retry at most 3 times.", "Retry at least 3 times.", "changed: bound flipped"),
    ("每月预算控制在500美元以内。", "每月预算控制在500美元以上。", "changed: bound flipped"),
    ("延迟不超过200ms。", "延迟高于200ms。", "changed: bound flipped"),
    # What came in the item's place, named after the marker.
    (
        "Use Redis for caching.",
        "Use Redis for caching, rejected in favour of Memcached.",
        "changed: revoked",
    ),
    (
        "Use Redis for caching.",
        "Use Redis for caching was replaced by Memcached.",
        "changed: revoked",
    ),
]
STILL_SAID = [
    # A rejection label before the thing turns it down as the rule does.
    (
        "Don't use pandas for the CSV writer: it adds 40 MB to the lambda bundle.",
        "Rejected: pandas for the CSV writer (adds 40 MB to the lambda bundle).",
    ),
    (
        "Don't use pandas for the CSV writer: it adds 40 MB to the lambda bundle.",
        "Rejected approaches: using pandas for the CSV writer, it adds 40 MB to the lambda bundle.",
    ),
    # The set-aside thing named apart from the choice, in the reason.
    (
        "Actually use the stdlib csv module instead of pandas; pandas is too heavy for the lambda.",
        "Use the stdlib csv module; pandas is too heavy for the lambda.",
    ),
    (
        "Actually use the stdlib csv module instead of pandas; pandas is too heavy for the lambda.",
        "Use the stdlib csv module, not pandas: pandas is too heavy for the lambda.",
    ),
    ("Never push to main.", "As previously agreed, never push to main."),
    # The next sentence says the rest of the rule of what the one before named.
    ("Never push to main.", "Main is protected. Never push there directly."),
    (
        "Use Redis for caching.",
        "Redis for caching stays; the Memcached idea was rejected in favour of it.",
    ),
    ("Never push to main.", "Never push to main. The old plan to vendor lodash is gone."),
    ("You must keep the budget under $500.", "You must keep the budget under $500, as before."),
    ("Keep p99 latency under 200ms.", "p99 latency stays below 200ms."),
    ("Retry at most 3 times.", "Retries are capped at 3."),
    ("Do not touch the billing schema.", "Billing schema. Never touch it; it belongs to finance."),
    # A count in Chinese words is the same value.
    ("超时设成 5 秒。", "超时设成五秒。"),
    ("失败后最多重试 3 次。", "失败后最多重试三次。"),
    # An item that lifts a rule agrees with a summary saying the rule was lifted.
    ("Forget the no-push rule.", "The earlier no-push rule is lifted."),
    # What the item sets aside need not be said again.
    ("Use pnpm instead of npm.", "Use pnpm."),
    ("Never push to main.", "Never push to main. ~~Use Redis for sessions.~~"),
    ("Use pnpm instead of npm.", "Use pnpm, not npm."),
]


@pytest.mark.parametrize(("item", "summary", "reason"), FLIPS_IN_OTHER_WORDS)
def test_a_flip_in_other_words_is_a_change(item: str, summary: str, reason: str) -> None:
    assert judge(item, f"Intro. {summary} Other notes.") == ("changed", reason)


@pytest.mark.parametrize(("item", "summary"), STILL_SAID)
def test_the_same_rule_beside_those_words_is_preserved(item: str, summary: str) -> None:
    assert judge(item, f"Intro. {summary} Other notes.")[0] == "preserved"


@pytest.mark.parametrize(
    ("item", "summary", "status", "reason"),
    CASES,
    ids=[f"{c[3]} #{n}" for n, c in enumerate(CASES)],
)
def test_each_kind_of_change_is_named(item: str, summary: str, status: str, reason: str) -> None:
    assert judge(item, summary) == (status, reason)


@pytest.mark.parametrize(
    ("item", "summary", "reason"),
    [
        ("Deploy on Friday.", "Deploy on Monday.", "changed: value swapped (date)"),
        ("Reply in English.", "Reply in French.", "changed: identifier swapped (name)"),
        ("Never push to main.", "Push to develop, never to main.", None),
        ("Use pnpm, not npm.", "Use pnpm instead of npm.", None),
        (
            "Never push to main; open a PR instead.",
            "Never push to develop; open a PR instead.",
            "changed: term swapped",
        ),
        (
            "Never push to hotfix-17; open a PR instead.",
            "Never push to main; open a PR instead.",
            "changed: identifier swapped",
        ),
        (
            "Never push to main; open a PR instead.",
            "Never push to main, open a pull request instead.",
            None,
        ),
        ("Set the timeout to 30s.", "The timeout is set to 30 seconds.", None),
        ("The cap is $1,200 per month.", "The cap is $1.2k per month.", None),
        ("Coverage must stay above 75%.", "Coverage has to stay above 75 percent.", None),
    ],
)
def test_short_items_and_unit_spellings(item: str, summary: str, reason: str | None) -> None:
    status, said = judge(item, f"Intro. {summary} Other notes.")
    if reason is None:
        assert status == "preserved", said
    else:
        assert (status, said) == ("changed", reason)


@pytest.mark.parametrize(
    ("summary", "status", "reason"),
    [
        # One negation and one "always" overall, each moved to the other clause.
        ("Always push to main; no PR needed.", "changed", "changed: negation flipped (removed)"),
        ("Push to main; never open a PR.", "changed", "changed: negation flipped (removed)"),
        # Both clauses said in one: no flip to see.
        ("We never push to main and always open a PR.", "preserved", None),
        (
            "Never push to main; always open a PR. (No longer applies.)",
            "changed",
            "changed: revoked",
        ),
        ("Never push to main; always open a PR. (Still applies.)", "preserved", None),
    ],
)
def test_a_rule_flipped_clause_by_clause_is_seen(
    summary: str, status: str, reason: str | None
) -> None:
    said, why = judge("Never push to main; always open a PR.", f"{FILLER_EN}{summary} Next: tests.")
    assert said == status, why
    assert reason is None or why == reason


def test_a_missing_critical_anchor_is_never_preserved() -> None:
    assert judge(
        "Rotate the key stored in the VAULT_ROOT_TOKEN variable every 30 days.",
        "Rotate the key stored in the variable regularly, every few days.",
    ) == ("lost", "lost: critical anchor missing (duration)")


def test_the_issue_examples() -> None:
    """The three changes the issue names, all invisible to a substring check."""
    snapshot = Snapshot.of(
        [
            {"id": "c1", "kind": "constraint", "content": "Never push to main.", "critical": True},
            {
                "id": "c2",
                "kind": "constraint",
                "content": "The budget cap is $500.",
                "critical": True,
            },
            {"id": "c3", "kind": "requirement", "content": "You must add tests.", "critical": True},
        ]
    )
    summary = "Pushing to main is fine now. The budget cap is $5000. You may add tests."
    facts = verify_context(snapshot, summary, FactsVerifier())
    assert facts.changed == ["c1", "c2", "c3"]
    assert [f.reason for f in facts.findings] == [
        "changed: negation flipped (removed)",
        "changed: value swapped (currency)",
        "changed: obligation weakened",
    ]
    assert verify_context(snapshot, summary, LiteralVerifier()).lost == ["c1", "c2", "c3"]


def test_a_compaction_summary_keeps_most_and_drops_one_constraint() -> None:
    snapshot = Snapshot.of(
        [
            {"id": "g", "kind": "goal", "content": "Ship Google and GitHub sign-in by Friday."},
            {"id": "c", "kind": "constraint", "content": "never push to main; open a PR instead."},
            {
                "id": "d",
                "kind": "decision",
                "content": "Store OAuth account links in PostgreSQL, table oauth_accounts.",
            },
            {"id": "f", "kind": "fact", "content": "Sessions live in Redis."},
        ]
    )
    summary = (
        "## Summary\n\nThe user wants to ship Google and GitHub sign-in by Friday.\n"
        "Sessions live in Redis. OAuth account links are stored in PostgreSQL\n"
        "(table oauth_accounts). Tests pass (48/48).\n"
    )
    report = verify_context(snapshot, summary, FactsVerifier())
    assert (report.preserved, report.lost, report.changed) == (["g", "d", "f"], ["c"], [])


def test_a_distractor_sentence_nearby_does_not_flip_polarity() -> None:
    summary = (
        "Store sessions in Redis. Do not touch the billing schema. We may revisit caching later."
    )
    assert judge("Store sessions in Redis.", summary)[0] == "preserved"


def test_an_item_without_any_term_falls_back_to_folded_substring() -> None:
    assert judge("OK!", "status: ok!") == ("preserved", "preserved: verbatim")
    assert judge("OK!", "status: fine") == ("lost", "lost: no matching region")


def test_empty_context_loses_everything() -> None:
    assert judge("Never push to main.", "") == ("lost", "lost: no matching region")


@pytest.mark.parametrize(
    ("item", "summary", "kind"),
    [
        # Turning down the thing a rule forbids says the rule again.
        (
            "no pandas, it's too heavy for the lambda.",
            "Pandas was ruled out as too heavy for the lambda.",
            "constraint",
        ),
        # "TODO:" says what "not written yet" says.
        (
            "TODO: the duplicate invoice number check is not written yet.",
            "TODO: duplicate invoice number check.",
            "todo",
        ),
    ],
)
def test_a_faithful_paraphrase_is_preserved(item: str, summary: str, kind: str) -> None:
    assert judge(item, summary, kind)[0] == "preserved"


def test_turning_down_the_rule_itself_still_revokes_it() -> None:
    summary = "We scrapped the plan to follow this: never push to main."
    assert judge("Never push to main.", summary) == ("changed", "changed: revoked")


QUOTED = (
    "2. All user messages:\n"
    '   - "Never push to main; open a PR."\n'
    '   - "Use 4 parallel workers for the Playwright run."\n'
    "3. Current state and next step: "
)


@pytest.mark.parametrize(
    ("item", "state", "reason"),
    [
        (
            "Use 4 parallel workers for the Playwright run.",
            "Playwright runs with 16 parallel workers.",
            "changed: value swapped (number) (after a verbatim copy)",
        ),
        (
            "Never push to main; open a PR.",
            "the owner said pushing straight to main is fine for this fix.",
            "changed: negation flipped (removed) (after a verbatim copy)",
        ),
    ],
)
def test_a_change_stated_after_a_verbatim_copy_is_found(item: str, state: str, reason: str) -> None:
    """Claude Code's summary quotes every user message before the current state."""
    assert judge(item, QUOTED + state) == ("changed", reason)


@pytest.mark.parametrize(
    "state",
    [
        "The fix is on a branch; a PR to main is open.",  # a mention, no permission
        "Playwright runs with 4 parallel workers; the suite takes 6 minutes.",
    ],
)
def test_a_later_mention_of_a_verbatim_item_changes_nothing(state: str) -> None:
    for item in (
        "Never push to main; open a PR.",
        "Use 4 parallel workers for the Playwright run.",
    ):
        assert judge(item, QUOTED + state) == ("preserved", "preserved: verbatim")


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        (
            "Use REST for the mobile API.",
            "The mobile API uses REST since the team knows it; the GraphQL suggestion was declined.",
        ),
        ("每页 20 条。", "每页保持 20 条；试过 50 条，首屏渲染从 180ms 涨到 620ms，因此放弃。"),
        # The reason of the rejection names what was kept.
        (
            "Use MySQL for the primary datastore — ops team only runs MySQL",
            "The primary datastore is MySQL (PostgreSQL was rejected because the ops team only "
            "runs MySQL).",
        ),
    ],
)
def test_turning_down_another_option_revokes_nothing(item: str, summary: str) -> None:
    status, reason = judge(item, summary, kind="decision")
    assert status == "preserved", reason


@pytest.mark.parametrize(
    "summary",
    [
        # walk12 #10: the rejection of another thing earlier in the same sentence.
        "Redis locks were rejected (they leaked on worker crashes); we use "
        "pg_advisory_xact_lock keyed on the export date.",
        "File locks were dropped; we use pg_advisory_xact_lock keyed on the export date.",
    ],
)
def test_a_clause_turning_down_a_thing_it_names_first_revokes_nothing_beside_it(
    summary: str,
) -> None:
    item = "I'll use pg_advisory_xact_lock keyed on the export date."
    status, reason = judge(item, summary, kind="decision")
    assert status == "preserved", reason


@pytest.mark.parametrize(
    "summary",
    [
        "This rule was lifted: I'll use pg_advisory_xact_lock keyed on the export date.",
        "The old approach was dropped: I'll use pg_advisory_xact_lock keyed on the export date.",
        "Revoked by the user: I'll use pg_advisory_xact_lock keyed on the export date.",
    ],
)
def test_a_revocation_that_names_no_other_thing_still_revokes_the_item_beside_it(
    summary: str,
) -> None:
    item = "I'll use pg_advisory_xact_lock keyed on the export date."
    assert judge(item, summary, kind="decision") == ("changed", "changed: revoked")


def test_a_dropped_thing_the_item_uses_revokes_it_and_one_it_turns_down_does_not() -> None:
    summary = "The waitlist lives in Postgres (Redis dropped)."
    assert judge("Use Redis for the waitlist.", summary, kind="decision") == (
        "changed",
        "changed: revoked",
    )
    status, reason = judge(
        "Forget Redis for the waitlist, keep it in Postgres.", summary, kind="decision"
    )
    assert status == "preserved", reason


def test_a_todo_label_is_no_name_the_summary_must_repeat() -> None:
    item = "Remaining TODO: write the PR description and tag the reviewer."
    status, reason = judge(item, "Next: write the PR description and tag the reviewer.", "todo")
    assert status == "preserved", reason


def test_an_old_value_the_item_names_is_not_one_the_summary_must_repeat() -> None:
    item = "限流阈值改成每分钟 60 次，100 太高了。"
    status, reason = judge(item, "限流阈值：每分钟 60 次", "decision")
    assert status == "preserved", reason
    assert judge(item, "限流阈值：每分钟 100 次", "decision")[0] == "changed"


@pytest.mark.parametrize(
    ("item", "faithful", "wrong"),
    [
        # A bare old number stands against the current value whatever its unit, and the
        # sentence's full stop is not part of it.
        (
            "Set the timeout to 90 seconds instead of 30.",
            "The timeout is 90 seconds.",
            "The timeout is 30 seconds.",
        ),
        ("Use 8 workers instead of 4.", "We use 8 workers.", "We use 4 workers."),
        ("Set the retry count to 5, not 3.", "Retry count is 5.", "Retry count is 3."),
        ("Set the batch size to 1,000 instead of 500.", "Batch size 1,000.", "Batch size 500."),
        ("Use port 8080 instead of 80.", "The service uses port 8080.", "It uses port 80."),
    ],
)
def test_a_value_set_instead_of_an_old_one_needs_only_the_new_one(
    item: str, faithful: str, wrong: str
) -> None:
    status, reason = judge(item, faithful, "decision")
    assert status == "preserved", reason
    assert judge(item, wrong, "decision")[0] != "preserved"


@pytest.mark.parametrize(
    ("item", "summary", "status"),
    [
        (
            "单次导出最多 5000 行。",
            "目标：周五上线。单次导出最多两万行（原来的 5000 行太少）。",
            "changed",
        ),
        ("单次导出最多 5000 行。", "目标：周五上线。单次导出最多两万行。", "changed"),
        ("单次导出最多两万行。", "目标：周五上线。单次导出最多 20000 行。", "preserved"),
        ("单次导出最多 2万 行。", "目标：周五上线。单次导出最多两万行。", "preserved"),
        ("超时设为三十秒。", "目标：周五上线。超时设为 30 秒。", "preserved"),
        ("千万不要删除原图。", "目标：周五上线。千万不要删除原图。", "preserved"),
    ],
)
def test_a_chinese_numeral_is_the_number_it_names(item: str, summary: str, status: str) -> None:
    assert judge(item, summary, "requirement")[0] == status


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("两万行", "20000行"),
        ("一万二", "12000"),
        ("三百五十", "350"),
        ("两千五", "2500"),
        ("一百零五", "105"),
        ("一亿两千万", "120000000"),
        ("1.5万", "15000"),
        ("第十二", "第12"),
        # words made of numeral characters stay words
        ("千万不要", "千万不要"),
        ("万一出错", "万一出错"),
        ("十分重要", "十分重要"),
        ("统一一下", "统一一下"),
        ("3 万一超时", "3 万一超时"),
    ],
)
def test_chinese_numerals_are_read_as_digits(text: str, digits: str) -> None:
    from contextward.core.textnorm import arabic

    assert arabic(text) == digits


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        (
            "Actually, use RQ instead of Celery — Celery is overkill here.",
            "Import jobs run on RQ (Celery was dropped as overkill).",
        ),
        ("Go with pyvips.", "The service uses pyvips instead of Pillow."),
        ("No, stick with MySQL.", "The database is MySQL 8; moving to Postgres was declined."),
        ("no wait, eu-west-1.", "Deployment region is eu-west-1, set in the terraform vars."),
    ],
)
def test_what_the_item_sets_aside_is_no_change_when_the_summary_leaves_it_out(
    item: str, summary: str
) -> None:
    assert not judge(item, summary, "decision")[1].startswith("changed")


@pytest.mark.parametrize(
    ("item", "summary", "reason"),
    [
        # a rule beside a choice is no aside: leaving it out loses it
        ("Never use Heroku; deploy with Fly.", "Deploys go out with Fly.", "changed: negation"),
        # "instead of" a thing the item does not name is no negation of the item's words
        ("Never log tokens.", "We log tokens instead of hashes.", "changed: negation flipped"),
    ],
)
def test_a_rule_left_out_or_flipped_is_still_found(item: str, summary: str, reason: str) -> None:
    assert judge(item, summary)[1].startswith(reason)


@pytest.mark.parametrize(
    ("item", "summary", "reason"),
    [
        ("Don't use pandas in this project.", "Rules: no pandas.", "preserved"),
        (
            "Do not add any new dependencies to the project.",
            "Rules: no new dependencies.",
            "preserved",
        ),
        # the rule's words with its negation gone still flip it
        ("Don't use pandas in this project.", "Reports are built with pandas.", "changed"),
    ],
)
def test_a_rule_s_generic_verb_and_place_weigh_little(item: str, summary: str, reason: str) -> None:
    assert judge(item, summary)[1].startswith(reason)


@pytest.mark.parametrize(
    ("item", "summary", "reason"),
    [
        ("Never push to main.", "Rules: never push to main unless the build is green.", "changed"),
        (
            "Do not add any new dependencies to the project.",
            "No new dependencies, except pydantic.",
            "changed",
        ),
        (
            "Never push to main unless CI is green.",
            "Never push to main unless CI is green.",
            "pres",
        ),
        ("Never push to main.", "Rules: never push to main, without exception.", "preserved"),
        ("Never push to main.", "Never push to main. Everything except docs is reviewed.", "pres"),
    ],
)
def test_an_exception_added_to_a_rule_is_a_change(item: str, summary: str, reason: str) -> None:
    found = judge(item, summary)[1]
    assert found.startswith(reason)
    assert (found == "changed: exception added") == (reason == "changed")


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        ("not 0 to $500", "not 1 to $500"),
        ("not 0 to Friday", "not 1 to Friday"),
        # An old value named in place of the item's old one changed it.
        ("$500 not 0", "$500 not 1"),
        ("Set the timeout to 90 seconds instead of 30.", "Timeout 90 seconds instead of 45."),
    ],
)
def test_a_not_before_a_range_or_beside_another_kind_names_no_old_value(
    item: str, summary: str
) -> None:
    """Found by the property test: "not N" read as an old value let a changed N pass."""
    assert judge(item, summary, "fact")[0] != "preserved"


def test_a_rejection_whose_reason_names_another_thing_still_revokes_the_item() -> None:
    item = "Use MySQL for the primary datastore — ops team only runs MySQL"
    summary = "The primary datastore: MySQL was rejected because the ops team only runs Postgres."
    assert judge(item, summary, "decision") == ("changed", "changed: revoked")


def test_a_neighbour_completes_a_rule_only_by_pointing_back_at_its_thing() -> None:
    """ "Push often." says nothing of main: the rule is lost, not kept by two sentences."""
    assert judge("Never push to main.", "Never touch main. Push often.")[0] == "lost"


@pytest.mark.parametrize(
    ("item", "summary", "status"),
    [
        # A number word before the noun it counts is that number.
        ("Keep two replicas.", "Keep three replicas.", "changed"),
        ("Keep two replicas.", "Keep 2 replicas.", "preserved"),
        ("Use four workers.", "We use 4 workers.", "preserved"),
        ("Use 4 workers.", "We use four workers.", "preserved"),
        ("Retry three times.", "Retry 5 times.", "changed"),
        # Before a word that counts nothing, it stays a word.
        ("Pick one of them.", "Pick one of them.", "preserved"),
    ],
)
def test_an_english_number_word_is_the_number_it_names(
    item: str, summary: str, status: str
) -> None:
    assert judge(item, summary, "decision")[0] == status


def test_numbers_after_a_verbatim_copy_of_an_item_without_words_change_nothing() -> None:
    """Found by the property test: "0;5" after "$500 5" is about nothing the item names."""
    assert judge("$500 5", "$500 5\n\n0;5", "fact") == ("preserved", "preserved: verbatim")


@pytest.mark.parametrize(
    ("item", "faithful", "stale"),
    [
        (
            "Switch the export job state from Postgres to SQLite, we don't want a DB server "
            "for this.",
            "The user is adding a CSV export endpoint. Export job state is in SQLite (no DB "
            "server).",
            "The user is adding a CSV export endpoint. Export job state is in Postgres (no DB "
            "server).",
        ),
        (
            "Switch the export job state from Postgres to SQLite.",
            "Export job state: SQLite.",
            "Export job state is in Postgres, not SQLite.",
        ),
        ("Move uploads from S3 to GCS.", "Uploads go to GCS.", "Uploads go to S3."),
        ("Deploy target Heroku -> Fly.", "Deploy target is Fly.", "Deploy target is Heroku."),
        ("Deploy to Fly, not Heroku.", "Deploys go to Fly.", "Deploys go to Heroku."),
        (
            "Replace Celery with RQ for background jobs.",
            "Background jobs run on RQ.",
            "Background jobs run on Celery.",
        ),
        ("任务状态从 Postgres 改成 SQLite。", "任务状态存在 SQLite。", "任务状态存在 Postgres。"),
        ("任务队列用 Kafka，不用 RabbitMQ 了。", "任务队列用 Kafka。", "任务队列用 RabbitMQ。"),
        ("上传文件存到 GCS，不用 S3 了。", "上传文件存到 GCS。", "上传文件存到 S3。"),
    ],
)
def test_the_name_a_replacement_retires_is_no_anchor_and_stating_it_as_current_swaps(
    item: str, faithful: str, stale: str
) -> None:
    """walk11 #5: a faithful summary states only the new name; one that states the old
    name where the new one stands changed the item."""
    status, reason = judge(item, faithful, "decision")
    assert status == "preserved", reason
    assert judge(item, stale, "decision")[0] == "changed"


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        # "copy from" is no move: the source stays an anchor
        ("Copy the nightly dump from Postgres to BigQuery.", "The nightly dump goes to BigQuery."),
        # a thing the item keeps elsewhere is not retired
        ("Move uploads from S3 to GCS; keep S3 for backups.", "Uploads go to GCS."),
    ],
)
def test_a_name_that_is_not_replaced_stays_an_anchor(item: str, summary: str) -> None:
    assert judge(item, summary, "decision")[0] == "lost"


def test_a_summary_that_sets_the_old_name_aside_keeps_the_replacement() -> None:
    item = "Switch the export job state from Postgres to SQLite."
    for summary in (
        "Export job state moved from Postgres to SQLite.",
        "Export job state is in SQLite, not Postgres.",
        "Export job state is in SQLite (Postgres was dropped).",
    ):
        status, reason = judge(item, summary, "decision")
        assert status == "preserved", (summary, reason)


@pytest.mark.parametrize(
    ("item", "faithful", "stale"),
    [
        ("每页 50 条改成 200 条。", "导出接口每页 200 条。", "导出接口每页 50 条。"),
        (
            "Change the timeout from 30 to 60 seconds.",
            "The timeout is 60 seconds.",
            "Timeout: 30 s.",
        ),
        (
            "Move the release from Monday to Friday.",
            "The release is on Friday.",
            "Release: Monday.",
        ),
    ],
)
def test_the_value_a_move_retires_is_no_anchor_either(item: str, faithful: str, stale: str) -> None:
    status, reason = judge(item, faithful, "decision")
    assert status == "preserved", reason
    assert judge(item, stale, "decision")[0] != "preserved"


@pytest.mark.parametrize(
    ("item", "summary", "status"),
    [
        # a measure word before its noun says nothing a summary must repeat
        ("上线前写一些集成测试。", "上线前写集成测试。", "preserved"),
        ("可以，但要加个开关。", "用户同意自动重试，但要加开关。", "preserved"),
        # nor do "but" and "must" in Chinese, any more than in English
        ("可以，但要加个开关。", "导出任务加自动重试，最多三次，并加开关。", "preserved"),
        # the switch itself left out is lost, said off is a change, a count is a value
        ("可以，但要加个开关。", "导出任务加自动重试，最多三次。", "lost"),
        ("可以，但要加个开关。", "导出任务加自动重试，但不要加开关。", "changed"),
        ("导出任务加两个开关。", "导出任务加开关。", "lost"),
    ],
)
def test_a_chinese_measure_word_and_function_words_change_nothing(
    item: str, summary: str, status: str
) -> None:
    assert judge(item, FILLER_ZH + summary, "correction")[0] == status


@pytest.mark.parametrize(
    ("item", "summary", "status", "reason"),
    [
        # The item as said, the summary as printed (guidance shows no escapes).
        (
            "Set the export batch size to \x1b[32m500\x1b[0m rows.",
            "Set the export batch size to 500 rows.",
            "preserved",
            "preserved: verbatim",
        ),
        (
            "Deploy with \x1b[1mfly deploy --remote-only\x1b[0m from now on.",
            "Deploy with fly deploy --remote-only from now on.",
            "preserved",
            "preserved: verbatim",
        ),
        # A summary that kept the escapes, or an OSC title, reads the same.
        (
            "Never push to main.",
            "\x1b]0;title\x07\x1b[1mNever push to main.\x1b[0m",
            "preserved",
            "preserved: verbatim",
        ),
        # The escapes hide no change.
        (
            "Set the export batch size to \x1b[32m500\x1b[0m rows.",
            "Set the export batch size to 800 rows.",
            "changed",
            "changed: value swapped (number)",
        ),
        (
            "\x1b[1mNever\x1b[0m push to main.",
            "Pushing to main is fine now.",
            "changed",
            "changed: negation flipped (removed)",
        ),
    ],
)
def test_terminal_escapes_are_read_as_printed_on_both_sides(
    item: str, summary: str, status: str, reason: str
) -> None:
    assert judge(item, FILLER_EN + summary) == (status, reason)


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        # Only the struck text is revoked: the closing "~~" is no part of what follows.
        ("Set the HTTP timeout to 30s.", "~~Use Redis for caching.~~ Set the HTTP timeout to 30s."),
        ("Never push to main.", "Notes: ~~Use Redis for caching.~~ Never push to main."),
        ("Never push to main.", "~~Use Redis for caching.~~\nNever push to main."),
        (
            "Set the HTTP timeout to 30s.",
            "We ~~use Redis for caching~~ set the HTTP timeout to 30s.",
        ),
        ("Use Memcached for sessions.", "We ~~use Redis~~ now use Memcached for sessions."),
        (
            "Use Memcached for sessions.",
            "~~Use Redis. Never push to main.~~ Use Memcached for sessions.",
        ),
        ("超时设成 5 秒。", "~~不要直接 push 到 main。~~超时设成 5 秒。"),
        ("Never push to main.", "**Use Redis for caching.** Never push to main."),
    ],
)
def test_a_strikethrough_revokes_only_what_it_strikes(item: str, summary: str) -> None:
    assert judge(item, f"Intro. {summary} Other notes.")[0] == "preserved"


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        ("Never push to main.", "~~Never push to main.~~ Set the HTTP timeout to 30s."),
        ("Never push to main.", "Set the HTTP timeout to 30s. ~~Never push to main.~~"),
        ("Never push to main.", "Notes: ~~Use Redis for caching.~~ ~~Never push to main.~~"),
        # A strike holding a comma, one over two sentences, one with no space after "。".
        ("Never push to main; open a PR instead.", "~~Never push to main, open a PR instead.~~"),
        ("Never push to main.", "~~Use Redis. Never push to main.~~ Use Memcached."),
        ("不要直接 push 到 main。", "~~不要直接 push 到 main。~~超时设成 5 秒。"),
        ("Set the HTTP timeout to 30s.", "We ~~set the HTTP timeout to 30s~~ and use Redis."),
    ],
)
def test_what_a_strikethrough_strikes_is_revoked(item: str, summary: str) -> None:
    assert judge(item, f"Intro. {summary} Other notes.") == ("changed", "changed: revoked")


TIMEOUT = "Set the HTTP timeout to 30s."


@pytest.mark.parametrize(
    ("item", "summary", "reason"),
    [
        # The item's value found elsewhere keeps nothing: it must be the subject's value.
        (
            TIMEOUT,
            "Never push to main. The HTTP timeout is 60s. Cache entries expire after 30s.",
            "changed: value swapped (duration)",
        ),
        (TIMEOUT, "HTTP timeout is 60s. DB timeout is 30s.", "changed: value swapped (duration)"),
        (
            TIMEOUT,
            "Set the HTTP timeout to 60s and the DB timeout to 30s.",
            "changed: value swapped (duration)",
        ),
        (
            TIMEOUT,
            "The HTTP timeout is 60s. Health check interval: 30s.",
            "changed: value swapped (duration)",
        ),
        (TIMEOUT, "Timeouts: HTTP 60s, DB 30s.", "changed: value swapped (duration)"),
        (
            TIMEOUT,
            "Use 60s for the HTTP timeout and 30s for the DB timeout.",
            "changed: value swapped (duration)",
        ),
        (
            "HTTP 超时设为 30 秒。",
            "HTTP 超时设为 60 秒，数据库超时 30 秒。",
            "changed: value swapped (duration)",
        ),
        (
            "Keep the monthly budget under $500.",
            "The monthly budget stays under $800; the CI bill is $500.",
            "changed: value swapped (currency)",
        ),
        (
            "Deploy on Friday.",
            "Deploy on Monday; the freeze starts Friday.",
            "changed: value swapped (date)",
        ),
        # The control: the swapped value alone.
        (TIMEOUT, "The HTTP timeout is 60s.", "changed: value swapped (duration)"),
    ],
)
def test_a_value_is_kept_only_beside_its_subject(item: str, summary: str, reason: str) -> None:
    assert judge(item, f"Intro. {summary} Other notes.", "decision") == ("changed", reason)


@pytest.mark.parametrize(
    ("item", "summary"),
    [
        (TIMEOUT, "HTTP timeout: 30s (DB timeout stays 60s)."),
        (TIMEOUT, "Timeouts: HTTP 30s, DB 60s."),
        (TIMEOUT, "Use 30s for the HTTP timeout and 60s for the DB timeout."),
        (TIMEOUT, "The DB timeout is 60s and the HTTP timeout is 30s."),
        (TIMEOUT, "The HTTP timeout (30s) and the DB timeout (60s) were set."),
        (TIMEOUT, "The HTTP timeout was raised from 10s to 30s."),
        (TIMEOUT, "HTTP timeout 30s (was 60s)."),
        (TIMEOUT, "HTTP timeout is 30s. Cache entries expire after 60s."),
        ("HTTP 超时设为 30 秒。", "HTTP 超时设为 30 秒，数据库超时 60 秒。"),
        (
            "Keep the monthly budget under $500.",
            "The monthly budget stays under $500; we spent $430.",
        ),
        ("Run 3 workers in production.", "Production runs 3 workers, staging 1 worker."),
    ],
)
def test_a_value_beside_its_subject_is_kept_whatever_other_values_say(
    item: str, summary: str
) -> None:
    assert judge(item, f"Intro. {summary} Other notes.", "decision")[0] == "preserved"


@pytest.mark.parametrize(
    ("first", "second", "state"),
    [
        (
            "Set the HTTP timeout to 30 seconds.",
            "Set the DB connect timeout to 10 seconds.",
            "HTTP timeout 30 s, DB connect timeout 10 s.",
        ),
        ("队列超时设成 8 秒。", "缓存连接超时设成 2 秒。", "队列超时 8 秒，缓存连接超时 2 秒。"),
    ],
)
def test_past_a_verbatim_copy_another_things_value_beside_the_words_changes_nothing(
    first: str, second: str, state: str
) -> None:
    # A faithful summary laid out as Claude Code's: every owner message quoted, then the
    # current state, where each timeout sits beside the other's words. Read past the copy,
    # a value nearer another subject's words is no change (the restore probes' faithful
    # controls were reported changed in 7 more of 97 when it was).
    items = [
        ContextItem(id="a", kind="decision", content=first, critical=True),
        ContextItem(id="b", kind="decision", content=second, critical=True),
    ]
    context = (
        f'<summary>\n2. All user messages:\n   - "{first}"\n   - "{second}"\n'
        f"3. Current state:\n{state}\n</summary>"
    )
    assert [f["status"] for f in FactsVerifier().verify(items, context)] == ["preserved"] * 2
    # Said with the other's value after the copy, it is still a change.
    wrong = context.replace(state, state.replace("10 s", "30 s").replace("2 秒", "8 秒"))
    assert FactsVerifier().verify(items, wrong)[1]["status"] == "changed"
