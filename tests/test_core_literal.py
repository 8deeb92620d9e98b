"""The literal verifier."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from contextward.core import ContextItem, LiteralVerifier, Snapshot, verify_context
from contextward.core.literal import find_all, find_in_tokens


def statuses(verifier: LiteralVerifier, contents: list[str], context: str) -> list[str]:
    items = [ContextItem(f"i{n}", "fact", text) for n, text in enumerate(contents)]
    report = verify_context(Snapshot(tuple(items)), context, verifier)
    return [f.status for f in report.findings]


def test_defaults_fold_case_and_whitespace() -> None:
    context = "Keep   backups\nENABLED during the migration."
    assert statuses(LiteralVerifier(), ["keep backups enabled", "KEEP BACKUPS"], context) == [
        "preserved",
        "preserved",
    ]


def test_options_make_case_and_whitespace_significant() -> None:
    context = "Keep   backups enabled"
    assert statuses(LiteralVerifier(case_sensitive=True), ["keep backups"], context) == ["lost"]
    assert statuses(LiteralVerifier(normalize_whitespace=False), ["Keep backups"], context) == [
        "lost"
    ]
    assert statuses(LiteralVerifier(normalize_whitespace=False), ["Keep   backups"], context) == [
        "preserved"
    ]


def test_it_never_reports_changed_and_reasons_name_the_rule_not_the_text() -> None:
    items = [ContextItem("a", "constraint", "Never push to main.")]
    findings = LiteralVerifier().verify(items, "Pushing to main is fine now.")
    assert findings == [
        {
            "itemId": "a",
            "status": "lost",
            "reason": "not found in the context after whitespace folding and lowercasing",
        }
    ]


def test_overlapping_prefix_and_inner_needles_are_all_found() -> None:
    needles = {"ab", "abc", "bc", "b", "abcd", "cx", "zz"}
    assert find_all(needles, "xabcx") == {"ab", "abc", "bc", "b", "cx"}


def test_multi_word_items_match_partial_words_at_their_edges() -> None:
    tokens = ["we", "keep", "backups", "enabled.", "always"]
    assert find_in_tokens(
        {"ep backups enab", "keep backups enabled.", "backups disabled x"}, tokens
    ) == {
        "ep backups enab",
        "keep backups enabled.",
    }


def test_chinese_text_without_spaces() -> None:
    assert statuses(LiteralVerifier(), ["不要改公共API"], "注意：不要改公共API，谢谢") == [
        "preserved"
    ]


words = st.text(alphabet="ab c\n", min_size=1, max_size=12)


@given(st.lists(words, min_size=1, max_size=8), st.text(alphabet="ab c\n", max_size=60))
def test_literal_agrees_with_naive_substring_search(contents: list[str], context: str) -> None:
    verifier = LiteralVerifier()
    expected = []
    for text in contents:
        needle = verifier.normalize(text)
        present = bool(needle) and needle in verifier.normalize(context)
        expected.append("preserved" if present else "lost")
    items = [ContextItem(f"i{n}", "fact", t) for n, t in enumerate(contents) if t.strip()]
    kept = [e for t, e in zip(contents, expected, strict=True) if t.strip()]
    report = verify_context(Snapshot(tuple(items)), context, verifier)
    assert [f.status for f in report.findings] == kept


@given(
    st.lists(st.text(alphabet="abc", min_size=1, max_size=6), max_size=10),
    st.text("abc", max_size=40),
)
def test_find_all_is_exact(needles: list[str], haystack: str) -> None:
    assert find_all(set(needles), haystack) == {n for n in needles if n in haystack}


def test_terminal_escapes_are_read_as_printed_on_both_sides() -> None:
    contents = ["Set the batch size to \x1b[32m500\x1b[0m rows.", "Never push to main."]
    context = "Set the batch size to 500 rows. \x1b[1mNever push to main.\x1b[0m"
    assert statuses(LiteralVerifier(), contents, context) == ["preserved", "preserved"]
    exact = LiteralVerifier(case_sensitive=True, normalize_whitespace=False)
    assert statuses(exact, contents, context) == ["preserved", "preserved"]
    assert statuses(LiteralVerifier(), contents[:1], "Set the batch size to 800 rows.") == ["lost"]


@given(st.text(alphabet=st.sampled_from("ab \n\t\x1b[]0;m\x07\\\u200b\u00a0\u202e\x85\r")))
def test_shown_is_what_printable_prints(text: str) -> None:
    # The core keeps its own copy (it imports nothing else of contextward).
    from contextward.core.shown import shown
    from contextward.printable import printable

    assert shown(text) == printable(text)
