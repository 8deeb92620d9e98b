"""Inspection in bounded memory: drafts linked and frozen as the messages are read.

``contextward inspect`` (rules mode) spills each candidate as it is frozen and writes the
document from the spill; what it prints is what the whole result renders to, byte for
byte. A copy said after its first statement was frozen still merges into it.
"""

from __future__ import annotations

import gc
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.cli.inspect_io import candidates_table, dumps
from contextward.inspect import Message, inspect_messages, inspect_stream, inspector, supersession
from contextward.inspect.draft import Draft

#: Drafts a copy must come after to find its first statement frozen.
BEYOND = inspector.LAG + inspector.BATCH + supersession.MAX_BACK + 500

SECRET = "sk-" + "live0content0must0not0leak0" * 2


def tools(n: int, tag: str) -> list[dict[str, object]]:
    """``n`` tool outputs, each its own candidate: distance in drafts, quickly read."""
    return [
        {"id": f"{tag}{i}", "role": "tool", "content": f"line {tag} {i} ok\nmore output"}
        for i in range(n)
    ]


def said(mid: str, role: str, content: str, **extra: object) -> dict[str, object]:
    return {"id": mid, "role": role, "content": content, **extra}


#: Varied transcripts: masked secrets, a supersession, a tool error the next turn
#: abandons an approach over, a compaction summary, hidden characters, and copies said
#: again within the lag and far beyond it (the same kind, and noise said again as a
#: choice, which changes the candidate's kind and the table's widths).
TRANSCRIPTS: dict[str, list[dict[str, object]]] = {
    "short": [
        said("u1", "user", "Goal: ship OAuth login by Friday."),
        said("u2", "user", f"Never push to main. The key is {SECRET} for now."),
        said("a1", "assistant", "Let me look at the routes."),
        said("t1", "tool", "$ grep -rn auth src/\nsrc/a.py:1: auth"),
        said("a2", "assistant", "Maybe later."),
    ],
    "empty of candidates": [said("t1", "tool", "")],
    "replaced, failed and summarised": [
        said("u1", "user", "Use Redis for the session cache."),
        said("a1", "assistant", "I'll use the celery worker for the exports."),
        said("t1", "tool", "Traceback: celery worker failed: connection refused", is_error=True),
        said("a2", "assistant", "Celery is off the table, I'll use a cron job instead."),
        said("u2", "user", "Actually use Memcached instead of Redis for the session cache."),
        said(
            "s1",
            "user",
            "This session is being continued from a previous conversation that ran out of "
            "context. The conversation is summarized below:\n1. Primary Request and Intent:\n"
            "   The user wants exports every night.\n6. All user messages:\n"
            "   - Use Redis for the session cache.\n",
        ),
        said("u3", "user", "Keep the\u202e exports under 5 MB \u200b please."),
    ],
    "copies within and beyond the lag": [
        said("u1", "user", "Use Redis for the session cache."),
        said("t1", "tool", "Run the migrations before the deploy."),
        *tools(300, "n"),
        said("u2", "user", "use redis for the session cache"),
        *tools(BEYOND, "f"),
        said("a1", "assistant", "Use Redis for the session cache."),
        said("u3", "user", "Run the migrations before the deploy."),
        said("u4", "user", "Thanks."),
        *tools(50, "g"),
        said("u5", "user", "Thanks."),
    ],
}


@pytest.fixture(params=sorted(TRANSCRIPTS))
def transcript(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    path = tmp_path / "transcript.json"
    path.write_text(json.dumps({"messages": TRANSCRIPTS[request.param]}), encoding="utf-8")
    return path


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_streamed_json_is_the_whole_result_byte_for_byte(transcript: Path) -> None:
    result = inspect_stream(io.BytesIO(transcript.read_bytes()))
    code, out, err = invoke("inspect", str(transcript), "--json")
    assert (code, err) == (0, "")
    assert out == dumps({**result.to_dict(), **result.provider_notes()}) + "\n"


def test_streamed_table_is_the_whole_result_byte_for_byte(transcript: Path) -> None:
    result = inspect_stream(io.BytesIO(transcript.read_bytes()))
    code, out, err = invoke("inspect", str(transcript))
    assert (code, err) == (0, "")
    assert out == candidates_table(result) + "\n"


def test_skipped_records_are_said_after_the_streamed_document(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    line = {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "Use uv."}}
    path.write_text(json.dumps(line) + "\n{not json\n", encoding="utf-8")
    result = inspect_stream(io.BytesIO(path.read_bytes()))
    assert result.skipped
    code, out, err = invoke("inspect", str(path), "--json")
    assert code == 0 and out == dumps(result.to_dict()) + "\n"
    assert err.startswith("contextward: skipped: ") and err.count("\n") == 1


def test_a_copy_far_beyond_the_lag_merges_as_into_a_draft_still_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The assistant's "Use Redis …" said again by the owner, and a tool line said again
    # as the owner's rule, after the first was frozen: its source, confidence and (for
    # the tool line) kind are the copy's too, as when every draft was held to the end.
    messages = [
        Message(str(m["id"]), str(m["role"]), str(m["content"]))
        for m in TRANSCRIPTS["copies within and beyond the lag"]
    ]
    streamed = inspect_messages(messages)
    monkeypatch.setattr(inspector, "LAG", 10**9)  # nothing settles before the end
    whole = inspect_messages(messages)
    assert streamed == whole
    redis = [c for c in streamed.candidates if c.content == "Use Redis for the session cache."]
    assert [c.sources for c in redis] == [("u1", "u2", "a1")]
    run = next(c for c in streamed.candidates if c.sources[0] == "t1")
    assert (run.kind, run.sources) != ("tool_output", ("t1",))


def _session(turns: int, alive: list[int]) -> Iterator[Message]:
    """A long session whose every statement is its own; every 500 turns, how many
    drafts are alive is noted in ``alive``."""
    for i in range(turns):
        if i % 500 == 0:
            gc.collect()
            alive.append(sum(isinstance(o, Draft) for o in gc.get_objects()))
        yield Message(
            f"u{i}",
            "user",
            f"Use worker pool p{i} for the ingest. Keep queue q{i} under {i % 90 + 10} MB.",
        )
        yield Message(f"a{i}", "assistant", f"I'll wire pool p{i} into the ingest service now.")
        yield Message(f"t{i}", "tool", f"===== {i} passed, 0 failed =====")


def test_a_long_session_holds_a_bounded_window_of_drafts() -> None:
    alive: list[int] = []
    result = inspect_messages(_session(12_000, alive))
    bound = inspector.LAG + inspector.BATCH + supersession.MAX_BACK + supersession.HOLD
    assert len(result.candidates) > 3 * bound
    assert max(alive) <= bound, alive


def test_an_empty_transcript_is_one_line_and_exit_2_before_any_output(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("", encoding="utf-8")
    for args in (("--json",), ()):
        code, out, err = invoke("inspect", str(path), *args)
        assert (code, out) == (2, "")
        assert err.startswith("contextward: error: transcript ") and err.count("\n") == 1


def test_the_spill_is_gone_when_the_command_ends(
    transcript: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spills = tmp_path / "spills"
    spills.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spills))
    before = _open_files()
    for args in (("--json",), ()):
        assert invoke("inspect", str(transcript), *args)[0] == 0
    assert list(spills.iterdir()) == []
    assert _open_files() == before  # an unnamed temporary file is gone once closed


def _open_files() -> set[str]:
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        pytest.skip("no /proc/self/fd")
    out = set()
    for fd in fds.iterdir():
        try:
            out.add(os.readlink(fd))
        except OSError:
            continue  # the listing's own descriptor, closed already
    return out
