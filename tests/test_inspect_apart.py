"""Inspecting a large transcript in two processes: a forked one reads and classifies,
this one links and decides. The result is the one process's, byte for byte; a reading
process that fails is one clear error, and none outlives the inspection."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from contextward.inspect import InspectError, apart
from contextward.inspect.apart import Apart, worth_it

pytestmark = pytest.mark.skipif(
    not worth_it(apart.FROM_BYTES, env={}), reason="two processes need Linux, fork and two CPUs"
)

ROOT = Path(__file__).resolve().parent.parent
SECRET = "ghp_" + "0123456789abcdefghij0123456789abcdef"
LOCKED = "sqlite3.OperationalError: database is locked"
ERROR = f"Traceback (most recent call last):\n{LOCKED}"


def transcript(path: Path, megabytes: float) -> Path:
    """A Claude Code transcript of the labelled dev sessions (bench/inspect_speed.py),
    with a damaged line and a sidechain line for the reader to count."""
    sys.path.insert(0, str(ROOT))
    try:
        from bench.inspect_speed import generate
    finally:
        sys.path.remove(str(ROOT))
    generate(path, megabytes, 2)
    with path.open("a", encoding="utf-8") as out:
        # A secret said, printed, and carried by a message's id (a tool result is named
        # after its call).
        for kind, text, mid in (
            ("user", f"Use this key for CI: {SECRET}", "s-user"),
            ("tool", SECRET, "t1"),
            ("user", "Deploy from the release branch only.", f"s-{SECRET}"),
            ("tool", "no secret in this output", SECRET),
        ):
            content = [{"type": "tool_result", "tool_use_id": mid, "content": text}]
            message = {"role": "user", "content": content if kind == "tool" else text}
            out.write(json.dumps({"type": "user", "uuid": mid, "message": message}))
            out.write("\n")
        # A failed run the next turn abandons without saying why (its error line is kept,
        # numbered where it was read), and the owner saying that line again later.
        failed = [
            {"type": "tool_result", "tool_use_id": "t-err", "content": ERROR, "is_error": True}
        ]
        abandons = [{"type": "text", "text": "SQLite is not an option here."}]
        for kind, mid, content in (
            ("user", "t-err", failed),
            ("assistant", "a-err", abandons),
            ("user", "u-err", f"{LOCKED}."),
        ):
            message = {"role": kind, "content": content}
            out.write(json.dumps({"type": kind, "uuid": mid, "message": message}) + "\n")
        out.write('{"type": "user", "message": {"content": "half a line\n')
        out.write(json.dumps({"type": "user", "isSidechain": True, "message": {"content": "x"}}))
        out.write("\n")
    return path


# Inspects a file in a fresh process (the test process may run other tests' threads, and
# a process running more than one never forks), any file reading as large: what it
# found, in full, and how many processes it forked.
INSPECT = """
import dataclasses, json, os, sys
from contextward.inspect import apart, inspect_stream
apart.FROM_BYTES = 1
made = []
real = os.fork
def fork():
    pid = real()
    if pid:
        made.append(pid)
    return pid
os.fork = fork
with open(sys.argv[1], "rb") as stream:
    result = inspect_stream(stream)
found = dataclasses.asdict(result)
for candidate in found["candidates"]:
    del candidate["clean"]  # how masking was spared, compared below
clean = [c.content for c in result.candidates if c.clean]
print(json.dumps({"result": found, "forks": len(made), "clean": clean,
                  "json": json.dumps(result.to_dict())}))
"""


def inspected(path: Path, setting: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", INSPECT, str(path)],
        capture_output=True,
        env={**os.environ, apart.ENV: setting},
        timeout=120,
        check=True,
    )
    found: dict[str, object] = json.loads(done.stdout)
    return found


def test_two_processes_find_what_one_finds(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", 0.6)
    alone, shared = inspected(path, "1"), inspected(path, "2")
    assert (alone["forks"], shared["forks"]) == (0, 1)
    assert shared["result"] == alone["result"] and shared["json"] == alone["json"]
    # The reading process found most texts to hold no secret, which spares masking them
    # again; never one that holds one.
    assert alone["clean"] == [] and len(shared["clean"]) > 1000
    assert not any(SECRET in text for text in shared["clean"])  # type: ignore[union-attr]
    assert SECRET not in str(shared["json"]) and "[secret:github-token]" in str(shared["json"])
    result = alone["result"]
    assert isinstance(result, dict) and len(result["candidates"]) > 1000
    # The error line kept for the abandoned approach, and the owner's copy merged into it.
    (error,) = [c for c in result["candidates"] if c["content"] == LOCKED]
    assert (error["kind"], error["sources"]) == ("rejected", ["t-err:result", "u-err"])
    # What the reading process counted crossed with the statements.
    assert result["skipped"]["sidechain"] == 1 and result["skipped"]["malformed_json"] == 1


def test_the_command_prints_the_same_with_one_process_or_two(tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", apart.FROM_BYTES / 1024 / 1024 + 0.2)
    command = [sys.executable, "-c", "from contextward.cli import main; main()"]
    outputs = []
    for setting in ("1", "2"):
        env = {**os.environ, apart.ENV: setting}
        done = subprocess.run(
            [*command, "inspect", str(path), "--json"],
            capture_output=True,
            env=env,
            timeout=120,
            check=True,
        )
        outputs.append((done.stdout, done.stderr))
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0][0])["candidates"]
    assert SECRET.encode() not in outputs[1][0]


def test_a_pipe_a_small_file_or_a_second_thread_keep_it_in_one_process() -> None:
    assert not worth_it(apart.FROM_BYTES - 1, env={})
    assert not worth_it(apart.FROM_BYTES, env={apart.ENV: "1"})
    code = (
        "import threading\n"
        "from contextward.inspect.apart import FROM_BYTES, worth_it\n"
        "alone = worth_it(FROM_BYTES, env={})\n"
        "stop = threading.Event()\n"
        "thread = threading.Thread(target=stop.wait)\n"
        "thread.start()\n"
        "print(alone, worth_it(FROM_BYTES, env={}))\n"
        "stop.set()\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "False"]


def _no_child_left() -> bool:
    """Whether this process has no child left, running or unreaped."""
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def counted(n: int) -> Iterator[int]:
    yield from range(n)


def test_what_the_reader_produces_arrives_in_order_with_its_finish() -> None:
    reads = Apart(lambda: counted(2000), lambda: {"skipped": 3}, lambda n: n * 2)
    assert list(reads) == [n * 2 for n in range(2000)]
    assert reads.result == {"skipped": 3}
    assert _no_child_left()


def failing() -> Iterator[str]:
    yield "ok"
    raise ValueError("secret sk-do-not-show-this")


def dying() -> Iterator[str]:
    yield "ok"
    os._exit(3)


@pytest.mark.parametrize(
    ("produce", "said"),
    [
        (failing, "the reading process failed (ValueError)"),
        (dying, "the reading process ended before the transcript did"),
    ],
)
def test_a_reader_that_fails_is_one_clear_error_naming_no_content(
    produce: object, said: str
) -> None:
    with pytest.raises(InspectError) as caught:
        list(Apart(produce, lambda: None))  # type: ignore[arg-type]
    assert caught.value.code == "read_failed" and str(caught.value) == said
    assert _no_child_left()


def test_a_reader_no_one_listens_to_any_more_is_ended() -> None:
    reads = iter(Apart(lambda: counted(10**9), lambda: None))
    assert next(reads) == 0
    reads.close()  # type: ignore[attr-defined]
    assert _no_child_left()
