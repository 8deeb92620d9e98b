"""Hostile input to the store, guard, bridge and host commands (an audit of everything but
inspection): each case was a traceback, a wedged store, a destroyed store, a secret printed
or an escape sequence reaching the terminal before it was fixed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.hosts.claude_install import ENTRY_SCRIPT
from contextward.secret_hints import may_hold_secret
from contextward.store import Store

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0"
SRC = str(Path(__file__).parents[1] / "src")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def process(
    args: list[str | bytes], cwd: Path, env: dict[str, str | bytes] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The real command line (argv and environment may carry bytes that are not UTF-8)."""
    full = {**os.environ, "PYTHONPATH": SRC, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "contextward", *args],
        cwd=cwd,
        env=full,  # type: ignore[arg-type]
        capture_output=True,
        timeout=120,
        check=False,
    )


def hook(project: Path, payload: str) -> None:
    subprocess.run(
        [sys.executable, "-S", str(ENTRY_SCRIPT), "claude"],
        input=payload.encode(),
        capture_output=True,
        timeout=60,
        check=True,
    )


def bridge(project: Path, *frames: str) -> list[dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "contextward", "bridge", "--stdio"],
        input="".join(frame + "\n" for frame in frames).encode(),
        cwd=project,
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert b"Traceback" not in done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def request(rid: str, operation: str, **fields: str) -> str:
    body = ",".join(f'"{key}":{value}' for key, value in fields.items())
    head = f'{{"protocol_version":1,"type":"request","request_id":"{rid}","operation":"{operation}"'
    return head + ("," + body if body else "") + "}"


# --- a store that must keep working ---------------------------------------------------------


def test_a_spooled_prompt_with_a_lone_surrogate_does_not_wedge_the_store(project: Path) -> None:
    assert run("init")[0] == 0
    start = {"hook_event_name": "SessionStart", "session_id": "s1", "cwd": str(project)}
    hook(project, json.dumps({**start, "source": "startup"}))
    prompt = (
        '{"hook_event_name":"UserPromptSubmit","session_id":"s1","cwd":"'
        + str(project)
        + '","prompt":"please fix the build","prompt_id":"\\ud800"}'
    )
    hook(project, prompt)
    for args in (["status"], ["doctor"], ["note", "note", "still works"]):
        code, _, err = run(*args)
        assert code == 0 and "Traceback" not in err, args
    with Store.open(project) as store:
        assert [p.text for p in store.prompts.list(limit=5)] == ["please fix the build"]


def test_an_export_into_the_store_is_refused_and_the_store_kept(project: Path) -> None:
    run("init")
    run("note", "note", "keep me")
    code, _, err = run("export", "-o", ".contextward/contextward.db")
    assert code == 2 and "is inside the store" in err
    assert "keep me" in run("journal")[1]


def test_bytes_that_are_not_utf8_in_a_session_id_are_stored_replaced(project: Path) -> None:
    run("init")
    done = process(["note", "note", "hello"], project, {"CONTEXTWARD_SESSION_ID": b"s\xff"})
    assert done.returncode == 0, done.stderr
    for args in (["intent", "--session", b"s\xff"], ["brief", "--session", b"s\xff"]):
        done = process(list(args), project)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, args


def test_a_config_number_too_long_is_a_warning_and_a_byte_order_mark_is_fine(
    project: Path,
) -> None:
    run("init")
    config = project / ".contextward" / "config.toml"
    config.write_text(f"retention_journal = {'9' * 5000}\n")
    code, _, err = run("status")  # exit 1: a warning stands
    assert code == 1 and "number too long" in err and "Traceback" not in err
    config.write_bytes(b"\xef\xbb\xbfretention_journal = 300\n")
    assert "warning" not in run("doctor")[1]


def test_claude_settings_with_a_lone_surrogate_are_refused_in_one_line(project: Path) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"env": {"X": "\\ud800"}}')
    code, _, err = run("install", "claude")
    assert code == 2 and err.count("\n") == 1 and "unpaired surrogate" in err
    assert settings.read_text() == '{"env": {"X": "\\ud800"}}'
    settings.write_bytes(b'\xef\xbb\xbf{"model": "x"}')
    assert run("install", "claude")[0] == 0
    assert json.loads(settings.read_text())["model"] == "x"


def test_orientation_in_a_folder_whose_name_is_not_utf8(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/r\xff"
    os.mkdir(folder)
    subprocess.run(["git", "init", "-q", folder], check=True)
    done = process(["orientation"], Path(os.fsdecode(folder)))
    assert done.returncode == 0 and done.stdout.startswith(b"orientation: r\xef\xbf\xbd")


# --- the bridge keeps answering ---------------------------------------------------------------


def test_a_message_cut_inside_an_emoji_is_inspected_not_refused(project: Path) -> None:
    """Forced fix: the pi plugin's compaction waited 90 s for an answer that never named
    its request, then compacted with no snapshot."""
    messages = '[{"role":"user","content":"Never push to main. \\ud83d"}]'
    (frame,) = bridge(project, request("r1", "inspect", messages=messages))
    assert frame["request_id"] == "r1" and frame["ok"] is True
    assert "Never push to main." in json.dumps(frame["result"])


def test_the_bridge_answers_bad_values_and_goes_on(project: Path) -> None:
    frames = bridge(
        project,
        request("\\ud800", "ping"),
        request("a", "command_outcome", command='"make"', exit_code="1" + "0" * 30),
        request("b", "ping", timeout_ms="1" + "0" * 400),
        request("c", "ping"),
    )
    # A request refused as it arrives is answered then, maybe before one still running:
    # every answer is matched by its id, as a host does.
    answers = {f["request_id"]: f for f in frames}
    assert len(answers) == len(frames) == 4
    # Half a surrogate pair (a JavaScript host's string cut inside an emoji) is repaired,
    # never a reason to refuse the request or to answer it without its id.
    assert answers["\ufffd"]["ok"] is True
    # A timeout of 400 digits is refused at once: answered by id.
    assert answers["a"]["code"] == "invalid_request"
    assert answers["b"]["error"] == "timeout_ms must be at most 600000"
    assert answers["c"]["ok"] is True


# --- secrets --------------------------------------------------------------------------------


def test_a_verify_digest_never_starts_inside_a_secret(project: Path) -> None:
    run("init")
    script = project / "gen.py"
    script.write_text(
        "import sys\n"
        f"secret = {TOKEN!r}\n"
        "out = sys.stdout.buffer\n"
        "out.write(b'build log: token ' + secret.encode() + b'\\n')\n"
        "tail = b'\\nError: the build failed\\n'\n"
        "filler = 65536 - (len(secret) + 1) + 20 - len(tail)\n"
        # Colour codes the digest strips: what is left of the window is the token's tail.
        "out.write(b'\\x1b[0m' * (filler // 4) + b' ' * (filler % 4) + tail)\n"
    )
    code, out, _ = run("verify", "--", f"{sys.executable} gen.py; exit 1")
    assert code == 1 and "the build failed" in out
    exported = subprocess.run(
        [sys.executable, "-m", "contextward", "export"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": SRC},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert TOKEN[-12:] not in out + exported


def test_secrets_are_masked_in_tags_refusals_contracts_tables_and_errors(
    project: Path,
) -> None:
    run("init")
    code, out, err = run("note", "note", "hello", "--tag", TOKEN)
    assert code == 0 and "looked like a secret" in out + err
    assert TOKEN[:12] not in run("journal")[1] + run("journal", "--json")[1]
    (project / ".contextward" / "contract.md").write_text(f"- deploy with token {TOKEN}\n")
    for args in (["contract", "list"], ["contract", "list", "--json"]):
        assert TOKEN not in run(*args)[1], args
    for _ in range(3):
        run("verify", "--", f"GH={TOKEN} false")
    code, out, _ = run("verify", "--", f"GH={TOKEN} false")
    assert "refused" in out and TOKEN not in out
    code, _, err = run("evidence", "--id", f"{TOKEN}\x1b]0;owned\x07")
    assert code == 2 and TOKEN not in err and "\x1b" not in err and err.count("\n") == 1


def test_the_check_table_masks_before_it_cuts(project: Path, tmp_path: Path) -> None:
    snapshot = {
        "schemaVersion": 1,
        "items": [
            {
                "id": "c-1",
                "kind": "constraint",
                "content": f"The deploy key is {TOKEN}; keep it",
                "critical": True,
            }
        ],
    }
    path = tmp_path / "snap.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(snapshot).encode())  # a BOM is fine
    context = tmp_path / "context.md"
    context.write_text("nothing\n")
    code, out, err = run("check", "--snapshot", str(path), "--context", str(context))
    assert code == 1 and "c-1" in out and TOKEN[:10] not in out
    code, _, err = run("check", "--snapshot", "-", "--context", "-")
    assert code == 2 and "both be standard input" in err


def test_a_short_password_flag_takes_the_hooks_masking_path() -> None:
    assert may_hold_secret("run it with --pass hunter2x please")


# --- what reaches the terminal ----------------------------------------------------------------


def test_stored_text_reaches_the_terminal_without_escapes(project: Path) -> None:
    run("init")
    hostile = "title \x1b]0;pwned\x07 clear \x1b[2J bell \x07 cr \r flip \u202e done"
    assert run("note", "note", hostile)[0] == 0
    for args in (["journal"], ["recall", "title"], ["brief"], ["status"]):
        code, out, _ = run(*args)
        assert code == 0, args
        assert not any(ch in out for ch in "\x1b\x07\r\u202e"), args
    assert "title clear" in run("journal")[1].replace("  ", " ")


# --- hooks and the MCP server (a third audit) -------------------------------------------


def test_a_fifo_named_as_a_transcript_never_hangs_a_hook(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    fifo = tmp_path / "rollout.jsonl"
    os.mkfifo(fifo)
    base = {"session_id": "s1", "cwd": str(tmp_path), "transcript_path": str(fifo)}
    cases = [
        ("codex", {"hook_event_name": "PreCompact", "trigger": "auto"}),
        ("codex", {"hook_event_name": "PostCompact", "trigger": "auto"}),
        (
            "codex",
            {
                "hook_event_name": "PostToolUse",
                "tool_name": "Bash",
                "tool_use_id": "c1",
                "tool_input": {"command": "make test"},
                "tool_response": "done",
            },
        ),
        ("claude", {"hook_event_name": "PreCompact", "trigger": "auto"}),
    ]
    for host, fields in cases:
        done = subprocess.run(  # a hang is a TimeoutExpired: the test fails
            [sys.executable, "-m", "contextward", "hook", host],
            input=json.dumps({**base, **fields}).encode(),
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": SRC, "HOME": str(tmp_path / "home")},
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0 and b"Traceback" not in done.stderr, (host, fields)


def test_pre_compact_reads_the_end_of_a_huge_transcript(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextward.hosts import hooks
    from test_hosts_claude import fire, transcript

    monkeypatch.setattr(hooks, "TRANSCRIPT_TAIL", 4000)
    turns = [("user", "Never deploy on Fridays.")]
    turns += [("assistant", f"Looked at module {n} of the billing service.") for n in range(40)]
    turns += [("user", "Never push to main; open a PR instead.")]
    path = transcript(project / "t.jsonl", turns)
    assert path.stat().st_size > 4000
    code, guidance, _ = fire(project, "PreCompact", trigger="auto", transcript_path=str(path))
    assert code == 0 and "Never push to main; open a PR instead." in guidance
    assert "Never deploy on Fridays." not in guidance


def test_past_the_end_read_the_owners_recorded_prompts_stand_in(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A rule said before the part read was lost without a word; the prompt hooks had
    # recorded it.
    from contextward.hosts import hooks
    from test_hosts_claude import fire, transcript

    monkeypatch.setattr(hooks, "TRANSCRIPT_TAIL", 4000)
    turns = [("user", "Never touch the legacy ingest/v1 directory.")]
    turns += [("assistant", f"Ported module {n} of the ingest pipeline.") for n in range(60)]
    turns += [("user", "Never push to main; open a PR instead.")]
    path = transcript(project / "t.jsonl", turns)
    for said in (
        "Never touch the legacy ingest/v1 directory.",
        "Never push to main; open a PR instead.",
    ):
        fire(project, "UserPromptSubmit", prompt=said)
    code, guidance, _ = fire(project, "PreCompact", trigger="auto", transcript_path=str(path))
    assert code == 0 and "Never touch the legacy ingest/v1 directory." in guidance
    assert guidance.startswith(
        "(contextward read the last 0.0038147 MiB of the transcript, and the owner's 2 prompts "
        "recorded this session.)"
    )
    assert guidance.count("Never push to main; open a PR instead.") == 1  # merged


def test_codex_keeps_the_snapshot_when_the_transcript_path_is_unusable(project: Path) -> None:
    import io

    from contextward.hosts import codex

    # One session each: a session's second snapshot with the same (empty) items is the
    # same compaction fired again, and is not stored twice.
    for session, bad in (("s1", "a\x00b"), ("s2", "\ud800")):
        payload = {"session_id": session, "cwd": str(project), "hook_event_name": "PreCompact"}
        data = json.dumps({**payload, "transcript_path": bad, "trigger": "auto"}).encode()
        err = io.StringIO()
        assert codex.run(io.BytesIO(data), io.StringIO(), err, env={}) == 0
        assert "failed" not in err.getvalue(), bad
    with Store.open(project) as store:
        assert len(store.snapshots.list()) == 2


def test_ids_a_hook_payload_carries_are_stored_repaired_and_never_as_secrets(
    project: Path,
) -> None:
    import io

    from contextward.hosts import claude_code

    secret_session = TOKEN
    for sid, prompt_id in ((secret_session, "p1"), ("x\ud800", "password=hunter2xyz")):
        payload = {
            "session_id": sid,
            "cwd": str(project),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "please fix the build",
            "prompt_id": prompt_id,
        }
        err = io.StringIO()
        code = claude_code.run(io.BytesIO(json.dumps(payload).encode()), io.StringIO(), err, env={})
        assert code == 0 and "failed" not in err.getvalue(), sid
    raw = (project / ".contextward" / "contextward.db").read_bytes()
    assert TOKEN.encode() not in raw and b"hunter2xyz" not in raw
    with Store.open(project) as store:
        assert len(store.prompts.list(limit=10)) == 2


@pytest.mark.anyio
async def test_mcp_errors_never_repeat_a_secret_or_an_unknown_tool_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp import Client

    from contextward.hosts.mcp import build_server

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setenv("CONTEXTWARD_PROJECT_DIR", str(tmp_path))
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "personal"))
    async with Client(build_server()) as client:
        for name, args in (
            ("load", {"task": f"{TOKEN}\x1b]0;x\x07"}),
            ("recall", {"query": "x", "type": TOKEN}),
            (TOKEN, {}),
        ):
            result = await client.call_tool(name, args)
            text = result.content[0].text  # type: ignore[union-attr]
            assert result.is_error and TOKEN not in text and "\x1b" not in text, name


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_bridge_errors_never_repeat_what_the_request_sent(project: Path) -> None:
    messages = '[{"role":"user","content":"Never push to main."}]'
    said = "Never push to main, this is conversation content"
    frames = bridge(
        project,
        request("f", "inspect", messages=messages, format='"my password is hunter2hunter2"'),
        request("d", "guidance", messages=messages, decisions=f'[{{"candidate_id":"{said}"}}]'),
    )
    assert [f["request_id"] for f in frames] == ["f", "d"]
    assert not any(f["ok"] for f in frames)
    text = json.dumps(frames)
    assert "hunter2" not in text and "password" not in text and "conversation content" not in text
