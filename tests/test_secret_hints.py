"""The secret hints: what the fast path spools unmasked, and what lets a hook process
mask without compiling the secret patterns."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextward.redact import _scan
from contextward.secret_hints import may_hold_secret
from test_redact_formats import SAMPLES

UUIDS = [str(uuid.UUID(int=n * 0x1F3D5B79A1C3E5F7)) for n in range(1, 4)]

words = st.sampled_from(
    ["deploy", "the", "build", "port", "8443", "next", "ok", "修复", "接口", "!", *UUIDS]
)
secrets = st.sampled_from([text for _, text, _ in SAMPLES])
glue = st.sampled_from([" ", "", "\n", "=", ":", "-", ".", "/", "_", '"'])


def mixed(
    words: st.SearchStrategy[str], secrets: st.SearchStrategy[str], glue: st.SearchStrategy[str]
) -> st.SearchStrategy[str]:
    """Texts of up to eight parts (a word, a secret or any text), each with its glue."""
    part = st.one_of(words, secrets, st.text(max_size=12))
    return st.lists(st.tuples(part, glue), max_size=8).map(
        lambda parts: "".join(part + sep for part, sep in parts)
    )


@settings(max_examples=500, deadline=None)
@given(mixed(words, secrets, glue))
def test_text_the_patterns_would_mask_is_never_taken_as_safe(text: str) -> None:
    if _scan(text)[0] != text:
        assert may_hold_secret(text)


@pytest.mark.parametrize(("kind", "text", "_masked"), SAMPLES)
def test_every_secret_format_may_be_held(kind: str, text: str, _masked: str) -> None:
    assert may_hold_secret(f"here it is: {text} thanks"), kind
    assert may_hold_secret(text), kind


def test_a_uuid_alone_holds_no_secret_but_a_longer_run_may() -> None:
    session = "0f3c5a4e-9b1d-4c2e-8f7a-1d2e3f4a5b6c"
    assert not may_hold_secret(session)
    assert not may_hold_secret(f"session {session} resumed ({session.upper()})")
    # Glued to more key characters it is a run like any other; so is 36 characters that
    # only look like one.
    assert may_hold_secret(f"x{session}")
    assert may_hold_secret(f"{session}.json")
    assert may_hold_secret("0f3c5a4e-9b1d-4c2e-8f7a-1d2e3f4a5b6g")
    assert may_hold_secret("0f3c5a4e9b1d4c2e8f7a1d2e3f4a5b6c0000")
    assert may_hold_secret("a" * 24) and not may_hold_secret("a" * 23)


def _fresh(texts: list[str]) -> dict[str, object]:
    """Mask ``texts`` in a new process: what came out, and whether it compiled the patterns."""
    code = (
        "import json, sys\n"
        "from contextward import redact\n"
        "texts = json.load(sys.stdin)\n"
        "out = [redact.mask(t) for t in texts]\n"
        "print(json.dumps({'out': out, 'compiled': redact._patterns.cache_info().currsize > 0}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_hook_masking_a_session_id_and_a_short_command_compiles_nothing() -> None:
    texts = [UUIDS[0], "ls -la", "npm test -- --watch=false", "git status", "修复登录接口"]
    assert _fresh(texts) == {"out": texts, "compiled": False}


def test_the_first_text_that_may_hold_a_secret_is_masked_by_the_patterns() -> None:
    texts = ["ls -la", *(text for _, text, _ in SAMPLES)]
    assert _fresh(texts) == {"out": ["ls -la", *(m for _, _, m in SAMPLES)], "compiled": True}
