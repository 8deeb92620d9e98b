"""The serve loop with operations only a test registers: timeouts, failures, limits,
and provider mode (provider_request / provider_response), over real pipes."""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from contextward.hosts.bridge import OperationContext, Registry
from contextward.hosts.bridge_errors import ProviderError
from contextward.redact import MASK
from test_bridge_harness import InProcessBridge, request

RELEASE = threading.Event()


def slow(request: Mapping[str, Any], context: OperationContext) -> str:
    RELEASE.wait(10)
    return "late"


def echo(request: Mapping[str, Any], context: OperationContext) -> Any:
    return request.get("value")


def leaky(request: Mapping[str, Any], context: OperationContext) -> None:
    raise RuntimeError(f"failed on {request.get('value')}")


class CodedError(Exception):
    code = "store_busy"


def coded(request: Mapping[str, Any], context: OperationContext) -> None:
    raise CodedError("the store is busy; token=sk-abcdefghijklmnopqrstuvwx")


def huge(request: Mapping[str, Any], context: OperationContext) -> str:
    return "x" * (3 * 1024 * 1024)


def not_json(request: Mapping[str, Any], context: OperationContext) -> object:
    return {"a": {1, 2}}


def candidates(request: Mapping[str, Any], context: OperationContext) -> dict[str, Any]:
    """Ask the host's model; fall back to rules when it cannot answer (seed 002)."""
    if context.provider is None:
        return {"mode": "rules"}
    try:
        data = context.provider.ask(
            "candidates",
            {"messages": request.get("messages", [])},
            schema={"type": "object"},
            timeout=request.get("provider_timeout"),
        )
    except ProviderError as exc:
        return {"mode": "rules", "fallback": exc.code}
    return {"mode": "provider", "data": data}


def registry() -> Registry:
    ops = Registry()
    for name, handler in {
        "candidates": candidates,
        "coded": coded,
        "echo": echo,
        "huge": huge,
        "leaky": leaky,
        "not_json": not_json,
        "slow": slow,
    }.items():
        ops.add(name, handler)
    return ops


@pytest.fixture
def bridge() -> Iterator[InProcessBridge]:
    RELEASE.clear()
    served = InProcessBridge(registry(), max_in_flight=3, provider_timeout=5.0)
    yield served
    RELEASE.set()  # an operation still waiting ends, so the bridge can stop
    served.close()


def test_a_slow_operation_times_out_and_the_loop_goes_on(bridge: InProcessBridge) -> None:
    bridge.send(request("s", "slow", timeout_ms=50))
    bridge.send(request("e", "echo", value=[1, "two"]))
    answer = bridge.recv()
    # The stuck operation is answered, and a fresh worker serves the queue behind it.
    assert bridge.recv()["result"] == [1, "two"]
    assert answer == {
        "protocol_version": 1,
        "type": "result",
        "request_id": "s",
        "ok": False,
        "code": "timeout",
        "error": "operation did not finish within 0.05 s",
    }
    RELEASE.set()
    # The late value is never written: exactly one answer per request.
    assert bridge.call(request("e2", "echo", value=3))["request_id"] == "e2"
    assert bridge.finish() == []
    assert any("timed out" in line for line in bridge.log)


@pytest.mark.parametrize(
    "timeout_ms", [0, -1, "10", True, None, 600_001, pytest.param(10**400, id="huge")]
)
def test_a_bad_timeout_is_an_invalid_request(bridge: InProcessBridge, timeout_ms: object) -> None:
    frame = request("t", "echo", value=1)
    frame["timeout_ms"] = timeout_ms
    answer = bridge.call(frame)
    if timeout_ms is None:
        assert answer["ok"] is True
    else:
        assert (answer["ok"], answer["code"]) == (False, "invalid_request")
        if type(timeout_ms) is int and timeout_ms > 0:
            assert answer["error"] == "timeout_ms must be at most 600000"


def test_the_longest_timeout_is_accepted(bridge: InProcessBridge) -> None:
    frame = request("t", "echo", value=1)
    frame["timeout_ms"] = 600_000
    assert bridge.call(frame)["ok"] is True


class _SlowLog:
    """A log stream that yields between writes, as a pipe to a busy reader does."""

    def __init__(self) -> None:
        self.text = ""

    def write(self, text: str) -> int:
        for char in text:
            self.text += char
            time.sleep(0)
        return len(text)

    def flush(self) -> None:
        pass


def test_log_lines_from_many_threads_are_never_interleaved() -> None:
    from contextward.hosts.bridge import Bridge, _Call

    log = _SlowLog()
    with open(os.devnull, "wb") as sink:
        bridge = Bridge(registry(), sink, log=log)
        calls = [_Call(f"r{n}", "echo") for n in range(8)]
        threads = [
            threading.Thread(target=bridge._note, args=("timed out after 0.3 s", call))
            for call in calls
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        bridge.close()  # its worker, started with it, ends with the test
    lines = log.text.splitlines(keepends=True)
    assert len(lines) == 8
    assert all(
        re.fullmatch(r"contextward bridge: echo \(request r\d\): timed out after 0\.3 s\n", line)
        for line in lines
    )


def test_requests_in_flight_are_capped_and_ids_are_unique(bridge: InProcessBridge) -> None:
    for n in range(3):
        bridge.send(request(f"s{n}", "slow"))
    busy = bridge.call(request("s3", "slow"))
    assert (busy["type"], busy["code"], busy["request_id"]) == ("error", "busy", "s3")
    RELEASE.set()
    answered = {bridge.recv()["request_id"] for _ in range(3)}
    assert answered == {"s0", "s1", "s2"}


def test_a_request_id_in_flight_cannot_be_reused(bridge: InProcessBridge) -> None:
    bridge.send(request("dup", "slow"))
    answer = bridge.call(request("dup", "echo", value=1))
    assert (answer["type"], answer["code"]) == ("error", "duplicate_request_id")
    RELEASE.set()
    assert bridge.recv() == {
        "protocol_version": 1,
        "type": "result",
        "request_id": "dup",
        "ok": True,
        "result": "late",
    }


def test_an_unexpected_failure_names_only_its_type(bridge: InProcessBridge) -> None:
    answer = bridge.call(request("l", "leaky", value="the owner's private plan"))
    assert answer["code"] == "internal_error"
    assert answer["error"] == "operation failed (RuntimeError)"
    assert "private plan" not in "".join(bridge.log)


def test_a_coded_library_error_keeps_its_code_and_is_masked(bridge: InProcessBridge) -> None:
    answer = bridge.call(request("c", "coded"))
    assert answer["code"] == "store_busy"
    assert "sk-abcdefghijklmnopqrstuvwx" not in answer["error"]
    assert answer["error"] == f"the store is busy; token={MASK.format(kind='openai-key')}"


def test_results_over_the_cap_or_not_json_fail_cleanly(bridge: InProcessBridge) -> None:
    assert bridge.call(request("h", "huge"))["code"] == "result_too_large"
    assert bridge.call(request("n", "not_json"))["code"] == "internal_error"


def test_eof_waits_for_answers_in_flight(bridge: InProcessBridge) -> None:
    bridge.send(request("s", "slow", timeout_ms=200))
    bridge.end_input()
    started = time.monotonic()
    rest = bridge.rest()
    assert [line for line in rest if b'"timeout"' in line]
    assert time.monotonic() - started < 10


# -- provider mode -------------------------------------------------------------


def test_provider_request_and_response_round_trip(bridge: InProcessBridge) -> None:
    bridge.send(request("i", "candidates", provider=True, messages=[{"role": "user"}]))
    asked = bridge.recv()
    assert asked["type"] == "provider_request"
    assert asked["protocol_version"] == 1
    assert asked["parent_request_id"] == "i"
    assert asked["task"] == "candidates"
    assert asked["input"] == {"messages": [{"role": "user"}]}
    assert asked["schema"] == {"type": "object"}
    bridge.send(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            "ok": True,
            "data": {"candidates": []},
        }
    )
    assert bridge.recv()["result"] == {"mode": "provider", "data": {"candidates": []}}


def test_without_provider_flag_the_operation_never_asks(bridge: InProcessBridge) -> None:
    assert bridge.call(request("i", "candidates"))["result"] == {"mode": "rules"}


def test_a_silent_host_times_out_and_the_operation_falls_back(bridge: InProcessBridge) -> None:
    bridge.send(request("i", "candidates", provider=True, provider_timeout=0.05))
    asked = bridge.recv()
    assert asked["type"] == "provider_request"
    answer = bridge.recv()
    assert answer["result"] == {"mode": "rules", "fallback": "provider_timeout"}
    # A response that arrives too late matches nothing.
    late = bridge.call(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            "ok": True,
            "data": 1,
        }
    )
    assert late["code"] == "unmatched_response"


@pytest.mark.parametrize(
    "response",
    [{"ok": False, "error": "model unavailable"}, {"ok": True}, {"data": 1}],
)
def test_a_failed_provider_answer_falls_back(
    bridge: InProcessBridge, response: dict[str, Any]
) -> None:
    bridge.send(request("i", "candidates", provider=True))
    asked = bridge.recv()
    bridge.send(
        {
            "protocol_version": 1,
            "type": "provider_response",
            "request_id": asked["request_id"],
            **response,
        }
    )
    assert bridge.recv()["result"] == {"mode": "rules", "fallback": "provider_error"}


def test_eof_while_waiting_for_the_host_falls_back_at_once(bridge: InProcessBridge) -> None:
    bridge.send(request("i", "candidates", provider=True))
    assert bridge.recv()["type"] == "provider_request"
    bridge.end_input()
    rest = bridge.rest()
    assert len(rest) == 1 and b'"fallback":"provider_closed"' in rest[0]
