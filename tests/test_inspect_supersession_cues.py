"""How owners take things back, and what the taking back retires: through the real pipeline."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from contextward.inspect import InspectionResult, Message, inspect_messages
from contextward.inspect.supersession import _values
from inspect_helpers import kind, only, retired, run


def after_a_reply(
    said: str, reply: str, then: str, *, opening: str = "I'm on the backend repo today."
) -> InspectionResult:
    """The owner's opening, "Sure.", then what the owner said, the assistant's reply and the
    owner's next word (so what is replaced is never the opening request)."""
    return run(
        Message("u0", "user", opening),
        Message("a0", "assistant", "Sure."),
        Message("u1", "user", said),
        Message("a1", "assistant", reply),
        Message("u2", "user", then),
    )


@pytest.mark.parametrize(
    "text",
    [
        "hm ok then forget the quarantine job for now, the suite is green again.",
        "ugh. forget memcached then, ops won't run another cache.",
        "Hmm, scratch the feature flag bit.",
        "no wait, the cron runs in UTC, not local time.",
        "make the page size 50 actually, 20 looks sparse.",
        "按用户 ID 取模不行，扩容的时候要全部重新分配。",
        "问了一下运维，磁盘其实只有 200G，不够放全量。",
    ],
)
def test_a_correction_may_lead_in_with_an_interjection_or_end_with_its_cue(text: str) -> None:
    assert kind(text) == "correction"


@pytest.mark.parametrize(
    "text",
    [
        "Don't forget to bump the changelog.",
        "forget it's a Friday, we ship anyway.",
        "It actually works on Windows too, nice.",
        "这样不行的话就先回滚。",
    ],
)
def test_words_that_only_look_like_taking_back_are_not_corrections(text: str) -> None:
    assert kind(text) != "correction"


def test_a_correction_led_in_by_an_interjection_retires_what_it_names() -> None:
    result = run(
        Message("u0", "user", "Speed up CI for the payments repo."),
        Message("u1", "user", "and run the slow tests in a nightly job"),
        Message("a1", "assistant", "Done, CI is at 11 minutes."),
        Message("u2", "user", "hm ok then forget the nightly job for now, we are fast enough."),
    )
    old = only(result, "run the slow tests in a nightly job")
    assert (
        old.superseded_by
        == only(result, "hm ok then forget the nightly job for now, we are fast enough.").id
    )
    assert not retired(result, "Speed up CI for the payments repo.")


def test_a_rejection_a_question_later_retires_the_plan_it_names_not_a_finding() -> None:
    result = run(
        Message("u0", "user", "Move the audit table to monthly partitions."),
        Message(
            "a1",
            "assistant",
            "I'd build audit_new partitioned, backfill it in batches, then swap the names.",
        ),
        Message("u1", "user", "how long would the backfill take"),
        Message(
            "a2",
            "assistant",
            "About 3 hours; rows written meanwhile need a catch-up pass before the swap, "
            "and the backfill holds no lock.",
        ),
        Message(
            "u2",
            "user",
            "so the backfill + swap is out, the catch-up is too fiddly with late rows.",
        ),
    )
    rejection = only(
        result, "so the backfill + swap is out, the catch-up is too fiddly with late rows."
    )
    assert rejection.kind == "rejected"
    plan = only(
        result, "I'd build audit_new partitioned, backfill it in batches, then swap the names."
    )
    assert plan.superseded_by == rejection.id
    assert rejection.supersedes == (plan.id,)


def test_an_addition_still_retires_nothing() -> None:
    result = run(
        Message("u0", "user", "Resize JPEG uploads to 1600 px on the server."),
        Message("a1", "assistant", "I'll resize with Pillow in the upload handler."),
        Message("u1", "user", "PNG uploads need it too."),
    )
    assert all(c.superseded_by is None for c in result.candidates)


def test_a_size_in_k_and_a_date_are_values_that_a_correction_replaces() -> None:
    result = run(
        Message("u0", "user", "Add OTA updates to the sensor firmware."),
        Message("u1", "user", "download in chunks of 4K"),
        Message("a1", "assistant", "OK."),
        Message(
            "u2",
            "user",
            "tested it: the modem buffer holds just over 1K, chunks have to be 1K instead.",
        ),
        Message("a2", "assistant", "The v1 sunset date is set to 2027-06-30 in deprecation.go."),
        Message("u3", "user", "The sunset is 2027-03-31, not June."),
    )
    assert retired(result, "download in chunks of 4K")
    sunset = only(result, "The v1 sunset date is set to 2027-06-30 in deprecation.go.")
    assert sunset.superseded_by == only(result, "The sunset is 2027-03-31, not June.").id


def test_a_new_count_of_the_same_thing_reaches_far_back_a_new_time_does_not() -> None:
    chatter = [
        Message(f"{who[0]}{i + 2}", who, text)
        for i in range(4)
        for who, text in (
            ("user", f"Also plot the loss curve for run {i}."),
            ("assistant", f"Plotted run {i}."),
        )
    ]
    result = run(
        Message("u0", "user", "Run the augmentation ablation. 3 seeds per config."),
        Message("u1", "user", "Each run gets a 30 minute budget."),
        *chatter,
        Message("u9", "user", "Actually make it 5 seeds, the gap is too small for 3."),
        Message("u10", "user", "Use a 45 minute budget for the final table."),
    )
    assert (
        only(result, "3 seeds per config.").superseded_by
        == only(result, "Actually make it 5 seeds, the gap is too small for 3.").id
    )
    assert not retired(result, "Each run gets a 30 minute budget.")


@pytest.mark.parametrize("role", ["user", "assistant"])
def test_a_statement_of_where_things_are_retires_nothing_it_names(role: str) -> None:
    result = run(
        Message("u0", "user", "Add an expiry alert for the TLS certificates."),
        Message(
            "a1",
            role,
            "The www, docs and status certificates all come from the cluster issuer.",
        ),
        Message(
            "u1", "user", "The alert rules live in the platform-alerts repo, not the cluster repo."
        ),
    )
    assert all(c.superseded_by is None for c in result.candidates)


def test_an_owner_s_new_target_does_not_retire_what_the_assistant_measured() -> None:
    result = run(
        Message("u0", "user", "Make the leaderboard rank endpoint fast."),
        Message("a1", "assistant", "With 1.2M rows the rank query is p99 486ms at 500 rps."),
        Message(
            "u1",
            "user",
            "rank p99 should be under 50ms, the client calls it on every result screen.",
        ),
    )
    measured = only(result, "With 1.2M rows the rank query is p99 486ms at 500 rps.")
    assert measured.superseded_by is None and measured.action == "keep"


def test_a_number_glued_to_a_word_is_a_name_not_a_value() -> None:
    result = run(
        Message("u0", "user", "Deploy the defect model to the production lines."),
        Message("u1", "user", "The images for line3 are on the NAS under /mnt/qc/line3."),
        Message("u2", "user", "Set up line1 and line2 as well, each needs its own engine."),
    )
    assert all(c.superseded_by is None for c in result.candidates)


_PLAN = (
    "Here's what I'd propose:\n\n"
    "1. Set the scale-down stabilization window to 600s.\n"
    "2. Cap scale-up at 4 pods per 30s.\n"
    "3. Raise min replicas from 4 to 8 for the peak.\n"
)


def _answering_the_plan(reply: str) -> tuple[Message, ...]:
    return (
        Message(
            "u0", "user", "The render workers flap between 4 and 30 pods, fix the autoscaling."
        ),
        Message("a1", "assistant", _PLAN),
        Message("u1", "user", reply),
    )


@pytest.mark.parametrize(
    ("reply", "turned_down"),
    [
        ("1 and 2 yes. 3 no — a higher floor all day costs $2.1k a month.", 3),
        ("第 3 点不行！", 3),
        ("2 的话，干脆别限速了，节点扩容本来就慢", 2),
        ("point 1: skip it, the window is already 300s and that is enough", 1),
        ("1 and 4 fine. But no on 2 — security flagged that last quarter.", 2),
        ("Not 3 as written.", 3),
        ("1 is no, the window is already long enough.", 1),
    ],
)
def test_an_owner_turns_down_a_numbered_item_by_its_number(reply: str, turned_down: int) -> None:
    result = run(*_answering_the_plan(reply))
    retired = [c for c in result.candidates if c.superseded_by]
    assert [c.content for c in retired] == [_PLAN.splitlines()[1 + turned_down][3:]]
    by = {c.id: c for c in result.candidates}
    assert by[retired[0].superseded_by].sources == ("u1",)


@pytest.mark.parametrize(
    "reply",
    [
        "1 and 2 yes, 3 too.",
        "1 和 3 可以。",
        "3 seeds per configuration, not 5.",
    ],
)
def test_approving_by_number_or_a_number_that_is_a_value_retires_nothing(reply: str) -> None:
    result = run(*_answering_the_plan(reply))
    assert not [c for c in result.candidates if c.superseded_by and c.sources == ("a1",)]


def test_a_number_names_the_last_list_of_the_message_just_before() -> None:
    findings = "What I found:\n1. The window is 0s.\n2. Pods need 90s to be ready.\n\n"
    result = run(
        Message(
            "u0", "user", "The render workers flap between 4 and 30 pods, fix the autoscaling."
        ),
        Message("a1", "assistant", findings + _PLAN),
        Message("u1", "user", "2 不行，扩容要快"),
    )
    retired = [c.content for c in result.candidates if c.superseded_by]
    assert retired == ["Cap scale-up at 4 pods per 30s."]


@pytest.mark.parametrize(
    "directive",
    [
        "scale the janitor cronjob to 0",
        # What follows the first clause may explain the directive in any form.
        "scale the janitor cronjob to 0, you have write on the checkout namespace for that",
    ],
)
def test_a_correction_takes_back_the_owner_s_directive_not_the_finding_that_reported_on_it(
    directive: str,
) -> None:
    result = run(
        Message("u0", "user", "Checkout p99 is at 900ms, find out why."),
        Message("u1", "user", directive),
        Message("a1", "assistant", "The agent role can't patch the janitor scale in checkout."),
        Message("u2", "user", "no wait, argo would just scale the janitor back up in 3 min."),
    )
    correction = only(result, "no wait, argo would just scale the janitor back up in 3 min.")
    assert only(result, directive).superseded_by == correction.id
    finding = only(result, "The agent role can't patch the janitor scale in checkout.")
    assert finding.superseded_by is None


def test_make_it_n_retires_every_statement_of_the_value_last_said() -> None:
    result = run(
        Message("u0", "user", "Add a hard delete for soft-deleted projects."),
        Message("u1", "user", "deleted projects get purged for real after 30 days"),
        Message(
            "a1", "assistant", "I'll add a nightly purge job that hard-deletes them after 30 days."
        ),
        Message("u2", "user", "make it 90 days, legal just replied"),
    )
    correction = only(result, "make it 90 days, legal just replied")
    assert only(result, "deleted projects get purged for real after 30 days").superseded_by == (
        correction.id
    )


@pytest.mark.parametrize(
    ("reply", "proposal"),
    [
        (
            "No Docker please.",
            "I suggest we ship a Dockerfile so reviewers get the exact environment",
        ),
        (
            "No exceptions in the spec.",
            "I suggest we mark the remaining violations as known exceptions in the spec",
        ),
        (
            "not an env var — I can't edit those myself.",
            "I'd put the launch date in an environment variable",
        ),
        ("nvenc 算了，GPU 只有两台，一直被占着。", "编码器可以换成 h264_nvenc"),
    ],
)
def test_an_owner_turns_down_the_proposal_just_made_by_naming_it(reply: str, proposal: str) -> None:
    end = "." if proposal.isascii() else "。"
    result = run(
        Message("u0", "user", "Get the release ready."),
        Message("a1", "assistant", f"{proposal}{end} Tests pass on main at 4f2c1a0."),
        Message("u1", "user", reply),
    )
    retired = [c.content for c in result.candidates if c.superseded_by]
    assert retired == [f"{proposal}{end}"]


def test_no_followed_by_a_common_word_turns_nothing_down() -> None:
    result = run(
        Message("u0", "user", "Get the release ready."),
        Message(
            "a1", "assistant", "The plan: ship a Dockerfile so reviewers get the exact environment."
        ),
        Message("u1", "user", "No rush on the Dockerfile, Friday is fine."),
    )
    assert not [c for c in result.candidates if c.superseded_by]


def test_a_new_rate_replaces_the_old_rate_in_other_words() -> None:
    result = run(
        Message("u0", "user", "Scrape the supplier prices nightly."),
        Message(
            "a1", "assistant", "I'll use one token bucket at 30 requests/minute for all workers."
        ),
        Message("u1", "user", "but make it 20 per minute, not 30 — another team shares the IP."),
    )
    bucket = only(result, "I'll use one token bucket at 30 requests/minute for all workers.")
    assert (
        bucket.superseded_by
        == only(result, "but make it 20 per minute, not 30 — another team shares the IP.").id
    )


def test_the_owner_s_first_request_is_not_retired_by_shared_words() -> None:
    goal = "We must rotate the payments database password and move the services to dynamic credentials."
    result = run(
        Message("u0", "user", f"Hello, I need your help with something delicate. {goal}"),
        Message(
            "a1", "assistant", "The reporting service connects with the static password today."
        ),
        Message(
            "u1",
            "user",
            "So reporting gets a static role instead: Vault rotates the password of reporting_ro.",
        ),
    )
    assert not retired(result, goal)


def test_a_description_with_not_in_it_replaces_nothing() -> None:
    result = run(
        Message("u0", "user", "Make the slot picker accessible."),
        Message(
            "a1",
            "assistant",
            "Slots are rendered by TimeSlotPicker.tsx as native toggle buttons with aria-pressed.",
        ),
        Message(
            "u1",
            "user",
            'I ran NVDA over the slot picker: slots read as "toggle button, not pressed".',
        ),
    )
    assert not [c for c in result.candidates if c.superseded_by]


def test_the_assistant_s_own_rather_than_revises_its_plans_not_its_findings() -> None:
    result = run(
        Message("u0", "user", "Speed up the match consumer."),
        Message(
            "a1",
            "assistant",
            "The consumer in MatchConsumer.scala commits per record, which is why it lags 40k messages.",
        ),
        Message("a2", "assistant", "I'll process 16 partitions at once with parEvalMap."),
        Message("u1", "user", "the db pool is only 10 connections."),
        Message("a3", "assistant", "I'll cap it at 8 per pod rather than per partition."),
    )
    finding = only(
        result,
        "The consumer in MatchConsumer.scala commits per record, which is why it lags 40k messages.",
    )
    assert finding.superseded_by is None


def test_a_bound_the_owner_sets_does_not_retire_what_the_owner_measured() -> None:
    result = run(
        Message("u0", "user", "Find the memory leak in the websocket gateway."),
        Message("u1", "user", "RSS 大概每小时涨 200MB，差不多 8 小时就被 kill 一次。"),
        Message("u2", "user", "24h 下来 RSS 不超过 800MB 就算过。"),
    )
    measured = only(result, "RSS 大概每小时涨 200MB，差不多 8 小时就被 kill 一次。")
    assert measured.superseded_by is None


def test_12_hours_not_8_reaches_back_for_the_8_hours() -> None:
    filler = [
        Message(f"{who[0]}{i}", who, text)
        for i in range(2, 6)
        for who, text in (("user", f"Also check route {i}."), ("assistant", f"Route {i} checked."))
    ]
    result = run(
        Message("u0", "user", "Put the admin behind SSO."),
        Message("u1", "user", "sessions expire after 8 hours, absolute."),
        *filler,
        Message("u9", "user", "Make it 12 hours, not 8 — month-end runs take 10h."),
    )
    old = only(result, "sessions expire after 8 hours, absolute.")
    assert (
        old.superseded_by == only(result, "Make it 12 hours, not 8 — month-end runs take 10h.").id
    )


@pytest.mark.parametrize(("chatter", "expected"), [(10, True), (260, False)])
def test_a_named_replacement_reaches_far_back_but_not_without_bound(
    chatter: int, expected: bool
) -> None:
    """ "Use grpc instead of the worker pool" finds the plan a few hundred turns back at
    most, so a session of many replacements stays linear (bench: inspect_speed)."""
    between = []
    for i in range(chatter):
        between.append(Message(f"q{i}", "user", f"and what about report {i}?"))
        between.append(Message(f"r{i}", "assistant", f"Report {i} is fine."))
    result = run(
        Message("u0", "user", "Speed up the ingest service."),
        Message("a0", "assistant", "I'll use a worker pool with 8 workers for the ingest service."),
        *between,
        Message("u1", "user", "Use grpc streaming instead of the worker pool."),
    )
    plan = "I'll use a worker pool with 8 workers for the ingest service."
    assert retired(result, plan) is expected


def test_a_new_setting_never_moves_a_limit() -> None:
    """ "make it every 10 minutes" sets how often the snapshot runs; the 50ms limit that
    shares a word with it ("result") stays."""
    limit = "rank api p99 should be under 50ms, the client calls it when the result screen opens"
    result = run(
        Message("u0", "user", "Build a leaderboard rank API."),
        Message("u1", "user", limit),
        Message("u2", "user", "snapshot is ok. refresh every 1 minute"),
        Message("a1", "assistant", "Building the snapshot takes about 6.8 seconds of DB time."),
        Message(
            "u3",
            "user",
            "hmm too much for payment side. make it every 10 minutes, and write the result "
            "back to primary",
        ),
    )
    assert not retired(result, limit)
    assert retired(result, "refresh every 1 minute")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("ok but we have a remote cache already at ge.acme.internal, better to use that one", True),
        ("pt-osc 别用了，t_order 上本来就挂了触发器。用 gh-ost。", True),
        ("ok, and the remote cache stays read-only for PRs", False),
        ("there's already a cache for the monorepo, build-cache.internal, use that", True),
        ("已经有一个远程缓存了，直接用 build-cache.internal", True),
        ("ok, use that", False),
    ],
)
def test_the_owner_putting_something_else_in_place_retires_the_plan_just_proposed(
    reply: str, expected: bool
) -> None:
    plan = "I propose adding setup-gradle so the build cache lives in the Actions cache."
    result = run(
        Message("u0", "user", "Speed up CI."),
        Message("a0", "assistant", plan),
        Message("u1", "user", reply),
    )
    assert retired(result, plan) is expected


def test_an_owner_taking_up_the_plan_by_name_retires_nothing() -> None:
    plan = "我建议用 Redis 做去重，key 按 event_id。"
    result = run(
        Message("u0", "user", "消费端有重复，帮我修一下。"),
        Message("a0", "assistant", plan),
        Message("u1", "user", "好，就用 Redis 吧"),
    )
    assert not retired(result, plan)


@pytest.mark.parametrize(
    ("choice", "reply"),
    [
        (
            "那就在 6.3.1 启动的时候迁移一次",
            "有道理，那改成在 applicationProtectedDataDidBecomeAvailable 或者前台 active 的时候迁移",
        ),
        (
            "I'll make the golden comparison ignore these three headers rather than regenerate.",
            "Regenerate the golden files instead, with `-update`; I prefer golden files.",
        ),
    ],
)
def test_an_owner_s_replacing_statement_of_any_kind_retires_the_choice_it_is_about(
    choice: str, reply: str
) -> None:
    """The reply reads as a fact or a preference, yet it replaces the choice before it."""
    result = run(
        Message("u0", "user", "Fix the logout bug."),
        Message("a0", "assistant" if choice.startswith("I'll") else "user", choice),
        Message("u1", "user", reply),
    )
    assert retired(result, choice)


def test_a_word_after_a_number_that_goes_on_the_sentence_is_no_unit() -> None:
    """ "the 30 is per IP" is no value in "is", which "1 is no." would then replace."""
    assert _values("but make it 20 per minute, not 30 — the 30 is per IP") == {
        "rate": [20 / 60, 30 / 60]
    }
    assert _values("1 is no.") == {}


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # A lone h, s or d after a number is a time, at the end of a sentence too.
        ("default_ttl 1h and max_ttl 24h.", {"time": [3600.0, 86400.0]}),
        ("timeout 30s, retention 7d", {"time": [30.0, 7 * 86400.0]}),
        # "4K" is still a size.
        ("每块 4K", {"bytes": [4096.0]}),
        # A counter with no noun after it is its own unit.
        ("失败后最多重试 3 次。", {"retry": [3.0]}),
        # Times of day, in hours, the one set first.
        ("时间改成 20:30 吧，9 点好多人已经躺平了", {"clock": [20.5, 9.0]}),
        ("每天晚上 9 点推", {"clock": [21.0]}),
        ("send it at 9pm", {"clock": [21.0]}),
        # Percentages and prices; "actually" is no unit.
        ("bump the canary to 25%", {"%": [25.0]}),
        ("灰度 10% 的用户", {"%": [10.0]}),
        ("make monthly $12 actually, $9 felt too cheap", {"money": [12.0, 9.0]}),
        # A number glued to a version is part of its name; "设" sets a value.
        ("ship v2.3.1 today", {}),
        ("batchsize 设 100000", {"=batchsiz": [100000.0]}),
        # Chinese writes numbers against the words around them, and in words.
        ("扩到48个副本", {"副本": [48.0]}),
        # A particle or a bound after a counter is no noun: the counter stays the unit.
        ("阈值改成每分钟 200 次吧，前端要快", {"次": [200.0]}),
        ("控制在 3 次以内", {"次": [3.0]}),
        ("双写两周，对数据量", {"time": [14 * 86400.0]}),
        ("保留三十天", {"time": [30 * 86400.0]}),
        ("keep three replicas", {"rep": [3.0], "=keep": [3.0]}),
        # "一" and "one" are numbers only before a unit: "一个问题" is "a problem".
        ("一个问题", {}),
        # Sizes in one dimension whatever the prefix: 500G, 375Gi, 512MiB.
        ("local disk 500G, only 375Gi per node", {"bytes": [500.0 * 2**30, 375.0 * 2**30]}),
        ("512MiB heap", {"bytes": [512.0 * 2**20]}),
        # Days of the year by name: month * 100 + day; "may 5" alone may be a verb.
        ("The release is on March 14.", {"day": [314.0]}),
        ("on the 14th of March", {"day": [314.0]}),
        ("3月14日上线", {"day": [314.0]}),
        ("ship by 5 May", {"day": [505.0]}),
        ("we may 5x it", {}),
    ],
)
def test_the_values_a_statement_names(text: str, values: dict[str, list[float]]) -> None:
    assert _values(text) == values


def test_a_new_value_set_outright_moves_a_limit_on_the_same_thing() -> None:
    result = run(
        Message("u0", "user", "给对账任务加上重试。"),
        Message("u1", "user", "失败后最多重试 3 次。"),
        Message("a1", "assistant", "我用 tenacity 包一层，按指数退避重试。"),
        Message("u2", "user", "重试次数改成 5 次，银行接口偶尔会连续抖动。"),
    )
    assert retired(result, "失败后最多重试 3 次。")


@pytest.mark.parametrize("reason", ["", "，前端要一次拉多一点"])
def test_a_new_rate_set_in_chinese_retires_the_old_one_whatever_reason_follows(
    reason: str,
) -> None:
    result = run(
        Message("u0", "user", "我们要给 API 网关加限流。"),
        Message("u1", "user", "限流阈值设成每分钟 100 次。"),
        Message("a1", "assistant", "好的，已设置。"),
        Message("u2", "user", f"阈值改成每分钟 200 次吧{reason}。"),
    )
    # The owner setting a rate is a choice, so it is guarded, and the new one replaces it.
    assert only(result, "限流阈值设成每分钟 100 次。").kind == "decision"
    assert retired(result, "限流阈值设成每分钟 100 次。")
    assert not retired(result, f"阈值改成每分钟 200 次吧{reason}。")


def test_an_owner_naming_the_old_value_beside_a_new_one_retires_it() -> None:
    """Eight turns on, without a cue: "4h … faster than 12h ones" names the 12h it replaces."""
    between = [
        Message(f"{who}{n}", who_role, text)
        for n in range(2, 6)
        for who, who_role, text in (
            ("u", "user", f"how is run {n} doing?"),
            ("a", "assistant", f"Run {n} is at step {n}00, loss falling."),
        )
    ]
    result = run(
        Message("u0", "user", "Write the submit script for the sweep."),
        Message("u1", "user", "12h time limit per job"),
        *between,
        Message(
            "u9",
            "user",
            "time limit 4h — they finish in ~3h10 and short jobs get backfilled way faster "
            "than 12h ones",
        ),
    )
    assert retired(result, "12h time limit per job")


def test_a_different_time_of_day_replaces_only_when_it_is_set() -> None:
    """ "alert if it runs past 05:30" beside "finish before 06:00" sets no new time."""
    done_by = "The import has to finish before 06:00, when the reports job starts."
    result = run(
        Message("u0", "user", "Speed up the nightly import."),
        Message("u1", "user", done_by),
        Message("u2", "user", "Add an alert if the import runs past 05:30."),
        Message("u3", "user", "Send the summary mail at 07:00 import time."),
        Message("u4", "user", "move the summary mail to 08:15, people are not in yet at 7"),
    )
    assert not retired(result, done_by)
    assert retired(result, "Send the summary mail at 07:00 import time.")


@pytest.mark.parametrize(
    "reply",
    [
        "One change on the numbers: max_ttl 24h is too short, the batch runs up to 30 hours.",
        "max_ttl 24h 太短了，月底的批处理要跑 30 个小时。",
    ],
)
def test_a_value_called_wrong_retires_the_plan_that_set_it(reply: str) -> None:
    plan = "Issue dynamic credentials with max_ttl 24h for the billing worker."
    result = run(
        Message("u0", "user", "Rotate the payments database password."),
        Message("a0", "assistant", plan),
        Message("u1", "user", reply),
    )
    assert retired(result, plan)


def test_an_also_in_the_reason_does_not_make_a_replacement_an_addition() -> None:
    plan = "a single global async token bucket at 30 requests/minute shared by all workers"
    limit = "their ops guy told us max 30 requests per minute from our side"
    result = run(
        Message("u0", "user", "Make the nightly crawl finish again."),
        Message("u1", "user", limit),
        Message("a1", "assistant", plan),
        Message(
            "u2",
            "user",
            "but make it 20 per minute, not 30 — the price-monitor team also calls them "
            "from the same IP",
        ),
    )
    assert retired(result, plan)
    # "max 30" is their limit, which our own pace does not move.
    assert not retired(result, limit)


def test_a_rejection_retires_the_plan_it_names_not_a_finding_sharing_small_words() -> None:
    """ "every run" and "Library is" are no names; "actions/cache" is."""
    finding = 'The log shows "61422 assets in 996.31s", so Library is rebuilt every run.'
    plan = "cache `Library/` with actions/cache, keyed on Packages/packages-lock.json"
    result = run(
        Message("u0", "user", "get the android build under 20 min."),
        Message("a0", "assistant", f"{finding}\n\n{plan}"),
        Message(
            "u1",
            "user",
            "actions/cache for Library is out — repo cache cap is 10 GB, it'd evict the ios "
            "caches every run.",
        ),
    )
    assert retired(result, plan)
    assert not retired(result, finding)


@pytest.mark.parametrize(
    "plan",
    [
        "修复思路我倾向于：在 deduct() 外面加一把 Redisson 分布式锁，锁内做 GET + DECRBY，改动最小。",
        "I'd lean towards a Redisson lock around deduct(), GET and DECRBY inside it.",
    ],
)
def test_a_plan_the_assistant_leans_towards_is_a_proposal_the_owner_can_turn_down(
    plan: str,
) -> None:
    assert kind(plan, "assistant") == "decision"
    result = run(
        Message("u0", "user", "压测又超卖了，把超卖彻底修掉。"),
        Message("a0", "assistant", plan),
        Message("u1", "user", "锁不行。"),
    )
    assert retired(result, plan)


def test_the_assistant_turning_down_its_own_plan_by_name_retires_it() -> None:
    plan = "I'll use Papa Parse in streaming mode with a web worker."
    finding = "Papa Parse is 45 kB minified."
    result = run(
        Message("u0", "user", "Let's add CSV import to the contacts page."),
        Message("a0", "assistant", f"{finding} {plan}"),
        Message("u1", "user", "We don't add new npm dependencies without a security review."),
        Message(
            "a1",
            "assistant",
            "Then Papa Parse is off the table for now, since it's a new dependency.",
        ),
    )
    assert retired(result, plan)
    assert not retired(result, finding)


def test_the_assistant_turning_down_its_own_plan_by_one_name_retires_it() -> None:
    """One name the plan gave ("Sentry") is enough; a shared common word is not."""
    plan = "We'll use Sentry's hosted service for the crash reports."
    other = "I'll use a 30-day retention for the crash reports."
    result = run(
        Message("u0", "user", "Add crash reporting to the desktop app."),
        Message("a0", "assistant", f"{plan} {other}"),
        Message("u1", "user", "Customer data never leaves our servers."),
        Message("a1", "assistant", "Then Sentry is out, since our data would leave the building."),
    )
    assert retired(result, plan)
    assert not retired(result, other)


@pytest.mark.parametrize(
    ("trial", "result_text"),
    [
        (
            "我估计是 malloc 碎片，先把 allocator 换成 jemalloc 试试。",
            "换 jemalloc 解决不了，RSS 增长速度没变，不是 malloc 碎片的问题。",
        ),
        (
            "Let's try jemalloc as the allocator and see if the RSS growth stops.",
            "Switching the allocator to jemalloc made no difference: RSS still grows 195 MiB/h.",
        ),
    ],
)
def test_an_owner_s_trial_is_retired_by_the_result_that_rules_it_out(
    trial: str, result_text: str
) -> None:
    rule = "Never exec into the prod pods."
    result = run(
        Message("u0", "user", "push-gateway keeps getting OOMKilled."),
        Message("u1", "user", f"{rule} {trial}"),
        Message("a1", "assistant", "Deployed to staging with the load test running."),
        Message("a2", "assistant", result_text),
    )
    assert kind(result_text, "assistant") == "rejected"
    assert retired(result, trial)
    assert not retired(result, rule)


def test_a_price_replaces_only_the_price_it_names_and_never_one_said_to_stay() -> None:
    monthly = "one plan, $9/mo, hosted checkout"
    yearly = "a yearly option, like $90/yr"
    result = run(
        Message("u0", "user", "add paid plans to the app."),
        Message("u1", "user", monthly),
        Message("u2", "user", yearly),
        Message("a1", "assistant", "Checkout works in test mode."),
        Message(
            "u3",
            "user",
            "make monthly $12 actually, $9 felt too cheap next to competitors, yearly stays $90.",
        ),
    )
    assert retired(result, monthly)
    assert not retired(result, yearly)


def test_an_owner_s_instead_right_after_a_plan_retires_it_by_one_shared_name() -> None:
    """The shape `make bench` times (8,000 of these turns): "instead" right after the plan
    retires it though only "service5" is shared."""
    plan = "I'll use worker pool variant5 with 7 workers for service5."
    result = run(
        Message("u0", "user", "Speed up the ingest services."),
        Message("a0", "assistant", plan),
        Message("u1", "user", "Use grpc5 instead for service5."),
    )
    assert retired(result, plan)


@pytest.mark.parametrize(
    ("rule", "lift", "lifted"),
    [
        ("Never push to main; open a PR instead.", "Pushing to main is fine now.", True),
        ("Never push to main; open a PR instead.", "You may push to main from now on.", True),
        ("Never push to main; open a PR instead.", "Forget the rule about pushing to main.", True),
        ("Do not touch the legacy Perl scripts.", "The Perl scripts may be edited now.", True),
        (
            "Don't add any new dependencies to this project.",
            "On second thought, new dependencies are fine as long as they're MIT licensed.",
            True,
        ),
        ("永远不要直接推送到 main 分支。", "现在可以直接推送到 main 了，不用开 PR。", True),
        ("永远不要直接推送到 main 分支。", "之前说不要推送到 main 的规定取消了。", True),
        # A thing that is fine now, or a question, lifts nothing.
        (
            "Do not touch the legacy Perl scripts.",
            "The Perl scripts are fine now, leave them.",
            False,
        ),
        (
            "Never push to main; open a PR instead.",
            "Main is protected, so pushing fails anyway.",
            False,
        ),
        ("不要改公共 API。", "现在可以了，公共 API 的测试都过了。", False),
    ],
)
def test_the_owner_lifting_a_rule_retires_it(rule: str, lift: str, lifted: bool) -> None:
    result = run(
        Message("u1", "user", rule),
        Message("a1", "assistant", "Understood."),
        Message("u2", "user", lift),
    )
    assert retired(result, rule) is lifted


def test_the_assistant_cannot_lift_the_owners_rule() -> None:
    rule = "Never push to main; open a PR instead."
    result = run(
        Message("u1", "user", rule), Message("a1", "assistant", "Pushing to main is fine now.")
    )
    assert not retired(result, rule)


@pytest.mark.parametrize(
    ("choice", "switch", "replaced"),
    [
        ("Use SQLite for the invoice store.", "Switch the invoice store to PostgreSQL.", True),
        (
            "Use SQLite for the invoice store.",
            "Let's go with PostgreSQL for the invoice store.",
            True,
        ),
        ("Use Redis for the session cache.", "Move the session cache over to Memcached.", True),
        # What it leaves named on the way, and a reason after.
        (
            "Drop the redis idea, we'll use SQS for the export job queue instead.",
            "Switch the export job queue from SQS to Kafka, ops already runs a Kafka cluster.",
            True,
        ),
        ("We'll deploy on Fridays.", "Move deploys to Tuesdays.", True),
        ("Put the config in config.yaml.", "Move the config to pyproject.toml.", True),
        ("缓存用 Redis。", "缓存换成 Memcached。", True),
        ("导出文件用 UTF-8 编码。", "导出编码改成 GBK，财务用 Excel 打开。", True),
        ("打包工具用 webpack。", "打包换成 vite 吧，webpack 太慢了。", True),
        # The same choice said again, a purpose, an addition, another thing: nothing goes.
        ("Use PostgreSQL for the invoice store.", "Switch the invoice store to Postgres.", False),
        ("I'll add a README section on setup.", "Change the README to mention Docker.", False),
        ("I'll add a README section on setup.", "Move the README to docs/ too.", False),
        ("Use SQLite for the invoice store.", "Switch the session cache to Memcached.", False),
        ("Use the default logger for the worker.", "Point the worker logs to stderr.", False),
    ],
)
def test_the_owner_pointing_a_thing_elsewhere_retires_the_earlier_choice_for_it(
    choice: str, switch: str, replaced: bool
) -> None:
    result = run(
        Message("u0", "user", "Build the billing service for the shop."),
        Message("u1", "user", choice),
        Message("a1", "assistant", "OK."),
        Message("u2", "user", switch),
    )
    assert retired(result, choice) is replaced


def test_pointing_a_thing_elsewhere_retires_the_assistants_plan_for_it_but_not_its_findings_or_the_owners_rules() -> (
    None
):
    plan = "I'll store invoices in SQLite with WAL mode."
    finding = "The Invoice store has 2M rows in SQLite today."
    rule = "Invoices must be kept for 7 years in the invoice store."
    result = run(
        Message("u0", "user", "Build the billing service for the shop."),
        Message("u1", "user", rule),
        Message("a1", "assistant", plan),
        Message("a2", "assistant", finding),
        Message("u2", "user", "Switch the invoice store to PostgreSQL."),
        Message("a3", "assistant", "I'll switch the invoice store to DynamoDB."),
    )
    assert retired(result, plan)
    assert not retired(result, finding)
    assert not retired(result, rule)
    # Only the owner points their choices elsewhere.
    assert not retired(result, "Switch the invoice store to PostgreSQL.")


def test_switching_back_retires_the_switch() -> None:
    to_postgres = "Switch the invoice store to PostgreSQL."
    result = run(
        Message("u0", "user", "Build the billing service for the shop."),
        Message("u1", "user", "Use SQLite for the invoice store."),
        Message("u2", "user", to_postgres),
        Message("u3", "user", "Switch the invoice store back to SQLite, Postgres is overkill."),
    )
    assert retired(result, "Use SQLite for the invoice store.")
    assert retired(result, to_postgres)


def test_replacing_the_assistants_plan_also_retires_the_owners_directive_it_carried_out() -> None:
    directive = "use react-hook-form for the form"
    plan = "I'll create src/pages/Login.tsx with react-hook-form and zod validation."
    result = after_a_reply(
        f"Add a login page to the dashboard app. {directive}",
        plan,
        "Actually, let's use Formik instead, the rest of the app uses it.",
        opening="I'm on the dashboard app today.",
    )
    assert retired(result, plan)
    assert retired(result, directive)
    assert not retired(result, "Add a login page to the dashboard app.")


def test_a_new_value_for_a_detail_of_the_plan_leaves_the_owners_directive() -> None:
    directive = "Add a retry loop with tenacity-style backoff to the webhook sender."
    plan = "I'll wrap send_webhook() with the retry helper and a base delay of 1s."
    result = after_a_reply(
        directive, plan, "no, make the base delay 2s.", opening="I'm on the webhooks today."
    )
    assert retired(result, plan)
    assert not retired(result, directive)


def test_a_corrected_value_retires_the_statement_of_it_not_the_plan_beside_it() -> None:
    stale = "add a lifecycle rule that expires objects after 14 days."
    plan = "I'll write backup.sh using pg_dump and aws s3 cp,"
    result = run(
        Message("u0", "user", "I'm on the ops repo today."),
        Message("a0", "assistant", "Sure."),
        Message(
            "u1", "user", "Back up the postgres db to S3 every night. Keep backups for 14 days."
        ),
        Message("a1", "assistant", f"Sure. {plan} and {stale}"),
        Message("u2", "user", "actually keep them for 30 days, compliance wants a month"),
    )
    assert retired(result, "Keep backups for 14 days.")
    assert retired(result, stale)
    assert not retired(result, plan)


@pytest.mark.parametrize(
    ("directive", "echo", "change"),
    [
        (
            "Schedule the cleanup cron for 2am UTC.",
            "Cron set to 0 2 * * *.",
            "Move it to 4am, backups run at 2.",
        ),
        (
            "Add retries to the webhook sender, max 3 attempts with exponential backoff.",
            "Added a retry loop with 3 attempts, base delay 1s.",
            "make it 5 attempts",
        ),
    ],
)
def test_a_new_value_for_it_retires_the_owners_directive_that_set_the_old_one(
    directive: str, echo: str, change: str
) -> None:
    result = after_a_reply(directive, echo, change)
    assert retired(result, directive)


@pytest.mark.parametrize(
    ("directive", "plan", "pick", "gone"),
    [
        (
            "Let's use RabbitMQ for now.",
            "I'll add a RabbitMQ consumer in workers/email.py.",
            "hmm, ops doesn't want another broker. let's go with SQS.",
            {"plan", "directive"},
        ),
        (
            "use poetry for deps",
            "I'll create pyproject.toml with Poetry and a lock file.",
            "uv over poetry, sorry. way faster in CI",
            {"plan", "directive"},
        ),
        # A request is no choice: only the assistant's lean goes.
        (
            "Pick a message queue.",
            "我倾向于用 Kafka，吞吐高。",
            "就用 RabbitMQ 吧，团队都熟。",
            {"plan"},
        ),
        # Picks that name no other option retire nothing.
        (
            "Let's use RabbitMQ for now.",
            "I'll add a RabbitMQ consumer in workers/email.py.",
            "ok let's go with that.",
            set(),
        ),
        (
            "Let's use RabbitMQ for now.",
            "I'll add a RabbitMQ consumer in workers/email.py.",
            "nah forget it, the queue can wait.",
            set(),
        ),
    ],
)
def test_the_owner_picking_another_option_retires_the_plan_and_their_directive_behind_it(
    directive: str, plan: str, pick: str, gone: set[str]
) -> None:
    result = after_a_reply(directive, plan, pick)
    assert retired(result, plan) is ("plan" in gone)
    assert retired(result, directive) is ("directive" in gone)


@pytest.mark.parametrize(
    ("directive", "plan", "cancel"),
    [
        (
            "Add dark mode support to the settings page.",
            "I'll add a dark mode toggle to Settings.",
            "We're not doing dark mode anymore, product cut it.",
        ),
        (
            "Let's add a Redis cache in front of the product search.",
            "I'll put a Redis cache with a 5 minute TTL in front of search.",
            "drop the redis idea, the search is fast enough after the index fix",
        ),
        (
            "这个版本把 WebSocket 推送也做上。",
            "我打算用 Socket.IO 做 WebSocket 推送。",
            "WebSocket 先不上了，这版先用轮询。",
        ),
        (
            "把 v2 接口加上签名校验，用 HMAC-SHA256。",
            "好的。",
            "签名校验取消，网关那边已经做了。",
        ),
        (
            "Generate the PDF invoices with wkhtmltopdf.",
            "I'll render the invoice HTML and pipe it through wkhtmltopdf.",
            "ditch wkhtmltopdf, it's unmaintained. weasyprint please",
        ),
        (
            "For auth, use JWT in localStorage.",
            "I'll store the JWT in localStorage and send it as a Bearer header.",
            "localStorage is out, security review flagged it. use httpOnly cookies.",
        ),
    ],
)
def test_the_owner_calling_something_off_by_name_retires_what_was_said_about_it(
    directive: str, plan: str, cancel: str
) -> None:
    result = after_a_reply(directive, plan, cancel)
    assert retired(result, directive)
    assert plan == "好的。" or retired(result, plan)
    assert not retired(result, "I'm on the backend repo today.")


@pytest.mark.parametrize(
    "aside",
    [
        "Also drop the legacy sessions table while you're there.",
        "The new build is out, by the way.",
        "Is the audit_log migration out yet?",
    ],
)
def test_calling_off_a_table_or_a_thing_not_said_retires_nothing(aside: str) -> None:
    directive = "Add an audit_log table for the admin actions."
    result = run(
        Message("u0", "user", "I'm on the backend repo today."),
        Message("a0", "assistant", "Sure."),
        Message("u1", "user", directive),
        Message("a1", "assistant", "I'll add the audit_log migration."),
        Message("u2", "user", aside),
        Message("u3", "user", "We're not doing the GraphQL gateway anymore."),
    )
    assert not retired(result, directive)


def test_going_back_retires_the_change_just_made() -> None:
    switched = "Switched to structlog with JSON rendering."
    result = run(
        Message("u0", "user", "I'm on the backend repo today."),
        Message("a0", "assistant", "Sure."),
        Message("u1", "user", "Make the logs readable."),
        Message("a1", "assistant", switched),
        Message(
            "u2", "user", "Hmm, the output is noisy. Let's go back to the stdlib logging module."
        ),
    )
    assert retired(result, switched)
    assert not retired(result, "Make the logs readable.")  # the aim the switch served


@pytest.mark.parametrize(
    ("said", "reply", "then"),
    [
        (
            "Put the feature flags in a YAML file at config/flags.yaml.",
            "Done, I created config/flags.yaml with the three flags.",
            "scrap that, put them in the database so we can flip them without a deploy",
        ),
        (
            "We'll deploy the new service to the staging cluster first.",
            "OK. I'll write the staging manifests and a rollout checklist.",
            "Change of plan: we're going straight to prod behind a feature flag.",
        ),
        (
            "Let's keep the admin panel under /admin.",
            "Alright, the routes stay under /admin.",
            "I changed my mind, move it to /internal/admin so it's not the obvious path.",
        ),
        ("Bump it to 500.", "Batch size is now 500 in config.py.", "go back to 200."),
        (
            "Paginate the /orders endpoint with cursor-based pagination.",
            "Implemented cursor pagination on created_at.",
            "revert to the old offset/limit approach",
        ),
        (
            "帮我把这个服务的配置迁到 Consul 上。",
            "好的，我先写一个从 Consul 读取配置的 loader。",
            "算了，还是用环境变量吧，Consul 我们没人维护。",
        ),
        (
            "接口超时设成 5 秒。",
            "已经把 axios 的 timeout 改成 5000 了。",
            "我改主意了，超时设成 15 秒。",
        ),
    ],
)
def test_taking_back_what_was_last_asked_retires_it(said: str, reply: str, then: str) -> None:
    result = after_a_reply(said, reply, then)
    assert retired(result, said)
    assert not retired(result, then)


@pytest.mark.parametrize(
    ("said", "reply", "then"),
    [
        # "算了" names what it drops: the bug, not the owner's last ask.
        (
            "先用 SQLite 开发。",
            "登录接口偶发 500 的那个 bug 我还在查。",
            "算了，这个 bug 明天再看，先把注册页做完。",
        ),
        # "scrap that date" takes back a date, not the whole ask.
        (
            "Draft the changelog for the release.",
            "Sure.",
            "Scrap that date, the release moved to March 21.",
        ),
        # A rule the owner set is taken back only by naming it.
        ("Never push to main.", "Understood.", "Change of plan: we're going straight to prod."),
    ],
)
def test_a_take_back_keeps_what_it_does_not_point_at(said: str, reply: str, then: str) -> None:
    assert not retired(after_a_reply(said, reply, then), said)


def test_scratch_that_never_takes_back_the_owner_s_first_message() -> None:
    goal = "Replace our JWT handling in the gateway with the acme-auth library."
    plan = (
        "My plan is to wrap acme-auth in the existing middleware and verify both HS256 and RS256."
    )
    result = run(
        Message("u0", "user", goal),
        Message("a0", "assistant", plan),
        Message("u1", "user", "Scratch that — acme-auth can only do RS256."),
    )
    assert retired(result, plan)
    assert not retired(result, goal)


def test_a_new_day_retires_the_old_one() -> None:
    release = "The release is on March 14."
    result = after_a_reply(
        f"{release} Draft the changelog and the announcement email.",
        "I'll draft the changelog and an email dated March 14.",
        "Scrap that date, the release moved to March 21.",
        opening="I'm on the launch page today.",
    )
    assert retired(result, release)


@pytest.mark.parametrize("second", ["make it 6 workers", "no wait, make it 6 workers"])
def test_a_second_correction_of_a_value_retires_the_first(second: str) -> None:
    first = "make it 8 workers actually"
    result = run(
        Message("u0", "user", "Build the worker pool."),
        Message("u1", "user", first),
        Message("u2", "user", second),
    )
    assert retired(result, first)
    assert not retired(result, second)


@pytest.mark.parametrize(
    ("said", "reply", "then", "moved"),
    [
        (
            "Write the generated reports to /tmp/reports.",
            "OK, report.py will write to /tmp/reports/<date>.html.",
            "change the output dir to /srv/reports, tmp gets wiped",
            True,
        ),
        (
            "上传的文件放到 /data/upload 目录。",
            "好的。",
            "目录改成 /mnt/oss/upload，/data 那块盘快满了。",
            True,
        ),
        # Another path, or the same one again, moves nothing.
        (
            "Write the generated reports to /tmp/reports.",
            "OK.",
            "move the test fixtures to /srv/fixtures",
            False,
        ),
    ],
)
def test_the_owner_moving_a_path_retires_where_it_was(
    said: str, reply: str, then: str, moved: bool
) -> None:
    assert retired(after_a_reply(said, reply, then), said) is moved


def test_a_new_value_naming_an_old_one_no_one_said_refines_the_plan() -> None:
    plan = "Decision: use nginx limit_req with a zone per sender IP."
    result = run(
        Message("u1", "user", "We need to add rate limiting to the public webhook endpoint."),
        Message("a1", "assistant", plan),
        Message("u2", "user", "Make it 20 requests per minute, not 60."),
    )
    assert not retired(result, plan)


@pytest.mark.parametrize(
    ("said", "reply", "then"),
    [
        ("Use Jest for the tests.", "OK.", "actually use Vitest instead."),
        ("Deploy to us-east-1.", "OK.", "Actually deploy to eu-west-1 instead."),
        ("数据库用 PostgreSQL。", "好的。", "还是用 MySQL 吧，运维只维护 MySQL。"),
        (
            "Build the form.",
            "I'll use react-hook-form for the form.",
            "Actually, let's use Formik instead",
        ),
        (
            "Build a cache layer.",
            "I'll use Redis for the cache.",
            "actually use Memcached instead.",
        ),
    ],
)
def test_naming_another_in_place_of_the_last_choice_retires_it(
    said: str, reply: str, then: str
) -> None:
    result = after_a_reply(said, reply, then)
    replaced = reply if reply.startswith("I'll") else said
    assert retired(result, replaced)
    assert not retired(result, then)
    if replaced == reply:
        assert not retired(result, said)  # the aim the plan served


@pytest.mark.parametrize(
    ("said", "then"),
    [
        ("Add unit tests for the parser.", "Actually, write the tests with pytest instead."),
        ("Use Jest for the tests.", "actually use it for the e2e suite too."),
        ("数据库用 PostgreSQL。", "还是用 PostgreSQL 吧，别换了。"),
    ],
)
def test_an_instead_that_keeps_the_choice_retires_nothing(said: str, then: str) -> None:
    assert not retired(after_a_reply(said, "OK.", then), said)


@pytest.mark.parametrize(
    ("said", "reply", "then"),
    [
        ("The API listens on 8080 inside the container.", "OK.", "9000 then."),
        ("pin node to 18 in .nvmrc", "Pinned.", "20 actually."),
        ("train with lr 3e-4.", "Started the run.", "1e-4."),
        ("target py3.9", "OK.", "3.11 minimum."),
        ("call the env var APP_DB_URL", "Done.", "DATABASE_URL."),
        ("t3.medium for the workers", "Updated.", "c6i.large."),
        ("Partition the events table by day.", "Created.", "by month."),
        ("Redis for sessions.", "Want me to keep sessions in Postgres instead?", "postgres then"),
        ("并发数设成 16。", "已改成 16。", "数据库扛不住，8 吧。"),
        ("消息队列选 Kafka。", "好的。", "量没那么大，RabbitMQ 够了。"),
    ],
)
def test_a_bare_value_in_place_of_the_one_just_set_retires_it(
    said: str, reply: str, then: str
) -> None:
    result = after_a_reply(said, reply, then)
    assert retired(result, said)
    assert not retired(result, then)


@pytest.mark.parametrize(
    ("said", "then"),
    [
        ("Use pnpm.", "pnpm."),  # the same value again confirms it
        ("The API listens on 8080.", "curious."),  # a word is no value
        ("train with lr 3e-4 and batch 64.", "64."),  # it says this value already
        ("call the env var APP_DB_URL", "config.yaml."),  # a name of another form
        ("Use Redis for the cache.", "ok."),
    ],
)
def test_a_bare_reply_that_is_no_other_value_retires_nothing(said: str, then: str) -> None:
    assert not retired(after_a_reply(said, "OK.", then), said)


@pytest.mark.parametrize(
    ("said", "reply", "then"),
    [
        # Asked, not yet decided.
        ("每页显示 20 条。", "已设置 PAGE_SIZE = 20。", "能不能改成 50 条？"),
        ("Set the page size to 20.", "Done.", "Could we make it 50?"),
        # The same value kept.
        ("每页显示 20 条。", "测了一下，50 条时首屏渲染变慢。", "那算了，保持 20 条。"),
        # A value for another thing.
        (
            "用户名最长 32 个字符。",
            "已加 max_length=32。",
            "昵称也有限制，昵称改成最长 16 个字符。",
        ),
        (
            "Cache the fiat exchange rates for 1 hour.",
            "Added a 3600s TTL.",
            "crypto prices are a separate cache: 30 seconds instead of an hour.",
        ),
    ],
)
def test_a_question_a_kept_value_or_another_thing_s_value_retires_nothing(
    said: str, reply: str, then: str
) -> None:
    assert not retired(after_a_reply(said, reply, then), said)


def test_a_bare_number_inside_another_is_a_new_value() -> None:
    said = "The API listens on 8080 inside the container."
    assert retired(after_a_reply(said, "OK.", "80 then."), said)


def after_reply(old: str, reply: str, *, opening: str) -> InspectionResult:
    """The owner's opening request, a statement of theirs, the assistant's reply, a reply."""
    return run(
        Message("u0", "user", opening),
        Message("u1", "user", old),
        Message("a1", "assistant", "Done."),
        Message("u2", "user", reply),
    )


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (
            "The payments service timeout must be 30 seconds.",
            "The search service timeout must be 10 seconds.",
        ),
        (
            "Use a 30 second timeout for the payments service.",
            "Use a 10 second timeout for the search service.",
        ),
        (
            "Set the pool size for the staging database to 20.",
            "Set the pool size for the prod database to 50.",
        ),
        ("Set the read timeout to 10 seconds.", "Set the connect timeout to 2 seconds."),
        ("Read timeout 10s.", "Connect timeout 2s."),
        ("读超时设为 10 秒。", "写超时设为 20 秒。"),
        ("接口超时设成 5 秒。", "数据库连接超时设成 3 秒。"),
        (
            "Set the API request timeout to 30 seconds.",
            "Set the database statement timeout to 5 seconds.",
        ),
    ],
)
def test_the_same_setting_of_two_different_things_retires_neither(first: str, second: str) -> None:
    result = after_reply(first, second, opening="Build the shop backend.")
    assert not retired(result, first) and not retired(result, second)


def test_the_same_setting_of_the_same_thing_still_retires_the_old_value() -> None:
    result = after_reply(
        "The payments service timeout must be 30 seconds.",
        "The payments service timeout must be 10 seconds.",
        opening="Build the shop backend.",
    )
    assert retired(result, "The payments service timeout must be 30 seconds.")


def test_actually_switch_to_x_retires_the_owner_s_last_choice_of_another() -> None:
    result = after_reply(
        "use loguru for logging in the worker",
        "Actually switch to structlog, the platform expects its JSON.",
        opening="Build the shop backend.",
    )
    assert retired(result, "use loguru for logging in the worker")


def test_switching_to_a_branch_is_no_pick_of_another_tool() -> None:
    result = after_reply(
        "Use pnpm for installs.",
        "switch to the staging branch and run the tests",
        opening="Build the shop backend.",
    )
    assert not retired(result, "Use pnpm for installs.")


def test_make_it_and_a_bare_number_replaces_the_number_the_owner_set() -> None:
    result = after_reply(
        "Max upload size is 10 MB.",
        "marketing wants video uploads. make it 50.",
        opening="Build the upload service.",
    )
    assert retired(result, "Max upload size is 10 MB.")


@pytest.mark.parametrize(
    "reply", ["actually make it 1000.", "Sorry, make it 1000.", "oh, make it 1000."]
)
def test_make_it_after_an_interjection_replaces_the_number_the_owner_set(reply: str) -> None:
    result = after_reply(
        "Set the export batch size to 500 rows.", reply, opening="Speed up the nightly export."
    )
    assert retired(result, "Set the export batch size to 500 rows.")


def test_gai_cheng_and_a_bare_number_replaces_the_number_the_owner_set() -> None:
    result = after_reply("限流阈值每分钟 100 次。", "改成 60。", opening="做一个网关。")
    assert retired(result, "限流阈值每分钟 100 次。")


@pytest.mark.parametrize("reply", ["make it bigger.", "make it 50."])
def test_make_it_retires_nothing_without_a_number_on_both_sides(reply: str) -> None:
    result = after_reply(
        "Uploads go to the media bucket.", reply, opening="Build the upload service."
    )
    assert not retired(result, "Uploads go to the media bucket.")


@pytest.mark.parametrize(
    ("old", "reply"),
    [
        ("set pytest-xdist to 8 workers in CI", "8 is too many, 4"),
        ("Return 403 when someone requests another tenant's invoice.", "404, not 403."),
        ("http client timeout 30", "timeout 60."),
        ("本地开发端口 3000。", "3000 被别的项目占了，用 3001。"),
        ("Pin node to 18 in the Dockerfile and CI.", "node 18 is EOL, bump it to 20"),
        ("Use 8 gunicorn workers.", "The box only has 2 cores. 4 workers."),
        ("Python 版本用 3.9。", "升到 3.11 吧，3.9 快停止维护了。"),
        ("单次导出最多 5000 行。", "太少了，两万行。"),
        ("单次导出最多 5000 行。", "5000 行太少了，2万行吧"),
        ("每页 50 条。", "一百条。"),
        ("单次导出最多 5000 行。", "改成两万行。"),
    ],
)
def test_a_terse_renumbering_replaces_the_number_the_owner_set(old: str, reply: str) -> None:
    result = run(
        Message("u0", "user", "Build the billing service."),
        Message("u1", "user", old),
        Message("a1", "assistant", "Done."),
        Message("u2", "user", "add retries on 502/503"),
        Message("a2", "assistant", "Added retries=3."),
        Message("u3", "user", reply),
    )
    assert retired(result, old)
    assert not retired(result, "add retries on 502/503")


@pytest.mark.parametrize("reply", ["retries 3.", "8 is too many, 4", "404, not 500."])
def test_a_renumbering_of_something_else_retires_nothing(reply: str) -> None:
    result = after_reply("http client timeout 30", reply, opening="Build the billing service.")
    assert not retired(result, "http client timeout 30")


@pytest.mark.parametrize("reply", ["4 个就够了。", "两个小时。", "千万别超过 5000 行。"])
def test_a_chinese_number_of_something_else_retires_nothing(reply: str) -> None:
    result = after_reply("单次导出最多 5000 行。", reply, opening="做订单导出。")
    assert not retired(result, "单次导出最多 5000 行。")


def test_let_s_not_send_x_calls_off_the_request_for_x() -> None:
    result = after_reply(
        "Add a confirmation email after signup.",
        "Let's not send emails at signup, add an in-app banner instead.",
        opening="Build the signup flow.",
    )
    assert retired(result, "Add a confirmation email after signup.")


def test_let_s_not_do_x_calls_off_the_work_that_names_x() -> None:
    result = run(
        Message("u0", "user", "Build the shop backend."),
        Message("u1", "user", "Add a GraphQL layer on top of the REST API this quarter."),
        Message("a1", "assistant", "Starting with the schema."),
        Message("u2", "user", "let's not do graphql this quarter. the mobile team is fine."),
        Message("u3", "user", "let's not add any new endpoints."),
    )
    assert retired(result, "Add a GraphQL layer on top of the REST API this quarter.")
    assert not retired(result, "let's not do graphql this quarter.")


def test_switching_a_thing_to_a_value_retires_the_owner_s_terse_setting_of_it() -> None:
    result = after_reply(
        "base image python:3.12-slim",
        "Switch the base image to cgr.dev/chainguard/python, no shell.",
        opening="Containerise the API.",
    )
    assert retired(result, "base image python:3.12-slim")
    again = after_reply(
        "base image python:3.12-slim",
        "Switch the base image to python:3.12-slim in CI too.",
        opening="Containerise the API.",
    )
    assert not retired(again, "base image python:3.12-slim")  # it names the same value


@pytest.mark.parametrize(
    ("off", "on"),
    [
        (
            "Disable the cache on the search endpoint.",
            "turn the cache back on for search, 30s TTL.",
        ),
        ("Turn off the rate limiter for the load test.", "ok, turn it back on."),
        ("把 ESLint 的 no-explicit-any 关掉。", "还是打开吧，关了以后 any 满天飞。"),
    ],
)
def test_turning_a_thing_back_on_retires_the_owner_s_turning_it_off(off: str, on: str) -> None:
    result = after_reply(off, on, opening="Build the search API.")
    assert retired(result, off)


def test_turning_another_thing_back_on_retires_nothing() -> None:
    off = "Disable debug logging in the worker."
    result = after_reply(off, "turn the cache back on for search.", opening="Build the search API.")
    assert not retired(result, off)


@pytest.mark.parametrize(
    ("old", "reply"),
    [
        (
            "Call the new CLI command `sync-users`.",
            "Rename it to `import-users`, sync sounds two-way.",
        ),
        ("Store timestamps as local time.", "Store them as UTC, not local time."),
    ],
)
def test_a_new_name_or_way_for_the_thing_just_set_replaces_it(old: str, reply: str) -> None:
    result = after_reply(old, reply, opening="Build the user sync tool.")
    assert retired(result, old)


@pytest.mark.parametrize(
    ("old", "reply"),
    [
        ("Never deploy to prod on Fridays.", "Deploy to staging, not prod."),
        ("Store timestamps as local time.", "Ship it today, not yet."),
        ("Store timestamps as local time.", "Show them as local time, not UTC."),
    ],
)
def test_not_y_corrects_no_rule_and_nothing_that_does_not_say_y(old: str, reply: str) -> None:
    result = after_reply(old, reply, opening="Build the user sync tool.")
    assert not retired(result, old)


def test_a_new_standing_rule_on_the_same_act_replaces_the_owner_s_old_one() -> None:
    old = "Always run the full test suite before committing."
    result = run(
        Message("u0", "user", "Build the billing service."),
        Message("u1", "user", old),
        Message("a1", "assistant", "Will do."),
        Message(
            "u2", "user", "From now on just run the unit tests before commits, CI does the rest."
        ),
    )
    assert retired(result, old)
    also = after_reply(
        old, "From now on also run the linter before commits.", opening="Build the billing service."
    )
    assert not retired(also, old)


def test_a_new_value_that_names_the_old_number_replaces_it() -> None:
    old = "Set the booking rate limit to 5 requests per minute per IP."
    result = run(
        Message("u0", "user", "Build the reservations API."),
        Message("u1", "user", old),
        Message("a1", "assistant", "Rate limiter added."),
        Message(
            "u2",
            "user",
            "Booking rate limit: 20 per minute per IP, the 5 was hurting group bookings.",
        ),
    )
    assert retired(result, old)


@pytest.mark.parametrize(
    ("rule", "lift"),
    [
        (
            "Don't touch the legacy billing module.",
            "The legacy billing freeze is over as of today, you're free to refactor it.",
        ),
        (
            "Don't send SMS confirmations yet, legal hasn't signed off.",
            "Legal signed off this morning, go ahead with SMS confirmations via Twilio.",
        ),
    ],
)
def test_the_owner_lifting_a_rule_in_other_words_retires_it(rule: str, lift: str) -> None:
    result = after_reply(rule, lift, opening="Ship the partner integration.")
    assert retired(result, rule)


def test_go_ahead_with_another_thing_lifts_nothing() -> None:
    rule = "Don't send SMS confirmations yet, legal hasn't signed off."
    result = after_reply(
        rule, "go ahead with the email confirmations.", opening="Ship the partner integration."
    )
    assert not retired(result, rule)


def test_a_task_asked_for_stands_when_a_detail_of_it_changes() -> None:
    result = run(
        Message("u1", "user", "Deploy the marketing site to Heroku."),
        Message("a1", "assistant", "Setting up Heroku."),
        Message("u2", "user", "Actually use Fly.io instead of Heroku, cheaper."),
    )
    assert not retired(result, "Deploy the marketing site to Heroku.")
    assert only(result, "Deploy the marketing site to Heroku.").action == "keep"


def test_two_chinese_standing_rules_on_different_acts_stand_together() -> None:
    """Sharing only a count and a verb ("跑一遍") and a noun ("测试"), a rule for releases
    had retired the rule for commits."""
    result = inspect_messages(
        [
            Message("u1", "user", "我们要给支付网关加超时重试。"),
            Message("u2", "user", "从现在起提交前都跑一遍全量测试。"),
            Message("a1", "assistant", "好的。"),
            Message("u3", "user", "从现在开始每次发布前先在 staging 跑一遍冒烟测试。"),
        ]
    )
    rules = [c for c in result.candidates if c.kind == "constraint"]
    assert len(rules) == 2 and all(c.superseded_by is None for c in rules)


def test_a_lift_in_may_now_and_a_named_rule_retire_the_rule_and_nothing_else() -> None:
    """A walkthrough's "you may push to main now" left "Never push to main" current, and
    "Forget the no-push rule." retired the assistant's cursor decision instead."""
    cursor = "Decision: stream rows with a server-side cursor instead of loading them all."
    result = inspect_messages(
        [
            Message("u1", "user", "Goal: add a CSV export endpoint."),
            Message("u2", "user", "Never push to main; open a PR."),
            Message("a1", "assistant", cursor),
            Message(
                "u3", "user", "Also, you may push to main now, the protection moved to release/*."
            ),
            Message("u4", "user", "Forget the no-push rule."),
        ]
    )
    by = {c.content: c for c in result.candidates}
    assert by["Never push to main; open a PR."].superseded_by is not None
    assert by[cursor].superseded_by is None and by[cursor].action == "keep"


def test_a_bare_pick_retires_the_choice_of_the_other_option_it_names_not_the_owner_s_decision() -> (
    None
):
    # walk12 #9: "还是用 PostgreSQL 吧" had retired the owner's "用游标分页。", which chose no
    # database, and left the assistant's MySQL statement standing.
    result = run(
        Message("u1", "user", "给订单导出接口加分页，每页 50 条。"),
        Message("a1", "assistant", "好的。我打算用 OFFSET/LIMIT 实现分页。"),
        Message("u2", "user", "OFFSET 在大表上太慢了，所以放弃了。用游标分页。"),
        Message("a2", "assistant", "明白，改用基于 id 的游标分页。数据库用 MySQL 的只读副本。"),
        Message("u3", "user", "还是用 PostgreSQL 吧，MySQL 副本下个月就下线。"),
    )
    assert not retired(result, "用游标分页。")
    assert retired(result, "数据库用 MySQL 的只读副本。")


def test_a_bare_pick_naming_no_other_option_retires_no_statement_that_names_no_option() -> None:
    result = run(
        Message("u1", "user", "给订单导出接口加分页，每页 50 条。"),
        Message("a1", "assistant", "好的，我先看看代码。"),
        Message("u2", "user", "用游标分页。"),
        Message("a2", "assistant", "明白。"),
        Message("u3", "user", "还是用 PostgreSQL 吧。"),
    )
    assert not retired(result, "用游标分页。")


@pytest.mark.parametrize(
    "reply",
    [
        "fine, but keep it behind a flag.",
        "Sounds good, but log how many rows each chunk wrote.",
        "可以，不过要加个开关。",
    ],
)
def test_an_approval_with_a_condition_retires_nothing(reply: str) -> None:
    # walk12 #9: "fine, but keep it behind a flag." had retired the plan it approved.
    plan = "I'll batch the inserts in chunks of 5000 instead."
    result = run(
        Message("u1", "user", "Speed up the order import job; it takes 40 minutes now."),
        Message("a1", "assistant", plan),
        Message("u2", "user", reply),
    )
    assert not retired(result, plan)


@pytest.mark.parametrize(
    "reply",
    [
        "fine, but use COPY instead.",
        "Sounds good, but don't batch them, write them one by one.",
    ],
)
def test_an_approval_whose_condition_swaps_the_plan_still_retires_it(reply: str) -> None:
    plan = "I'll batch the inserts in chunks of 5000 instead."
    result = run(
        Message("u1", "user", "Speed up the order import job; it takes 40 minutes now."),
        Message("a1", "assistant", plan),
        Message("u2", "user", reply),
    )
    assert retired(result, plan)


def test_a_bare_pick_still_retires_the_owner_s_choice_of_a_latin_named_option() -> None:
    # The guard above keeps "先 docker compose 吧" retiring "部署用 k8s。" (probe Q10).
    result = run(
        Message("u0", "user", "把订单服务部署到生产。"),
        Message("a0", "assistant", "好的。"),
        Message("u1", "user", "部署用 k8s。"),
        Message(
            "a1", "assistant", "目前只有两台机器，要我写 Helm chart 吗？还是先用 docker compose？"
        ),
        Message("u2", "user", "先 docker compose 吧，k8s 以后再说。"),
    )
    assert retired(result, "部署用 k8s。")


def test_use_that_not_x_after_a_remark_is_the_owner_s_choice_and_retires_the_plan() -> None:
    plan = "I'll use winston for the request logs."
    result = run(
        Message("u0", "user", "Add request logging to the API."),
        Message("a0", "assistant", plan),
        Message("u1", "user", "the other services log with pino, use that, not winston"),
    )
    assert kind("the other services log with pino, use that, not winston") == "decision"
    assert retired(result, plan)


@pytest.mark.parametrize(
    ("pending", "later"),
    [
        (
            "The `orders` and `invoices` endpoints are migrated; `refunds` is not migrated yet.",
            "All three endpoints (`orders`, `invoices`, `refunds`) are migrated and pass.",
        ),
        (
            "Search on `/products` renders, but its p95 is 640 ms, below the 400 ms target.",
            "Search on `/products` now renders with p95 at 310 ms after the index.",
        ),
        (
            "`payment-svc` 和 `ledger-svc` 的镜像已经构建好，还没推送到仓库。",
            "`payment-svc` 和 `ledger-svc` 的镜像都已推送到仓库并部署到 staging。",
        ),
    ],
)
def test_a_pending_status_is_replaced_by_a_later_status_of_the_same_things(
    pending: str, later: str
) -> None:
    done = "The `orders` endpoint keeps its v1 response shape."
    result = run(
        Message("u0", "user", "Move the API to the new framework."),
        Message("a0", "assistant", f"{done} {pending}"),
        Message("u1", "user", "ok, go on"),
        Message("a1", "assistant", later),
    )
    assert retired(result, pending)
    assert not retired(result, later)
    assert not retired(result, done)


def test_a_pending_status_stays_when_the_later_report_is_about_other_things() -> None:
    pending = "The `orders` and `invoices` endpoints are migrated; `refunds` is not migrated yet."
    later = "The `search` and `catalog` pages render in the new layout."
    result = run(
        Message("u0", "user", "Move the API to the new framework."),
        Message("a0", "assistant", pending),
        Message("u1", "user", "also the pages"),
        Message("a1", "assistant", later),
    )
    assert not retired(result, pending)


def test_what_is_done_stays_done_when_a_later_report_names_it() -> None:
    finding = "The `orders` and `invoices` endpoints are migrated and pass."
    later = "The `orders` and `invoices` endpoints are deployed to staging; `refunds` is not migrated yet."
    result = run(
        Message("u0", "user", "Move the API to the new framework."),
        Message("a0", "assistant", finding),
        Message("u1", "user", "ok"),
        Message("a1", "assistant", later),
    )
    assert not retired(result, finding)


@pytest.mark.parametrize("pause", ["Wait.", "hold on!", "ok wait…", "等一下！", "稍等"])
def test_a_bare_pause_is_no_correction_and_retires_nothing(pause: str) -> None:
    plan = "Go with option B: pin the lockfile and rebuild the image."
    result = run(
        Message("u0", "user", "The nightly image build is flaky."),
        Message("a0", "assistant", plan),
        Message("u1", "user", pause),
    )
    assert kind(pause) == "transient"
    assert not retired(result, plan)


@pytest.mark.parametrize(
    "question",
    [
        "what about storage, local storage ok for 5000 bookmarks?",
        "What about storage, local storage ok for 5000 bookmarks?",
    ],
)
def test_a_what_about_question_is_asked_not_decided(question: str) -> None:
    limit = "3 bookmarks per book max."
    result = run(
        Message("u0", "user", f"Add bookmarks to the reader. {limit}"),
        Message("a0", "assistant", "Bookmarks are stored in local storage as one serialized list."),
        Message("u1", "user", question),
    )
    assert not retired(result, limit)


def test_a_question_that_pushes_back_on_the_plan_replaces_it() -> None:
    plan = "I'd split the handlers into nine files, one per route."
    result = run(
        Message("u0", "user", "Split handlers.py up, please."),
        Message("a0", "assistant", plan),
        Message("u1", "user", "Could we keep it to three files, though?"),
    )
    assert retired(result, plan)


@pytest.mark.parametrize(
    "go_ahead", ["commit 吧，message 你看着写，别 push", "merge 吧，changelog 你看着写，别打 tag"]
)
def test_letting_the_agent_act_is_no_bare_value_in_place_of_the_owner_s_rule(
    go_ahead: str,
) -> None:
    rule = "发版前必须先在 iOS 和安卓真机上跑一遍回归，版本号 3.2.0。"
    result = run(
        Message("u0", "user", "订单导出偶尔超时，修一下。"),
        Message("a0", "assistant", "好。"),
        Message("u1", "user", rule),
        Message("a1", "assistant", "改好了，测试都过了。"),
        Message("u2", "user", go_ahead),
    )
    assert not retired(result, rule)


def test_a_lead_in_that_explains_the_change_after_it_retires_nothing_by_shared_words() -> None:
    rule = "The upload endpoint has to answer within 3 seconds, because the mobile client gives up after that."
    job = "Let's add a cleanup job that deletes uploads older than 7 days."
    result = run(
        Message("u0", "user", "Make photo uploads resumable."),
        Message("a0", "assistant", "Done: chunked uploads with a resume token."),
        Message("u1", "user", rule),
        Message("a1", "assistant", "Noted. The chunks table will grow though."),
        Message("u2", "user", job),
        Message("a2", "assistant", "Added."),
        Message(
            "u3",
            "user",
            "Actually, wait — support says the mobile client retries failed uploads for "
            "up to a month. Keep uploads for 45 days instead of 7.",
        ),
    )
    assert not retired(result, rule)
    assert retired(result, job)


def test_a_lead_in_that_calls_something_off_still_retires_it() -> None:
    result = run(
        Message("u0", "user", "The nightly ETL job runs out of memory."),
        Message("a0", "assistant", "Either scale up the instance or read in chunks."),
        Message("u1", "user", "scale up"),
        Message("a1", "assistant", "Resizing the instance."),
        Message(
            "u2", "user", "forget the scale-up, cost review is next week. read 5000 rows at a time"
        ),
    )
    assert retired(result, "scale up")


def test_an_alternative_added_to_the_owner_s_lifting_pattern_lifts_a_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A hand list of the words the pattern needs once gated it: an alternative added with
    # a word the list lacked ("history") never fired. The gate is read from the pattern.
    from contextward.inspect import supersession

    lifts = supersession._LIFTS.pattern.pattern + r"|\b\w+ing to \w+ is history now\b"
    monkeypatch.setattr(supersession, "_LIFTS", supersession._Gated(lifts))
    result = run(
        Message("u1", "user", "Never push to main."),
        Message("a1", "assistant", "Understood, I will open PRs."),
        Message("u2", "user", "Pushing to main is history now."),
    )
    assert retired(result, "Never push to main.")


def _stem_spelt_out(word: str) -> str:
    """``supersession._stem`` as it was first written: the first suffix it ends with."""
    if len(word) > 4:
        for suffix in ("ing", "ed", "es", "e", "s"):
            if word.endswith(suffix):
                return word[: -len(suffix)]
    return word


@settings(max_examples=500, deadline=None)
@given(word=st.text(alphabet="abdegins-./_1", max_size=9))
@example(word="boxes")
@example(word="deployed")
@example(word="seed")
@example(word="running")
@example(word="swing")
@example(word="release")
@example(word="tests")
@example(word="uses")
@example(word="e")
def test_a_word_s_stem_drops_the_longest_suffix_it_ends_with(word: str) -> None:
    from contextward.inspect.supersession import _stem

    assert _stem(word) == _stem_spelt_out(word)


_KEY_PIECES = [
    *"abtxz_019 .:=-%,()\n，",
    *(
        "timeout",
        "max_retries",
        " to ",
        " is ",
        " of ",
        "ttl-",
        "v2.3",
        "改成",
        "也",
        "还是",
        "设为",
    ),
]


@settings(max_examples=500, deadline=None)
@given(text=st.lists(st.sampled_from(_KEY_PIECES), max_size=20).map("".join))
@example(text="timeout 5%, max_retries=3")
@example(text="(ttl-5) and timeout to 30")
@example(text="超时也 5，timeout改成 9")
def test_keyed_values_are_found_where_a_search_of_the_whole_text_finds_them(text: str) -> None:
    from contextward.inspect.supersession import _KEYED, _keyed

    assert [m.span() + m.groups() for m in _keyed(text)] == [
        m.span() + m.groups() for m in _KEYED.finditer(text)
    ]


def test_a_change_that_names_what_it_changes_retires_only_what_says_it() -> None:
    # "缓存 TTL 改成 5 分钟" names the cache TTL: the export schedule, another 15 minutes
    # said just before, stays; "改成 5 分钟" alone would mean the last value said.
    result = run(
        Message("u0", "user", "给报表服务加缓存。"),
        Message("u1", "user", "导出任务每 15 分钟跑一次。"),
        Message("a1", "assistant", "缓存 TTL 我设成了 15 分钟，和导出周期对齐。"),
        Message("u2", "user", "等一下，缓存 TTL 改成 5 分钟。"),
    )
    assert only(result, "缓存 TTL 我设成了 15 分钟，和导出周期对齐。").superseded_by
    assert not retired(result, "导出任务每 15 分钟跑一次。")


def test_a_change_naming_nothing_said_before_reads_as_before() -> None:
    # The subject it names is in no earlier statement: the last value said is the one.
    result = run(
        Message("u0", "user", "给报表服务加缓存。"),
        Message("a1", "assistant", "缓存过期时间我设成了 15 分钟。"),
        Message("u2", "user", "等一下，TTL 改成 5 分钟。"),
    )
    assert retired(result, "缓存过期时间我设成了 15 分钟。")


@pytest.mark.parametrize(
    ("change", "again"),
    [
        # The owner sets again what the assistant changed.
        (
            "顺手把 uploader 的 chunkCount 从默认 10 调到 6，失败的分片单独重传。",
            "6 个也多，chunkCount 设 2 就够了。",
        ),
        (
            "I also moved prefetch_depth from 2 to 16 so the GPU never waits.",
            "Set prefetch_depth to 4, the box only has 8 GB of RAM.",
        ),
    ],
)
def test_a_setting_named_again_with_another_value_retires_the_change_that_set_it(
    change: str, again: str
) -> None:
    result = run(
        Message("u0", "user", "The nightly import is too slow, speed it up."),
        Message("a1", "assistant", change),
        Message("u1", "user", again),
    )
    assert only(result, change).superseded_by == only(result, again).id


def test_the_assistant_setting_its_own_value_again_retires_its_earlier_change() -> None:
    first = "已经把 encoder 线程数从 4 调到 12。"
    result = run(
        Message("u0", "user", "转码太慢了，看看怎么提速。"),
        Message("a1", "assistant", first),
        Message("u1", "user", "结果怎么样？"),
        Message(
            "a2", "assistant", "12 个线程时内存吃满了，反而更慢。线程数改成 6，写进 values.yaml。"
        ),
    )
    assert retired(result, first)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # What the assistant found stays found: the owner changes it from here on.
        ("MAX_CONN is 50 in settings.py.", "Set MAX_CONN to 80 for the load test."),
        # Two settings that share their last word: the word before tells them apart.
        ("I changed the read timeout from 3s to 5s.", "Set the write timeout to 10s."),
        # The same setting of two services.
        ("支付服务的连接池大小设 20。", "账单服务的连接池大小设 10。"),
        # A change the owner only wonders about changes nothing yet.
        ("I raised pool_size from 8 to 20.", "Not sure if we should set pool_size to 12."),
    ],
)
def test_a_setting_said_again_does_not_retire_a_finding_another_setting_or_by_a_maybe(
    earlier: str, later: str
) -> None:
    result = run(
        Message("u0", "user", "The service times out under load, have a look."),
        Message("a1", "assistant", earlier),
        Message("u1", "user", later),
    )
    assert not retired(result, earlier)


def test_a_package_pinned_to_another_version_retires_the_earlier_pin() -> None:
    first = "pin numpy==1.24.0 and scipy==1.10.1, the versions from the paper"
    result = run(
        Message("u0", "user", "Package the artifact so reviewers can rerun Table 2."),
        Message("a1", "assistant", f"Plan:\n- {first}\n- add a make target"),
        Message(
            "a2",
            "assistant",
            "numpy 1.24 has no wheels for Python 3.13. "
            "I will pin numpy==2.1.3 with scipy==1.14.1 instead.",
        ),
    )
    assert only(result, first).superseded_by == (
        only(result, "I will pin numpy==2.1.3 with scipy==1.14.1 instead.").id
    )


@pytest.mark.parametrize(
    "later",
    [
        "Pin requests==2.32.3 in the lockfile.",
        "If we pin requests==2.32.3 the old client breaks.",
    ],
)
def test_a_pin_does_not_retire_the_version_the_assistant_found_installed(later: str) -> None:
    found = "The lockfile has requests==2.31.0 and urllib3==1.26.18."
    result = run(
        Message("u0", "user", "Why does the upload client time out?"),
        Message("a1", "assistant", found),
        Message("u1", "user", later),
    )
    assert not retired(result, found)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Use Ruby 3.2.", "Use Ruby 3.3 instead."),
        ("Pin Terraform to 1.5.", "Use Terraform 1.7 instead."),
        ("Use Node 16 for the frontend build.", "Switch the build to node 22 instead."),
    ],
)
def test_the_same_name_with_another_version_and_instead_retires_the_old_version(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "Noted.", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    "later",
    [
        # An addition beside the old version, not in place of it.
        "Use Ruby 3.3 for the new worker too.",
        # Another name with its own version.
        "Use Rails 7 instead.",
    ],
)
def test_a_version_for_something_else_or_beside_the_old_one_retires_nothing(later: str) -> None:
    result = after_a_reply("Use Ruby 3.2.", "Noted.", later)
    assert not retired(result, "Use Ruby 3.2.")


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("日志库用 zap。", "改用 zerolog。"),
        ("任务队列用 celery。", "改用 dramatiq，celery 的重试不好控制。"),
        ("Use black for formatting.", "Switch to ruff."),
    ],
)
def test_switching_to_a_name_with_no_thing_before_it_retires_the_owners_last_choice(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # The same name again keeps it.
        ("日志库用 zap。", "改用 zap。"),
        # A rule of the owner's is no choice a switch replaces.
        ("不要引入新的依赖。", "改用 zerolog。"),
        # The clause goes on past the name: what it switches is not said.
        ("日志库用 zap。", "改用 zerolog 记一份审计日志，业务日志不动。"),
    ],
)
def test_a_chinese_switch_keeps_the_same_choice_a_rule_and_an_unnamed_thing(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert not retired(result, earlier)


@pytest.mark.parametrize(
    ("directive", "plan", "later"),
    [
        (
            "Use jest for the unit tests.",
            "I'll add a jest config and a test script.",
            "Switch to vitest.",
        ),
        (
            "Use pip for the dependencies.",
            "I'll write the Dockerfile with a pip install step.",
            "Switch to uv, pip is too slow in the image build.",
        ),
        ("构建用 webpack。", "我打算用 webpack 配一个多入口构建。", "改用 vite。"),
        # The plan read as a statement: "我打算…" states it all the same.
        ("依赖安装用 npm。", "我打算在 Dockerfile 里用 npm ci 装依赖。", "改用 bun。"),
    ],
)
def test_a_switch_after_a_plan_retires_the_plan_and_the_choice_it_carried_out(
    directive: str, plan: str, later: str
) -> None:
    result = after_a_reply(directive, plan, later)
    new = only(result, later).id
    assert only(result, directive).superseded_by == new
    assert only(result, plan).superseded_by == new


def test_a_switch_after_a_plan_keeps_what_the_assistant_found() -> None:
    found = "The repo has a package-lock.json from npm 9."
    result = after_a_reply("Use npm for installs.", found, "Switch to yarn.")
    assert not retired(result, found)
    assert retired(result, "Use npm for installs.")


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("连接池大小用 20。", "连接池大小调到 50。"),
        # The number before what it is: "3000 端口".
        ("服务监听 3000 端口。", "端口改成 3100。"),
        # A version of the name before it: the name set again is the same setting.
        ("Node 版本用 18。", "Node 升到 20。"),
        # "Let's" leads in a request, not a statement.
        ("Set the upload limit to 10 MB.", "Let's make the upload limit 25 MB."),
    ],
)
def test_a_setting_named_again_with_a_new_value_retires_the_old_one(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # A longer name is another setting: the admin port is not the port.
        ("端口用 8080。", "管理端口用 9090。"),
        ("端口用 8080。", "管理端口改成 9090。"),
        ("服务监听 3000 端口。", "调试端口改成 9229。"),
        # Another name's version.
        ("Node 版本用 18。", "Python 升到 3.12。"),
        ("Set the upload limit to 10 MB.", "Let's make the download limit 25 MB."),
    ],
)
def test_a_value_for_another_setting_retires_nothing(earlier: str, later: str) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert not retired(result, earlier)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Serve the docs on port 4000.", "4000 is already in use by the proxy, take 4001."),
        ("Put the metrics exporter on 9100.", "port 9100 is occupied, so use 9101."),
    ],
)
def test_a_number_said_to_be_taken_with_another_to_use_retires_the_old_number(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "OK.", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    "later",
    [
        # What the number is, not that it is taken: another port for another thing.
        "3000 is the API port, use 3001 for the docs site.",
        # Taken, but nothing in its place.
        "3000 is taken by the API, but the dev server can share it.",
    ],
)
def test_a_number_that_is_not_said_to_be_unusable_keeps_the_old_number(later: str) -> None:
    result = after_a_reply("Use port 3000 for the dev server.", "OK.", later)
    assert not retired(result, "Use port 3000 for the dev server.")


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("每次发版前都要更新变更日志。", "以后都只在大版本发版前更新变更日志。"),
        (
            "Every release needs a full regression run.",
            "From now on a smoke run is enough for every release.",
        ),
    ],
)
def test_a_new_rule_from_now_on_replaces_what_every_time_required(earlier: str, later: str) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # One shared word is another act.
        ("每次部署前都要通知运维。", "以后都在周五之前部署。"),
        ("每次部署前都要跑全部测试。", "以后都用 pnpm 安装依赖。"),
        # An addition beside the rule.
        ("每次部署前都要跑全部测试。", "以后部署前也要跑 lint。"),
    ],
)
def test_a_rule_from_now_on_about_another_act_keeps_the_requirement(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert not retired(result, earlier)


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("周报每周五下午 5 点发。", "不再每周五发了，改成每天下午 5 点发。"),
        (
            "Run the backup every Sunday at 2am.",
            "Actually, no longer on Sundays only: run the backup every night at 2am.",
        ),
    ],
)
def test_a_correction_keeping_the_value_but_turning_down_a_word_of_it_replaces_it(
    earlier: str, later: str
) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert only(result, earlier).superseded_by == only(result, later).id


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # What is no longer done is something else; the value is said again.
        ("报表每周一早上 9 点发。", "不对，邮件提醒不再发了，报表还是早上 9 点发。"),
        ("每页显示 20 条。", "不对，还是每页 20 条。"),
    ],
)
def test_a_correction_saying_the_value_again_keeps_it(earlier: str, later: str) -> None:
    result = after_a_reply(earlier, "好的。", later)
    assert not retired(result, earlier)


def in_one_turn(*said: str, opening: str = "I'm on the backend repo today.") -> InspectionResult:
    """The owner's opening, "Sure.", then the owner's messages one after another with no
    reply between (one speaker turn)."""
    return run(
        Message("u0", "user", opening),
        Message("a0", "assistant", "Sure."),
        *(Message(f"u{n}", "user", text) for n, text in enumerate(said, 1)),
    )


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        ("Use pip for the installs.", "Switch to uv."),
        ("Use Kafka for the job queue.", "Actually, let's go with NATS."),
        ("Use Postgres 15.", "Use Postgres 16 instead."),
        ("Serve the admin UI on port 8000.", "8000 is already in use by the API, use 8002."),
        ("消息队列用 Kafka。", "改用 Pulsar。"),
    ],
)
def test_the_owner_taking_back_their_choice_in_the_same_turn_retires_it(
    earlier: str, later: str
) -> None:
    result = in_one_turn(earlier, later)
    assert only(result, earlier).superseded_by == only(result, later).id


def test_a_self_correction_inside_one_message_retires_the_first_choice() -> None:
    result = in_one_turn("Target Node 18. Wait, no, target Node 22 instead.")
    assert retired(result, "Target Node 18.")
    assert not retired(result, "Wait, no, target Node 22 instead.")


@pytest.mark.parametrize(
    ("earlier", "later"),
    [
        # A second choice for another thing adds to the first.
        ("Use Postgres for the main database.", "Let's use Redis for the cache."),
        ("Use pip for the installs.", "Use ruff for linting."),
        # A second number for another setting in the same breath.
        ("Serve the admin UI on port 8000.", "timeout 30."),
    ],
)
def test_a_second_statement_in_the_same_turn_that_adds_retires_nothing(
    earlier: str, later: str
) -> None:
    result = in_one_turn(earlier, later)
    assert not retired(result, earlier)


@pytest.mark.parametrize(
    ("earlier", "plan", "later"),
    [
        (
            "Parse the feeds with BeautifulSoup.",
            "I'll walk the feed items with BeautifulSoup's find_all.",
            "Stop using BeautifulSoup, lxml is fast enough on its own.",
        ),
        (
            "Keep the session state in cookies for now.",
            "I'll sign the session cookies with the app secret.",
            "No more session cookies, store the state server-side.",
        ),
        (
            "Render the charts with matplotlib.",
            "I'll add a matplotlib figure per report section.",
            "Matplotlib is off the table, the reports must be interactive.",
        ),
    ],
)
def test_the_owner_calling_off_their_own_choice_by_name_retires_it_and_the_plan(
    earlier: str, plan: str, later: str
) -> None:
    result = after_a_reply(earlier, plan, later)
    new = only(result, later).id
    assert only(result, earlier).superseded_by == new
    assert only(result, plan).superseded_by == new


@pytest.mark.parametrize(
    "later",
    [
        # Scoped to a place: the choice stands elsewhere.
        "Stop using BeautifulSoup in the unit tests.",
        # A limit, not a thing called off.
        "No more than two BeautifulSoup passes per feed.",
    ],
)
def test_a_scoped_stop_or_a_limit_keeps_the_choice(later: str) -> None:
    result = after_a_reply(
        "Parse the feeds with BeautifulSoup.", "I'll parse each feed once.", later
    )
    assert not retired(result, "Parse the feeds with BeautifulSoup.")


@pytest.mark.parametrize(
    ("rule", "later"),
    [
        ("Don't add database migrations in this PR.", "Database migrations are fine now."),
        ("Never write raw SQL queries.", "Raw SQL queries are okay again."),
    ],
)
def test_a_kind_of_thing_said_to_be_fine_now_lifts_the_rule_against_it(
    rule: str, later: str
) -> None:
    result = after_a_reply(rule, "OK.", later)
    assert only(result, rule).superseded_by == only(result, later).id


def test_particular_things_said_to_be_fine_now_lift_nothing() -> None:
    rule = "Don't modify the deploy scripts."
    result = after_a_reply(rule, "OK.", "The deploy scripts are fine now, thanks.")
    assert not retired(result, rule)


@pytest.mark.parametrize("reply", ["No.", "no thanks", "Don't.", "不要。", "no thank you!"])
def test_a_bare_refusal_right_after_a_proposal_turns_it_down(reply: str) -> None:
    proposal = "I suggest wrapping the webhook sender in a retry."
    result = run(
        Message("u0", "user", "Harden the webhook delivery."),
        Message("a1", "assistant", proposal),
        Message("u1", "user", reply),
    )
    refusal = only(result, reply)
    assert only(result, proposal).superseded_by == refusal.id
    assert refusal.kind == "correction"


def test_a_bare_no_answering_a_question_retires_nothing() -> None:
    plan = "I'll add a retry around the webhook sender."
    result = run(
        Message("u0", "user", "Harden the webhook delivery."),
        Message("a1", "assistant", f"{plan} Is the sender already behind a queue?"),
        Message("u1", "user", "No."),
    )
    assert not retired(result, plan)


@pytest.mark.parametrize("reply", ["Don't.", "no thanks", "不要。"])
def test_a_bare_refusal_of_nothing_is_no_standing_rule(reply: str) -> None:
    result = run(
        Message("u0", "user", "Harden the webhook delivery."),
        Message("a1", "assistant", "Looking at the sender now."),
        Message("u1", "user", reply),
    )
    assert only(result, reply).kind not in ("constraint", "requirement")
    assert only(result, reply).action == "drop"


def _approved_and_done(later: str) -> InspectionResult:
    return run(
        Message("u0", "user", "Store the user uploads somewhere durable."),
        Message("a1", "assistant", "I suggest we keep the uploads in S3."),
        Message("u1", "user", "ok"),
        Message("a2", "assistant", "Done, S3 bucket added."),
        Message("u2", "user", later),
    )


@pytest.mark.parametrize(
    "later", ["Actually, let's go with GCS instead.", "Hmm, actually switch to MinIO."]
)
def test_picking_another_option_after_the_approved_plan_was_carried_out_retires_it(
    later: str,
) -> None:
    result = _approved_and_done(later)
    assert only(result, "I suggest we keep the uploads in S3.").superseded_by == (
        only(result, later).id
    )


def test_a_plain_new_choice_after_the_approved_plan_keeps_it() -> None:
    result = _approved_and_done("Let's use pytest for the tests.")
    assert not retired(result, "I suggest we keep the uploads in S3.")


def test_a_new_status_of_the_same_thing_replaces_the_old_status() -> None:
    old, new = "Status: the backfill is waiting on the replica.", "Status: the backfill is done."
    result = run(
        Message("u0", "user", "Backfill the orders table."),
        Message("a1", "assistant", old),
        Message("a2", "assistant", new),
    )
    assert only(result, old).superseded_by == only(result, new).id


def test_a_status_of_another_thing_keeps_the_old_status() -> None:
    old = "Status: the backfill is waiting on the replica."
    result = run(
        Message("u0", "user", "Backfill the orders table."),
        Message("a1", "assistant", old),
        Message("a2", "assistant", "Status: the index rebuild is done."),
    )
    assert not retired(result, old)


@pytest.mark.parametrize(
    ("earlier", "later", "replaced"),
    [
        ("The build agents are on Ubuntu 20.", "The build agents are on Ubuntu 24 now.", True),
        # Another thing that is on a version now.
        ("The build agents are on Ubuntu 20.", "The web servers are on Ubuntu 24 now.", False),
        # The same thing, no new number: it says more, not another value.
        ("The build agents are on Ubuntu 20.", "The build agents are on Ubuntu 20 now.", False),
    ],
)
def test_the_owner_saying_a_thing_stands_at_a_new_number_now_replaces_the_old(
    earlier: str, later: str, replaced: bool
) -> None:
    result = in_one_turn(earlier, later)
    assert retired(result, earlier) is replaced


def _after_a_failed_run(plan: str, then: str) -> InspectionResult:
    return run(
        Message("u0", "user", "Export the invoices as PDF."),
        Message("a1", "assistant", plan),
        Message("t1", "tool", "command not found", tool_name="Bash", is_error=True),
        Message("a2", "assistant", then),
    )


@pytest.mark.parametrize(
    "then",
    [
        "wkhtmltopdf isn't installed here, so I'll drop that and use WeasyPrint instead.",
        "Switching to WeasyPrint instead.",
        "wkhtmltopdf is out.",
    ],
)
def test_the_assistant_dropping_its_own_plan_after_a_failure_retires_it(then: str) -> None:
    plan = "I'll render the invoices with wkhtmltopdf."
    result = _after_a_failed_run(plan, then)
    switch = only(result, then)
    assert only(result, plan).superseded_by == switch.id
    assert switch.action == "keep"


def test_the_assistant_switching_within_what_its_plan_names_keeps_the_plan() -> None:
    plan = "I'll render the invoices with WeasyPrint and a print stylesheet."
    result = _after_a_failed_run(plan, "Switching to WeasyPrint's own fonts instead.")
    assert not retired(result, plan)


def test_the_assistant_echoing_the_owners_switch_is_still_noise() -> None:
    result = run(
        Message("u0", "user", "Export the invoices as PDF."),
        Message("u1", "user", "Switch to WeasyPrint."),
        Message("a1", "assistant", "Switching to WeasyPrint."),
    )
    assert only(result, "Switching to WeasyPrint.").action == "drop"


@pytest.mark.parametrize(
    ("earlier", "later", "replaced"),
    [
        ("会话过期时间半小时。", "会话过期时间改成 40 分钟。", True),
        ("锁等待超时一个半小时。", "锁等待超时改成 2 小时。", True),
        ("审计日志保留一年半。", "审计日志保留改成三年。", True),
        ("The lock timeout is half an hour.", "Make the lock timeout 20 minutes.", True),
        ("The lock timeout is an hour and a half.", "Make the lock timeout 2 hours.", True),
        # The same value in another form: nothing changes.
        ("会话过期时间半小时。", "会话过期时间改成 30 分钟。", False),
        ("The lock timeout is half an hour.", "Make the lock timeout 30 minutes.", False),
    ],
)
def test_a_value_said_with_a_half_is_read_as_its_value(
    earlier: str, later: str, replaced: bool
) -> None:
    result = after_a_reply(earlier, "OK.", later)
    assert retired(result, earlier) is replaced


@pytest.mark.parametrize(
    ("text", "dimension", "value"),
    [
        ("半小时", "time", 1800.0),
        ("半个小时", "time", 1800.0),
        ("一个半小时", "time", 5400.0),
        ("两个半小时", "time", 9000.0),
        ("3天半", "time", 3.5 * 86400),
        ("half an hour", "time", 1800.0),
        ("an hour and a half", "time", 5400.0),
        ("2 and a half hours", "time", 9000.0),
    ],
)
def test_half_values_read_in_the_next_smaller_unit(text: str, dimension: str, value: float) -> None:
    assert _values(text)[dimension] == [value]


@pytest.mark.parametrize(
    "text", ["一半的请求走新集群。", "过半数的节点同意才提交。", "half of the requests"]
)
def test_a_half_that_is_no_duration_is_no_value(text: str) -> None:
    assert _values(text) == {}


@pytest.mark.parametrize(
    ("plan", "then", "replaced"),
    [
        (
            "I'll move the audit logs for stage 1 to cold storage.",
            "Move stage 2 to cold storage too.",
            False,
        ),
        (
            "I'll move the audit logs for stage 1 to cold storage.",
            "Also move stage 2 to cold storage.",
            False,
        ),
        ("给 305 号 issue 补一个回归测试。", "306 号 issue 也要补一个回归测试。", False),
        (
            "Write a smoke test for billing table 7.",
            "Write a smoke test for billing table 8 too.",
            False,
        ),
        # The number named again in place of the one before: a replacement.
        (
            "I'll move the audit logs for stage 1 to cold storage.",
            "Make it stage 2 instead.",
            True,
        ),
        ("给 305 号 issue 补一个回归测试。", "不对，改成 306 号 issue。", True),
    ],
)
def test_an_addition_for_another_numbered_thing_replaces_nothing(
    plan: str, then: str, replaced: bool
) -> None:
    result = after_a_reply("We're cleaning up the audit pipeline.", plan, then)
    assert retired(result, plan) is replaced


@pytest.mark.parametrize(
    ("todo", "then", "replaced"),
    [
        ("给 305 号 issue 补一个回归测试。", "306 号 issue 也要补一个回归测试。", False),
        ("Add a smoke test for phase 3 of the import.", "Add one for phase 4 too.", False),
        ("给 305 号 issue 补一个回归测试。", "不对，改成 306 号 issue。", True),
    ],
)
def test_the_owners_todo_for_another_numbered_thing_keeps_the_first(
    todo: str, then: str, replaced: bool
) -> None:
    result = after_a_reply(todo, "OK.", then)
    assert retired(result, todo) is replaced


def _approved_then(plan: str, then: str) -> InspectionResult:
    return run(
        Message("u0", "user", "We're adding SSO to the admin portal."),
        Message("a0", "assistant", plan),
        Message("u1", "user", "Sounds good, go with Redis."),
        Message("a1", "assistant", "Running the linters."),
        Message("u2", "user", then),
    )


def test_a_value_correction_leaves_an_unrelated_approved_plan() -> None:
    plan = "I suggest we keep the login tokens in Redis."
    result = _approved_then(plan, "Actually make the token lifetime 20 minutes, not 10.")
    assert not retired(result, plan)


def test_a_value_correction_retires_the_plan_that_held_the_value() -> None:
    plan = "I suggest we keep the login tokens in Redis for 10 minutes."
    result = _approved_then(plan, "Actually make the token lifetime 20 minutes, not 10.")
    assert retired(result, plan)
