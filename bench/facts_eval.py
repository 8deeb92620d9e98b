"""Quality of the facts verifier against the literal one, on generated labelled pairs.

Each case is one item and one summary. The summary is realistic session-summary
text (prose or bullets, distractor sentences, other items of the same project)
with the item rendered through one operator:

    verbatim, noise (whitespace and case), paraphrase      -> preserved
    value swap, stale value, negation flipped, must -> may, revoked -> changed
    deleted                                                 -> lost

Items cover every kind, in English and Chinese. The generator is seeded: the
development seed is the one the verifier was tuned on; the held-out seed was
not looked at while tuning. Prints accuracy, the false-preserved rate (an
item reported preserved although it was changed or lost) and the confusion
matrices of both verifiers.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass

from contextward.core import ContextItem, FactsVerifier, LiteralVerifier

DEV_SEED = 1
HELD_OUT_SEED = 20261130
CASES = 1500
STATUSES = ("preserved", "changed", "lost")


@dataclass(frozen=True)
class Template:
    kind: str
    lang: str
    text: str
    paraphrases: tuple[str, ...]
    flip: str | None = None  # negation removed or added
    weak: str | None = None  # must -> may


T = Template
TEMPLATES: tuple[Template, ...] = (
    # goal
    T(
        "goal",
        "en",
        "Ship the {name} sign-in behind the existing {path} routes by {day}.",
        (
            "The goal is to ship {name} sign-in by {day}, behind the existing {path} routes.",
            "By {day}, ship {name} sign-in behind the {path} routes that already exist.",
        ),
        flip="Do not ship the {name} sign-in behind the existing {path} routes by {day}.",
    ),
    T(
        "goal",
        "en",
        "Cut the p95 latency of the checkout API to under {dur}.",
        (
            "Reduce the checkout API p95 latency to under {dur}.",
            "The checkout API should get its p95 latency cut to under {dur}.",
        ),
        flip="Do not cut the p95 latency of the checkout API to under {dur}.",
    ),
    T(
        "goal",
        "en",
        "Migrate all {n} cron jobs to the new scheduler before the end of the quarter.",
        ("Before the quarter ends, all {n} cron jobs move to the new scheduler.",),
    ),
    T(
        "goal",
        "zh",
        "在{day}之前上线{name}登录功能。",
        ("目标是{day}前把{name}登录功能上线。", "{name}登录功能要在{day}之前发布上线。"),
        flip="不要在{day}之前上线{name}登录功能。",
    ),
    T(
        "goal",
        "zh",
        "把结算接口的p95延迟降到{dur}以内。",
        ("结算接口的p95延迟需要降到{dur}以内。",),
        flip="不要把结算接口的p95延迟降到{dur}以内。",
    ),
    # constraint
    T(
        "constraint",
        "en",
        "Never push to {branch}; open a pull request instead.",
        (
            "Pushing directly to {branch} is not allowed, open a pull request instead.",
            "Do not push to {branch} directly; open a pull request instead.",
        ),
        flip="Push to {branch} directly; open a pull request afterwards.",
    ),
    T(
        "constraint",
        "en",
        "You must keep the monthly cloud budget under {money}.",
        (
            "The monthly cloud budget has to stay under {money}.",
            "Keeping the monthly cloud budget under {money} is required.",
        ),
        flip="You must not keep the monthly cloud budget under {money}.",
        weak="You may keep the monthly cloud budget under {money}.",
    ),
    T(
        "constraint",
        "en",
        "Do not change the public API: the {path} response shapes are used by the mobile app.",
        (
            "The public API must not change, because the mobile app uses the {path} response shapes.",
            "Don't change the public API; the mobile app uses the {path} response shapes.",
        ),
        flip="Change the public API freely: the {path} response shapes are used by the mobile app.",
    ),
    T(
        "constraint",
        "en",
        "All schema migrations must be reviewed by {person} before they run.",
        ("Every schema migration has to be reviewed by {person} before it runs.",),
        flip="Schema migrations must not be reviewed by {person} before they run.",
        weak="Schema migrations can be reviewed by {person} before they run.",
    ),
    T(
        "constraint",
        "zh",
        "不要直接推送到{branch}分支，必须先开合并请求。",
        (
            "禁止直接推送到{branch}分支，务必先开合并请求。",
            "切勿直接推送到{branch}分支，必须先开一个合并请求。",
        ),
        flip="直接推送到{branch}分支，必须先开合并请求。",
        weak="不要直接推送到{branch}分支，可以先开合并请求。",
    ),
    T(
        "constraint",
        "zh",
        "每月云服务预算必须控制在{money}以内。",
        ("每月的云服务预算务必控制在{money}以内。",),
        flip="每月云服务预算不必控制在{money}以内。",
        weak="每月云服务预算可以控制在{money}以内。",
    ),
    # preference
    T(
        "preference",
        "en",
        "Prefer small commits with descriptive messages over large squashed ones.",
        ("Small commits with descriptive messages are preferred over large squashed ones.",),
        flip="Avoid small commits with descriptive messages; large squashed ones are better.",
    ),
    T(
        "preference",
        "en",
        "Use {name} for caching in the local setup, since the team knows it well.",
        (
            "In the local setup, caching uses {name}, since the team knows it well.",
            "For local caching, utilize {name}; the team knows it well.",
        ),
        flip="Do not use {name} for caching in the local setup, even though the team knows it well.",
    ),
    T(
        "preference",
        "zh",
        "团队更喜欢用{name}做本地缓存。",
        ("本地缓存方面，团队更喜欢用{name}。",),
        flip="团队不喜欢用{name}做本地缓存。",
    ),
    T(
        "preference",
        "zh",
        "代码评审意见尽量在{n}小时内回复。",
        ("代码评审的意见最好在{n}小时内回复。",),
        flip="代码评审意见不用在{n}小时内回复。",
    ),
    # requirement
    T(
        "requirement",
        "en",
        "Every API response must include a request id header named {ident}.",
        (
            "Each API response has to include a request id header called {ident}.",
            "API responses are required to include the request id header {ident}.",
        ),
        flip="API responses must not include a request id header named {ident}.",
        weak="Every API response may include a request id header named {ident}.",
    ),
    T(
        "requirement",
        "en",
        "Passwords must be at least {n} characters long.",
        ("A password has to be at least {n} characters long.",),
        flip="Passwords must not be at least {n} characters long.",
        weak="Passwords may be at least {n} characters long.",
    ),
    T(
        "requirement",
        "zh",
        "每个接口响应都必须包含名为{ident}的请求头。",
        ("所有接口响应务必包含名为{ident}的请求头。",),
        flip="接口响应不要包含名为{ident}的请求头。",
        weak="每个接口响应都可以包含名为{ident}的请求头。",
    ),
    T(
        "requirement",
        "zh",
        "密码长度必须至少为{n}位。",
        ("密码长度务必至少为{n}位。",),
        flip="密码长度不必至少为{n}位。",
        weak="密码长度可以至少为{n}位。",
    ),
    # decision
    T(
        "decision",
        "en",
        "Store OAuth account links in {name}, table {ident}.",
        (
            "OAuth account links are stored in {name}, in the {ident} table.",
            "We decided to save OAuth account links in {name} (table {ident}).",
        ),
        flip="Do not store OAuth account links in {name}, table {ident}.",
    ),
    T(
        "decision",
        "en",
        "Set the HTTP client timeout to {dur} for all outbound calls.",
        (
            "All outbound calls get an HTTP client timeout of {dur}.",
            "The HTTP client timeout for outbound calls is set to {dur}.",
        ),
        flip="Do not set the HTTP client timeout to {dur} for outbound calls.",
    ),
    T(
        "decision",
        "en",
        "We chose {name} for the job queue because it is already deployed.",
        ("The job queue runs on {name}; we chose it because it is already deployed.",),
        flip="We did not choose {name} for the job queue although it is already deployed.",
    ),
    T(
        "decision",
        "zh",
        "决定把OAuth账号关联存到{name}的{ident}表里。",
        ("OAuth账号关联决定保存到{name}的{ident}表里。",),
        flip="决定不把OAuth账号关联存到{name}的{ident}表里。",
    ),
    T(
        "decision",
        "zh",
        "所有外部调用的超时时间设为{dur}。",
        ("外部调用的超时时间统一设为{dur}。",),
        flip="外部调用的超时时间不要设为{dur}。",
    ),
    # rejected
    T(
        "rejected",
        "en",
        "{name} was rejected for sessions because concurrent writes kept failing.",
        ("We dropped {name} for sessions since concurrent writes kept failing.",),
        flip="{name} was not rejected for sessions, although concurrent writes kept failing.",
    ),
    T(
        "rejected",
        "en",
        "We ruled out a rewrite of the {path} handler; it would take {n} weeks.",
        ("A rewrite of the {path} handler was ruled out, because it would take {n} weeks.",),
    ),
    T(
        "rejected",
        "zh",
        "放弃了用{name}存会话，因为并发写入总是失败。",
        ("因为并发写入总是失败，放弃了用{name}存会话。",),
    ),
    # todo
    T(
        "todo",
        "en",
        "Fix the {path} callback that returns 500 when the email scope is missing.",
        (
            "Still open: the {path} callback returns 500 when the email scope is missing and needs a fix.",
            "The {path} callback returning 500 on a missing email scope still needs a fix.",
        ),
        flip="Do not fix the {path} callback that returns 500 when the email scope is missing.",
    ),
    T(
        "todo",
        "en",
        "Add retries with a limit of {n} attempts to the webhook sender.",
        ("The webhook sender still needs retries, limited to {n} attempts.",),
        flip="Do not add retries with a limit of {n} attempts to the webhook sender.",
    ),
    T(
        "todo",
        "zh",
        "修复{path}回调在缺少邮箱权限时返回500的问题。",
        ("{path}回调在缺少邮箱权限时返回500，这个问题还需要修复。",),
        flip="不要修复{path}回调在缺少邮箱权限时返回500的问题。",
    ),
    T(
        "todo",
        "zh",
        "给消息推送服务加上重试，最多{n}次。",
        ("消息推送服务还要加上重试，最多{n}次。",),
    ),
    # state
    T(
        "state",
        "en",
        "{name} sign-in works end to end on the branch {branch}.",
        ("On the branch {branch}, {name} sign-in works end to end.",),
        flip="{name} sign-in does not work end to end on the branch {branch}.",
    ),
    T(
        "state",
        "en",
        "Test coverage of the billing package is at {pct}.",
        ("The billing package has test coverage at {pct}.",),
    ),
    T(
        "state",
        "zh",
        "{branch}分支已经部署到预发环境。",
        ("预发环境已经部署了{branch}分支。",),
        flip="{branch}分支还没有部署到预发环境。",
    ),
    T("state", "zh", "计费模块的测试覆盖率是{pct}。", ("计费模块测试覆盖率为{pct}。",)),
    # fact
    T(
        "fact",
        "en",
        "The Google client id lives in the {ident} variable.",
        ("The {ident} variable holds the Google client id.",),
    ),
    T(
        "fact",
        "en",
        "The production database has {n} read replicas.",
        ("There are {n} read replicas of the production database.",),
        flip="The production database has no read replicas, not even {n}.",
    ),
    T(
        "fact",
        "en",
        "The public API allows {n} requests per minute per token.",
        ("Per token, the public API allows {n} requests per minute.",),
        flip="The public API does not allow {n} requests per minute per token.",
    ),
    T(
        "fact",
        "zh",
        "生产数据库有{n}个只读副本。",
        ("生产数据库一共有{n}个只读副本。",),
        flip="生产数据库没有{n}个只读副本。",
    ),
    T("fact", "zh", "谷歌客户端ID保存在{ident}变量里。", ("{ident}变量里保存着谷歌客户端ID。",)),
    # correction
    T(
        "correction",
        "en",
        "Correction: the deploy window is on {day}, not Monday.",
        ("Correction: deploys happen on {day}, not Monday.",),
        flip="Correction: the deploy window is on {day} and Monday.",
    ),
    T(
        "correction",
        "en",
        "Correction from the owner: the staging host is {path}.",
        ("The owner corrected the staging host: it is {path}.",),
    ),
    T(
        "correction",
        "zh",
        "更正：部署窗口在{day}，不是周一。",
        ("更正一下：部署窗口是{day}，不是周一。",),
        flip="更正：部署窗口在{day}和周一。",
    ),
    # risk
    T(
        "risk",
        "en",
        "Never run the cleanup script against production; deleting the {ident} table breaks billing.",
        (
            "Do not run the cleanup script against production, since deleting the {ident} table breaks billing.",
        ),
        flip="Run the cleanup script against production; deleting the {ident} table breaks billing.",
    ),
    T(
        "risk",
        "en",
        "The TLS certificate for {path} expires in {n} days.",
        ("In {n} days the TLS certificate for {path} expires.",),
    ),
    T(
        "risk",
        "zh",
        "证书将在{n}天后过期，必须提前续期。",
        ("证书{n}天后就会过期，务必提前续期。",),
        flip="证书将在{n}天后过期，不必提前续期。",
        weak="证书将在{n}天后过期，可以提前续期。",
    ),
    # lesson
    T(
        "lesson",
        "en",
        "Always run migrations on a copy of the database first; {ident} once locked production for {dur}.",
        (
            "Run migrations on a database copy first, every time; {ident} once locked production for {dur}.",
        ),
        flip="Never run migrations on a copy of the database first; {ident} once locked production for {dur}.",
        weak="Sometimes run migrations on a copy of the database first; {ident} once locked production for {dur}.",
    ),
    T(
        "lesson",
        "en",
        "Mocking the payment gateway hid a bug; test against the {name} sandbox instead.",
        (
            "A bug was hidden by mocking the payment gateway, so test against the {name} sandbox instead.",
        ),
        flip="Mocking the payment gateway hid no bug; do not test against the {name} sandbox.",
    ),
    T(
        "lesson",
        "zh",
        "一定要先在数据库副本上运行迁移，{ident}曾经锁住生产库{dur}。",
        ("务必先在数据库副本上执行迁移，{ident}曾经锁住生产库{dur}。",),
        flip="不要先在数据库副本上运行迁移，{ident}曾经锁住生产库{dur}。",
        weak="可以先在数据库副本上运行迁移，{ident}曾经锁住生产库{dur}。",
    ),
)

#: Written after the verifier was tuned and never tuned against: other projects,
#: other phrasing. Evaluated with the held-out seed only.
HELD_OUT_TEMPLATES: tuple[Template, ...] = (
    T(
        "goal",
        "en",
        "Get the invoice export under {dur} for accounts with {n} invoices.",
        ("For accounts with {n} invoices, the invoice export should finish under {dur}.",),
        flip="Do not get the invoice export under {dur} for accounts with {n} invoices.",
    ),
    T(
        "constraint",
        "en",
        "Never log full card numbers; mask all but the last {n} digits.",
        ("Full card numbers must not be logged, mask all but the last {n} digits.",),
        flip="Log full card numbers; mask all but the last {n} digits.",
    ),
    T(
        "constraint",
        "en",
        "Releases must go out from the {branch} branch only.",
        ("Only the {branch} branch is allowed to produce releases, and it must.",),
        flip="Releases must not go out from the {branch} branch only.",
        weak="Releases may go out from the {branch} branch only.",
    ),
    T(
        "preference",
        "en",
        "{person} prefers tabs over spaces in the Makefile.",
        ("In the Makefile, {person} prefers tabs over spaces.",),
        flip="{person} does not prefer tabs over spaces in the Makefile.",
    ),
    T(
        "requirement",
        "en",
        "The export job must finish within {dur} and write to {path}.",
        ("The export job has to finish within {dur}, writing to {path}.",),
        flip="The export job must not finish within {dur} or write to {path}.",
        weak="The export job can finish within {dur} and write to {path}.",
    ),
    T(
        "decision",
        "en",
        "We keep {name} as the search backend and index every {dur}.",
        ("{name} stays the search backend; indexing runs every {dur}.",),
        flip="We do not keep {name} as the search backend or index every {dur}.",
    ),
    T(
        "fact",
        "en",
        "The staging cluster runs {n} nodes with {money} of monthly spend.",
        ("Staging runs on {n} nodes, with {money} in monthly spend.",),
    ),
    T(
        "risk",
        "en",
        "Dropping the {ident} index locks writes for about {dur}.",
        ("Writes lock for about {dur} when the {ident} index is dropped.",),
        flip="Dropping the {ident} index does not lock writes for about {dur}.",
    ),
    T(
        "lesson",
        "en",
        "Always pin the {name} client version; an upgrade broke login for {pct} of users.",
        (
            "Pin the {name} client version every time, since an upgrade broke login for {pct} of users.",
        ),
        flip="Never pin the {name} client version; an upgrade broke login for {pct} of users.",
        weak="Optionally pin the {name} client version; an upgrade broke login for {pct} of users.",
    ),
    T(
        "todo",
        "en",
        "Rename the {ident} column before the {day} release.",
        ("Before the {day} release, the {ident} column needs renaming.",),
        flip="Do not rename the {ident} column before the {day} release.",
    ),
    T(
        "goal",
        "zh",
        "把发票导出时间压到{dur}以内。",
        ("发票导出的耗时要压到{dur}以内。",),
        flip="不要把发票导出时间压到{dur}以内。",
    ),
    T(
        "constraint",
        "zh",
        "日志里禁止出现完整卡号，只保留后{n}位。",
        ("完整卡号不得写进日志，只保留后{n}位。",),
        flip="日志里出现完整卡号，只保留后{n}位。",
    ),
    T(
        "requirement",
        "zh",
        "导出任务必须在{dur}内完成并写入{path}。",
        ("导出任务务必在{dur}内完成，并写入{path}。",),
        flip="导出任务不必在{dur}内完成并写入{path}。",
        weak="导出任务可以在{dur}内完成并写入{path}。",
    ),
    T(
        "decision",
        "zh",
        "搜索后端继续用{name}，每{dur}重建一次索引。",
        ("继续用{name}做搜索后端，索引每{dur}重建一次。",),
        flip="搜索后端不再用{name}，每{dur}重建一次索引。",
    ),
    T(
        "fact",
        "zh",
        "预发集群有{n}个节点，每月花费{money}。",
        ("预发集群共{n}个节点，每月开销{money}。",),
    ),
    T(
        "risk",
        "zh",
        "删除{ident}索引会锁写入大约{dur}。",
        ("{ident}索引一旦删除，写入会被锁住大约{dur}。",),
        flip="删除{ident}索引不会锁写入大约{dur}。",
    ),
    T(
        "todo",
        "zh",
        "在{day}发布前重命名{ident}字段。",
        ("{day}发布之前要把{ident}字段重命名。",),
        flip="不要在{day}发布前重命名{ident}字段。",
    ),
)

SLOTS_EN: dict[str, tuple[str, ...]] = {
    "money": ("$500", "$1,200", "$80", "$2,500", "$40", "$9,000", "$350"),
    "n": ("3", "5", "12", "40", "64", "100", "250", "8"),
    "dur": ("200 ms", "30 seconds", "5 minutes", "2 hours", "800 ms", "90 seconds"),
    "pct": ("75%", "82%", "60%", "91%", "48%"),
    "day": ("Friday", "Thursday", "Tuesday", "Wednesday"),
    "name": ("PostgreSQL", "Redis", "MySQL", "SQLite", "Kafka", "RabbitMQ", "GitHub", "Stripe"),
    "person": ("Alice", "Priya", "Marco", "Wei"),
    "ident": (
        "oauth_accounts",
        "X_REQUEST_ID",
        "OAUTH_GOOGLE_CLIENT_ID",
        "billing_v2",
        "user_sessions",
        "mig_0042",
    ),
    "path": (
        "/api/v1",
        "/api/v2/auth/callback",
        "/srv/billing",
        "/api/v1/auth/github/callback",
        "/internal/health",
    ),
    "branch": ("main", "release-2.4", "oauth-login", "develop", "hotfix-17"),
}
SLOTS_ZH: dict[str, tuple[str, ...]] = {
    **SLOTS_EN,
    "money": ("500美元", "1200美元", "80美元", "3000元", "9000元"),
    "dur": ("200毫秒", "30秒", "5分钟", "2小时", "800毫秒"),
    "day": ("周五", "周四", "周二", "周三"),
}

DISTRACTORS_EN: tuple[str, ...] = (
    "The user is building OAuth login for a web shop.",
    "Sessions live in Redis for now.",
    "Tests pass (48/48) after the last change.",
    "We looked at the flaky integration test but did not change it.",
    "The CI pipeline takes about 7 minutes on the main runner.",
    "There was a long discussion about naming, with no outcome.",
    "The mobile team asked about the release date.",
    "Logging goes to stdout and is collected by the platform.",
    "The previous session ended while reviewing the billing code.",
    "A helper script formats the changelog before each release.",
    "The assistant read the README and the contributing guide.",
    "Docker builds are cached on the shared runner.",
    "Nobody has touched the legacy admin panel in months.",
    "The user prefers short answers with code first.",
    "Several warnings from the linter were fixed.",
    "The checkout page loads in about 1.2 seconds on staging.",
    "Two pull requests are waiting for review.",
    "The design doc for payments is in the wiki.",
)
DISTRACTORS_ZH: tuple[str, ...] = (
    "用户正在为网店开发OAuth登录。",
    "会话目前存放在Redis里。",
    "上次修改后测试全部通过（48/48）。",
    "讨论了命名问题，但没有结论。",
    "移动端团队询问了发布日期。",
    "日志输出到标准输出，由平台统一收集。",
    "助手阅读了README和贡献指南。",
    "持续集成流水线大约需要7分钟。",
    "有两个合并请求在等待评审。",
    "支付的设计文档放在维基上。",
    "修复了若干代码检查警告。",
    "预发环境上结算页面大约1.2秒加载完成。",
)
REVOKED_EN: tuple[str, ...] = (
    "{text} (this was revoked later in the session)",
    "{text_stripped} (revoked later in the session).",
    "{text} This rule was lifted.",
    "The earlier instruction ({stripped}) no longer applies.",
    "Revoked by the user: {text}",
    "{text} The user withdrew this.",
    "We scrapped the plan to follow this: {stripped}.",
)
REVOKED_ZH: tuple[str, ...] = (
    "{stripped}（此条已取消）。",
    "此前的要求“{stripped}”已撤销。",
    "{text}这条规定已废除。",
    "用户撤回了这一条：{text}",
)
STALE_EN: tuple[str, ...] = (
    "{new} (previously {old})",
    "{new} (was {old})",
    "{new}, changed from {old}",
    "{new} instead of {old}",
    "{old} -> {new}",
)
STALE_ZH: tuple[str, ...] = ("{new}（原为{old}）", "{new}（之前是{old}）", "从{old}改为{new}")

OPERATORS: dict[str, str] = {
    "verbatim": "preserved",
    "noise": "preserved",
    "paraphrase": "preserved",
    "value_swap": "changed",
    "stale": "changed",
    "negation": "changed",
    "must_may": "changed",
    "revoked": "changed",
    "deleted": "lost",
}


@dataclass(frozen=True)
class Case:
    item: ContextItem
    summary: str
    truth: str
    operator: str
    lang: str


def _fill(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], text)


def _slots(template: Template) -> list[str]:
    return sorted(set(re.findall(r"\{(\w+)\}", template.text)))


def _noise(rng: random.Random, text: str) -> str:
    words = text.split(" ") if " " in text else [text]
    out = []
    for word in words:
        roll = rng.random()
        out.append(word.upper() if roll < 0.2 else word.lower() if roll < 0.35 else word)
    joiners = ("  ", "\n", " \t", "   ")
    text = "".join(
        word + (rng.choice(joiners) if rng.random() < 0.4 else " ") for word in out
    ).strip()
    return text if " " in text or "\n" in text else "  " + text.upper() + "  "


def _render(
    rng: random.Random, template: Template, operator: str, values: dict[str, str]
) -> str | None:
    """The item as the summary states it under ``operator``; None when not applicable."""
    pools = SLOTS_ZH if template.lang == "zh" else SLOTS_EN
    text = _fill(template.text, values)
    if operator == "verbatim":
        return text
    if operator == "noise":
        return _noise(rng, text)
    if operator == "paraphrase":
        return _fill(rng.choice(template.paraphrases), values)
    if operator in ("value_swap", "stale"):
        slots = _slots(template)
        if not slots:
            return None
        slot = rng.choice(slots)
        new = rng.choice([v for v in pools[slot] if v != values[slot]])
        if operator == "value_swap":
            source = rng.choice((template.text, *template.paraphrases))
            return _fill(source, {**values, slot: new})
        if slot in ("name", "person", "branch"):
            return None  # "previously Redis" reads as a value change only for values and ids
        pattern = rng.choice(STALE_ZH if template.lang == "zh" else STALE_EN)
        return _fill(template.text, {**values, slot: pattern.format(new=new, old=values[slot])})
    if operator == "negation":
        return _fill(template.flip, values) if template.flip else None
    if operator == "must_may":
        return _fill(template.weak, values) if template.weak else None
    if operator == "revoked":
        pattern = rng.choice(REVOKED_ZH if template.lang == "zh" else REVOKED_EN)
        stripped = text.rstrip("。.")
        if "{stripped}" in pattern and template.lang == "en":
            stripped = (
                stripped[0].lower() + stripped[1:] if not stripped[1:2].isupper() else stripped
            )
        return pattern.format(text=text, stripped=stripped, text_stripped=text.rstrip("。."))
    return ""  # deleted


def _summary(
    rng: random.Random,
    lang: str,
    statement: str,
    template: Template,
    templates: tuple[Template, ...] = TEMPLATES,
) -> str:
    pools = SLOTS_ZH if lang == "zh" else SLOTS_EN
    distractors = list(DISTRACTORS_ZH if lang == "zh" else DISTRACTORS_EN)
    sentences = rng.sample(distractors, rng.randint(3, 6))
    others = [t for t in templates if t.lang == lang and t is not template]
    for other in rng.sample(others, rng.randint(2, 4)):
        values = {slot: rng.choice(pools[slot]) for slot in _slots(other)}
        sentences.append(_fill(rng.choice((other.text, *other.paraphrases)), values))
    rng.shuffle(sentences)
    if statement:
        sentences.insert(rng.randint(0, len(sentences)), statement)
    header = "## 会话摘要\n\n" if lang == "zh" else "## Summary of the session so far\n\n"
    if rng.random() < 0.5:
        return header + "\n".join("- " + sentence for sentence in sentences) + "\n"
    joiner = "" if lang == "zh" else " "
    cut = rng.randint(1, len(sentences))
    return header + joiner.join(sentences[:cut]) + "\n\n" + joiner.join(sentences[cut:]) + "\n"


def generate(
    seed: int, count: int = CASES, templates: tuple[Template, ...] = TEMPLATES
) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    operators = sorted(OPERATORS)
    while len(cases) < count:
        template = rng.choice(templates)
        operator = rng.choice(operators)
        pools = SLOTS_ZH if template.lang == "zh" else SLOTS_EN
        values = {slot: rng.choice(pools[slot]) for slot in _slots(template)}
        statement = _render(rng, template, operator, values)
        if statement is None:
            continue
        item = ContextItem(f"i{len(cases)}", template.kind, _fill(template.text, values), True)
        summary = _summary(rng, template.lang, statement, template, templates)
        cases.append(Case(item, summary, OPERATORS[operator], operator, template.lang))
    return cases


@dataclass(frozen=True)
class Score:
    confusion: Counter[tuple[str, str]]
    by_operator: Counter[tuple[str, bool]]
    total: int

    @property
    def accuracy(self) -> float:
        return sum(n for (t, p), n in self.confusion.items() if t == p) / self.total

    @property
    def false_preserved(self) -> float:
        bad = sum(
            n for (t, p), n in self.confusion.items() if t != "preserved" and p == "preserved"
        )
        negatives = sum(n for (t, _p), n in self.confusion.items() if t != "preserved")
        return bad / negatives if negatives else 0.0


def score(cases: list[Case], verifier: FactsVerifier | LiteralVerifier) -> Score:
    confusion: Counter[tuple[str, str]] = Counter()
    by_operator: Counter[tuple[str, bool]] = Counter()
    for case in cases:
        (finding,) = verifier.verify([case.item], case.summary)
        confusion[(case.truth, finding["status"])] += 1
        by_operator[(case.operator, finding["status"] == case.truth)] += 1
    return Score(confusion, by_operator, len(cases))


def _matrices(facts: Score, literal: Score) -> list[str]:
    """Both confusion matrices side by side: rows are the truth, columns what was reported."""
    head = "".join(f"{status:>10}" for status in STATUSES)
    lines = [
        f"  {'':<11}|{'facts reported':^30}|{'literal reported':^30}",
        f"  {'truth':<11}|{head}|{head}",
    ]
    for truth in STATUSES:
        cells = [
            "".join(f"{result.confusion[(truth, status)]:>10}" for status in STATUSES)
            for result in (facts, literal)
        ]
        lines.append(f"  {truth:<11}|{cells[0]}|{cells[1]}")
    for name, result in (("facts", facts), ("literal", literal)):
        lines.append(
            f"  {name}: accuracy {result.accuracy:.1%}, "
            f"false preserved {result.false_preserved:.2%} (preserved for a changed or lost item)"
        )
    return lines


def _rate(result: Score, operator: str) -> str:
    right, wrong = result.by_operator[(operator, True)], result.by_operator[(operator, False)]
    return f"{right / (right + wrong):.0%}" if right + wrong else "-"


def report(
    seed: int, label: str, count: int = CASES, templates: tuple[Template, ...] = TEMPLATES
) -> str:
    cases = generate(seed, count, templates)
    facts, literal = score(cases, FactsVerifier()), score(cases, LiteralVerifier())
    langs = Counter(case.lang for case in cases)
    lines = [
        f"## {label} seed {seed}: {len(cases)} cases ({langs['en']} English, {langs['zh']} Chinese)",
        *_matrices(facts, literal),
        "  accuracy by operator (facts / literal):",
    ]
    for operator in sorted(OPERATORS):
        lines.append(
            f"    {operator:<11} {_rate(facts, operator):>5} / {_rate(literal, operator):>5}"
        )
    return "\n".join(lines)


def evaluate() -> str:
    return "\n\n".join(
        (
            "# facts verifier vs literal verifier (bench/facts_eval.py)",
            report(DEV_SEED, "development"),
            report(HELD_OUT_SEED, "held-out"),
            report(HELD_OUT_SEED, "held-out templates,", 1000, HELD_OUT_TEMPLATES),
        )
    )


if __name__ == "__main__":
    print(evaluate())
