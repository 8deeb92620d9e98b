"""A scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI offline.

Owns: a threaded stdlib HTTP server on loopback that answers ``POST /v1/messages``
(streamed SSE or one JSON body), ``POST /v1/messages/count_tokens``, 404 JSON for any
other POST and ``200 {}`` for GET/HEAD, and appends every request body to a JSONL log.
Must never: bind anything but 127.0.0.1, reach the network, or answer without logging.

What the fake answers is scripted by the scenario (a ``Script``) and by directives in the
owner's prompt, i.e. the last *user* message that carries text (mid-conversation
``role: system`` messages exist, so ``messages[-1]`` is not it):

* a compaction request (its last user message asks to "create a detailed summary") gets
  the scenario's summary text: a test drops a constraint from it on purpose;
* ``BASH: <command>`` runs one Bash tool call; ``BASHx3: <command>`` asks for the same
  call three times in one turn (each tool result is answered with the next call);
* ``HUGE_USAGE`` reports ``usage.input_tokens`` = 190000 once (the threshold route to
  automatic compaction, with ``CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000``);
* ``TOO_LONG`` answers the first request of that prompt with HTTP 400 "prompt is too
  long" once (the reactive route to automatic compaction);
* anything else gets a short text answer.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self

SUMMARY_REQUEST = "create a detailed summary"
CONTINUED_PREFIX = "This session is being continued from a previous conversation"
TEXT_ANSWER = "Hello from the fake API."
AFTER_TOOL_ANSWER = "The command finished."
HUGE_INPUT_TOKENS = 190_000
TOO_LONG_MESSAGE = "prompt is too long: 210000 tokens > 200000 maximum"
DEFAULT_SUMMARY = (
    "<analysis>fake analysis</analysis>\n<summary>\n1. Primary Request and Intent: "
    "the user asked for small shell tasks. FAKE_COMPACT_SUMMARY_MARKER.\n</summary>"
)

_BASH = re.compile(r"\bBASH(?:x(\d+))?: ([^\n]+)")


@dataclass(frozen=True, slots=True)
class Script:
    """Per-scenario answers: the compaction summary and the default usage numbers."""

    summary: str = DEFAULT_SUMMARY
    input_tokens: int = 1200

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Script:
        return cls(
            summary=str(data.get("summary", DEFAULT_SUMMARY)),
            input_tokens=int(data.get("input_tokens", 1200)),
        )


@dataclass(frozen=True, slots=True)
class Answer:
    """What one request gets: an HTTP error, or content blocks with a stop reason."""

    kind: str
    blocks: tuple[dict[str, Any], ...] = ()
    stop_reason: str = "end_turn"
    input_tokens: int = 0
    status: int = 200
    error: str = ""


@dataclass
class _State:
    """One-shot directives already spent, keyed by the prompt they came with."""

    spent: set[tuple[str, str]] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def once(self, directive: str, prompt: str) -> bool:
        with self.lock:
            key = (directive, prompt)
            if key in self.spent:
                return False
            self.spent.add(key)
            return True


def text_of(content: object) -> str:
    """All text of a message's content (a string or a list of blocks), tool results excluded."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        str(block.get("text", ""))
        for block in content
        if isinstance(block, dict) and block.get("type") == "text"
    ]
    return "\n".join(parts)


def own_text(content: object) -> str:
    """A user message's own text: hook context and other ``<system-reminder>`` blocks left out.

    Hooks inject text into the same user message as the prompt; a directive that a hook
    echoes back (say, a recorded prompt inside a brief) must not fire again.
    """
    if isinstance(content, str):
        return "" if content.lstrip().startswith("<system-reminder>") else content
    if not isinstance(content, list):
        return ""
    parts = [
        str(block.get("text", ""))
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and not str(block.get("text", "")).lstrip().startswith("<system-reminder>")
    ]
    return "\n".join(parts)


def last_user_text(messages: list[Any]) -> tuple[int, str]:
    """Index and own text of the last user message that carries some (not only tool results)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, dict) and message.get("role") == "user":
            text = own_text(message.get("content"))
            if text.strip():
                return index, text
    return -1, ""


def tool_uses_after(messages: list[Any], index: int) -> int:
    count = 0
    for message in messages[index + 1 :]:
        if isinstance(message, dict) and message.get("role") == "assistant":
            content = message.get("content")
            if isinstance(content, list):
                count += sum(
                    1 for b in content if isinstance(b, dict) and b.get("type") == "tool_use"
                )
    return count


def decide(body: Mapping[str, Any], script: Script, state: _State) -> Answer:
    """The scripted answer to one ``/v1/messages`` request body."""
    messages = body.get("messages")
    messages = messages if isinstance(messages, list) else []
    index, prompt = last_user_text(messages)
    tokens = script.input_tokens
    if SUMMARY_REQUEST in prompt:
        return Answer("summary", ({"type": "text", "text": script.summary},), input_tokens=tokens)
    if body.get("output_config"):  # the TUI's session-title side request
        return Answer("title", ({"type": "text", "text": '{"title": "e2e session"}'},))
    if prompt.startswith(CONTINUED_PREFIX):
        # After compaction the prompt lives only inside the summary: never re-run it.
        return Answer("text", ({"type": "text", "text": AFTER_TOOL_ANSWER},), input_tokens=tokens)
    if "TOO_LONG" in prompt and state.once("TOO_LONG", prompt):
        return Answer("too_long", status=400, error=TOO_LONG_MESSAGE)
    if "HUGE_USAGE" in prompt and state.once("HUGE_USAGE", prompt):
        tokens = HUGE_INPUT_TOKENS
    match = _BASH.search(prompt)
    if match is not None:
        wanted = int(match.group(1) or 1)
        if tool_uses_after(messages, index) < wanted:
            block = {
                "type": "tool_use",
                "id": f"toolu_{uuid.uuid4().hex[:24]}",
                "name": "Bash",
                "input": {"command": match.group(2).strip(), "description": "Run a command"},
            }
            return Answer("tool_use", (block,), stop_reason="tool_use", input_tokens=tokens)
        return Answer("text", ({"type": "text", "text": AFTER_TOOL_ANSWER},), input_tokens=tokens)
    return Answer("text", ({"type": "text", "text": TEXT_ANSWER},), input_tokens=tokens)


def _message(body: Mapping[str, Any], answer: Answer) -> dict[str, Any]:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model", "claude-fake")),
        "content": list(answer.blocks),
        "stop_reason": answer.stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": answer.input_tokens, "output_tokens": 12},
    }


def sse_events(message: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streamed form of a complete message, in the Messages API's event order."""
    usage = dict(message["usage"])
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_delta",
            {"type": "content_block_delta", "index": index, "delta": delta},
        )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            # The CLI reads input_tokens from here too.
            "usage": {
                "input_tokens": usage["input_tokens"],
                "output_tokens": usage["output_tokens"],
            },
        },
    )
    yield "message_stop", {"type": "message_stop"}


class LoggedServer:
    """A threaded HTTP server on 127.0.0.1 that logs every request as a JSON line.

    ``start()`` serves in a daemon thread, ``stop()`` shuts it down; subclasses
    give ``_handler()`` (the request handler class) and their own answers.
    """

    def __init__(self, log_path: Path, port: int = 0) -> None:
        self.log_path = log_path
        self._log_lock = threading.Lock()
        self._count = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def log(self, entry: dict[str, Any]) -> None:
        with self._log_lock:
            self._count += 1
            with self.log_path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({"n": self._count, **entry}) + "\n")


class FakeApi(LoggedServer):
    """The Messages API fake: start() binds 127.0.0.1 on a free port, stop() shuts it down."""

    def __init__(self, log_path: Path, script: Script) -> None:
        self.script = script
        self.state = _State()
        super().__init__(log_path)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return  # the JSONL log is the record; stderr stays quiet

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("request-id", f"req_{uuid.uuid4().hex[:16]}")
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _json(self, status: int, data: object) -> None:
                self._send(status, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:
                api.log({"method": "GET", "path": self.path})
                self._json(200, {})

            def do_HEAD(self) -> None:
                api.log({"method": "HEAD", "path": self.path})
                self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_unparsed": raw.decode("utf-8", "replace")}
                path = self.path.split("?", 1)[0]
                if path == "/v1/messages/count_tokens":
                    api.log({"method": "POST", "path": self.path, "kind": "count_tokens"})
                    self._json(200, {"input_tokens": api.script.input_tokens})
                    return
                if path != "/v1/messages":
                    api.log({"method": "POST", "path": self.path, "kind": "not_found"})
                    self._json(
                        404,
                        {"type": "error", "error": {"type": "not_found_error", "message": "no"}},
                    )
                    return
                answer = decide(body, api.script, api.state)
                stream = bool(body.get("stream"))
                api.log(
                    {
                        "method": "POST",
                        "path": self.path,
                        "kind": answer.kind,
                        "stream": stream,
                        "status": answer.status,
                        "beta": self.headers.get("anthropic-beta", ""),
                        "body": body,
                    }
                )
                if answer.status != 200:
                    error = {"type": "invalid_request_error", "message": answer.error}
                    self._json(answer.status, {"type": "error", "error": error})
                    return
                message = _message(body, answer)
                if not stream:
                    self._json(200, message)
                    return
                chunks = [
                    f"event: {name}\ndata: {json.dumps(data)}\n\n"
                    for name, data in sse_events(message)
                ]
                self._send(200, "".join(chunks).encode(), "text/event-stream")

        return Handler


def read_log(path: Path) -> list[dict[str, Any]]:
    """The request log, oldest first; an absent log is empty."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
