"""Properties of the facts verifier, checked with hypothesis."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from contextward.core import ContextItem, FactsVerifier
from contextward.core.anchors import REVOKE_RE, prepare

VOCABULARY = [
    *[
        "push",
        "main",
        "deploy",
        "budget",
        "cache",
        "sessions",
        "Redis",
        "PostgreSQL",
        "table",
        "oauth_accounts",
    ],
    *[
        "/api/v1",
        "never",
        "not",
        "must",
        "may",
        "always",
        "should",
        "tests",
        "review",
        "owner",
        "the",
        "a",
        "to",
        "in",
        "on",
    ],
    *[
        "of",
        "for",
        "with",
        "$500",
        "30",
        "seconds",
        "5",
        "minutes",
        "Friday",
        "75%",
        "v2",
        "release-2.4",
    ],
    "'database is locked'",
    *[
        "不要",
        "必须",
        "可以",
        "推送",
        "主分支",
        "预算",
        "数据库",
        "500美元",
        "周五",
        "部署",
        "测试",
    ],
]

word = st.sampled_from(VOCABULARY)
sentence = st.lists(word, min_size=1, max_size=12).map(" ".join)
content = st.lists(sentence, min_size=1, max_size=3).map(". ".join)
# Arbitrary surrounding text: any characters, including punctuation, digits and CJK.
noise = st.text(max_size=300)

STRUCTURAL = re.compile(
    r"preserved: verbatim"
    r"|preserved: same meaning \(\d+ of \d+ key terms, \d+ anchors intact\)"
    r"|changed: negation flipped \((added|removed)\)"
    r"|changed: obligation (weakened|strengthened)"
    r"|changed: revoked"
    r"|changed: value swapped \((currency|percent|duration|size|number|date)\)"
    r"|changed: stale value \((currency|percent|duration|size|number|date|identifier|path)\)"
    r"|changed: identifier swapped \((identifier|path|name|quoted string)\)"
    r"|changed: (identifier|term) swapped"
    r"|lost: no matching region"
    r"|lost: too few key terms matched \(\d+ of \d+\)"
    r"|lost: critical anchor missing \((currency|percent|duration|size|number|date"
    r"|identifier|path|name|quoted string)\)"
)


def squash(text: str) -> str:
    return "".join(prepare(text)[1].split())


def one(item: str, context: str) -> tuple[str, str]:
    (finding,) = FactsVerifier().verify([ContextItem("x", "constraint", item)], context)
    return finding["status"], finding["reason"]


@settings(max_examples=300, deadline=None)
@given(content, noise, noise)
def test_a_verbatim_copy_inside_arbitrary_context_is_preserved(
    item: str, before: str, after: str
) -> None:
    assume(squash(item) not in squash(before))  # the only copy is the one placed
    assume(not REVOKE_RE.search(prepare(after)[1]))  # a trailing "(revoked)" rightly changes it
    status, reason = one(item, f"{before}\n\n{item}\n\n{after}")
    assert status == "preserved", reason


AMOUNT = st.tuples(
    st.sampled_from(["", "$", "€"]), st.sampled_from(["", " ms", " seconds", "%", " days", "美元"])
)


@settings(max_examples=300, deadline=None)
@given(
    st.tuples(
        st.lists(word, min_size=1, max_size=6).map(" ".join),
        st.lists(word, min_size=0, max_size=6).map(" ".join),
    ),
    st.tuples(st.integers(0, 100_000), st.integers(0, 100_000)).filter(lambda p: p[0] != p[1]),
    AMOUNT,
    st.lists(sentence, max_size=4),
)
def test_an_item_whose_number_changed_is_never_preserved(
    words: tuple[str, str], numbers: tuple[int, int], amount: tuple[str, str], filler: list[str]
) -> None:
    (head, tail), (old, new), (sign, unit) = words, numbers, amount
    item = f"{head} {sign}{old}{unit} {tail}"
    summary = f"{head} {sign}{new}{unit} {tail}"
    filler = [line for line in filler if not re.search(r"\d", line)]
    status, reason = one(item, "\n\n".join([*filler, summary]))
    assert status != "preserved", reason


@settings(max_examples=120, deadline=None)
@given(st.lists(content, min_size=1, max_size=6), st.lists(st.one_of(sentence, noise), max_size=8))
def test_output_is_deterministic_and_each_item_is_judged_alone(
    contents: list[str], context_parts: list[str]
) -> None:
    items = [ContextItem(f"i{n}", "fact", text) for n, text in enumerate(contents)]
    context = "\n".join(context_parts)
    verifier = FactsVerifier()
    first = verifier.verify(items, context)
    assert first == verifier.verify(items, context)
    assert first == [verifier.verify([item], context)[0] for item in items]


@settings(max_examples=150, deadline=None)
@given(st.lists(content, min_size=1, max_size=4), st.lists(st.one_of(sentence, noise), max_size=8))
def test_reasons_are_structural_and_never_quote_item_content(
    contents: list[str], context_parts: list[str]
) -> None:
    items = [ContextItem(f"i{n}", "fact", text) for n, text in enumerate(contents)]
    for finding in FactsVerifier().verify(items, "\n".join(context_parts)):
        assert STRUCTURAL.fullmatch(finding["reason"]), finding["reason"]
        assert finding["status"] == finding["reason"].split(":")[0]


def test_reasons_do_not_contain_a_secret_from_item_or_context() -> None:
    secret = "sk-live-4f9a8b7c6d5e"
    items = [
        ContextItem("a", "fact", f"The API key is {secret} in the vault."),
        ContextItem("b", "constraint", f"Never print {secret}."),
    ]
    context = f"The API key is {secret}x in the vault. Print {secret} freely."
    for finding in FactsVerifier().verify(items, context):
        assert secret not in finding["reason"] and "vault" not in finding["reason"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=80).filter(str.strip), min_size=1, max_size=5),
    st.text(max_size=600),
)
def test_any_text_gets_one_structural_finding_per_item(contents: list[str], context: str) -> None:
    items = [ContextItem(f"i{n}", "fact", text) for n, text in enumerate(contents)]
    findings = FactsVerifier().verify(items, context)
    assert [finding["itemId"] for finding in findings] == [item.id for item in items]
    for finding in findings:
        assert STRUCTURAL.fullmatch(finding["reason"]), finding["reason"]


def test_pathological_sizes_stay_total() -> None:
    long_token = "x" * 200_000
    items = [
        ContextItem("a", "fact", long_token),
        ContextItem("b", "fact", "1" * 5000 + " seconds"),
        ContextItem("c", "fact", "never " * 2000),
    ]
    context = f"{long_token} " + "。" * 10_000 + "\n\n" * 5000 + "1" * 5000 + " seconds"
    findings = FactsVerifier().verify(items, context)
    # Hard cuts of unbroken runs may hide a 200k-character token; the point is totality.
    assert [f["itemId"] for f in findings] == ["a", "b", "c"]
    assert all(STRUCTURAL.fullmatch(f["reason"]) for f in findings)
    assert findings[2]["status"] == "lost"


def test_a_sentence_that_only_lends_a_value_does_not_hide_a_verbatim_copy() -> None:
    # Found by the property above: "500美元." holds no word of the item, so growing the
    # region by shared words stopped before it and the currency looked lost.
    item = "main 30 5. 500美元. push 主分支"
    assert one(item, f"\n\n{item}\n\n") == ("preserved", "preserved: verbatim")
