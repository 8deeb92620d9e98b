"""Runs one end-to-end scenario inside a loopback-only network namespace.

Owns: bringing up ``lo``, proving that nothing can leave the machine (only ``lo`` exists
and a connect to a public address fails at once), starting the fake Messages API, running
the scenario's ``claude -p`` steps in order with a clean environment, and writing what
happened (each step's stdout, stderr, exit code and time, the session id, the transcript
path) to ``results.json`` in the scenario folder.
Must never: run outside a fresh network namespace (it aborts with exit 3 when the network
is reachable), inherit the caller's environment into ``claude``, or judge the results:
the pytest side asserts.

Started by the tests as ``unshare --net --fork -- <python> runner.py <spec.json>``.
"""

from __future__ import annotations

import errno
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_api import FakeApi, Script

PUBLIC_PROBE = ("1.1.1.1", 443)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ABORT = 3


def isolate() -> str:
    """Bring up lo and prove the namespace has no way out; the proof as one line."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True, env={"PATH": PATH})
    # /proc/self/net follows this process's namespace (/sys/class/net may not).
    lines = Path("/proc/self/net/dev").read_text(encoding="utf-8").splitlines()[2:]
    interfaces = sorted(line.split(":", 1)[0].strip() for line in lines)
    if interfaces != ["lo"]:
        raise SystemExit(f"runner: not isolated, interfaces {interfaces}")
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    started = time.monotonic()
    try:
        probe.connect(PUBLIC_PROBE)
    except OSError as exc:
        elapsed = time.monotonic() - started
        if exc.errno != errno.ENETUNREACH or elapsed > 0.5:
            raise SystemExit(f"runner: public connect did not fail at once: {exc!r}") from None
        return f"connect {PUBLIC_PROBE[0]}:{PUBLIC_PROBE[1]} -> errno {exc.errno} in {elapsed:.4f}s"
    finally:
        probe.close()
    raise SystemExit("runner: a public address is reachable; aborting")


def claude_env(spec: dict[str, Any], port: int, extra: dict[str, str]) -> dict[str, str]:
    """The whole environment of one ``claude`` run: nothing of the caller's leaks in."""
    env = {
        "PATH": PATH,
        "HOME": spec["home"],
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "ANTHROPIC_API_KEY": "sk-ant-test-dummy",
        "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_MAX_RETRIES": "1",
        "CLAUDE_CODE_TMPDIR": spec["tmpdir"],
        "TMPDIR": spec["tmpdir"],
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    env.update(spec.get("env", {}))
    env.update(extra)
    return env


def parse_stream(stdout: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The final ``result`` object and every event of a stream-json (or json) stdout."""
    events: list[dict[str, Any]] = []
    for raw in stdout.splitlines():
        line = raw.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    results = [e for e in events if e.get("type") == "result"]
    return (results[-1] if results else None), events


def transcript_of(home: Path, session_id: str) -> str | None:
    found = sorted((home / ".claude" / "projects").glob(f"*/{session_id}.jsonl"))
    return str(found[0]) if found else None


def run(spec: dict[str, Any]) -> dict[str, Any]:
    proof = isolate()
    folder = Path(spec["folder"])
    api = FakeApi(folder / "requests.jsonl", Script.from_dict(spec.get("fake", {}))).start()
    steps: list[dict[str, Any]] = []
    session_id = ""
    try:
        for step in spec["steps"]:
            args = [a.replace("{session_id}", session_id) for a in step["args"]]
            env = claude_env(spec, api.port, step.get("env", {}))
            started = time.monotonic()
            try:
                done = subprocess.run(
                    [spec["claude"], *args],
                    cwd=spec["project"],
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=float(step.get("timeout", 90)),
                    check=False,
                )
                rc, out, err = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as exc:
                rc, out, err = -9, str(exc.stdout or ""), f"timeout after {exc.timeout}s"
            seconds = round(time.monotonic() - started, 3)
            result, events = parse_stream(out)
            if result is not None and not session_id:
                session_id = str(result.get("session_id", ""))
            steps.append(
                {
                    "args": args,
                    "rc": rc,
                    "seconds": seconds,
                    "stdout": out,
                    "stderr": err,
                    "result": result,
                    "events": events,
                    "request_count": sum(1 for _ in _lines(folder / "requests.jsonl")),
                }
            )
    finally:
        api.stop()
    transcript = transcript_of(Path(spec["home"]), session_id) if session_id else None
    return {"isolation": proof, "session_id": session_id, "transcript": transcript, "steps": steps}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def main() -> int:
    spec = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    outcome = run(spec)
    Path(spec["folder"], "results.json").write_text(json.dumps(outcome, indent=1), "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
