"""A scripted fake of the OpenAI model APIs, and the in-namespace runner of the other hosts.

Owns: a threaded stdlib HTTP server on loopback that answers chat completions
(``POST …/chat/completions``, as pi's and OpenCode's OpenAI-compatible providers call it)
and the Responses API (``POST …/responses``, as Codex calls it), streamed as SSE or as one
JSON body, ``GET …/models`` with an empty list, 404 JSON for anything else, and a JSONL
log of every request. Also, when run as a script inside ``unshare --net --fork``, the
runner of one pi / OpenCode / Codex scenario: it proves isolation (``runner.isolate``),
starts the fake, runs the scenario's steps (plain commands, or pi's RPC mode driven over
stdin), and writes ``results.json``.
Must never: bind anything but 127.0.0.1, run a host outside a fresh network namespace,
inherit the caller's environment into a host, or judge the results (pytest asserts).

The fake reads the owner's prompt: the own text of the last *user* message, leaving out
texts a host or contextward injected (they start with one of ``Script.skip_prefixes``):

* a compaction request (its prompt or instructions hold ``Script.summary_markers``) gets
  ``Script.summary``, so a test can drop a constraint on purpose;
* ``BASH: <command>`` asks for one shell tool call; ``BASHx3: <command>`` asks for the same
  call three times in one turn (each result answered with the next call);
* ``TOO_LONG`` answers the first request of that prompt with HTTP 400 and an OpenAI-style
  context-length error (the overflow route to automatic compaction);
* ``HUGE_USAGE`` reports ``Script.huge_tokens`` input tokens in every answer to that
  prompt (the threshold route to automatic compaction);
* a prompt that starts with one of ``Script.continued_prefixes`` (a summary the host put
  in front after compaction) gets a short text: the directive inside is never re-run;
* anything else gets a short text answer.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from fake_api import LoggedServer

TEXT_ANSWER = "Hello from the fake OpenAI API."
AFTER_TOOL_ANSWER = "The command finished."
TOO_LONG_MESSAGE = (
    "This model's maximum context length is 200000 tokens. "
    "However, your messages resulted in 210000 tokens."
)
DEFAULT_SUMMARY = "## Goal\nSmall shell tasks. FAKE_COMPACT_SUMMARY_MARKER.\n"

_BASH = re.compile(r"\bBASH(?:x(\d+))?: ([^\n]+)")


@dataclass(frozen=True, slots=True)
class Script:
    """Per-scenario answers and how this host's requests are read."""

    summary: str = DEFAULT_SUMMARY
    input_tokens: int = 1200
    huge_tokens: int = 190_000
    #: The host's shell tool: its name, the argument that holds the command, and whether
    #: the command goes as one string or as an argv list (``["bash", "-lc", cmd]``).
    tool_name: str = "bash"
    tool_arg: str = "command"
    tool_argv: bool = False
    tool_extra: dict[str, Any] = field(default_factory=dict)
    summary_markers: tuple[str, ...] = ("<conversation>",)
    skip_prefixes: tuple[str, ...] = ("## contextward", "## Project state (contextward)")
    continued_prefixes: tuple[str, ...] = ()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Script:
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for name in ("summary_markers", "skip_prefixes", "continued_prefixes"):
            if name in known:
                known[name] = tuple(known[name])
        return cls(**known)


@dataclass(frozen=True, slots=True)
class Answer:
    kind: str
    text: str = ""
    command: str = ""
    input_tokens: int = 0


def _text(content: object) -> str:
    """All text of a content value: a string, or parts with ``text`` (any part type)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""


@dataclass(frozen=True, slots=True)
class Turn:
    """What one request says, whatever its API: the owner's prompt and the tool calls since."""

    prompt: str
    calls_since: int
    instructions: str
    all_text: str


def read_chat(body: Mapping[str, Any], script: Script) -> Turn:
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    index, prompt = -1, ""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].get("role") != "user":
            continue
        text = _text(messages[i].get("content"))
        if text.strip() and not text.lstrip().startswith(script.skip_prefixes):
            index, prompt = i, text
            break
    calls = sum(
        len(m.get("tool_calls") or [])
        for m in messages[index + 1 :]
        if m.get("role") == "assistant"
    )
    system = "\n".join(
        _text(m.get("content")) for m in messages if m.get("role") in ("system", "developer")
    )
    everything = "\n".join(_text(m.get("content")) for m in messages)
    return Turn(prompt, calls, system, everything)


def read_responses(body: Mapping[str, Any], script: Script) -> Turn:
    items = body.get("input")
    items = [{"role": "user", "content": items}] if isinstance(items, str) else items or []
    items = [i for i in items if isinstance(i, dict)]
    index, prompt = -1, ""
    for i in range(len(items) - 1, -1, -1):
        item = items[i]
        if item.get("role") != "user" or item.get("type", "message") != "message":
            continue
        text = _text(item.get("content"))
        if text.strip() and not text.lstrip().startswith(script.skip_prefixes):
            index, prompt = i, text
            break
    calls = sum(
        1 for i in items[index + 1 :] if i.get("type") in ("function_call", "local_shell_call")
    )
    instructions = str(body.get("instructions") or "") + "\n".join(
        _text(i.get("content")) for i in items if i.get("role") in ("system", "developer")
    )
    everything = "\n".join(_text(i.get("content")) for i in items)
    return Turn(prompt, calls, instructions, everything)


def decide(turn: Turn, script: Script, spent: set[str] | None = None) -> Answer:
    """The scripted answer; ``spent`` holds the prompts whose one-shot error was given."""
    tokens = script.input_tokens
    prompt = turn.prompt.strip()
    if len(prompt) > 1 and prompt[0] == prompt[-1] == '"':  # `opencode run` quotes the message
        turn = Turn(prompt[1:-1], turn.calls_since, turn.instructions, turn.all_text)
    if any(m in turn.prompt or m in turn.instructions for m in script.summary_markers):
        return Answer("summary", text=script.summary, input_tokens=tokens)
    if turn.prompt.lstrip().startswith(script.continued_prefixes) and script.continued_prefixes:
        return Answer("text", text=AFTER_TOOL_ANSWER, input_tokens=tokens)
    if "TOO_LONG" in turn.prompt and spent is not None and turn.prompt not in spent:
        spent.add(turn.prompt)
        return Answer("too_long", text=TOO_LONG_MESSAGE, input_tokens=tokens)
    if "HUGE_USAGE" in turn.prompt:  # every answer of that prompt: hosts read the last one
        tokens = script.huge_tokens
    match = _BASH.search(turn.prompt)
    if match is not None:
        if turn.calls_since < int(match.group(1) or 1):
            return Answer("tool_use", command=match.group(2).strip(), input_tokens=tokens)
        return Answer("text", text=AFTER_TOOL_ANSWER, input_tokens=tokens)
    return Answer("text", text=TEXT_ANSWER, input_tokens=tokens)


def tool_arguments(script: Script, command: str) -> str:
    value: object = ["bash", "-lc", command] if script.tool_argv else command
    return json.dumps({script.tool_arg: value, **script.tool_extra})


def chat_chunks(
    body: Mapping[str, Any], script: Script, answer: Answer
) -> Iterator[dict[str, Any]]:
    """The streamed chat-completions form of one answer, usage in the last chunk."""
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:20]}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": str(body.get("model", "fake")),
    }
    if answer.kind == "tool_use":
        call = {
            "index": 0,
            "id": f"call_{uuid.uuid4().hex[:20]}",
            "type": "function",
            "function": {
                "name": script.tool_name,
                "arguments": tool_arguments(script, answer.command),
            },
        }
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": answer.text}, "stop"
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    usage = {
        "prompt_tokens": answer.input_tokens,
        "completion_tokens": 12,
        "total_tokens": answer.input_tokens + 12,
    }
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    yield {**base, "choices": [], "usage": usage}


def chat_message(body: Mapping[str, Any], script: Script, answer: Answer) -> dict[str, Any]:
    chunks = list(chat_chunks(body, script, answer))
    delta = chunks[0]["choices"][0]["delta"]
    return {
        **{k: v for k, v in chunks[0].items() if k != "choices"},
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": delta,
                "finish_reason": chunks[1]["choices"][0]["finish_reason"],
            }
        ],
        "usage": chunks[2]["usage"],
    }


def response_object(body: Mapping[str, Any], script: Script, answer: Answer) -> dict[str, Any]:
    """One complete Responses API ``response`` for an answer."""
    if answer.kind == "tool_use":
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_{uuid.uuid4().hex[:20]}",
            "call_id": f"call_{uuid.uuid4().hex[:20]}",
            "name": script.tool_name,
            "arguments": tool_arguments(script, answer.command),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": f"msg_{uuid.uuid4().hex[:20]}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": answer.text, "annotations": []}],
        }
    return {
        "id": f"resp_{uuid.uuid4().hex[:20]}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": str(body.get("model", "fake")),
        "output": [item],
        "usage": {
            "input_tokens": answer.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 12,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": answer.input_tokens + 12,
        },
    }


def response_events(response: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """The streamed form of a complete response, in the Responses API's event order."""
    created = {**response, "status": "in_progress", "output": [], "usage": None}
    yield "response.created", {"type": "response.created", "response": created}
    for index, item in enumerate(response["output"]):
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": item},
        )
        if item["type"] == "message":
            text = item["content"][0]["text"]
            yield (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": text,
                },
            )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": index, "item": item},
        )
    yield "response.completed", {"type": "response.completed", "response": dict(response)}


class FakeOpenAI(LoggedServer):
    """The OpenAI fake: start() binds 127.0.0.1 (a free port unless given), stop() shuts it down."""

    def __init__(self, log_path: Path, script: Script, port: int = 0) -> None:
        self.script = script
        self.spent: set[str] = set()
        self.decide_lock = threading.Lock()
        super().__init__(log_path, port)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return  # the JSONL log is the record

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            def _json(self, status: int, data: object) -> None:
                self._send(status, json.dumps(data).encode(), "application/json")

            def do_GET(self) -> None:
                api.log({"method": "GET", "path": self.path})
                if self.path.split("?", 1)[0].endswith("/models"):
                    self._json(200, {"object": "list", "data": [], "models": []})
                else:
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    body = {"_unparsed": raw[:2000].decode("utf-8", "replace")}
                path = self.path.split("?", 1)[0]
                if path.endswith("/chat/completions"):
                    api_name, turn = "chat", read_chat(body, api.script)
                elif path.endswith("/responses"):
                    api_name, turn = "responses", read_responses(body, api.script)
                else:
                    api.log({"method": "POST", "path": self.path, "kind": "not_found"})
                    self._json(404, {"error": {"message": "not found", "type": "not_found"}})
                    return
                with api.decide_lock:
                    answer = decide(turn, api.script, api.spent)
                stream = bool(body.get("stream"))
                api.log(
                    {
                        "method": "POST",
                        "path": self.path,
                        "api": api_name,
                        "kind": answer.kind,
                        "stream": stream,
                        "prompt": turn.prompt,
                        "body": body,
                    }
                )
                if answer.kind == "too_long":
                    error = {
                        "message": answer.text,
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                    self._json(400, {"error": error})
                    return
                if api_name == "chat":
                    if not stream:
                        self._json(200, chat_message(body, api.script, answer))
                        return
                    events = [
                        f"data: {json.dumps(c)}\n\n" for c in chat_chunks(body, api.script, answer)
                    ]
                    events.append("data: [DONE]\n\n")
                else:
                    response = response_object(body, api.script, answer)
                    if not stream:
                        self._json(200, response)
                        return
                    events = [
                        f"event: {name}\ndata: {json.dumps(data)}\n\n"
                        for name, data in response_events(response)
                    ]
                self._send(200, "".join(events).encode(), "text/event-stream")

        return Handler


def read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


# --- the runner side: only ever executed inside ``unshare --net --fork`` -----------------

BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def host_env(spec: Mapping[str, Any], port: int, extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of one host process: nothing of the caller's leaks in."""
    env = {
        "PATH": f"{spec.get('path_prefix', '')}{BASE_PATH}",
        "HOME": spec["home"],
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "TMPDIR": spec["tmpdir"],
        "GIT_CONFIG_NOSYSTEM": "1",
        "FAKE_BASE_URL": f"http://127.0.0.1:{port}/v1",
    }
    env.update(spec.get("env", {}))
    env.update(extra)
    return {k: v.replace("{port}", str(port)) for k, v in env.items()}


def _requests_so_far(folder: Path) -> int:
    path = folder / "requests.jsonl"
    return len(path.read_text(encoding="utf-8").splitlines()) if path.exists() else 0


def run_command(step: Mapping[str, Any], spec: Mapping[str, Any], port: int) -> dict[str, Any]:
    started = time.monotonic()
    try:
        done = subprocess.run(
            step["argv"],
            cwd=spec["project"],
            env=host_env(spec, port, step.get("env", {})),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=float(step.get("timeout", 90)),
            check=False,
        )
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else str(exc.stdout or "")
        rc, err = -9, f"timeout after {exc.timeout}s"
    return {"rc": rc, "stdout": out, "stderr": err, "seconds": round(time.monotonic() - started, 3)}


def run_rpc(step: Mapping[str, Any], spec: Mapping[str, Any], port: int) -> dict[str, Any]:
    """pi's RPC mode: send each command, wait for what ends it, then close stdin."""
    started = time.monotonic()
    deadline = started + float(step.get("timeout", 120))
    proc = subprocess.Popen(
        step["argv"],
        cwd=spec["project"],
        env=host_env(spec, port, step.get("env", {})),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    stdout = proc.stdout
    events: list[dict[str, Any]] = []
    buffer = b""
    marks: list[int] = []
    timed_out = False

    def wait_for(done: Any) -> bool:
        nonlocal buffer
        while time.monotonic() < deadline:
            ready, _, _ = select.select([stdout], [], [], 0.2)
            if not ready:
                if proc.poll() is not None:
                    return False
                continue
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                return False
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                try:
                    event = json.loads(line.decode("utf-8").rstrip("\r"))
                except (json.JSONDecodeError, UnicodeDecodeError):
                    continue
                if isinstance(event, dict):
                    events.append(event)
                    if done(event):
                        return True
        return False

    for index, command in enumerate(step["commands"]):
        tag = f"c{index}"
        if command["type"] == "wait":  # not sent: wait for an event pi emits by itself
            ok = wait_for(lambda e, name=command["event"]: e.get("type") == name)
            marks.append(_requests_so_far(Path(spec["folder"])))
            if not ok:
                timed_out = True
                break
            continue
        proc.stdin.write((json.dumps({**command, "id": tag}) + "\n").encode())
        proc.stdin.flush()
        if command["type"] == "prompt":
            ok = wait_for(
                lambda e, tag=tag: (
                    (e.get("type") == "response" and e.get("id") == tag and not e.get("success"))
                    or e.get("type") == "agent_end"
                )
            )
        else:
            ok = wait_for(lambda e, tag=tag: e.get("type") == "response" and e.get("id") == tag)
        marks.append(_requests_so_far(Path(spec["folder"])))
        if not ok:
            timed_out = True
            break
    proc.stdin.close()
    try:
        proc.wait(timeout=max(5.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        timed_out = True
    rest = proc.stdout.read()
    for line in (buffer + rest).splitlines():
        try:
            events.append(json.loads(line))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
    return {
        "rc": -9 if timed_out else proc.returncode,
        "events": events,
        "marks": marks,
        "stderr": proc.stderr.read().decode("utf-8", "replace"),
        "seconds": round(time.monotonic() - started, 3),
    }


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from runner import isolate

    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    proof = isolate()
    folder = Path(spec["folder"])
    script = Script.from_dict(spec.get("fake", {}))
    # A fresh namespace has every port free: a fixed one lets config files name it.
    api = FakeOpenAI(folder / "requests.jsonl", script, int(spec.get("port", 0))).start()
    steps: list[dict[str, Any]] = []
    try:
        for step in spec["steps"]:
            result = (
                run_rpc(step, spec, api.port)
                if "commands" in step
                else run_command(step, spec, api.port)
            )
            result["request_count"] = _requests_so_far(folder)
            steps.append(result)
    finally:
        api.stop()
    outcome = {"isolation": proof, "port": api.port, "steps": steps}
    (folder / "results.json").write_text(json.dumps(outcome, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
