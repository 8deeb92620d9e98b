"""Reading in a second process: a large transcript is read and classified by a forked
process while this one merges, links and decides what it sends.

Owns the reading process, the pipe between the two and what crosses it (pickled
batches, then what the reader counted, or the one-line reason it failed). What one
process would compute is computed, in the same order, so the result is the same byte
for byte; only the time is shared out (about half of an inspection is reading and
classifying, half linking and deciding). Used only where ``fork`` is cheap and safe:
Linux, one thread, a file large enough to repay it (``worth_it``).

Must never: let the reading process write to the terminal, run the parent's exit
handlers, or outlive the inspection (it is killed and reaped when the reading stops).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import signal
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from typing import BinaryIO, Generic, TypeVar

from .errors import InspectError

T = TypeVar("T")

#: Below this much transcript a second process costs more than it saves (its start,
#: and the pickling of what it reads).
FROM_BYTES = 4 * 1024 * 1024
#: ``CONTEXTWARD_INSPECT_PROCESSES=1`` keeps an inspection in one process.
ENV = "CONTEXTWARD_INSPECT_PROCESSES"
#: Items sent at a time: each batch is one pickle and one write.
BATCH = 512
#: How much a pipe between the two holds (Linux's default most a process may ask).
PIPE_BYTES = 1 << 20
_HEAD = struct.Struct("<Q")
_END, _FAILED = "end", "failed"


def worth_it(size: int, env: dict[str, str] | None = None) -> bool:
    """Whether a transcript of ``size`` bytes is read in a second process: a large file,
    two CPUs to run on, ``fork`` (Linux), this process running one thread, and not
    turned off (``CONTEXTWARD_INSPECT_PROCESSES=1``)."""
    setting = (os.environ if env is None else env).get(ENV, "").strip()
    return (
        size >= FROM_BYTES
        and setting != "1"
        and sys.platform == "linux"
        and hasattr(os, "fork")
        and len(os.sched_getaffinity(0)) >= 2
        and threading.active_count() == 1
    )


class Apart(Generic[T]):
    """The items ``produce`` yields, produced in a forked process and iterated here;
    then ``result``: what ``finish`` returned there once they were all produced.

    ``light`` is applied to each item before it crosses (to leave behind what the
    receiving side does not read). A reading process that fails or dies raises
    ``InspectError`` here, naming only the kind of failure.
    """

    def __init__(
        self,
        produce: Callable[[], Iterator[T]],
        finish: Callable[[], object],
        light: Callable[[T], T] = lambda item: item,
    ) -> None:
        self._produce, self._finish, self._light = produce, finish, light
        self.result: object = None

    def __iter__(self) -> Iterator[T]:
        read_end, write_end = os.pipe()
        # Room for what the reader reads while this process links a batch (a pipe holds
        # 64 KiB unless told more): else the two take turns instead of working at once.
        with contextlib.suppress(OSError, AttributeError):
            fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the reading process (coverage does not follow)
            os.close(read_end)
            self._serve(write_end)
        os.close(write_end)
        done = False
        try:
            with open(read_end, "rb", buffering=1 << 16) as pipe:
                while True:
                    tag, payload = _receive(pipe)
                    if tag == _END:
                        self.result, done = payload, True
                        return
                    if tag == _FAILED:
                        raise InspectError("read_failed", f"the reading process failed ({payload})")
                    yield from payload  # type: ignore[misc]
        finally:
            if not done:
                with contextlib.suppress(ProcessLookupError):  # already gone
                    os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

    def _serve(self, write_end: int) -> None:  # pragma: no cover - runs in the child
        """The reading process: send every item, in batches, then the finish; exit
        without running this process's exit handlers or flushing its buffers."""
        code = 0
        try:
            # Ctrl-C reaches both processes: the inspecting one stops, and reaps this one.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            with open(write_end, "wb", buffering=1 << 16) as pipe:
                try:
                    batch: list[T] = []
                    light = self._light
                    for item in self._produce():
                        batch.append(light(item))
                        if len(batch) >= BATCH:
                            _send(pipe, "items", batch)
                            batch = []
                    if batch:
                        _send(pipe, "items", batch)
                    _send(pipe, _END, self._finish())
                except Exception as exc:  # told as its kind only: no content crosses
                    _send(pipe, _FAILED, type(exc).__name__)
                    code = 1
        except BaseException:
            code = 1
        finally:
            os._exit(code)


def _send(pipe: BinaryIO, tag: str, payload: object) -> None:
    data = pickle.dumps((tag, payload), protocol=pickle.HIGHEST_PROTOCOL)
    pipe.write(_HEAD.pack(len(data)))
    pipe.write(data)


def _receive(pipe: BinaryIO) -> tuple[str, object]:
    head = pipe.read(_HEAD.size)
    if len(head) < _HEAD.size:
        raise InspectError("read_failed", "the reading process ended before the transcript did")
    (size,) = _HEAD.unpack(head)
    data = pipe.read(size)
    if len(data) < size:
        raise InspectError("read_failed", "the reading process ended before the transcript did")
    tag, payload = pickle.loads(data)  # from our own forked process
    return tag, payload
