"""The JSONL bridge, protocol v1: one JSON frame per line on stdin and stdout.

Owns: the serve loop (read a frame, answer it, go on), per-request timeouts,
the in-flight limit, the operation registry type, and provider mode — an
operation asking the host's own model through a ``provider_request`` frame
and waiting for the matching ``provider_response``.

Must never: write anything but frames to its output (diagnostics go to the
log stream, stderr by default), crash or hang on any input, put conversation
content or secrets in an error, or hold an API key (the host's model is only
reached through provider frames). What an operation does lives in
`bridge_ops`, which adapts the library; this module knows no operation.

Threads: the caller's thread reads frames, so an operation waiting for a
``provider_response`` never blocks its delivery. Requests run one at a time,
in arrival order, on a worker thread (a host that records a command's outcome
and then asks the loop brake sees its own write). A timer answers a request
that outlives its timeout; when that request was running, its thread is left
to finish on its own and a fresh worker takes the queue, so one stuck
operation never stalls the others. Exactly one answer is written per request.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import queue
import re
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Final, Protocol

from ..redact import mask
from .bridge_errors import BridgeError, OperationError, ProviderError
from .bridge_frame import (
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    Frame,
    Line,
    RequestId,
    encode,
    error_frame,
    parse_frame,
    read_line,
)

#: Seconds a request may run when it names no ``timeout_ms``.
DEFAULT_TIMEOUT: Final = 30.0
#: The longest timeout a request may ask for, in seconds.
MAX_TIMEOUT: Final = 600.0
#: Seconds an operation waits for the host's model unless it asks for less.
DEFAULT_PROVIDER_TIMEOUT: Final = 20.0
#: Requests whose operation is still running; past this a request is answered "busy".
MAX_IN_FLIGHT: Final = 16
#: Longest error message put in a frame.
_MAX_ERROR_CHARS = 300
#: Request ids shaped like this are named in the log; others are not echoed.
_ID_SHAPE = re.compile(r"[A-Za-z0-9_.:-]{1,64}")


class Provider(Protocol):
    """The host's model, reached through provider frames (a seam: tests may pass their own)."""

    def ask(
        self,
        task: str,
        payload: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        """Return the host's ``data`` for ``task``; raise `ProviderError` when there is none."""
        ...


@dataclass(frozen=True)
class OperationContext:
    """What an operation knows besides its request: its id, its deadline, the host's model."""

    request_id: RequestId
    deadline: float
    provider: Provider | None = None

    def remaining(self) -> float:
        """Seconds left before this request times out (never negative)."""
        return max(0.0, self.deadline - time.monotonic())


#: An operation: the request frame (a JSON object) and its context in, a JSON-safe value out.
Handler = Callable[[Mapping[str, Any], OperationContext], object]


class Registry:
    """Operation names to handlers; one line registers one operation."""

    def __init__(self) -> None:
        self._handlers: dict[str, Handler] = {}

    def add(self, name: str, handler: Handler) -> None:
        if name in self._handlers:
            raise ValueError(f"operation {name!r} is already registered")
        self._handlers[name] = handler

    def get(self, name: str) -> Handler | None:
        return self._handlers.get(name)

    def names(self) -> list[str]:
        return sorted(self._handlers)

    def __contains__(self, name: object) -> bool:
        return name in self._handlers


@dataclass
class _Waiter:
    """One pending provider_request."""

    event: threading.Event = field(default_factory=threading.Event)
    frame: Mapping[str, Any] | None = None
    closed: bool = False


@dataclass
class _Call:
    """One request in flight: answered exactly once, by its handler or by its timer."""

    request_id: RequestId
    operation: str
    answered: bool = False
    finished: bool = False
    timer: threading.Timer | None = None


class Bridge:
    """Serve protocol v1 on a pair of byte streams until end of input."""

    def __init__(
        self,
        registry: Registry,
        output: IO[bytes],
        *,
        log: IO[str] | None = None,
        default_timeout: float = DEFAULT_TIMEOUT,
        max_timeout: float = MAX_TIMEOUT,
        provider_timeout: float = DEFAULT_PROVIDER_TIMEOUT,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self.registry = registry
        self._output = output
        self._log = log if log is not None else sys.stderr
        self._log_lock = threading.Lock()
        self._default_timeout = default_timeout
        self._max_timeout = max_timeout
        self._provider_timeout = provider_timeout
        self._max_in_flight = max_in_flight
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._write_lock = threading.Lock()
        self._calls: dict[RequestId, _Call] = {}
        self._running = 0
        self._writing = 0  # answers being encoded or written right now
        self._waiters: dict[str, _Waiter] = {}
        self._provider_ids = itertools.count(1)
        self._output_closed = False
        self._input_closed = False
        # ``None`` tells the worker that reads it to stop (end of input).
        self._queue: queue.SimpleQueue[tuple[_Call, Mapping[str, Any], OperationContext] | None] = (
            queue.SimpleQueue()
        )
        self._active: _Call | None = None
        self._generation = 0
        self._start_worker()

    @property
    def output_closed(self) -> bool:
        """True once a write failed because the host stopped reading."""
        return self._output_closed

    # -- the loop -------------------------------------------------------------

    def serve(self, stream: IO[bytes]) -> int:
        """Answer frames until end of input, then wait for the answers in flight. Returns 0."""
        while not self._output_closed:
            line = read_line(stream)
            if line is None:
                break
            self.handle_line(line)
        self.close()
        return 0

    def close(self) -> None:
        """End of input: pending provider waits fail at once; wait until every request is answered."""
        with self._lock:
            self._input_closed = True
            waiters = list(self._waiters.values())
        for waiter in waiters:
            waiter.closed = True
            waiter.event.set()
        with self._idle:
            # Every call has a timer, so this ends by the last deadline at the latest.
            while self._calls or self._writing:
                self._idle.wait(0.1)
        self._queue.put(None)

    def handle_line(self, line: Line) -> None:
        """Answer one raw line: an error frame for bad input, else dispatch the frame."""
        if line.too_long:
            self._send_error(
                BridgeError("frame_too_large", f"frame over {MAX_FRAME_BYTES} bytes was skipped")
            )
            return
        if not line.data.strip():
            return  # blank lines between frames are harmless
        try:
            frame = parse_frame(line.data)
            if frame.type == "request":
                self._start(frame)
            else:
                self._deliver(frame)
        except BridgeError as exc:
            self._send_error(exc)

    # -- requests -------------------------------------------------------------

    def _start(self, frame: Frame) -> None:
        request_id = frame.request_id
        operation = str(frame.body["operation"])
        with self._lock:
            if request_id in self._calls:
                raise BridgeError(
                    "duplicate_request_id",
                    "a request with this request_id is still in flight",
                    request_id=request_id,
                )
            if self._running >= self._max_in_flight:
                raise BridgeError(
                    "busy",
                    f"{self._max_in_flight} requests are already in flight; retry later",
                    request_id=request_id,
                )
            call = _Call(request_id, operation)
            self._calls[request_id] = call
            self._running += 1
        try:
            timeout = self._timeout_of(frame.body)
        except OperationError as exc:
            self._finish(call, failure=exc)
            return
        deadline = time.monotonic() + timeout
        provider = (
            _HostProvider(self, request_id, deadline)
            if frame.body.get("provider") is True
            else None
        )
        context = OperationContext(request_id, deadline, provider)
        call.timer = threading.Timer(timeout, self._expire, args=(call, timeout))
        call.timer.daemon = True
        call.timer.start()
        self._queue.put((call, frame.body, context))

    def _timeout_of(self, body: Mapping[str, Any]) -> float:
        raw = body.get("timeout_ms")
        if raw is None:
            return self._default_timeout
        if (
            isinstance(raw, bool)
            or not isinstance(raw, int | float)
            or (isinstance(raw, float) and not math.isfinite(raw))
            or raw <= 0
        ):
            raise OperationError("invalid_request", "timeout_ms must be a positive number")
        limit = self._max_timeout * 1000.0
        if raw > limit:  # compared, never divided: an integer of 400 digits is no float
            raise OperationError("invalid_request", f"timeout_ms must be at most {limit:.0f}")
        return raw / 1000.0

    def _work(self, generation: int) -> None:
        """Run queued requests in arrival order until this worker is retired."""
        while True:
            item = self._queue.get()
            if item is None:
                return
            call, body, context = item
            with self._lock:
                if call.answered:  # timed out while it waited in the queue
                    call.finished = True
                    self._running -= 1
                    continue
                self._active = call
            self._run(call, body, context)
            with self._lock:
                self._active = None
                if generation != self._generation:
                    return  # a successor took over while this operation overran

    def _run(self, call: _Call, body: Mapping[str, Any], context: OperationContext) -> None:
        handler = self.registry.get(call.operation)
        try:
            if handler is None:
                raise OperationError(
                    "unknown_operation",
                    f"unknown operation; known: {', '.join(self.registry.names())}",
                )
            result = handler(body, context)
        except Exception as exc:  # the process boundary: an operation never takes the bridge down
            self._finish(call, failure=exc)
        else:
            self._finish(call, result=result)

    def _expire(self, call: _Call, timeout: float) -> None:
        failure = OperationError("timeout", f"operation did not finish within {timeout:g} s")
        if self._answer(call, self._failure_frame(call, failure)):
            self._note(f"request timed out after {timeout:g} s", call)
        with self._lock:
            if self._active is call:
                # The overrunning operation keeps its thread (Python cannot stop
                # it) and its in-flight slot; a fresh worker serves the queue.
                self._active = None
                self._start_worker()

    def _start_worker(self) -> None:
        # Called with the lock held (or before any other thread exists).
        self._generation += 1
        worker = threading.Thread(
            target=self._work, args=(self._generation,), name="contextward-bridge", daemon=True
        )
        worker.start()

    def _finish(
        self, call: _Call, *, result: object = None, failure: BaseException | None = None
    ) -> None:
        if call.timer is not None:
            call.timer.cancel()
        if failure is not None:
            frame = self._failure_frame(call, failure)
        else:
            frame = {
                "protocol_version": PROTOCOL_VERSION,
                "type": "result",
                "request_id": call.request_id,
                "ok": True,
                "result": result,
            }
        self._answer(call, frame)
        with self._lock:
            call.finished = True
            self._running -= 1
            self._forget(call)

    def _answer(self, call: _Call, frame: dict[str, Any]) -> bool:
        """Write the one answer of ``call``; False when it was already answered."""
        with self._lock:
            if call.answered:
                return False
            call.answered = True
            self._forget(call)
            # ``close`` waits for this too: end of input must never return (and the
            # process exit) while an answer is still being encoded or written.
            self._writing += 1
        try:
            self._write(self._encoded(call, frame))
        finally:
            with self._lock:
                self._writing -= 1
                self._idle.notify_all()
        return True

    def _encoded(self, call: _Call, frame: dict[str, Any]) -> bytes:
        try:
            data = encode(frame)
        except (TypeError, ValueError):
            failure = OperationError(
                "internal_error", "operation returned a value that is not JSON"
            )
            data = encode(self._failure_frame(call, failure))
        if len(data) > MAX_FRAME_BYTES + 1:
            failure = OperationError(
                "result_too_large", f"result exceeds the {MAX_FRAME_BYTES}-byte frame cap"
            )
            data = encode(self._failure_frame(call, failure))
        return data

    def _forget(self, call: _Call) -> None:
        # Called with the lock held. An answered id is free for reuse at once;
        # a timed-out operation still running keeps its slot in ``_running``.
        if call.answered and self._calls.get(call.request_id) is call:
            del self._calls[call.request_id]

    def _failure_frame(self, call: _Call, failure: BaseException) -> dict[str, Any]:
        code, message = _describe(failure)
        if code == "internal_error":
            self._note(f"operation failed ({type(failure).__name__})", call)
        return {
            "protocol_version": PROTOCOL_VERSION,
            "type": "result",
            "request_id": call.request_id,
            "ok": False,
            "code": code,
            "error": message,
        }

    # -- provider mode --------------------------------------------------------

    def ask_host(
        self,
        *,
        parent: RequestId,
        deadline: float,
        task: str,
        payload: Mapping[str, Any],
        schema: Mapping[str, Any] | None,
        timeout: float | None,
    ) -> Any:
        wait = min(
            timeout if timeout is not None else self._provider_timeout,
            max(0.0, deadline - time.monotonic()),
        )
        provider_id = f"p{next(self._provider_ids)}"
        waiter = _Waiter()
        with self._lock:
            if self._input_closed:
                raise ProviderError("provider_closed", "the host closed the bridge")
            self._waiters[provider_id] = waiter
        frame: dict[str, Any] = {
            "protocol_version": PROTOCOL_VERSION,
            "type": "provider_request",
            "request_id": provider_id,
            "parent_request_id": parent,
            "task": task,
            "input": dict(payload),
        }
        if schema is not None:
            frame["schema"] = dict(schema)
        try:
            self._write(encode(frame))
            answered = waiter.event.wait(wait)
        finally:
            with self._lock:
                self._waiters.pop(provider_id, None)
        if waiter.closed:
            raise ProviderError("provider_closed", "the host closed the bridge before answering")
        if not answered or waiter.frame is None:
            raise ProviderError("provider_timeout", f"no provider_response within {wait:g} s")
        response = waiter.frame
        if response.get("ok") is not True:
            raise ProviderError("provider_error", "the host's model answered with an error")
        if "data" not in response:
            raise ProviderError("provider_error", "provider_response has no field 'data'")
        return response["data"]

    def _deliver(self, frame: Frame) -> None:
        key = frame.request_id if isinstance(frame.request_id, str) else str(frame.request_id)
        with self._lock:
            waiter = self._waiters.pop(key, None)
        if waiter is None:
            raise BridgeError(
                "unmatched_response",
                "no provider_request with this request_id is waiting",
                request_id=frame.request_id,
            )
        waiter.frame = frame.body
        waiter.event.set()

    # -- output ---------------------------------------------------------------

    def _send_error(self, exc: BridgeError) -> None:
        self._write(encode(error_frame(_clean(str(exc)), exc.code, exc.request_id)))

    def _write(self, data: bytes) -> None:
        with self._write_lock:
            if self._output_closed:
                return
            try:
                self._output.write(data)
                self._output.flush()
            except (BrokenPipeError, ValueError, OSError):
                # The host is gone: stop reading, and never write again.
                self._output_closed = True

    def _note(self, message: str, call: _Call) -> None:
        # Only names this bridge knows, and ids that look like ids, are logged:
        # a host's text never reaches the log.
        operation = call.operation if call.operation in self.registry else "unknown operation"
        shown = str(call.request_id)
        label = f"request {shown}" if _ID_SHAPE.fullmatch(shown) else "request"
        line = f"contextward bridge: {operation} ({label}): {message}\n"
        # One write per line, under a lock: print's text and newline are two writes, and
        # timers and workers log from their own threads.
        with self._log_lock, contextlib.suppress(OSError, ValueError):
            self._log.write(line)
            self._log.flush()


class _HostProvider:
    """`Provider` for one request: asks the host through this bridge, within the request's deadline."""

    def __init__(self, bridge: Bridge, parent: RequestId, deadline: float) -> None:
        self._bridge = bridge
        self._parent = parent
        self._deadline = deadline

    def ask(
        self,
        task: str,
        payload: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        timeout: float | None = None,
    ) -> Any:
        return self._bridge.ask_host(
            parent=self._parent,
            deadline=self._deadline,
            task=task,
            payload=payload,
            schema=schema,
            timeout=timeout,
        )


def serve_stdio(registry: Registry, **options: Any) -> int:
    """Serve on this process's stdin/stdout; anything else printed goes to stderr."""
    output = sys.stdout.buffer
    bridge = Bridge(registry, output, log=sys.stderr, **options)
    # An operation that prints must not corrupt the protocol: while serving,
    # sys.stdout is stderr and only the bridge writes to the real stdout.
    with contextlib.redirect_stdout(sys.stderr):
        code = bridge.serve(sys.stdin.buffer)
    if bridge.output_closed:
        # Python's own flush of stdout at exit would fail again on the broken
        # pipe and print a traceback-like line; point the descriptor elsewhere.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return code


def _describe(failure: BaseException) -> tuple[str, str]:
    """(code, message) of a failed operation, with nothing from the conversation in it."""
    if isinstance(failure, OperationError | ProviderError):
        return failure.code, _clean(str(failure))
    code = getattr(failure, "code", None)
    if isinstance(code, str) and code.isidentifier():
        # The library's errors carry a stable code and structural messages by contract.
        return code, _clean(str(failure))
    return "internal_error", f"operation failed ({type(failure).__name__})"


def _clean(message: str) -> str:
    text = " ".join(mask(message).split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"
