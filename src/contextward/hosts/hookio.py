"""The process boundary shared by every hook adapter: read one payload, answer, exit 0.

Fail-open: a payload that is not one is ignored and any internal error is
swallowed; either way the host gets no stdout, one line on stderr, and exit
0, so a broken contextward can never break the agent. The line names the
event and the error's type, never payload content.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

#: A hook payload larger than this is not read (transcripts are read from their file).
MAX_PAYLOAD = 8 * 1024 * 1024


class PayloadError(Exception):
    """The input is not a hook payload; the hook does nothing."""

    code = "invalid_payload"


def read_payload(stream: IO[bytes]) -> dict[str, Any]:
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise PayloadError(f"payload larger than {MAX_PAYLOAD} bytes")
    try:
        payload = json.loads(data.decode("utf-8-sig"))
    except (ValueError, RecursionError):  # UnicodeDecodeError, JSONDecodeError, huge ints
        raise PayloadError(
            "payload is not JSON this hook can read (UTF-8, no huge numbers)"
        ) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("hook_event_name"), str):
        raise PayloadError("payload has no hook_event_name")
    return payload


def run_adapter(
    handle: Callable[[Mapping[str, Any], Mapping[str, str]], str],
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    stdin = stdin or (sys.stdin.buffer if sys.stdin is not None else io.BytesIO())
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    event = "unknown"
    try:
        payload = read_payload(stdin)
        event = "".join(ch for ch in payload["hook_event_name"][:40] if ch.isalnum()) or "unknown"
        output = handle(payload, os.environ if env is None else env)
    except PayloadError as exc:
        stderr.write(f"contextward: hook ignored: {exc}\n")
        return 0
    except Exception as exc:  # fail-open: the host must never break because of us
        stderr.write(f"contextward: {event} hook failed ({type(exc).__name__}); continuing\n")
        return 0
    if output:
        _emit(stdout, output)
    return 0


def _emit(stdout: IO[str], output: str) -> None:
    """UTF-8 whatever the locale says: hosts read hook output as UTF-8."""
    buffer = getattr(stdout, "buffer", None)
    if buffer is not None:
        buffer.write(output.encode("utf-8", "replace"))
        buffer.flush()
    else:
        stdout.write(output)
        stdout.flush()
