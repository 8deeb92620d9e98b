"""The process boundary shared by every hook adapter: read one payload, answer, exit 0.

Fail-open: a payload that is not one is ignored and any internal error is
swallowed; either way the host gets no stdout, one line on stderr, and exit
0, so a broken contextward can never break the agent. The line names the
event and the error's type, never payload content. One exception fails
closed: a payload over the size cap is not parsed, but when its event and
tool (read from the raw bytes) say it is a shell command about to run, the
adapter's ``oversized`` answer puts it to the owner.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

#: A hook payload larger than this is not read (transcripts are read from their file).
MAX_PAYLOAD = 8 * 1024 * 1024


class PayloadError(Exception):
    """The input is not a hook payload; the hook does nothing."""

    code = "invalid_payload"


class OversizedPayload(PayloadError):
    """A payload over the cap: not parsed; ``event`` and ``tool`` as its raw bytes name
    them ("" when they do not)."""

    code = "payload_too_large"

    def __init__(self, event: str, tool: str) -> None:
        super().__init__(f"payload larger than {MAX_PAYLOAD} bytes")
        self.event, self.tool = event, tool


#: A key at any depth of JSON text: an escaped quote (``\"``) inside a string value is
#: never followed by the key's closing quote, so a command cannot forge one.
_EVENT_FIELD = re.compile(rb'"hook_event_name"\s*:\s*"([A-Za-z]{1,40})"')
_TOOL_FIELD = re.compile(rb'"tool_name"\s*:\s*"([A-Za-z0-9_.:-]{1,100})"')


def _field(pattern: re.Pattern[bytes], data: bytes) -> str:
    found = pattern.search(data)
    return found.group(1).decode("ascii") if found else ""


def _sniff(head: bytes, stream: IO[bytes]) -> tuple[str, str]:
    """The event and tool an unparsed payload names: its first ``MAX_PAYLOAD`` bytes, then
    the rest a chunk at a time (memory stays bounded) until both are found."""
    event, tool = _field(_EVENT_FIELD, head), _field(_TOOL_FIELD, head)
    tail = head[-_OVERLAP:]
    while not (event and tool):
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        window = tail + chunk
        event, tool = event or _field(_EVENT_FIELD, window), tool or _field(_TOOL_FIELD, window)
        tail = window[-_OVERLAP:]
    return event, tool


#: Enough of one chunk kept before the next that a field cut between them is found.
_OVERLAP = 256


def read_payload(stream: IO[bytes]) -> dict[str, Any]:
    data = stream.read(MAX_PAYLOAD + 1)
    if len(data) > MAX_PAYLOAD:
        raise OversizedPayload(*_sniff(data, stream))
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
    oversized: Callable[[str, str], str] | None = None,
) -> int:
    """``oversized(event, tool)``: the host's answer to a payload too large to read (""
    for none); the one way a payload that is not read still gets an answer."""
    stdin = stdin or (sys.stdin.buffer if sys.stdin is not None else io.BytesIO())
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    event = "unknown"
    try:
        payload = read_payload(stdin)
        event = "".join(ch for ch in payload["hook_event_name"][:40] if ch.isalnum()) or "unknown"
        output = handle(payload, os.environ if env is None else env)
    except OversizedPayload as exc:
        answer = ""
        if oversized is not None and not _switched_off(exc.event, env):
            answer = oversized(exc.event, exc.tool)
        stderr.write(f"contextward: hook {'asked' if answer else 'ignored'}: {exc}\n")
        if answer:
            _emit(stdout, answer)
        return 0
    except PayloadError as exc:
        stderr.write(f"contextward: hook ignored: {exc}\n")
        return 0
    except Exception as exc:  # fail-open: the host must never break because of us
        stderr.write(f"contextward: {event} hook failed ({type(exc).__name__}); continuing\n")
        return 0
    if output:
        _emit(stdout, output)
    return 0


def _switched_off(event: str, env: Mapping[str, str] | None) -> bool:
    from .hooks import switched_off

    return switched_off(event, os.environ if env is None else env)


def _emit(stdout: IO[str], output: str) -> None:
    """UTF-8 whatever the locale says: hosts read hook output as UTF-8."""
    buffer = getattr(stdout, "buffer", None)
    if buffer is not None:
        buffer.write(output.encode("utf-8", "replace"))
        buffer.flush()
    else:
        stdout.write(output)
        stdout.flush()
