"""Drivers for the bridge tests: a real ``contextward bridge --stdio`` subprocess, and the
same `Bridge` served in process over real OS pipes (for operations only tests register).

Every read has a deadline, so a bridge that hangs fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from contextward.hosts.bridge import Bridge, Registry

#: Seconds a test waits for one frame before it calls the bridge hung.
WAIT = 15.0

BRIDGE_ARGS = ["-c", "from contextward.cli import main; main()", "bridge", "--stdio"]


def request(request_id: str | int, operation: str, **fields: Any) -> dict[str, Any]:
    return {
        "protocol_version": 1,
        "type": "request",
        "request_id": request_id,
        "operation": operation,
        **fields,
    }


class _Driver:
    """Send frames, receive frames (each within `WAIT` seconds)."""

    def __init__(self, writer: IO[bytes], reader: IO[bytes]) -> None:
        self._writer = writer
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._pump = threading.Thread(target=self._read, args=(reader,), daemon=True)
        self._pump.start()

    def _read(self, reader: IO[bytes]) -> None:
        for line in iter(reader.readline, b""):
            self._lines.put(line)
        self._lines.put(None)

    def send(self, frame: dict[str, Any] | bytes) -> None:
        data = frame if isinstance(frame, bytes) else json.dumps(frame).encode() + b"\n"
        self._writer.write(data)
        self._writer.flush()

    def recv_line(self, timeout: float = WAIT) -> bytes | None:
        """The next raw output line, or None at end of output; raises on a hang."""
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no frame from the bridge within {timeout} s") from None

    def recv(self, timeout: float = WAIT) -> dict[str, Any]:
        line = self.recv_line(timeout)
        assert line is not None, "the bridge closed its output"
        assert line.endswith(b"\n")
        frame = json.loads(line)
        assert isinstance(frame, dict)
        return frame

    def call(self, frame: dict[str, Any] | bytes) -> dict[str, Any]:
        self.send(frame)
        return self.recv()

    def end_input(self) -> None:
        self._writer.close()

    def rest(self) -> list[bytes]:
        """Every remaining output line until the bridge closes its output."""
        lines = []
        while (line := self.recv_line()) is not None:
            lines.append(line)
        return lines


class BridgeProcess(_Driver):
    """``contextward bridge --stdio`` as a real subprocess in ``cwd``."""

    def __init__(self, cwd: Path, *extra: str) -> None:
        env = dict(os.environ, CONTEXTWARD_HOME=str(cwd / ".home"), PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen(
            [sys.executable, *BRIDGE_ARGS, *extra],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        super().__init__(self.proc.stdin, self.proc.stdout)

    def finish(self) -> tuple[list[bytes], int, str]:
        """Close stdin; the remaining output, the exit code and stderr."""
        self.end_input()
        rest = self.rest()
        code = self.proc.wait(timeout=WAIT)
        assert self.proc.stderr is not None
        return rest, code, self.proc.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=WAIT)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None and not stream.closed:
                stream.close()


class InProcessBridge(_Driver):
    """A `Bridge` serving ``registry`` on a thread, over two real pipes."""

    def __init__(self, registry: Registry, **options: Any) -> None:
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        self._out = os.fdopen(out_w, "wb")
        self._in = os.fdopen(in_r, "rb")
        self.log: list[str] = []
        self.bridge = Bridge(registry, self._out, log=_ListLog(self.log), **options)
        self.exit_code: int | None = None
        self._server = threading.Thread(target=self._serve, daemon=True)
        self._server.start()
        super().__init__(os.fdopen(in_w, "wb"), os.fdopen(out_r, "rb"))

    def _serve(self) -> None:
        self.exit_code = self.bridge.serve(self._in)
        self._out.close()
        self._in.close()

    def finish(self) -> list[bytes]:
        self.end_input()
        rest = self.rest()
        self.close()
        return rest

    def close(self) -> None:
        """End the input if the test did not, and wait until the bridge has stopped: its
        serving thread, its workers and the pump end with it, not with the test run."""
        if not self._writer.closed:
            self._writer.close()
        self._server.join(WAIT)
        self._pump.join(WAIT)
        assert not self._server.is_alive() and not self._pump.is_alive()


class _ListLog:
    """A text stream that keeps what the bridge logs."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines

    def write(self, text: str) -> int:
        self._lines.append(text)
        return len(text)

    def flush(self) -> None:
        pass
