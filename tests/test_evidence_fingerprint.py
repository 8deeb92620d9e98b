"""Fingerprints, streak keys and the UNTRUSTED analysis of command lines."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.guard.fingerprint import (
    CONDITION,
    Token,
    assess,
    fingerprint,
    is_test_run,
    pipefail_rewrite,
    shell_tokens,
    streak_key,
    untrusted_reasons,
)

PIPE = "pipeline without pipefail: the exit status is only the last stage's"
MASK = "failure mask (`|| true`, `; true`, `|| :` or similar) forces exit 0"
LIST = "list with `;`: the exit status is only the last command's, an earlier failure is lost"


def test_tokens_keep_quotes_and_split_operators() -> None:
    assert shell_tokens("echo 'a  b' \"c|d\" | wc -l && x=$(ls | head) ;") == [
        Token("echo"),
        Token("'a  b'"),
        Token('"c|d"'),
        Token("|", op=True),
        Token("wc"),
        Token("-l"),
        Token("&&", op=True),
        Token("x=$(ls | head)"),
        Token(";", op=True),
    ]


def test_redirections_are_not_operators() -> None:
    assert [t.text for t in shell_tokens("pytest 2>&1 &>log >|out")] == [
        "pytest",
        "2>&1",
        "&>log",
        ">|out",
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest   -q", "pytest -q"),
        ("pytest -q ;", "pytest -q"),
        ("pytest -q # retry", "pytest -q"),
        ("a\nb", "a ; b"),
        ("echo 'two  spaces'", "echo 'two  spaces'"),
    ],
)
def test_fingerprint(command: str, expected: str) -> None:
    assert fingerprint(command) == expected


@pytest.mark.parametrize(
    "variant",
    [
        "npm test",
        "npm  test;",
        "npm test || true",
        "npm test || :",
        "npm test; true",
        "npm test ||true ;",
    ],
)
def test_masks_and_separators_share_one_streak(variant: str) -> None:
    assert streak_key(variant) == "npm test"


@pytest.mark.parametrize(
    ("spellings", "key"),
    [
        # Quoting and escapes the shell removes: one word, one streak.
        (
            [
                "pytest tests/test_auth.py",
                "pytest 'tests/test_auth.py'",
                'pytest "tests/test_auth.py"',
                "pytest tests/test_auth\\.py",
                "pytest tests/'test_auth'.py",
            ],
            "pytest tests/test_auth.py",
        ),
        (
            ['pytest -k "a and b"', "pytest -k 'a and b'", "pytest -k a\\ and\\ b"],
            "pytest -k 'a and b'",
        ),
        (["A='x y' make test", 'A="x y" make test'], "A='x y' make test"),
        (["ls '*.py'", 'ls "*.py"', "ls \\*.py"], "ls '*.py'"),
        (["g'i't push", "git push"], "git push"),
    ],
)
def test_shell_equivalent_spellings_share_one_streak(spellings: list[str], key: str) -> None:
    assert [streak_key(command) for command in spellings] == [key] * len(spellings)


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("npm test -- auth", "npm test"),
        ("npm test && true", "npm test"),
        # Spellings that run differently stay apart: a glob, a tilde, an expansion that
        # quotes keep from splitting, an assignment against a command named "x=1".
        ("ls *.py", "ls '*.py'"),
        ("cat ~/x", "cat '~/x'"),
        ('pytest "$ARGS"', "pytest $ARGS"),
        ('"x"=1 make', "x=1 make"),
        # Not shell-equivalent, and a flag or a variable can change what runs
        # (PYTHONPATH=src pytest, pytest -v): the brake does not guess.
        ("pytest tests/test_auth.py -q", "pytest tests/test_auth.py"),
        ("CI=1 pytest tests/test_auth.py", "pytest tests/test_auth.py"),
    ],
)
def test_different_commands_have_different_streaks(one: str, other: str) -> None:
    assert streak_key(one) != streak_key(other)
    assert streak_key("npm test && true") == "npm test && true"


@pytest.mark.parametrize(
    ("command", "reasons"),
    [
        ("pytest -q", ()),
        ("pytest -q && echo ok", ()),
        ("pytest || pytest --lf", ()),
        ("pytest | tee log", (PIPE,)),
        ("pytest |& tee log", (PIPE,)),
        ("set -o pipefail; pytest | tee log", ()),
        ("set -euo pipefail; pytest | tee log", ()),
        ("bash -o pipefail -c 'pytest | tee log'", ()),
        ("echo 'a | b'", ()),
        ("npm test || true", (MASK,)),
        ("npm test || :", (MASK,)),
        ("npm test || echo failed", (MASK,)),
        ("npm test; true", (MASK,)),
        ("npm test; exit 0", (MASK,)),
        ("(npm test || true)", (MASK,)),
        ("! npm test", ("negated: `!` inverts the exit status",)),
        ("npm test &", ("backgrounded: a trailing `&` exits 0 before the command finishes",)),
        ("pytest | tee log || true", (PIPE, MASK)),
        # a list exits with its last command's status: a failing test before `;` is lost
        ("./run_tests.sh; git status --short", (LIST,)),
        ("false; ls", (LIST,)),
        ("cd build; make test", (LIST,)),
        ("pytest -q\ngit status", (LIST,)),
        ("set -e; ./run_tests.sh; git status", ()),
        ("export CI=1; pytest", ()),
        ("FOO=1; pytest", ()),
        ("echo start; pytest", ()),
        ("for f in a b; do echo $f; done", ()),
        # `A || B` proves nothing about A unless B fails in turn or checks again
        ('pytest -q || { echo "tests failed"; }', (MASK,)),
        ("pytest || (echo failed)", (MASK,)),
        ("pytest || cat log", (MASK,)),
        ("pytest || sleep 0", (MASK,)),
        ("pytest || command true", (MASK,)),
        ("pytest && echo ok || echo failed", (MASK,)),
        ("pytest || exit 1", ()),
        ("pytest || { echo failed; exit 1; }", ()),
        ("pytest || false", ()),
        ("make test || make check", ()),
        # the status of a condition is consumed; nested shell text is read too
        ("if pytest; then :; fi", (CONDITION,)),
        ("if [ -d tests ]; then pytest; fi", (CONDITION,)),
        ('bash -c "pytest || true"', (MASK,)),
        ("sh -c 'pytest | tee log'", (PIPE,)),
        ("eval 'pytest || true'", (MASK,)),
        ("bash -c 'pytest -q'", ()),
    ],
)
def test_untrusted_reasons(command: str, reasons: tuple[str, ...]) -> None:
    assert untrusted_reasons(command) == reasons
    assert assess(command).trusted is (not reasons)


@pytest.mark.parametrize(
    "command",
    [
        "pytest -q",
        "py.test",
        "python -m pytest tests/",
        "python3 -m unittest discover",
        "uv run pytest -q",
        "CI=1 npm test",
        "npm run test:unit",
        "npm t",
        "yarn test",
        "pnpm run test",
        "bun test",
        "npx jest --ci",
        "go test ./...",
        "timeout 600 cargo test",
        "cargo nextest run",
        "deno test",
        "dotnet test",
        "make test",
        "make -j4 check",
        "./gradlew test",
        "gradle test",
        "./gradlew :app:test",
        "mvn test",
        "mvn -q clean verify",
        "node --test",
        "cd sub && pytest",
        "bash -c 'pytest -q'",
        "pytest | tee log",
    ],
)
def test_a_command_that_runs_a_test_runner_is_a_test_run(command: str) -> None:
    assert is_test_run(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo npm test",
        "pip install pytest",
        "grep pytest requirements.txt",
        'git commit -m "fix go test"',
        "cat pytest.ini",
        "npm install --save-dev jest",
        "npm run build",
        "go build ./...",
        "make build",
        "ls tests/",
        "python script.py pytest",
        "echo $(pytest --version)",
    ],
)
def test_a_command_that_only_names_a_test_runner_is_no_test_run(command: str) -> None:
    assert not is_test_run(command)


def test_pipefail_rewrite_quotes_the_command() -> None:
    assert pipefail_rewrite("a | b 'c'") == "bash -o pipefail -c 'a | b '\"'\"'c'\"'\"''"


@settings(max_examples=300, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("ab |&;()'\"\\$`#\n<>=!:")) | st.characters(), max_size=60
    )
)
def test_lexer_never_raises_and_fingerprint_is_stable(command: str) -> None:
    found = assess(command)
    assert fingerprint(found.fingerprint) == found.fingerprint
    assert streak_key(found.streak_key) == found.streak_key
