"""Hardening (issue 9, item 1): every parser takes hostile input without crashing.

Each parser either answers, raises its own error with a stable ``code``, or
counts a skip. A hook never lets an internal error reach the fail-open net:
the net exists for the unforeseen, so a payload that trips it is a bug even
though the host would never notice. Parsers covered:

- transcript readers: ``open_transcript`` with each format and with detection;
- bridge frames: ``read_line`` + ``parse_frame``, and the serve loop on raw bytes;
- hook payloads: ``claude_code.run``, ``codex.run``, ``gemini.run`` with arbitrary
  JSON and arbitrary bytes;
- STATE.md: ``StateDocument.parse`` + ``view`` + edits, and the file loader;
- configuration: ``load_config`` over arbitrary TOML layers;
- snapshots: ``Snapshot.from_dict`` / ``from_json``;
- verifier output: ``normalize_findings``;
- ``minijson.loads`` (agrees with ``json.loads`` wherever both accept).

The default profile keeps example counts small; ``-m slow`` runs the same
properties with many more examples.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextward import minijson
from contextward.core import ContextGuardError, ContextItem, Snapshot
from contextward.core.verify import normalize_findings
from contextward.hosts import claude_code, codex, gemini
from contextward.hosts.bridge import Bridge
from contextward.hosts.bridge_errors import BridgeError
from contextward.hosts.bridge_frame import MAX_FRAME_BYTES, parse_frame, read_line
from contextward.hosts.bridge_ops import default_registry
from contextward.inspect import InspectError, open_transcript
from contextward.inspect.readers import READERS
from contextward.state import file as state_file
from contextward.state.document import StateDocument, parse_field, parse_log_entry
from contextward.store.config import load_config

FAST = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HEAVY = settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


# -- transcripts ----------------------------------------------------------------

MESSAGE_KEYS = ("id", "role", "content", "tool_name", "is_error", "type", "text", "message")
ROLES = st.sampled_from(["user", "assistant", "system", "tool", "developer", "bogus"])
message_like = st.fixed_dictionaries(
    {},
    optional={
        **dict.fromkeys(MESSAGE_KEYS, json_values),
        "role": ROLES,
        "content": st.text(max_size=80)
        | st.lists(
            st.fixed_dictionaries(
                {},
                optional={"type": st.sampled_from(["text", "tool_use", "x"]), "text": json_values},
            ),
            max_size=3,
        ),
        "uuid": st.text(max_size=8),
        "sessionId": st.text(max_size=8),
        "isCompactSummary": st.booleans(),
        "tool_calls": json_values,
    },
)


blocks = st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "tool_use", "tool_result", "thinking", "image"])},
        optional={
            "text": json_values,
            "content": json_values,
            "name": json_values,
            "input": json_values,
            "id": json_values,
        },
    )
    | json_values,
    max_size=3,
)
inner_message = st.fixed_dictionaries(
    {},
    optional={
        "role": ROLES | json_values,
        "content": st.text(max_size=40) | blocks | json_values,
        "toolName": json_values,
    },
)
host_record = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "user",
                "assistant",
                "system",
                "summary",
                "message",
                "session",
                "compaction",
                "model_change",
            ]
        )
    },
    optional={
        "uuid": st.text(max_size=6) | json_values,
        "message": inner_message | json_values,
        "isCompactSummary": json_values,
        "summary": json_values,
        "leafUuid": json_values,
        "subtype": json_values,
        "content": json_values,
        "id": json_values,
    },
)


def _encodings(records: list[Any]) -> st.SearchStrategy[bytes]:
    as_list = json.dumps(records).encode()
    as_wrapper = json.dumps({"messages": records}).encode()
    as_lines = b"\n".join(json.dumps(r).encode() for r in records)
    return st.sampled_from([as_list, as_wrapper, as_lines])


transcript_bytes = (
    st.lists(message_like | host_record | json_values, max_size=6).flatmap(_encodings)
    | st.binary(max_size=300)
    | st.lists(
        st.sampled_from(
            [
                b"{",
                b"}",
                b"[",
                b"]",
                b'"role"',
                b":",
                b",",
                b"\n",
                b"\xff",
                b"\xef\xbb\xbf",
                b'"user"',
            ]
        ),
        max_size=30,
    ).map(b"".join)
)


def test_pi_reader_survives_an_unhashable_role() -> None:
    data = b'{"type": "message", "message": {"content": "", "role": []}}'
    transcript = open_transcript(io.BytesIO(data), "pi")
    assert list(transcript.messages) == []


def test_detect_survives_an_unhashable_type_field() -> None:
    # A list "type" names no format; the record still reads as a generic message.
    for raw in (b'{"role": "user", "type": []}', b'{"role": "user", "type": {}}'):
        transcript = open_transcript(io.BytesIO(raw), None)
        assert transcript.format == "messages"
        assert all(isinstance(m.text, str) for m in transcript.messages)


def test_codex_reader_survives_an_unhashable_type_field() -> None:
    if "codex" not in READERS:
        pytest.skip("no codex reader in this tree")
    transcript = open_transcript(io.BytesIO(b'{"role": "user", "type": []}'), "codex")
    assert list(transcript.messages) == []


def _drain_transcript(data: bytes, fmt: str | None) -> None:
    try:
        transcript = open_transcript(io.BytesIO(data), fmt, max_record=4096)
        for message in transcript.messages:
            assert isinstance(message.id, str) and message.id
            assert isinstance(message.text, str)
    except InspectError as exc:
        assert exc.code in {"empty_input", "unknown_format"}


@pytest.mark.parametrize("fmt", [None, *sorted(READERS)])
@FAST
@given(data=transcript_bytes)
def test_transcript_readers_never_crash(fmt: str | None, data: bytes) -> None:
    _drain_transcript(data, fmt)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", [None, *sorted(READERS)])
@HEAVY
@given(data=transcript_bytes)
def test_transcript_readers_never_crash_heavy(fmt: str | None, data: bytes) -> None:
    _drain_transcript(data, fmt)


def test_transcript_reader_counts_skips_for_bad_lines() -> None:
    good = json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user", "content": "hi"}})
    data = (good + "\n{not json\n\xff\xfe\n" + good.replace("u1", "u2") + "\n").encode("latin-1")
    transcript = open_transcript(io.BytesIO(data), None)
    messages = list(transcript.messages)
    assert [m.text for m in messages] == ["hi", "hi"]
    assert transcript.skips.total() >= 2


# -- bridge frames --------------------------------------------------------------

frame_like = st.fixed_dictionaries(
    {},
    optional={
        "protocol_version": st.sampled_from([1, 2, "1", None, True, 1.0]),
        "type": st.sampled_from(
            ["request", "result", "error", "provider_response", "provider_request", 3]
        ),
        "request_id": json_values,
        "operation": st.sampled_from(["ping", "version", "inspect", "nope", ""]) | json_values,
        "messages": json_values,
        "timeout_ms": json_values,
        "ok": json_values,
        "data": json_values,
    },
)
frame_bytes = frame_like.map(lambda f: json.dumps(f).encode()) | st.binary(max_size=200)


@FAST
@given(data=frame_bytes)
def test_parse_frame_raises_only_bridge_errors(data: bytes) -> None:
    try:
        frame = parse_frame(data)
    except BridgeError as exc:
        assert exc.code and isinstance(exc.code, str)
    else:
        assert frame.type in ("request", "provider_response")


@FAST
@given(chunks=st.lists(frame_bytes, max_size=5))
def test_bridge_loop_answers_every_line_with_one_frame(chunks: list[bytes]) -> None:
    """Whatever arrives, each non-blank line gets a JSON frame back and the loop ends."""
    # ping/version only: no project store is touched by the operations reachable here.
    lines = [c.replace(b"\n", b" ") for c in chunks]
    lines = [line for line in lines if b'"inspect"' not in line]
    out = io.BytesIO()
    log = io.StringIO()
    bridge = Bridge(default_registry(), out, log=log, default_timeout=5.0)
    bridge.serve(io.BytesIO(b"".join(line + b"\n" for line in lines)))
    frames = [json.loads(line) for line in out.getvalue().splitlines()]
    for frame in frames:
        assert frame["protocol_version"] == 1
        assert frame["type"] in ("result", "error")
    assert len(frames) <= len(lines)
    assert "Traceback" not in log.getvalue()


OPERATIONS = [
    "inspect",
    "guidance",
    "loop_check",
    "command_outcome",
    "record_event",
    "brief",
    "state_block",
]
operation_request = st.fixed_dictionaries(
    {
        "protocol_version": st.just(1),
        "type": st.just("request"),
        "request_id": st.integers(0, 10**9),
        "operation": st.sampled_from(OPERATIONS),
    },
    optional={
        "messages": st.lists(message_like | json_values, max_size=5) | json_values,
        "decisions": json_values,
        "command": st.text(max_size=20) | json_values,
        "exit_code": json_values,
        "session_id": st.just("s") | json_values,
        "event": st.sampled_from(["session_start", "tool_call", "session_end", "session_idle"])
        | json_values,
        "key": json_values,
        "tool": json_values,
        "digest": json_values,
        "transcript_path": json_values,
        "timeout_ms": json_values,
    },
)


@FAST
@given(
    frames=st.lists(operation_request, min_size=1, max_size=3, unique_by=lambda f: f["request_id"])
)
def test_bridge_operations_answer_hostile_requests_with_a_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, frames: list[dict[str, Any]]
) -> None:
    """Store-backed operations too: one answer per request, never an internal error."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))
    out, log = io.BytesIO(), io.StringIO()
    Bridge(default_registry(), out, log=log, default_timeout=10.0).serve(
        io.BytesIO(b"".join(json.dumps(f).encode() + b"\n" for f in frames))
    )
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted(a["request_id"] for a in answers) == sorted(f["request_id"] for f in frames)
    for answer in answers:
        assert answer.get("code") != "internal_error", (answer, log.getvalue())


def test_read_line_discards_an_oversized_frame_and_reads_on() -> None:
    stream = io.BytesIO(b"x" * (MAX_FRAME_BYTES + 10) + b"\n" + b'{"a": 1}\n')
    first = read_line(stream)
    assert first is not None and first.too_long and first.data == b""
    second = read_line(stream)
    assert second is not None and second.data.strip() == b'{"a": 1}'
    assert read_line(stream) is None


# -- hook payloads ----------------------------------------------------------------

CLAUDE_EVENTS = list(claude_code.HANDLERS)
GEMINI_EVENTS = [
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "SessionEnd",
]


@pytest.fixture(scope="module")
def hook_world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    root = tmp_path_factory.mktemp("hookfuzz")
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    home = root / "home"
    home.mkdir()
    transcript = root / "transcript.jsonl"
    return project, {"CONTEXTWARD_HOME": str(home), "PATH": os.environ.get("PATH", "")}, transcript


tool_input = st.fixed_dictionaries(
    {},
    optional={
        "command": st.sampled_from(
            ["pytest -q", "ls", "rm -rf /", "git push --force origin main", ""]
        )
        | json_values
        | st.lists(st.text(max_size=10), max_size=3),
        "file_path": st.sampled_from(["a.py", "../../etc/passwd", "/etc/passwd", "", "x/../../y"])
        | json_values,
        "notebook_path": json_values,
    },
)


def _payloads(events: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries(
        {"hook_event_name": st.sampled_from(events)},
        optional={
            "session_id": st.sampled_from(["s1", "s2", "", "../../x"]) | json_values,
            "prompt": st.text(max_size=60) | json_values,
            "prompt_id": json_values,
            "source": st.sampled_from(["startup", "resume", "compact", "clear"]) | json_values,
            "tool_name": st.sampled_from(["Bash", "Edit", "Write", "run_shell_command", "shell"])
            | json_values,
            "tool_input": tool_input | json_values,
            "tool_response": st.fixed_dictionaries(
                {},
                optional={
                    "stdout": json_values,
                    "stderr": json_values,
                    "exit_code": json_values,
                    "exitCode": json_values,
                },
            )
            | json_values,
            "tool_use_id": st.text(max_size=8) | json_values,
            "error": st.text(max_size=30) | json_values,
            "trigger": json_values,
            "transcript_path": st.sampled_from(["TRANSCRIPT", "/nonexistent", ""]) | json_values,
            "last_assistant_message": st.text(max_size=60) | json_values,
            "compact_summary": st.text(max_size=60) | json_values,
            "timestamp": json_values,
        },
    )


ADAPTERS: list[tuple[str, Callable[..., int], list[str]]] = [
    ("claude", claude_code.run, CLAUDE_EVENTS),
    ("codex", codex.run, CLAUDE_EVENTS),
    ("gemini", gemini.run, GEMINI_EVENTS),
]


def _fire(
    run: Callable[..., int],
    payload: dict[str, Any] | bytes,
    world: tuple[Path, dict[str, str], Path],
    raw: bytes,
) -> tuple[str, str]:
    project, env, transcript = world
    transcript.write_bytes(raw)
    if isinstance(payload, dict):
        payload = dict(payload)
        payload.setdefault("cwd", str(project))
        if payload.get("transcript_path") == "TRANSCRIPT":
            payload["transcript_path"] = str(transcript)
        data = json.dumps(payload).encode()
    else:
        data = payload
    out, err = io.StringIO(), io.StringIO()
    assert run(stdin=io.BytesIO(data), stdout=out, stderr=err, env=env) == 0
    return out.getvalue(), err.getvalue()


def _check_answer(host: str, out: str, err: str) -> None:
    # The fail-open net caught an internal error: that is a crash in disguise.
    assert "hook failed" not in err, err
    if out:
        if host == "claude" and not out.lstrip().startswith("{"):
            return  # PreCompact guidance is plain text by design
        json.loads(out)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a[0] for a in ADAPTERS])
@FAST
@given(data=st.data(), raw=transcript_bytes)
def test_hooks_never_crash_on_arbitrary_payloads(
    hook_world: tuple[Path, dict[str, str], Path],
    adapter: tuple[str, Callable[..., int], list[str]],
    data: st.DataObject,
    raw: bytes,
) -> None:
    host, run, events = adapter
    payload = data.draw(_payloads(events))
    out, err = _fire(run, payload, hook_world, raw)
    _check_answer(host, out, err)


@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a[0] for a in ADAPTERS])
@FAST
@given(data=st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_hooks_ignore_arbitrary_bytes(
    hook_world: tuple[Path, dict[str, str], Path],
    adapter: tuple[str, Callable[..., int], list[str]],
    data: bytes,
) -> None:
    out, err = _fire(adapter[1], data, hook_world, b"")
    assert out == ""
    assert "hook failed" not in err


@pytest.mark.slow
@pytest.mark.parametrize("adapter", ADAPTERS, ids=[a[0] for a in ADAPTERS])
@settings(HEAVY, max_examples=300)
@given(data=st.data(), raw=transcript_bytes)
def test_hooks_never_crash_heavy(
    hook_world: tuple[Path, dict[str, str], Path],
    adapter: tuple[str, Callable[..., int], list[str]],
    data: st.DataObject,
    raw: bytes,
) -> None:
    host, run, events = adapter
    out, err = _fire(run, data.draw(_payloads(events)), hook_world, raw)
    _check_answer(host, out, err)


# -- STATE.md -------------------------------------------------------------------

state_lines = st.lists(
    st.sampled_from(
        [
            "# State",
            "## Current",
            "## Decisions",
            "## Log",
            "## Session log",
            "- **Focus:** x",
            "focus: y",
            "Next: z",
            "- [REJECTED] a — b",
            "- 2026-01-01 [LOCKED] c",
            "- 2026-11-30T10:00Z auto: d",
            "* updated: nonsense",
            "",
            "\r",
            "\x00\ufeff",
        ]
    )
    | st.text(max_size=40),
    max_size=20,
)


@FAST
@given(lines=state_lines, eol=st.sampled_from(["\n", "\r\n", "\r"]))
def test_state_document_parses_and_edits_anything(lines: list[str], eol: str) -> None:
    text = eol.join(lines)
    doc = StateDocument.parse(text)
    view = doc.view()
    assert isinstance(dict(view.fields), dict)
    edited = (
        doc.with_fields({"focus": "f", "next": "n"})
        .with_decision("- [LOCKED] x")
        .with_log("- y", cap=3)
    )
    # An edit keeps every line it did not write or supersede (fields, log entries).
    kept = edited.text()
    for line in text.splitlines():
        if line.strip() and parse_field(line) is None and parse_log_entry(line) is None:
            assert line in kept


@FAST
@given(
    data=st.binary(max_size=300)
    | state_lines.map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass"))
)
def test_state_file_reads_and_rewrites_any_bytes(tmp_path: Path, data: bytes) -> None:
    """The file layer: junk bytes are read, and an edit keeps the bytes it did not touch."""
    path = tmp_path / "STATE.md"
    path.write_bytes(data)
    state_file.load(path)
    state_file.update(path, lambda doc: doc.with_log("- fuzz", cap=5))
    assert "- fuzz" in state_file.load(path).document.text()


# -- configuration --------------------------------------------------------------

toml_text = st.lists(
    st.sampled_from(
        [
            "loop_block_after = 3",
            "loop_block_after = -1",
            'loop_block_after = "x"',
            "loop_block_after = 99999999999999999999",
            "[retention]",
            "journal = 0",
            "journal = 10",
            "[state]",
            'file = "../../escape.md"',
            'plans = "/etc"',
            "diff_hard_lines = 1",
            "diff_warn_lines = 100",
            "unknown = [1, {a = 2}]",
            "[[x]]",
            "a.b.c = 1",
            "= broken",
            '"\\ud800" = 1',
        ]
    )
    | st.text(max_size=30),
    max_size=10,
).map("\n".join)


@FAST
@given(project_toml=toml_text, personal_toml=toml_text)
def test_config_layers_never_crash(tmp_path: Path, project_toml: str, personal_toml: str) -> None:
    root = tmp_path / "p"
    (root / ".contextward").mkdir(parents=True, exist_ok=True)
    (root / ".contextward" / "config.toml").write_text(project_toml, encoding="utf-8")
    home = tmp_path / "h"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(personal_toml, encoding="utf-8")
    config = load_config(root, env={"CONTEXTWARD_HOME": str(home)})
    assert all(isinstance(w, str) for w in config.warnings)
    assert config.retention() is not None
    assert config.diff_hard_lines >= config.diff_warn_lines


@pytest.mark.parametrize("data", [b"\xff\xfe = \x00", b"a = " + b"[" * 100_000])
def test_config_unreadable_bytes_are_a_warning(tmp_path: Path, data: bytes) -> None:
    """Forced fix: non-UTF-8 bytes (UnicodeDecodeError) escaped tomllib's error."""
    (tmp_path / ".contextward").mkdir()
    (tmp_path / ".contextward" / "config.toml").write_bytes(data)
    config = load_config(tmp_path, env={"CONTEXTWARD_HOME": str(tmp_path / "none")})
    assert any("not valid TOML" in w for w in config.warnings)


# -- snapshots and verifier output -------------------------------------------------

item_like = st.fixed_dictionaries(
    {},
    optional={
        "id": st.text(max_size=6) | json_values,
        "kind": st.sampled_from(["goal", "constraint", "decision", "bogus"]) | json_values,
        "content": st.text(max_size=20) | json_values,
        "critical": json_values,
        "extra": json_values,
    },
)
snapshot_like = (
    st.fixed_dictionaries(
        {},
        optional={
            "schemaVersion": st.sampled_from([1, 2, "1", True, 1.0]) | json_values,
            "items": st.lists(item_like | json_values, max_size=4) | json_values,
        },
    )
    | json_values
)


@FAST
@given(data=snapshot_like)
def test_snapshot_from_dict_raises_only_invalid_input(data: Any) -> None:
    try:
        snap = Snapshot.from_dict(data)
    except ContextGuardError as exc:
        assert exc.code == "invalid_input"
    else:
        assert Snapshot.from_dict(snap.to_dict()) == snap


@FAST
@given(text=st.text(max_size=200) | snapshot_like.map(json.dumps) | st.just("[" * 5000))
def test_snapshot_from_json_raises_only_invalid_input(text: str) -> None:
    try:
        Snapshot.from_json(text)
    except ContextGuardError as exc:
        assert exc.code == "invalid_input"


SNAP = Snapshot(
    (
        ContextItem("a", "constraint", "Never push to main.", True),
        ContextItem("b", "goal", "Ship OAuth.", False),
    )
)
finding_like = st.fixed_dictionaries(
    {},
    optional={
        "itemId": st.sampled_from(["a", "b", "zz"]) | json_values,
        "status": st.sampled_from(["preserved", "changed", "lost", "unknown", "PRESERVED"])
        | json_values,
        "reason": json_values,
    },
)


@FAST
@given(output=st.lists(finding_like | json_values, max_size=6) | json_values)
def test_normalize_findings_is_fail_safe(output: Any) -> None:
    report = normalize_findings(SNAP, output)
    data = report.to_dict()
    ids = [f["itemId"] for f in data["findings"]]
    assert sorted(ids) == ["a", "b"]  # exactly one finding per item, whatever came in
    json.dumps(data)
    if data["ok"]:
        assert "a" in data["preserved"]


# -- minijson -------------------------------------------------------------------


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    return False


@FAST
@given(value=json_values)
def test_minijson_round_trips_what_json_writes(value: Any) -> None:
    assert minijson.loads(json.dumps(value)) == json.loads(json.dumps(value))
    try:
        written = minijson.dumps(value)
    except ValueError:
        assert _has_float(value)
    else:  # floats are out of scope by design (hook payload spool records hold none)
        assert json.loads(written) == json.loads(json.dumps(value))


@FAST
@given(text=st.text(max_size=60) | st.binary(max_size=60).map(lambda b: b.decode("latin-1")))
def test_minijson_rejects_garbage_with_value_error(text: str) -> None:
    with contextlib.suppress(ValueError):
        minijson.loads(text)


def test_minijson_deep_nesting_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        minijson.loads("[" * 100_000)
