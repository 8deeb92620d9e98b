"""Hostile input to the inspection commands: every case ends in output, a counted skip or a
one-line error (exit 2); never a traceback, lost data, an escape sequence or half a secret.

Each case here was a traceback, a leak or a silent loss before it was fixed.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.inspect.readers import open_transcript
from contextward.redact import mask, prefix

TOKEN = "ghp_" + "0123456789abcdefghij" * 2
HUGE_INT = "7" * 5000  # past Python's 4,300-digit limit for int(str)


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def read(data: bytes, fmt: str | None = None) -> tuple[str, list[tuple[str, str]], dict[str, int]]:
    transcript = open_transcript(io.BytesIO(data), fmt)
    messages = [(m.id, m.text) for m in transcript.messages]
    return transcript.format, messages, dict(transcript.skips.counts)


def write(tmp_path: Path, data: bytes | str, name: str = "t.json") -> str:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(path)


def run_process(
    *args: str, close_stdin: bool = False, **kw: object
) -> subprocess.CompletedProcess[str]:
    """The real command in a child process (optionally started with stdin closed, ``<&-``)."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    options: dict[str, object] = {"capture_output": True, **kw}
    done: subprocess.CompletedProcess[str] = subprocess.run(  # type: ignore[call-overload]
        [sys.executable, "-m", "contextward", *args],
        env=env,
        text=True,
        timeout=120,
        preexec_fn=(lambda: os.close(0)) if close_stdin else None,
        check=False,
        **options,
    )
    return done


# --- text that no UTF-8 output takes -------------------------------------------------


def test_lone_surrogates_are_replaced_and_counted_in_every_command(tmp_path: Path) -> None:
    raw = (
        '[{"id": "u\\ud800", "role": "user", "content": "Never push \\udc00 to main."},'
        ' {"role": "tool", "tool_name": "B\\ud800", "content": "ok \\ud800"}]'
    )
    path = write(tmp_path, raw)
    _, messages, skips = read(raw.encode())
    assert messages[0] == ("u\ufffd", "Never push \ufffd to main.")
    assert skips == {"lone_surrogate_replaced": 2}
    for args in (
        ["inspect", path],
        ["inspect", path, "--json"],
        ["inspect", path, "--prompt"],
        ["guidance", path],
        ["guidance", path, "--json"],
        ["snapshot", path, "--json"],
        ["review", path],
    ):
        code, out, err = invoke(*args)
        assert code in (0, 1) and "Traceback" not in out + err, args
    code, out, err = invoke("inspect", path, "--json")
    assert "Never push \ufffd to main." in out and "lone_surrogate_replaced 2" in err


def test_bytes_that_are_not_utf8_cost_a_character_and_are_counted() -> None:
    listing = b'[{"role": "user", "content": "caf\xe9 au lait \xef\xbf\xbd"}]'
    _, messages, skips = read(listing)
    # The bad byte is replaced and counted; a U+FFFD the writer spelled out is not.
    assert messages == [("m1", "caf\ufffd au lait \ufffd")]
    assert skips == {"not_utf8_replaced": 1}
    # Split across the reader's chunks, a spelled-out U+FFFD is still not counted.
    filler = "x" * (1024 * 1024 - 30)
    split = f'[{{"role": "user", "content": "{filler}\ufffd\ufffd\ufffd"}}]'.encode()
    assert read(split)[2] == {}


# --- numbers Python will not convert --------------------------------------------------


def test_an_integer_too_long_to_convert_is_a_counted_skip_in_every_reader() -> None:
    listing = f'[{{"role": "user", "n": {HUGE_INT}}}, {{"role": "user", "content": "Use Go."}}]'
    _, messages, skips = read(listing.encode())
    assert [text for _, text in messages] == ["Use Go."] and skips == {"malformed_json": 1}
    lines = (
        json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}})
        + "\n"
        + f'{{"type": "user", "uuid": "u2", "n": {HUGE_INT}}}\n'
    )
    fmt, messages, skips = read(lines.encode())
    assert (fmt, messages, skips) == ("claude-code", [("u1", "hi")], {"malformed_json": 1})
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "function": {"name": "f", "arguments": f'{{"n": {HUGE_INT}}}'}}
        ],
    }
    assert read(json.dumps([call]).encode())[1][0][0] == "c1"


def test_an_integer_too_long_in_a_decisions_or_answer_file_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[{"role": "user", "content": "Never push to main."}]')
    decisions = write(tmp_path, f'{{"x": {HUGE_INT}}}', "d.json")
    code, _, err = invoke("guidance", path, "--decisions", decisions)
    assert code == 2 and err.count("\n") == 1 and "too long" in err
    answer = write(tmp_path, f'{{"candidates": [{{"n": {HUGE_INT}}}]}}', "a.json")
    code, out, err = invoke("inspect", path, "--answer", answer, "--json")
    assert code == 0 and json.loads(out)["mode"] == "rules"
    assert "answer not used (the model's answer is malformed JSON)" in err


# --- standard input closed (`<&-`) ----------------------------------------------------


def test_commands_started_with_stdin_closed_end_in_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, '[{"role": "user", "content": "Keep the cache in Redis."}]')
    done = run_process("inspect", "-", close_stdin=True)
    assert done.returncode == 2
    assert done.stderr == "contextward: error: transcript standard input: closed\n"
    # Nobody can answer a review: nothing is decided, the items are kept, as with a pipe.
    done = run_process("review", path, close_stdin=True)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    for args in (["bridge", "--stdio"], ["mcp"]):
        done = run_process(*args, close_stdin=True)
        assert done.returncode == 2, args
        assert done.stderr == "contextward: error: standard input or output is closed\n"
    # A hook fails open: the host must never break because of us.
    done = run_process("hook", "claude", close_stdin=True)
    assert done.returncode == 0 and done.stderr.startswith("contextward: hook ignored")


# --- secrets ----------------------------------------------------------------------------


def test_a_prefix_never_holds_half_a_secret() -> None:
    text = "x" * 150 + f" token {TOKEN} and more words after it"
    cut = prefix(text, 160)
    assert TOKEN[:4] not in cut and cut == "x" * 150 + " token "
    assert prefix(f"DB_PASSWORD={'a' * 40}", 20) == "DB_PASSWORD="
    assert prefix(f"{TOKEN} ok", 200) == f"{TOKEN} ok"  # whole: mask() masks it
    # A cut between words is kept; a word the cut would split is dropped whole.
    assert prefix("abc " * 80, 160) == ("abc " * 80)[:160]
    assert prefix("plain words " * 30, 160) == ("plain words " * 30)[:156]
    # A very long word is searched: cut before the secret inside it, not before the word.
    blob = "q" * 150 + f"/{TOKEN}/z"
    assert prefix(blob, 160) == "q" * 150 + "/"


def test_tool_output_cut_to_its_preview_leaks_no_part_of_a_secret(tmp_path: Path) -> None:
    output = "y" * 140 + f" key={TOKEN} ok\n" + "z" * 5000 + f"\nError: auth failed for {TOKEN}"
    path = write(
        tmp_path,
        json.dumps(
            [
                {"role": "user", "content": "Never push to main."},
                {"role": "tool", "content": output, "is_error": True},
            ]
        ),
    )
    for args in (["inspect", path, "--json"], ["inspect", path], ["guidance", path]):
        code, out, _ = invoke(*args)
        assert code == 0 and TOKEN[:8] not in out, args


def test_ids_carrying_secrets_are_masked_in_output_and_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        json.dumps([{"id": TOKEN, "role": "user", "content": "Never push to main."}]),
    )
    code, out, _ = invoke("inspect", path, "--json")
    assert code == 0 and TOKEN not in out and "[secret:github-token]" in out
    code, out, _ = invoke("inspect", path, "--prompt")
    assert code == 0 and TOKEN not in out
    # A model answering with the masked id it was shown is understood.
    answer = {
        "candidates": [
            {"kind": "constraint", "content": "Never push to main.", "source": mask(TOKEN)}
        ]
    }
    code, out, err = invoke(
        "inspect", path, "--json", "--answer", write(tmp_path, json.dumps(answer), "a.json")
    )
    assert code == 0 and json.loads(out)["mode"] == "provider" and "rejected" not in err
    decisions = write(
        tmp_path, json.dumps({f"{TOKEN}\x1b]0;owned\x07" + "z" * 200: "keep"}), "d.json"
    )
    code, _, err = invoke("guidance", path, "--decisions", decisions)
    assert code == 2 and err.count("\n") == 1
    # The id is neither echoed nor cut into the line (its 200 letters are not there).
    assert TOKEN not in err and "\x1b" not in err and "\x07" not in err and "z" * 8 not in err


def test_a_type_name_that_is_a_secret_is_never_a_skip_reason(tmp_path: Path) -> None:
    """``{"type": "AKIA…"}`` was counted as ``entry_AKIA…`` on stdout (and stderr)."""
    aws, gitlab = "AKIAIOSFODNN7EXAMPLE", "glpat-abcdefghij0123456789"
    owner = {"type": "user", "uuid": "u1", "sessionId": "s"}
    owner["message"] = {"role": "user", "content": "Never push to main."}
    stamp = {"timestamp": "t"}
    shapes = {
        "claude.jsonl": [{"type": secret, "sessionId": "s"} for secret in (aws, TOKEN, gitlab)]
        + [owner],
        "pi.jsonl": [
            {"type": "session", "version": 3, "id": "s"},
            {"type": TOKEN, "id": "e0"},
            {"type": "message", "id": "e1", "message": {"role": "user", "content": "Use npm."}},
        ],
        "codex.jsonl": [
            {**stamp, "type": "session_meta", "payload": {"id": "x"}},
            {**stamp, "type": aws, "payload": {}},
            {**stamp, "type": "response_item", "payload": {"type": TOKEN}},
            {**stamp, "type": "response_item", "payload": {"type": "message", "role": gitlab}},
            {**stamp, "type": "response_item"}
            | {"payload": {"type": "message", "role": "user", "content": "Use npm."}},
        ],
    }
    for name, lines in shapes.items():
        path = write(tmp_path, "".join(json.dumps(line) + "\n" for line in lines), name)
        for args in (["inspect", path], ["inspect", path, "--json"]):
            code, out, err = invoke(*args)
            assert code == 0, (name, args)
            for secret in (aws, TOKEN, gitlab):
                assert secret not in out + err, (name, args)
                assert mask(secret) not in out + err, (name, args)  # no masked name either
    _, _, skips = read("".join(json.dumps(line) + "\n" for line in shapes["codex.jsonl"]).encode())
    assert skips == {"entry_session_meta": 1, "entry": 1, "item": 1, "role": 1}


def test_the_notice_of_records_lost_names_the_file_masked_on_one_line(tmp_path: Path) -> None:
    lines = [json.dumps({"role": "user", "content": "Never push to main."}), "{oops"]
    path = write(tmp_path, "\n".join(lines) + "\n", "x AKIAIOSFODNN7EXAMPLE\nsecond.jsonl")
    for args in (["guidance", path], ["snapshot", path], ["compact-test", path, "--summary", path]):
        code, _, err = invoke(*args)
        assert code in (0, 1), (args, err)
        notice = [line for line in err.splitlines() if "could not be read" in line]
        assert len(notice) == 1 and "second.jsonl" in notice[0], (args, err)
        assert "AKIAIOSFODNN7EXAMPLE" not in err and "[secret:aws-access-key]" in err, args


# --- what reaches a terminal --------------------------------------------------------------


def test_escape_sequences_and_controls_never_reach_the_terminal(tmp_path: Path) -> None:
    content = "Never push to main \x1b[31mRED\x1b[0m \x1b]0;pwned\x07 now.\rX \u202eevil \x00."
    path = write(tmp_path, json.dumps([{"role": "user", "content": content}]))
    for args in (["inspect", path], ["guidance", path], ["review", path]):
        code, out, _ = invoke(*args)
        assert code == 0, args
        assert not any(ch in out for ch in "\x1b\x07\r\u202e\x00"), args
        assert "Never push to main RED now. X evil ." in out, args


# --- shapes that hold nothing, and shapes that hold more than they seem ------------------


def test_byte_order_marks_before_any_shape_lose_nothing() -> None:
    message = {"role": "user", "content": "Never push to main."}
    for data in (
        json.dumps([message]),
        json.dumps({"messages": [message]}),
        json.dumps(message) + "\n" + json.dumps(message) + "\n",
    ):
        fmt, messages, skips = read(b"\xef\xbb\xbf" + data.encode())
        assert fmt == "messages" and messages and skips == {}, data[:20]


def test_a_message_list_that_is_not_a_list_or_empty_messages_are_counted() -> None:
    assert read(b'{"messages": null}')[1:] == ([], {"messages_not_a_list": 1})
    listing = [
        {"role": "user", "content": None},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "function": {}}]},
    ]
    _, messages, skips = read(json.dumps(listing).encode())
    assert [mid for mid, _ in messages] == ["c1"] and skips == {"empty_message": 1}
    # Content of no known shape is counted once, as that, not also as an empty message.
    odd = [{"role": "user", "content": "Never push."}, {"role": "user", "content": 123}]
    assert read(json.dumps(odd).encode())[2] == {"unknown_content": 1}


def test_an_own_id_shaped_like_a_positional_one_does_not_merge_two_messages() -> None:
    listing = [
        {"id": "m2", "role": "user", "content": "Use Postgres."},
        {"role": "assistant", "content": "Use Redis for the cache."},
        {"role": "user", "content": "Ship it."},
    ]
    _, messages, _ = read(json.dumps(listing).encode())
    assert [mid for mid, _ in messages] == ["m2", "m2~2", "m3"]
    # The other way round: a position's id given first, then a message naming itself so.
    listing = [
        {"role": "user", "content": "Never push to main."},
        {"id": "m1", "role": "assistant", "content": "ok"},
    ]
    _, messages, _ = read(json.dumps(listing).encode())
    assert [mid for mid, _ in messages] == ["m1", "m1~2"]


def test_a_codex_rollout_written_with_other_spacing_is_detected() -> None:
    lines: list[dict[str, Any]] = [
        {"timestamp": "t", "ordinal": 0, "type": "session_meta", "payload": {"id": "s"}},
        {
            "timestamp": "t",
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "Never push to main."}],
            },
        },
    ]
    spaced = "".join(json.dumps(line, indent=None) + "\n" for line in lines).encode()
    assert read(spaced)[0] == "codex"
    reordered = "".join(
        json.dumps({"payload": line["payload"], **line}) + "\n" for line in lines
    ).encode()
    assert read(reordered)[0] == "codex"


def test_merging_many_copies_keeps_every_source_once(tmp_path: Path) -> None:
    listing = [{"id": f"k{n % 500}", "role": "user", "content": "Thanks."} for n in range(2000)]
    code, out, _ = invoke("inspect", write(tmp_path, json.dumps(listing)), "--json")
    (candidate,) = json.loads(out)["candidates"]
    assert code == 0 and candidate["sources"] == [f"k{n}" for n in range(500)]


# --- provider answers that say nothing about this transcript ------------------------------


def test_an_answer_whose_every_proposal_is_rejected_is_not_used(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        json.dumps(
            [
                {"role": "user", "content": "Never push to main."},
                {"role": "assistant", "content": "The staging cluster runs 3 replicas."},
            ]
        ),
    )
    rules = json.loads(invoke("inspect", path, "--json")[1])
    invented = {
        "candidates": [
            {"kind": "decision", "content": f"Rewrite it in {language}."}
            for language in ("Rust", "Zig", "Go")
        ]
    }
    answer = write(tmp_path, json.dumps(invented), "a.json")
    code, out, err = invoke("inspect", path, "--json", "--answer", answer)
    unused = (
        "none of its 3 proposals is usable (not verbatim in the transcript, or of no known kind)"
    )
    assert code == 0 and json.loads(out) == {**rules, "fallback_reason": unused}
    assert (
        "answer not used (none of its 3 proposals is usable (not verbatim in the transcript, or of no known kind)): rules mode"
        in err
    )
    partly = {
        "candidates": [
            *invented["candidates"],
            {"kind": "constraint", "content": "Never push to main."},
        ]
    }
    answer = write(tmp_path, json.dumps(partly), "b.json")
    code, out, err = invoke("inspect", path, "--json", "--answer", answer)
    assert json.loads(out)["mode"] == "provider"
    assert "3 proposal(s) of the answer rejected (not found verbatim in the transcript," in err


def test_the_finds_an_answer_passed_by_are_counted(tmp_path: Path) -> None:
    messages = [
        {"id": "u1", "role": "user", "content": "Never push to main."},
        {"id": "a1", "role": "assistant", "content": "The staging run took 420 ms at p95."},
    ]
    path = write(tmp_path, json.dumps(messages))
    only_rule = {"candidates": [{"kind": "constraint", "content": "Never push to main."}]}
    answer = write(tmp_path, json.dumps(only_rule), "a.json")
    code, _out, err = invoke("inspect", path, "--answer", answer)
    assert code == 0
    assert (
        "contextward: 1 unsure find of the rules that the answer passed by dropped as noise "
        "(of the owner's words, only plain remarks)\n"
    ) in err


# --- output that cannot be written ---------------------------------------------------------


def test_a_reader_that_stops_reading_is_not_an_error() -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1] / "src")}
    child = subprocess.Popen(
        [sys.executable, "-m", "contextward", "demo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # `| head -0`: nothing will be read
    err = child.stderr.read()
    assert child.wait(timeout=120) == 0 and err == b""


def test_a_closed_stdout_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """`contextward inspect T >&-` printed nothing and exited 0, as if all went well."""
    path = write(tmp_path, json.dumps([{"role": "user", "content": "Never push to main."}]))
    done = subprocess.run(
        [sys.executable, "-m", "contextward", "inspect", path],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),  # the child starts with its stdout closed
        check=False,
    )
    assert done.returncode == 2
    assert (
        done.stderr == b"contextward: error: standard output is closed: nothing could be printed\n"
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_under_stdout_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        done = run_process("demo", capture_output=False, stdout=full, stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr == "contextward: error: input/output error (No space left on device)\n"


def test_a_message_nested_too_deeply_is_said_lost_by_every_command(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    data = (
        f'[{{"role": "user", "content": "Keep it simple."}}, {{"role": "user", "content": {deep}}}]'
    )
    path = write(tmp_path, data)
    code, out, _ = invoke("inspect", path)
    assert code == 0 and "skipped: nested_too_deeply 1" in out
    for command in ("guidance", "snapshot"):
        code, _, err = invoke(command, path)
        assert code == 0, command
        assert "1 record could not be read (nested_too_deeply 1)" in err, command


def test_a_message_that_is_one_long_number_is_read_in_time_linear_in_it(tmp_path: Path) -> None:
    # Two patterns tried a long digit run as two numbers side by side, split every way:
    # 40,000 digits took 42 s, these would take hours. A hang, not a speed, is tested: the
    # command ends within the child's timeout (120 s; it takes well under a second).
    digits = "2." + "7" * 300_000
    path = write(
        tmp_path,
        json.dumps(
            [
                {"role": "user", "content": "Port the billing export to Go."},
                {"role": "user", "content": digits},
                {"role": "assistant", "content": digits + "1"},
            ]
        ),
    )
    done = run_process("inspect", "--json", path)
    assert done.returncode == 0, done.stderr
    kept = [c["content"] for c in json.loads(done.stdout)["candidates"]]
    assert digits in kept and digits + "1" in kept


def test_a_message_of_many_compact_commands_and_no_arguments_is_read_in_time(
    tmp_path: Path,
) -> None:
    # The arguments were looked for after every /compact to the end of the text: 296 KB
    # took 8 s. What the owner typed after one is still theirs (test_inspect_readers).
    lines = [
        {"type": "user", "uuid": "u1", "message": {"role": "user", "content": "Use pnpm."}},
        {
            "type": "user",
            "uuid": "u2",
            "message": {
                "role": "user",
                "content": "<command-name>/compact</command-name>" * 40_000,
            },
        },
        {
            "type": "user",
            "uuid": "u3",
            "message": {
                "role": "user",
                "content": "<command-name>/compact</command-name>\n"
                "<command-args>keep the pnpm rule</command-args>",
            },
        },
    ]
    path = write(tmp_path, "".join(json.dumps(line) + "\n" for line in lines), "t.jsonl")
    done = run_process("inspect", "--json", path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert [c["sources"] for c in found["candidates"]] == [["u1"], ["u3:compact-args"]]
    assert "local_command 2" in done.stderr
