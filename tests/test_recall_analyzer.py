"""The recall analyzer and stemmer: what terms text becomes."""

from __future__ import annotations

import pytest

from contextward.recall import analyze, stem


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("retrieving", "retrieval"),
        ("patch", "patches"),
        ("retry", "retries"),
        ("retry", "retried"),
        ("decision", "decisions"),
        ("test", "testing"),
        ("run", "running"),
        ("pass", "passed"),
        ("fail", "failed"),
        ("timeout", "timeouts"),
        ("make", "making"),
        ("validate", "validation"),
        ("organize", "organization"),
        ("api", "apis"),
        ("cli", "clis"),
        ("gpu", "gpus"),
        ("db", "dbs"),
        ("vm", "vms"),
        ("id", "ids"),
    ],
)
def test_inflections_meet(a: str, b: str) -> None:
    assert stem(a) == stem(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("organization", "organic"),
        ("organization", "organ"),
        ("old", "threshold"),
        ("search", "arch"),
        ("sign", "signal"),
        ("port", "portal"),
        ("bus", "bu"),
        ("gas", "ga"),
        ("yes", "ye"),
        ("this", "thi"),
        ("thus", "thu"),
        ("plus", "plu"),
        ("axis", "axi"),
    ],
)
def test_unrelated_words_stay_apart(a: str, b: str) -> None:
    assert stem(a) != stem(b)


@pytest.mark.parametrize(
    "word",
    ["", "a", "ok", "py3", "ümlaut", "x86_64", "12345", "is", "us", "bus", "gas", "ios", "this"],
)
def test_short_or_non_ascii_or_digit_words_are_unchanged(word: str) -> None:
    assert stem(word) == word


def test_analyze_drops_stopwords_and_stems() -> None:
    assert analyze("Mock the clock, don't bump the timeouts!") == [
        "mock",
        "clock",
        "bump",
        "timeout",
    ]


def test_cjk_runs_become_bigrams() -> None:
    assert analyze("在生产库上") == ["在生", "生产", "产库", "库上"]
    assert analyze("库") == ["库"]
    assert analyze("deploy 部署") == ["deploy", "部署"]


def test_evidence_ids_are_one_term_whatever_the_padding() -> None:
    assert analyze("see ev-0007") == analyze("see ev-7") == analyze("see EV7") == ["see", "ev7"]


def test_identifiers_split_on_punctuation() -> None:
    assert analyze("tests/test_auth.py") == ["test", "test", "auth", "py"]


def test_nfkc_and_case_folding() -> None:
    assert analyze("ＡＰＩ Straße") == analyze("api STRASSE")
