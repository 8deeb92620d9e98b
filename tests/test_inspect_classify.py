"""Classification by role and position, in English and Chinese, through the whole pipeline."""

from __future__ import annotations

import io
import json

import pytest

from contextward.inspect import Message, build_guidance, inspect_stream
from contextward.inspect.classifier import Context, classify
from contextward.inspect.segment import Unit
from inspect_helpers import kind, only, run


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Don't send emails on my behalf.", "constraint"),
        ("Never push to main.", "constraint"),
        ("不要改公共 API", "constraint"),
        ("Production config is off-limits.", "constraint"),
        ("PRs only — nothing goes straight to main.", "constraint"),
        ("Standard library only — no third-party packages.", "constraint"),
        ("约束：必须保持现有 API 兼容。", "constraint"),
        ("I'd rather we keep the config in TypeScript.", "preference"),
        ("Decision: store sessions in Redis.", "decision"),
        ("我们最终选择 PostgreSQL。", "decision"),
        ("SQLite was dropped because concurrent writes locked the file.", "rejected"),
        ("SQLite 因为并发写入锁问题被放弃。", "rejected"),
        ("TODO: auth.py 还没有完成 OAuth callback。", "todo"),
        ("Still open: the callback returns 500.", "todo"),
        ("Actually, make that 3 attempts.", "correction"),
        ("Careful: the Docker images still inject the old variable.", "risk"),
        ("Noted.", "transient"),
        ("好的", "transient"),
        # The owner setting a named thing is a choice, whatever the verb.
        ("Set the HTTP timeout to 30 seconds.", "decision"),
        ("Switch the export job queue from SQS to Kafka.", "decision"),
        ("限流阈值设成每分钟 100 次。", "decision"),
        ("导出编码改成 GBK，财务用 Excel 打开。", "decision"),
        ("任务状态改成存 Redis。", "decision"),
        ("超时改成 15 秒。", "decision"),
        ("ok switch the issuer to dns-01 via cloudflare api", "decision"),
        # A limit or a compatibility the owner sets is a requirement, so it is guarded.
        ("Limit it to 5 attempts per minute per IP.", "requirement"),
        ("Keep Python 3.9 compatibility.", "requirement"),
    ],
)
def test_user_statements(text: str, expected: str) -> None:
    assert kind(text) == expected


def test_the_opening_request_is_the_goal() -> None:
    assert kind("Users get logged out every few minutes; find out why.", opening=True) == "goal"
    assert kind("Users get logged out every few minutes; find out why.") != "goal"


def test_after_a_summary_the_next_user_message_is_no_opening_and_the_summary_not_the_owner() -> (
    None
):
    from contextward.inspect import inspect_messages

    summary = Message("c1", "user", "Goal: ship the invoice export.", summary=True)
    result = inspect_messages(
        [summary, Message("u1", "user", "Users get logged out; find out why.")]
    )
    said = {c.content: c for c in result.candidates}
    assert said["Users get logged out; find out why."].kind != "goal"
    # The summary's words are the host's: they rank below the owner's and retire nothing of it.
    assert said["Goal: ship the invoice export."].role == "system"


def test_the_assistant_cannot_impose_rules_and_its_narration_is_noise() -> None:
    assert (
        kind("Don't change the public API.", "assistant") != "constraint"
        or classify(Unit("Don't change the public API."), Context("assistant")).confidence < 0.8
    )
    assert kind("Let me look at how sessions are stored today.", "assistant") == "transient"
    assert kind("I'll keep /api/v1 stable and work on a branch.", "assistant") == "transient"
    assert kind("Decision: store OAuth account links in PostgreSQL.", "assistant") == "decision"
    assert kind("Status: Google sign-in works end to end.", "assistant") == "state"


def test_tool_output_is_one_dropped_candidate_with_a_verbatim_prefix() -> None:
    result = run(Message("t1", "tool", "$ npm test\n" + "PASS x\n" * 1000, tool_name="Bash"))
    (candidate,) = result.candidates
    assert (candidate.kind, candidate.action, candidate.content) == (
        "tool_output",
        "drop",
        "$ npm test",
    )


def test_an_error_that_explains_an_abandoned_approach_is_kept() -> None:
    result = run(
        Message("u1", "user", "Store the links somewhere durable."),
        Message(
            "t1", "tool", "Traceback:\nsqlite3.OperationalError: database is locked", is_error=True
        ),
        Message("a1", "assistant", "SQLite is not an option here."),
    )
    error = only(result, "sqlite3.OperationalError: database is locked")
    assert (error.kind, error.action, error.sources) == ("rejected", "keep", ("t1",))


def test_the_last_error_line_of_a_tool_run_is_the_one_kept() -> None:
    """The last line naming an error usually names the cause; lines after it do not."""
    result = run(
        Message("u1", "user", "Store the links somewhere durable."),
        Message(
            "t1",
            "tool",
            "error: retrying (1/3)\nconnecting…\n  sqlite3.OperationalError: database is locked  \n"
            "exit status 1\n",
        ),
        Message("a1", "assistant", "SQLite is not an option here."),
    )
    error = only(result, "sqlite3.OperationalError: database is locked")
    assert (error.kind, error.sources) == ("rejected", ("t1",))


@pytest.mark.parametrize(
    "line",
    [
        "ModuleNotFoundError: No module named 'lxml'",
        "redis.exceptions.ConnectionError: Error 111 connecting to localhost:6379",
        "java.lang.NullPointerException at Parser.java:88",
        "psycopg.OperationalError: connection to server on socket closed",
    ],
)
def test_an_exception_named_by_its_class_is_the_error_line_kept(line: str) -> None:
    # A traceback's last line names the class, which holds "Error" inside a word; its
    # first line ("Traceback (most recent call last):") says nothing of the cause.
    output = f'Traceback (most recent call last):\n  File "x.py", line 3\n{line}\nexit 1'
    result = run(
        Message("u1", "user", "Parse the feed with something fast."),
        Message("a1", "assistant", "I'll parse the feed with lxml."),
        Message("t1", "tool", output, is_error=True),
        Message("a2", "assistant", "Then lxml is out here."),
    )
    error = only(result, line)
    assert (error.kind, error.action, error.sources) == ("rejected", "keep", ("t1",))


def test_a_resolved_error_stays_noise() -> None:
    result = run(
        Message("t1", "tool", "FAILED test_x - AssertionError", is_error=True),
        Message("a1", "assistant", "The test fails because of a typo; fixed."),
    )
    assert {c.action for c in result.candidates} == {"drop"}


@pytest.mark.parametrize(
    ("typed", "wide"),
    [
        ("Never deploy on Fridays.", "Ｎｅｖｅｒ ｄｅｐｌｏｙ ｏｎ Ｆｒｉｄａｙｓ．"),
        ("缓存过期时间设成30分钟。", "缓存过期时间设成３０分钟。"),
    ],
)
def test_a_copy_typed_in_fullwidth_merges_with_the_statement(typed: str, wide: str) -> None:
    result = run(Message("u1", "user", typed), Message("u2", "user", wide))
    (candidate,) = result.candidates
    assert candidate.sources == ("u1", "u2") and candidate.content == typed


def test_duplicates_merge_with_all_their_sources() -> None:
    result = run(
        Message("u1", "user", "Never push to main."),
        Message("u2", "user", "never push to main"),
    )
    (candidate,) = result.candidates
    assert candidate.sources == ("u1", "u2") and candidate.content == "Never push to main."


@pytest.mark.parametrize(
    ("agent", "owner"),
    [
        ("Keep the retry budget at three attempts.", "Keep the retry budget at three attempts."),
        ("Don't log the raw card numbers.", "don't log the raw  card numbers."),
        ("只在 staging 上跑迁移。", "只在 staging 上跑迁移。"),
    ],
)
def test_the_owner_saying_what_the_agent_said_makes_it_the_owners_word(
    agent: str, owner: str
) -> None:
    # The agent proposes, the owner says the same words: guidance must not mark the
    # merged item as the agent's, and its reason is the owner's.
    result = run(
        Message("u1", "user", "Set up the nightly billing export."),
        Message("a1", "assistant", f"Here is my plan:\n- {agent}\n- Email a report after."),
        Message("u2", "user", f"{owner} Skip the email."),
    )
    (merged,) = [c for c in result.candidates if c.sources == ("a1", "u2")]
    assert merged.role == "user" and merged.action == "keep"
    assert "assistant" not in merged.reason and "agent" not in merged.reason
    guidance = build_guidance(result)
    (item,) = [i for i in guidance.must_preserve if i.id == merged.id]
    assert "said_by" not in guidance.to_dict()["must_preserve"][guidance.must_preserve.index(item)]
    # The other way round (the owner first, the agent repeating) it was the owner's all along.
    echoed = run(Message("u1", "user", owner), Message("a1", "assistant", agent))
    assert [c.role for c in echoed.candidates] == ["user"]


def test_an_id_keeps_the_kind_its_statement_was_first_read_as() -> None:
    # A copy may change the kind (a tool line the owner then states as a rule), never the
    # id: a review decision made on an earlier read of a growing transcript still applies.
    before = run(Message("t1", "tool", "make lint before every push"))
    after = run(
        Message("t1", "tool", "make lint before every push"),
        Message("u1", "user", "Make lint before every push."),
    )
    (was,), (now,) = before.candidates, after.candidates
    assert now.id == was.id and now.id.startswith("tool_output-") and now.kind != "tool_output"


def test_ids_are_stable_and_depend_on_source_kind_and_text() -> None:
    first = run(Message("u1", "user", "Never push to main."))
    again = run(Message("u1", "user", "Never push to main."))
    other = run(Message("u9", "user", "Never push to main."))
    assert first.candidates[0].id == again.candidates[0].id
    assert first.candidates[0].id != other.candidates[0].id
    assert first.candidates[0].id.startswith("constraint-")


def test_supersession_marks_the_stale_decision() -> None:
    result = run(
        Message("a1", "assistant", "Decision: use Celery to build the export in the background."),
        Message("u1", "user", "No emails to customers from this feature."),
        Message("a2", "assistant", "Switching to a streaming response instead of Celery."),
    )
    old = only(result, "Decision: use Celery to build the export in the background.")
    new = only(result, "Switching to a streaming response instead of Celery.")
    assert new.supersedes == (old.id,) and old.superseded_by == new.id
    assert (old.action, old.critical) == ("drop", False) and new.action == "keep"


def test_no_longer_retires_a_rule_in_chinese_too() -> None:
    result = run(
        Message("u1", "user", "输出先继续写 Elasticsearch。"),
        Message("u2", "user", "更正一下：输出改成写到 Loki，不再写 Elasticsearch。"),
    )
    old = only(result, "输出先继续写 Elasticsearch。")
    assert (
        old.superseded_by == only(result, "更正一下：输出改成写到 Loki，不再写 Elasticsearch。").id
    )


def test_an_assistant_echo_never_retires_the_users_word() -> None:
    result = run(
        Message("u1", "user", "Switch to PostgreSQL full-text search instead of LIKE."),
        Message("a1", "assistant", "Understood, switching to full-text search instead."),
    )
    assert (
        only(result, "Switch to PostgreSQL full-text search instead of LIKE.").superseded_by is None
    )


def test_compaction_summaries_are_read_for_memories() -> None:
    result = run(
        Message(
            "s1",
            "system",
            "This session is being continued from a previous conversation.\n"
            "- Decision: use PostgreSQL for account links.\n- Never push to main.",
            summary=True,
        )
    )
    kinds = {c.content: (c.kind, c.action) for c in result.candidates}
    assert kinds["Decision: use PostgreSQL for account links."] == ("decision", "keep")
    assert kinds["Never push to main."] == ("constraint", "keep")
    assert kinds["This session is being continued from a previous conversation."][1] == "drop"


@pytest.mark.parametrize(
    "text",
    ["Set up the CI job for the exporter.", "Set the timeout to 30 seconds?"],
)
def test_setting_up_or_asking_is_no_choice_of_a_value(text: str) -> None:
    assert kind(text) != "decision"


def test_a_short_plan_of_the_assistant_that_names_what_it_builds_with_is_a_decision() -> None:
    assert kind("I'll store invoices in SQLite.", "assistant") == "decision"
    assert kind("I'll cache it with Redis.", "assistant") == "decision"
    # A short step with no named tool stays narration.
    assert kind("I'll fix that now.", "assistant") == "transient"
    assert kind("I'll do it in a bit.", "assistant") == "transient"


def test_the_owners_command_after_their_standing_instruction_is_kept_with_it() -> None:
    from contextward.inspect import build_guidance

    command = "```sh\nmake lint && make test\n```"
    result = run(
        Message("u1", "user", "Add a health endpoint."),
        Message("u2", "user", f"Run this before every commit:\n{command}"),
        Message("u3", "user", "here is what we use elsewhere, copy it:\n```yaml\na: 1\n```"),
    )
    lead, code = only(result, "Run this before every commit:"), only(result, command)
    assert lead.action == code.action == "keep" and code.kind == lead.kind
    assert only(result, "```yaml\na: 1\n```").action == "drop"
    # Listed together, and verbatim: the block's lines stay lines.
    text = build_guidance(result).text()
    assert (
        "- [todo] Run this before every commit:\n- [todo] ```sh\n  make lint && make test\n  ```"
        in text
    )


def test_every_command_line_after_the_owners_lead_in_is_kept_with_it() -> None:
    result = run(
        Message("u1", "user", "Cut the 2.4 release."),
        Message(
            "u2",
            "user",
            "Each time you tag, do these:\n$ git tag -s v2.4.0\n$ git push origin v2.4.0\n"
            "$ gh release create v2.4.0\nThen tell me.",
        ),
        Message("u3", "user", "The logs from the failed tag, have a look:\n$ git tag -s v2.3.9"),
    )
    lead = only(result, "Each time you tag, do these:")
    lines = [only(result, f"$ {c}") for c in ("git tag -s v2.4.0", "git push origin v2.4.0")]
    lines.append(only(result, "$ gh release create v2.4.0"))
    assert [(c.kind, c.action) for c in lines] == [(lead.kind, "keep")] * 3
    # A command pasted to look into stays noise, as the one after it does.
    assert only(result, "$ git tag -s v2.3.9").action == "drop"


def test_a_suggestion_starting_with_maybe_is_the_owner_proposing() -> None:
    assert kind("maybe use parquet?") == "decision"
    assert kind("Maybe later.") != "decision"


@pytest.mark.parametrize(
    "text",
    [
        "Abandoned the Redis cache approach because invalidation was too complex.",
        "Tried a Redis cache; abandoned because invalidation was too complex.",
        "Redis cache (abandoned: invalidation too complex).",
    ],
)
def test_a_summary_s_terse_abandoned_is_a_rejected_approach(text: str) -> None:
    assert kind(text, "system") == "rejected"
    assert kind(text, "assistant") == "rejected"


def test_an_opening_past_tense_without_a_reason_is_no_rejection() -> None:
    assert kind("Dropped the old column after the backfill.", "assistant") != "rejected"
    assert kind("Rejected requests are logged to stderr.", "assistant") != "rejected"


def test_a_pi_branch_summary_keeps_the_approach_it_abandoned() -> None:
    lines = [
        {"type": "session", "version": 3, "id": "s", "cwd": "/p"},
        {
            "type": "message",
            "id": "e1",
            "message": {"role": "user", "content": "Speed up /search."},
        },
        {
            "type": "branch_summary",
            "id": "e2",
            "fromId": "e1",
            "summary": "Abandoned the Redis cache approach because invalidation was too complex.",
        },
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = inspect_stream(io.BytesIO(data))
    found = [c for c in result.candidates if "Redis cache" in c.content]
    assert [(c.kind, c.action) for c in found] == [("rejected", "keep")]


@pytest.mark.parametrize(
    "text",
    [
        "From now on just run the unit tests before commits, CI does the rest.",
        "Going forward, use pnpm.",
        "从现在起，提交前只跑单元测试。",
        "以后都用 pnpm。",
    ],
)
def test_an_instruction_from_now_on_is_a_standing_rule(text: str) -> None:
    assert kind(text) == "constraint"
    assert kind(text, "assistant") != "constraint"  # a promise to follow it


@pytest.mark.parametrize("text", ["以后再说吧。", "以后会有更多的用户。"])
def test_later_is_no_standing_rule(text: str) -> None:
    assert kind(text) != "constraint"


def test_fullwidth_letters_and_digits_read_as_ascii_and_stay_verbatim() -> None:
    rule = "ｎｅｖｅｒ　ｐｕｓｈ　ｔｏ　ｍａｉｎ"
    assert kind(rule) == "constraint"
    result = run(Message("u1", "user", "发布前先跑测试。"), Message("u2", "user", rule))
    assert only(result, rule).kind == "constraint"  # its content as typed


def test_a_pasted_log_is_noise_and_the_request_before_it_is_kept() -> None:
    log = "\n".join(f"2026-12-01T10:0{n}:00Z ERROR worker-{n} timeout" for n in range(5))
    ask = "Here is the log from prod, figure out why:"
    result = run(Message("u1", "user", f"Never push to main. {ask}\n{log}"))
    assert only(result, ask).kind == "todo"
    pasted = [c for c in result.candidates if c.content.startswith("2026-12-01")]
    assert [(c.kind, c.action) for c in pasted] == [("transient", "drop")]


@pytest.mark.parametrize(
    "lead",
    ["Please tidy up the invoicing module as follows:", "帮我把发票模块按下面几条整理一下："],
)
def test_an_opening_request_that_leads_into_a_list_is_the_goal(lead: str) -> None:
    # The only place the module is named: a title of the list it is not.
    bullets = "\n- Keep the public functions' names\n- Move the PDF code into its own file"
    result = run(Message("u1", "user", lead + bullets), Message("a1", "assistant", "Will do."))
    assert (only(result, lead).kind, only(result, lead).action) == ("goal", "keep")
    # A bare title opening the session says nothing of its own, and later the same lead
    # is a list's title.
    assert kind("Changes:", opening=True) == kind("Changes:") == "transient"
    assert kind("背景：", opening=True) == "transient"
    later = run(
        Message("u1", "user", "Fix the flaky invoice test."),
        Message("u2", "user", "The PDF part goes as follows:" + bullets),
    )
    assert only(later, "The PDF part goes as follows:").action == "drop"


@pytest.mark.parametrize(
    "text",
    ["PRs only.", "Linux only, no Windows.", "Let's not use Docker for local dev; it's too slow."],
)
def test_an_only_or_a_let_s_not_is_the_owner_s_rule(text: str) -> None:
    assert kind(text) == "constraint"


def test_for_that_only_scopes_a_permission_it_is_no_rule() -> None:
    assert kind("scale janitor to 0, you have write on checkout for that only") != "constraint"


def test_i_d_with_a_building_verb_is_the_assistant_s_plan() -> None:
    plan = "I'd parse the CSV with pandas, since it handles encodings well."
    assert kind(plan, "assistant") == "decision"
    assert kind("I'd check the logs first.", "assistant") == "transient"
    result = run(
        Message("u1", "user", "Build a CSV import for the invoices page."),
        Message("a1", "assistant", plan),
        Message(
            "u2",
            "user",
            "no pandas, it's too heavy for the lambda. use the stdlib csv module instead.",
        ),
    )
    assert only(result, plan).superseded_by is not None


@pytest.mark.parametrize("text", ["ok, carry on", "thanks, that's all", "ok. great. thanks!"])
def test_a_few_acknowledgements_in_a_row_are_noise(text: str) -> None:
    assert kind(text) == "transient"


@pytest.mark.parametrize(
    "text", ["Keep the connection pool at 20 connections.", "导出任务超时时间设为 10 分钟。"]
)
def test_the_owner_setting_a_value_in_other_words_is_a_decision(text: str) -> None:
    assert kind(text) == "decision"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'll start by looking at services/gateway to see how requests are routed.", "transient"),
        ("I'll keep the limiter in middleware/ratelimit.go.", "decision"),
        ("I'll keep that in mind.", "transient"),
    ],
)
def test_the_assistant_s_next_look_is_noise_and_where_it_puts_a_thing_a_plan(
    text: str, expected: str
) -> None:
    assert kind(text, role="assistant") == expected


@pytest.mark.parametrize(
    "text",
    ["Commit messages in English, please.", "Two-space indents in the YAML files pls."],
)
def test_what_the_owner_asks_with_please_and_no_cue_is_a_requirement(text: str) -> None:
    # walk13 #1: these were plain facts, so a summary that dropped them restored nothing.
    assert kind(text) == "requirement"


def test_a_question_with_please_stays_a_request() -> None:
    assert kind("Could you please check the deploy logs?") == "todo"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A recurring time when something is not done is a standing rule, 不要 or not.
        ("每周五不发版。", "constraint"),
        ("周日不部署。", "constraint"),
        ("节假日不动线上配置。", "constraint"),
        # The one way changes go is a standing rule.
        ("所有迁移都走评审。", "constraint"),
        ("数据库变更统一走工单。", "constraint"),
        # Controls: a meeting on a day, a plan dropped, people leaving, no rule.
        ("周五开会。", "fact"),
        ("我们都走了。", "fact"),
    ],
)
def test_chinese_standing_rules_without_a_prohibition_word(text: str, expected: str) -> None:
    assert kind(text) == expected


@pytest.mark.parametrize(
    "text",
    ["重试间隔改成三十秒。", "缓存过期设为两小时。", "并发数调到八个。"],
)
def test_a_setting_in_chinese_numerals_is_a_choice_as_in_digits(text: str) -> None:
    assert kind(text) == "decision"
