"""Rules found on the sessions of three more authors: each one, through the real pipeline."""

from __future__ import annotations

import pytest

from contextward.inspect import Message
from contextward.inspect.segment import units
from inspect_helpers import kind, only, run


def test_a_terse_owner_s_lowercase_sentences_are_separate_units() -> None:
    text = "incident. checkout p99 went up. read only on prod until i say otherwise"
    assert [u.text for u in units(text)] == [
        "incident.",
        "checkout p99 went up.",
        "read only on prod until i say otherwise",
    ]
    assert [u.text for u in units("see e.g. the docs for this")] == ["see e.g. the docs for this"]


@pytest.mark.parametrize(
    "text",
    ["1 and 2 yes.", "1 和 3 可以。", "先试 1", "Please start with 1 and 2.", "go with b"],
)
def test_a_reply_picking_from_the_assistant_s_list_is_noise(text: str) -> None:
    assert kind(text) == "transient"


@pytest.mark.parametrize(
    "text", ["how long would the copy take", "语言怎么判断的", "why did this start in 5.12 though"]
)
def test_questions_without_a_question_mark_are_noise(text: str) -> None:
    assert kind(text) == "transient"


def test_a_question_that_proposes_is_still_kept() -> None:
    assert kind("why not reuse the retry helper") != "transient"


@pytest.mark.parametrize(
    "text",
    [
        "Regarding the warehouse — let me check what `load_raw.sql` uses.",
        "ZendeskSupportSDK: let me check.",
        "我再查一下 ClickHouse 里重复数据的情况。",
        "我去看看上游 producer 那几个时间点的日志。",
        "我用 jemalloc 的 heap profile 看一下。",
        "看下处理 7 号分区的 pod 日志。",
        "好，我先把最近一次 PR CI 的 profile 拉下来分析，再看一下 .bazelrc 的配置。",
        "Rechecking with the 2.2 rule set.",
        "StockServiceTest 4 个用例都过了。",
        "编译通过，新加的 4 个单测都过了。",
        "Release build and all 148 tests pass.",
        "Type check is clean and all 18 tests pass, including the new guard and store specs.",
        "Now the countdown.",
        "Now the Stripe side — creating the products in test mode.",
        "Now checking the latency cost with the benchmark against a local Redis.",
        "接下来看消费端的重复下单。",
    ],
)
def test_the_assistant_s_next_step_or_a_bare_test_run_is_noise(text: str) -> None:
    assert kind(text, "assistant") == "transient"


@pytest.mark.parametrize(
    "text",
    [
        "看下面的日志，TTL 只有 24 小时，超过以后同一个 event_id 会再算一次。",
        "9 个测试全过，src 里没有 unsafe，ConnGuard 在 drop 时退订。",
        "Now the cache lives in Redis, keyed by tenant_id.",
    ],
)
def test_what_only_opens_like_a_next_step_or_a_test_run_is_kept(text: str) -> None:
    assert kind(text, "assistant") != "transient"


def test_asking_whether_something_can_be_done_forbids_nothing() -> None:
    assert kind("你再想想 ingress 这边能不能搞定") != "constraint"
    assert kind("ingress 这边不能改") == "constraint"


def test_limits_the_assistant_finds_and_its_plan_steps_are_kept() -> None:
    result = run(
        Message(
            "a1",
            "assistant",
            "Changing the partition table cannot be done over OTA for devices in the field. "
            "Use the remote build cache at ge.acme.internal for task outputs only.",
        )
    )
    assert {c.action for c in result.candidates} == {"keep"}


def test_a_markdown_title_is_noise() -> None:
    assert kind("**Plan:**") == "transient"


def test_a_correction_that_names_what_it_scratches_retires_every_recent_mention() -> None:
    result = run(
        Message("u0", "user", "Make render-worker autoscaling stable."),
        Message("u1", "user", "Do a scheduled minimum of 10 pods with a cronjob patching the HPA."),
        Message("a1", "assistant", "For the floor I'll write a CronJob that patches the HPA."),
        Message("u2", "user", "scratch the cronjob, argo would fight it. use KEDA's cron scaler"),
    )
    new = only(result, "scratch the cronjob, argo would fight it.")
    owner = only(result, "Do a scheduled minimum of 10 pods with a cronjob patching the HPA.")
    plan = only(result, "For the floor I'll write a CronJob that patches the HPA.")
    assert owner.superseded_by == new.id and plan.superseded_by == new.id
    assert only(result, "Make render-worker autoscaling stable.").superseded_by is None


def test_a_value_named_in_another_unit_of_time_is_replaced() -> None:
    result = run(
        Message("a1", "assistant", "我建议用 ValueState 去重，state TTL 设 24 小时。"),
        Message("u1", "user", "等下，TTL 还是用 2 小时吧，relay 最长会攒 70 多分钟"),
    )
    old = only(result, "我建议用 ValueState 去重，state TTL 设 24 小时。")
    assert (
        old.superseded_by == only(result, "等下，TTL 还是用 2 小时吧，relay 最长会攒 70 多分钟").id
    )


def test_the_value_a_statement_sets_is_the_one_after_its_cue() -> None:
    result = run(
        Message("u0", "user", "匹配服排队太久了，帮我优化一下。"),
        Message("u1", "user", "超时时间从 180 秒改成 30 秒，到点了就退回大厅"),
        Message("a1", "assistant", "好的。"),
        Message("u2", "user", "跟策划对了一下，30 秒太短了，改成 90 秒。"),
    )
    old = only(result, "超时时间从 180 秒改成 30 秒，到点了就退回大厅")
    assert old.superseded_by == only(result, "跟策划对了一下，30 秒太短了，改成 90 秒。").id


def test_numbers_of_different_things_do_not_retire_each_other() -> None:
    result = run(
        Message("a1", "assistant", "Failed invoice events go to billing.dlq after 5 attempts."),
        Message("u1", "user", "Billing deploys are frozen after 14:00 UTC on month-end week."),
        Message("u2", "user", "consumer group 是 order-events-sink，24 个分区。"),
        Message("u3", "user", "先把 sink 扩到 48 个副本"),
    )
    assert all(c.superseded_by is None for c in result.candidates)


def test_the_assistant_retires_nothing_by_shared_words_alone() -> None:
    result = run(
        Message("a1", "assistant", "Renewal has been failing for 30 days: HTTP-01 gets a 403."),
        Message("a2", "assistant", "Something in front of ingress is blocking the HTTP-01 path."),
        Message("a3", "assistant", "Switching the challenge to a WAF skip rule for that path."),
    )
    assert all(c.superseded_by is None for c in result.candidates)


@pytest.mark.parametrize(
    "text",
    ["ugh.", "yesss.", "shit.", "idk.", "all green.", "omg works 😭", "啊原来如此！", "好家伙"],
)
def test_an_owner_s_interjection_is_noise(text: str) -> None:
    assert kind(text) == "transient"


@pytest.mark.parametrize("text", ["ssh works now from the bastion", "卧槽这么多年的脏数据。"])
def test_an_interjection_beside_substance_keeps_the_substance(text: str) -> None:
    assert kind(text) != "transient"


def test_the_assistant_saying_what_it_is_not_using_and_why_is_a_rejection() -> None:
    text = "I'm not using `enable.auto.commit` — it commits on poll, before the DB write."
    assert kind(text, "assistant") == "rejected"


def test_weighing_an_approach_with_would_is_not_narration() -> None:
    text = "Installing the NDK in a workflow step would re-download ~1 GB on every run."
    assert kind(text, "assistant") != "transient"
    assert kind("Installing the NDK now.", "assistant") == "transient"


@pytest.mark.parametrize(
    "text",
    [
        "1 and 4 fine.",
        "Mostly yes!",
        "Spark 可以。",
        "ok 有道理",
        "Blue/green sounds right.",
        "Have a nice evening!",
        "you are a lifesaver!",
        "同意 JSON Lines。",
        "滚动可以了。",
        "refresh works now.",
        # Reacting, or doing something themselves right now.
        "Oh, that's sneaky, thank you.",
        "OMG ok bad news 😭 they just moved it.",
        "I'll ping him now.",
        "Back from the security review.",
        "我刚在压测环境重新部署了，jmeter 跑了一轮，结果贴给你",
        # Their word for the very next step.
        "Please look first what we have.",
        "Submit it as is.",
    ],
)
def test_an_owner_approving_by_name_or_signing_off_is_noise(text: str) -> None:
    assert kind(text) == "transient"


@pytest.mark.parametrize(
    "text",
    [
        "这个方案不可以。",
        "Redis 可以，但是不要用 cluster 模式",
        "上传又不正常了",
        "Oh, that's the staging bucket, prod data lives in s3://acme-prod-events.",
        "I'll ping them to switch to v-perm themselves, the old helper goes away in 3.0.",
        "read only on prod until i say otherwise",
        "Look at the billing service first, it must stay on Java 11.",
    ],
)
def test_an_approval_with_a_no_or_a_but_in_it_is_kept(text: str) -> None:
    assert kind(text) != "transient"
