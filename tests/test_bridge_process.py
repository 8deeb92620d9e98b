"""``contextward bridge --stdio`` as a real subprocess: round trips, bad frames, EOF."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from contextward import __version__
from contextward.hosts.bridge_frame import MAX_FRAME_BYTES
from test_bridge_harness import BRIDGE_ARGS, WAIT, BridgeProcess, request


@pytest.fixture
def bridge(tmp_path: Path) -> Iterator[BridgeProcess]:
    process = BridgeProcess(tmp_path)
    yield process
    process.kill()


def test_ping_and_version_round_trip(bridge: BridgeProcess) -> None:
    assert bridge.call(request("r1", "ping")) == {
        "protocol_version": 1,
        "type": "result",
        "request_id": "r1",
        "ok": True,
        "result": {"pong": True, "protocol_version": 1},
    }
    answer = bridge.call(request(2, "version"))
    assert answer["request_id"] == 2 and answer["ok"] is True
    assert answer["result"]["version"] == __version__
    assert answer["result"]["protocol_version"] == 1
    assert {"ping", "version"} <= set(answer["result"]["operations"])


def test_every_kind_of_bad_frame_gets_an_error_and_the_loop_goes_on(
    bridge: BridgeProcess,
) -> None:
    bad: list[tuple[bytes, str]] = [
        (b"this is not json\n", "bad_frame"),
        (b"[1, 2, 3]\n", "bad_frame"),
        (b'{"protocol_version": 1, "request_id": "x"}\n', "bad_frame"),
        (b'{"protocol_version": 2, "type": "request", "request_id": "x"}\n', "unsupported_version"),
        (b'{"type": "request", "request_id": "x", "operation": "ping"}\n', "unsupported_version"),
        (b"\x00\xff\xfe\x9c binary \x80garbage\n", "bad_frame"),
        (b"{" * (MAX_FRAME_BYTES + 100) + b"\n", "frame_too_large"),
        (b'{"protocol_version": 1, "type": "result", "request_id": "x"}\n', "bad_frame"),
        (
            b'{"protocol_version": 1, "type": "provider_response", "request_id": "p9"}\n',
            "unmatched_response",
        ),
    ]
    for data, code in bad:
        answer = bridge.call(data)
        assert answer["type"] == "error", data[:40]
        assert answer["protocol_version"] == 1
        assert answer["code"] == code, data[:40]
        assert isinstance(answer["error"], str) and answer["error"]
    # Still alive and answering.
    assert bridge.call(request("after", "ping"))["ok"] is True


def test_a_wrong_version_is_answered_with_the_supported_version(bridge: BridgeProcess) -> None:
    answer = bridge.call(
        {"protocol_version": 7, "type": "request", "request_id": "v", "operation": "ping"}
    )
    assert answer["type"] == "error" and answer["request_id"] == "v"
    assert "protocol_version 1" in answer["error"]


def test_unknown_operation_is_a_failed_result_that_lists_the_known_ones(
    bridge: BridgeProcess,
) -> None:
    answer = bridge.call(request("u", "no_such_operation"))
    assert answer["ok"] is False and answer["code"] == "unknown_operation"
    assert "ping" in answer["error"]


def test_errors_never_echo_conversation_content(bridge: BridgeProcess) -> None:
    secret = "OWNER-SECRET-never-push-to-main"
    for data in (
        secret.encode() + b"\n",
        json.dumps({"protocol_version": 1, "type": secret, "request_id": "s"}).encode() + b"\n",
        json.dumps(request("s2", secret)).encode() + b"\n",
    ):
        assert secret not in json.dumps(bridge.call(data))


def test_eof_ends_cleanly_with_only_frames_on_stdout(bridge: BridgeProcess) -> None:
    bridge.send(request("a", "ping"))
    bridge.send(b"garbage\n")
    bridge.send(json.dumps(request("last-without-newline", "ping")).encode())
    rest, code, stderr = bridge.finish()
    assert code == 0
    answers = [json.loads(line) for line in rest]
    # Error frames come from the reading thread, results from the worker: any order.
    assert sorted(str(frame.get("request_id")) for frame in answers) == [
        "None",
        "a",
        "last-without-newline",
    ]
    assert stderr == ""


def test_a_request_id_may_be_reused_once_answered(bridge: BridgeProcess) -> None:
    assert bridge.call(request("same", "ping"))["ok"] is True
    assert bridge.call(request("same", "ping"))["ok"] is True


def test_blank_lines_are_ignored(bridge: BridgeProcess) -> None:
    bridge.send(b"\n   \n\r\n")
    assert bridge.call(request("b", "ping"))["request_id"] == "b"


def test_bridge_without_stdio_is_a_one_line_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, *BRIDGE_ARGS[:2], "bridge"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--stdio" in done.stderr


def test_a_host_that_goes_away_ends_the_bridge(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, *BRIDGE_ARGS],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdout.close()  # the host stops reading before the answer is written
    try:
        proc.stdin.write(json.dumps(request("x", "ping")).encode() + b"\n")
        proc.stdin.flush()
        proc.stdin.close()
        assert proc.wait(timeout=WAIT) == 0
    finally:
        proc.kill()
        proc.wait(timeout=WAIT)


def test_a_stuck_operation_times_out_and_the_next_request_is_served(
    bridge: BridgeProcess, tmp_path: Path
) -> None:
    # A real operation that runs far past its own 300 ms: inspecting 16 MB of prose takes
    # seconds. (A FIFO named as the transcript once hung one forever; it is refused now.)
    path = tmp_path / "long.json"
    said = [
        {"id": f"u{n}", "role": "user", "content": f"Keep the ledger export {n} under {n % 97} MB."}
        for n in range(300_000)
    ]
    path.write_text(json.dumps(said))
    bridge.send(request("stuck", "inspect", transcript_path=str(path), timeout_ms=300))
    bridge.send(request("next", "ping"))
    answers = {frame["request_id"]: frame for frame in (bridge.recv(), bridge.recv())}
    stuck = answers["stuck"]
    assert (stuck["ok"], stuck["code"]) == (False, "timeout") and answers["next"]["ok"]
    rest, code, stderr = bridge.finish()
    assert (rest, code) == ([], 0)
    assert stderr.count("\n") == 1 and "timed out" in stderr and "stuck" in stderr


def test_an_operation_that_prints_cannot_corrupt_stdout(tmp_path: Path) -> None:
    script = (
        "from contextward.hosts.bridge import Registry, serve_stdio\n"
        "registry = Registry()\n"
        "registry.add('noisy', lambda request, context: print('noise') or 'done')\n"
        "raise SystemExit(serve_stdio(registry))\n"
    )
    frame = json.dumps(request("n", "noisy")) + "\n"
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=frame,
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert done.returncode == 0
    assert [json.loads(line)["result"] for line in done.stdout.splitlines()] == ["done"]
    assert done.stderr == "noise\n"
