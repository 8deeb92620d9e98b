"""``inspect``, ``guidance``, ``snapshot``, ``review`` and ``demo`` through click's runner and a real process."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.core import Snapshot

SECRET = "sk-" + "live0content0must0not0leak0" * 2
CONVERSATION = [
    {"id": "u1", "role": "user", "content": "Goal: ship OAuth login by Friday."},
    {"id": "u2", "role": "user", "content": f"Never push to main. The key is {SECRET} for now."},
    {"id": "a1", "role": "assistant", "content": "Let me look at the routes."},
    {
        "id": "t1",
        "role": "tool",
        "tool_name": "Bash",
        "content": "$ grep -rn auth src/\nsrc/a.py:1: auth",
    },
    {"id": "a2", "role": "assistant", "content": "Maybe later."},
    {
        "id": "a3",
        "role": "assistant",
        "content": "I wonder whether the partner team still calls the legacy sync endpoint every night.",
    },
]


@pytest.fixture
def convo(tmp_path: Path) -> Path:
    path = tmp_path / "conversation.json"
    path.write_text(json.dumps({"messages": CONVERSATION}))
    return path


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_inspect_json_is_exactly_the_contract(convo: Path) -> None:
    code, out, err = invoke("inspect", str(convo), "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert list(data) == ["schema_version", "mode", "messages", "candidates", "counts"]
    assert (data["schema_version"], data["mode"], data["messages"]) == (1, "rules", 6)
    first = data["candidates"][0]
    assert list(first) == [
        "id",
        "kind",
        "content",
        "importance",
        "confidence",
        "action",
        "critical",
        "reason",
        "sources",
        "supersedes",
    ]
    assert (
        first["kind"] == "goal"
        and first["content"] == "Goal: ship OAuth login by Friday."
        and first["sources"] == ["u1"]
    )
    counts = data["counts"]
    assert list(counts) == ["keep", "drop", "review"]
    assert sum(counts.values()) == len(data["candidates"]) and counts["review"] == 1
    assert SECRET not in out and "[secret:openai-key]" in out
    assert invoke("inspect", str(convo), "--json")[1] == out  # same input, same ids


def test_inspect_reads_stdin_and_prints_a_table(convo: Path) -> None:
    code, out, _ = invoke("inspect", "-", stdin=convo.read_text())
    assert code == 0
    assert out.splitlines()[0].split() == ["ACTION", "KIND", "CRIT", "ID", "CONTENT"]
    assert "7 candidates from 6 messages (messages, rules mode): keep 3 · drop 3 · review 1" in out
    assert SECRET not in out


def test_skipped_lines_are_reported_on_stderr_in_json_mode(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"user","uuid":"u1","message":{"role":"user","content":"Never push to main."}}\n{"type":"user","uu'
    )
    code, out, err = invoke("inspect", str(path), "--json")
    assert code == 0 and json.loads(out)["messages"] == 1
    assert err == "contextward: skipped: torn_last_line 1\n"
    assert "skipped: torn_last_line 1" in invoke("inspect", str(path), "--format", "claude-code")[1]


def test_a_damaged_transcript_is_inspected_and_what_it_lost_is_said(tmp_path: Path) -> None:
    whole = json.dumps({"messages": CONVERSATION})
    path = tmp_path / "cut.json"
    path.write_text(whole[: whole.index("Never push")])  # cut inside the second message
    summary = tmp_path / "summary.md"
    summary.write_text("We ship OAuth login by Friday.")
    said = "could not be read (malformed_json 2); inspected 1 message without them\n"
    for args in (("guidance", str(path)), ("snapshot", str(path), "--json")):
        code, out, err = invoke(*args)
        assert code == 0 and "ship OAuth login by Friday" in out
        assert err == f"contextward: transcript {path}: 2 records {said}"
    code, out, err = invoke("compact-test", str(path), "--summary", str(summary))
    assert code == 0 and "1. inspect: 1 message ->" in out and err.endswith(said)
    # What a host skips by design (its bookkeeping entries) is no damage: nothing is said.
    entries = tmp_path / "t.jsonl"
    entries.write_text(
        '{"type":"file-history-snapshot","messageId":"x","snapshot":{}}\n'
        '{"type":"user","uuid":"u1","message":{"role":"user","content":"Never push to main."}}\n'
    )
    code, out, err = invoke("guidance", str(entries))
    assert code == 0 and "Never push to main." in out and err == ""


def test_a_transcript_read_as_another_format_says_so(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"user","uuid":"u1","message":{"role":"user","content":"Never push to main."}}\n'
    )
    code, _, err = invoke("inspect", str(path), "--format", "pi")
    assert code == 2
    assert err.strip() == (
        f"contextward: error: transcript {path}: no message could be read as pi "
        "(skipped: entry_user 1); is it another format? Without --format it is detected"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the transcript is empty"),
        ("\x00\x01binary " + SECRET, "neither JSON nor JSON lines"),
        # Nothing in it could be read: no "0 candidates" that reads as a clean bill.
        ('{"messages": [{"role": "user", "content": "' + SECRET, "no message could be read"),
        ("[1, 2, 3]", "no message could be read (skipped: not_an_object 3)"),
        ('{"messages": "' + SECRET + '"}', "(skipped: messages_not_a_list 1)"),
        ('{"messages": []}', "it has no messages"),
    ],
)
def test_bad_transcripts_are_one_line_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    summary = tmp_path / "summary.md"
    summary.write_text("We ship OAuth login.")
    runs = [(command, str(path)) for command in ("inspect", "guidance", "snapshot", "review")]
    runs.append(("compact-test", str(path), "--summary", str(summary)))  # type: ignore[arg-type]
    for args in runs:
        code, out, err = invoke(*args)
        assert code == 2 and out == "" and message in err and err.count("\n") == 1, args
        assert SECRET not in err and err.startswith("contextward: error: transcript ")
    code, _, err = invoke("inspect", str(tmp_path / "missing.json"))
    assert code == 2 and err.endswith("no such file\n")


def test_guidance_applies_decisions_by_candidate_id(convo: Path, tmp_path: Path) -> None:
    data = json.loads(invoke("inspect", str(convo), "--json")[1])
    pending = [c for c in data["candidates"] if c["action"] == "review"]
    code, out, _ = invoke("guidance", str(convo))
    assert code == 0 and "Unresolved / review carefully:\n- [" in out
    decisions = tmp_path / "d.json"
    decisions.write_text(json.dumps([{"candidate_id": pending[0]["id"], "action": "keep"}]))
    code, out, _ = invoke("guidance", str(convo), "--decisions", str(decisions), "--json")
    guidance = json.loads(out)
    assert code == 0 and guidance["unresolved"] == []
    assert pending[0]["id"] in [c["id"] for c in guidance["must_preserve"]]
    decisions.write_text(json.dumps([{"candidate_id": "no-such-id", "action": "keep"}]))
    code, _, err = invoke("guidance", str(convo), "--decisions", str(decisions))
    assert code == 2 and "no candidate 'no-such-id'" in err
    decisions.write_text("{oops")
    assert invoke("guidance", str(convo), "--decisions", str(decisions))[0] == 2


def test_snapshot_json_is_a_valid_schema_version_1_snapshot(convo: Path) -> None:
    code, out, _ = invoke("snapshot", str(convo), "--json")
    snap = Snapshot.from_json(out)
    assert code == 0 and [i.kind for i in snap.items] == [
        "goal",
        "constraint",
        "fact",
        "fact",
    ]  # unresolved noise kept as a fact
    assert SECRET not in out
    code, out, _ = invoke("snapshot", str(convo))
    assert code == 0 and out.endswith("4 items, 2 critical\n")


def test_review_without_a_terminal_keeps_unresolved_items_and_says_so(
    convo: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "decisions.json"
    code, out, _ = invoke("review", str(convo), "--save", str(saved))
    assert code == 1
    assert out.startswith(
        "No review happened: nobody can answer here (stdin is not a terminal). 1 unresolved "
        "item(s) kept (conservative), listed as unresolved; no decision was made."
    )
    # Kept as unresolved, for the summariser to keep with care; no decision is invented.
    assert "Unresolved / review carefully:\n- [transient, agent]" in out
    assert json.loads(saved.read_text()) == []
    code, out, _ = invoke("guidance", str(convo), "--json")
    assert code == 0 and json.loads(out)["reviewed"] is False
    # walk12 #17: the JSON marks the agent's word as the text does, and only that.
    unresolved = json.loads(out)["unresolved"]
    assert [item.get("said_by") for item in unresolved] == ["agent"]
    assert not [
        i for i in json.loads(out)["must_preserve"] if "said_by" in i and i["kind"] == "goal"
    ]


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["guidance", "-", "--decisions", "-"], "the transcript and the decisions"),
        (["snapshot", "-", "--answer", "-"], "the transcript and the answer"),
        (["compact-test", "-", "--summary", "-"], "the transcript and the summary"),
        (["check", "--snapshot", "-", "--context", "-"], "the snapshot and the context"),
    ],
)
def test_two_inputs_from_standard_input_are_refused_by_name(args: list[str], names: str) -> None:
    # The second would read nothing, and fail as empty or malformed: not the cause.
    code, out, err = invoke(*args, stdin='[{"role": "user", "content": "Ship it."}]')
    assert (code, out) == (2, "") and f"{names} cannot both be standard input" in err


def test_review_asks_in_the_terminal(convo: Path, tmp_path: Path) -> None:
    saved = tmp_path / "decisions.json"
    code, out, _ = invoke("review", str(convo), "--assume-tty", "--save", str(saved), stdin="d\n")
    assert code == 0 and "1 candidate(s) need a decision." in out and "[1/1] transient" in out
    assert json.loads(saved.read_text())[0]["action"] == "drop"
    # An answer typed with spaces around it is the answer.
    again = tmp_path / "again.json"
    code, out, _ = invoke(
        "review", str(convo), "--assume-tty", "--save", str(again), stdin="x\n D \n"
    )
    assert code == 0 and json.loads(again.read_text())[0]["action"] == "drop"
    assert out.count("keep, drop or skip") == 2 and "'x' is not one of" in out
    code, out, _ = invoke("review", str(convo), "--assume-tty", stdin="s\n")
    assert code == 0 and "Unresolved / review carefully:\n- [transient, agent]" in out
    # Noise a person keeps is a fact to the summariser, as the snapshot remembers it.
    code, out, _ = invoke("review", str(convo), "--assume-tty", stdin="k\n")
    assert code == 0 and "- [fact, agent] I wonder whether the partner team" in out


def test_a_review_stopped_half_way_goes_on_where_it_stopped(tmp_path: Path) -> None:
    said = [
        ("user", "Build the invoice exporter."),
        ("assistant", "I wonder whether the partner team would want a CSV too."),
        ("assistant", "I wonder whether the finance people would like a PDF as well."),
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"role": r, "content": t} for r, t in said]))
    saved = tmp_path / "decisions.json"
    # The first answer, then the person stops (end of input).
    code, _, _ = invoke("review", str(path), "--assume-tty", "--save", str(saved), stdin="d\n")
    first = json.loads(saved.read_text())
    assert code == 1 and [d["action"] for d in first] == ["drop"]
    # Again with the same file: only the other is asked, and the file holds both.
    code, out, _ = invoke("review", str(path), "--assume-tty", "--save", str(saved), stdin="k\n")
    assert code == 0 and "Decided earlier in" in out and out.count("[1/1]") == 1
    assert "partner team" not in out.split("[1/1]")[1].split("\n")[1]
    both = json.loads(saved.read_text())
    assert [d["action"] for d in both] == ["drop", "keep"] and both[0] == first[0]
    # Nothing is left: nothing is asked, the file stays, the guidance holds both.
    code, out, _ = invoke("review", str(path), "--assume-tty", "--save", str(saved), stdin="")
    assert code == 0 and "Nothing left to review." in out
    assert json.loads(saved.read_text()) == both and "PDF as well." in out.split("Can discard")[0]


def test_demo_walks_inspection_guidance_snapshot_and_check() -> None:
    code, out, _ = invoke("demo")
    assert code == 0
    for heading in ("1. inspect:", "2. guidance", "3. snapshot:", "4. the summary", "5. restore"):
        assert heading in out
    assert (
        "[tool_output] $ npm test" in out
        and "[rejected, agent] For the OAuth account links I first tried SQLite" in out
    )
    lost = next(line for line in out.splitlines() if line.startswith("lost"))
    assert "never push to main; open a PR instead." in lost
    assert "critical failures: constraint-" in out and "result: NOT OK" in out


def test_the_shipped_snapshot_is_what_inspection_produces() -> None:
    example = resources.files("contextward.examples")
    shipped = Snapshot.from_json(example.joinpath("snapshot.json").read_text(encoding="utf-8"))
    path = str(example.joinpath("conversation.json"))
    assert Snapshot.from_json(invoke("snapshot", path, "--json")[1]) == shipped


def test_inspect_runs_as_a_real_process(convo: Path) -> None:
    script = Path(sys.executable).parent / "contextward"
    command = str(script) if script.exists() else shutil.which("contextward")
    assert command is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_")}
    done = subprocess.run(
        [command, "inspect", "-", "--json"],
        input=convo.read_bytes(),
        capture_output=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"] == 6
    empty = subprocess.run(
        [command, "guidance", "-"], input=b"", capture_output=True, timeout=60, env=env, check=False
    )
    assert (
        empty.returncode == 2
        and empty.stderr
        == b"contextward: error: transcript standard input: the transcript is empty\n"
    )


def test_provider_mode_from_the_cli_prompt_then_answer(convo: Path, tmp_path: Path) -> None:
    code, asked, _ = invoke("inspect", str(convo), "--prompt")
    assert code == 0 and "Copy each content VERBATIM" in asked
    assert "[a3] assistant: I wonder whether" in asked
    assert SECRET not in asked  # masked before any model sees it
    answer = tmp_path / "answer.txt"
    # A model's reply, fenced as models often do: a hunch the rules sent to review is named.
    answer.write_text(
        '```json\n{"candidates": [{"kind": "risk", "source": "a3", "content": '
        '"I wonder whether the partner team still calls the legacy sync endpoint every night."}]}'
        "\n```",
        encoding="utf-8",
    )
    code, out, err = invoke("inspect", str(convo), "--json", "--answer", str(answer))
    data = json.loads(out)
    assert code == 0 and err == "" and data["mode"] == "provider"
    hunch = next(c for c in data["candidates"] if c["sources"] == ["a3"])
    assert (hunch["kind"], hunch["action"]) == ("risk", "keep")
    code, out, _ = invoke("guidance", str(convo), "--answer", str(answer))
    assert code == 0 and "partner team" in out.split("Can discard")[0]
    # An answer that is not JSON: rules mode, said on stderr without quoting it.
    answer.write_text(f"Sorry, I cannot help with {SECRET}.", encoding="utf-8")
    code, out, err = invoke("inspect", str(convo), "--json", "--answer", str(answer))
    assert code == 0 and json.loads(out)["mode"] == "rules"
    assert err == "contextward: answer not used (the model's answer holds no JSON): rules mode\n"
    # The JSON says so too, as the bridge's does: a script reads no stderr.
    assert json.loads(out)["fallback_reason"] == "the model's answer holds no JSON"
    code, out, _ = invoke("guidance", str(convo), "--json", "--answer", str(answer))
    assert json.loads(out)["fallback_reason"] == "the model's answer holds no JSON"
    answer.write_text(
        '{"candidates": [{"kind": "risk", "source": "a3", "content": "I wonder whether the'
        ' partner team still calls the legacy sync endpoint every night."},'
        ' {"kind": "constraint", "content": "Words no one in this session wrote."}]}',
        encoding="utf-8",
    )
    code, out, _ = invoke("inspect", str(convo), "--json", "--answer", str(answer))
    assert (json.loads(out)["mode"], json.loads(out)["provider_rejected"]) == ("provider", 1)
    code, out, _ = invoke("inspect", str(convo), "--json")
    assert not {"fallback_reason", "provider_rejected", "provider_passed"} & set(json.loads(out))
    code, _, err = invoke("inspect", str(convo), "--answer", str(tmp_path / "missing.txt"))
    assert code == 2 and err.count("\n") == 1


def test_an_answer_repeating_one_proposal_still_reaches_the_proposals_after_it(
    convo: Path, tmp_path: Path
) -> None:
    hunch = (
        '{"kind": "risk", "source": "a3", "content": "I wonder whether the partner team'
        ' still calls the legacy sync endpoint every night."}'
    )
    later = '{"kind": "goal", "source": "u1", "content": "Goal: ship OAuth login by Friday."}'
    answer = tmp_path / "answer.txt"
    answer.write_text(f'{{"candidates": [{", ".join([hunch] * 2001)}, {later}]}}', encoding="utf-8")
    code, out, err = invoke("inspect", str(convo), "--json", "--answer", str(answer))
    data = json.loads(out)
    assert (code, data["mode"], data["provider_repeated"]) == (0, "provider", 2000)
    assert "provider_rejected" not in data
    kinds = {c["sources"][0]: (c["kind"], c["action"]) for c in data["candidates"]}
    assert (kinds["a3"], kinds["u1"]) == (("risk", "keep"), ("goal", "keep"))
    assert err == (
        "contextward: 2000 proposals of the answer left out as word-for-word repeats "
        "of an earlier one\n"
    )


def test_a_bad_answer_file_is_a_one_line_error(
    convo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextward.cli import inspect_io

    code, _, err = invoke("inspect", "-", "--answer", "-", stdin="{}")
    assert code == 2 and err == (
        "contextward: error: the transcript and the answer cannot both be standard input\n"
    )
    monkeypatch.setattr(inspect_io, "MAX_ANSWER_BYTES", 1 << 20)
    huge = tmp_path / "huge.txt"
    huge.write_bytes(b"{" + SECRET.encode() * 40_000 + b"}")
    code, _, err = invoke("inspect", str(convo), "--answer", str(huge))
    assert code == 2 and err.endswith("huge.txt: larger than 1 MiB\n") and SECRET not in err
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe" + SECRET.encode())
    code, _, err = invoke("snapshot", str(convo), "--json", "--answer", str(binary))
    assert code == 2 and "not UTF-8 text" in err and SECRET not in err


@pytest.fixture
def three_to_review(tmp_path: Path) -> Path:
    path = tmp_path / "review.json"
    texts = [
        "System: use UTC everywhere.",
        "Reminder: the staging bucket is shared with QA.",
        "System: answer in English.",
    ]
    path.write_text(json.dumps([{"role": "system", "content": t} for t in texts]))
    code, out, _ = invoke("inspect", str(path), "--json")
    assert code == 0 and [c["action"] for c in json.loads(out)["candidates"]] == ["review"] * 3
    return path


def test_review_takes_the_words_it_offers_and_a_stop_keeps_what_was_answered(
    three_to_review: Path, tmp_path: Path
) -> None:
    saved = tmp_path / "decisions.json"
    # "DROP" and "keep" as the prompt offers them, then Ctrl-D at the third item.
    code, out, _ = invoke(
        "review", str(three_to_review), "--assume-tty", "--save", str(saved), stdin="DROP\nkeep\n"
    )
    assert code == 1
    assert "Review stopped: 2 of 3 answered; 1 left unresolved and kept (conservative)." in out
    assert [d["action"] for d in json.loads(saved.read_text())] == ["drop", "keep"]
    assert "Unresolved / review carefully:\n- [transient] System: answer in English." in out
    # Answers with nowhere to go are said to be unsaved.
    code, out, _ = invoke("review", str(three_to_review), "--assume-tty", stdin="k\nk\nk\n")
    assert code == 0 and "These decisions are not saved: --save F" in out


def test_review_refuses_a_save_path_it_cannot_write_before_asking(
    three_to_review: Path, tmp_path: Path
) -> None:
    nowhere = tmp_path / "missing" / "decisions.json"
    args = ("review", str(three_to_review), "--assume-tty", "--save", str(nowhere))
    code, out, err = invoke(*args, stdin="k\nk\nk\n")
    assert code == 2 and "need a decision" not in out  # nobody was asked
    assert err.strip() == f"contextward: error: decisions {nowhere}: its folder does not exist"


def test_review_never_writes_its_decisions_over_the_transcript_or_earlier_ones(
    convo: Path, tmp_path: Path
) -> None:
    """A walkthrough's `review T --save T` replaced the transcript with `[]`."""
    before = convo.read_bytes()
    code, _, err = invoke("review", str(convo), "--save", str(convo))
    assert (code, convo.read_bytes()) == (2, before)
    assert err == (
        f"contextward: error: decisions {convo}: is the transcript under review;"
        " choose another file\n"
    )
    notes = tmp_path / "notes.md"
    notes.write_text("# my notes\n")
    code, _, err = invoke("review", str(convo), "--save", str(notes))
    assert (code, notes.read_text()) == (2, "# my notes\n")
    assert "exists and holds no decisions; not written over" in err
    # Nobody could answer: the decisions saved before stand.
    earlier = tmp_path / "decisions.json"
    earlier.write_text('[{"candidate_id": "fact-0", "action": "keep"}]\n')
    code, out, _ = invoke("review", str(convo), "--save", str(earlier))
    assert code == 1 and f"(Nothing decided: {earlier} left as it was.)" in out
    assert json.loads(earlier.read_text()) == [{"candidate_id": "fact-0", "action": "keep"}]


def test_the_table_cuts_content_by_columns_so_chinese_rows_are_as_wide(tmp_path: Path) -> None:
    from contextward.cli.inspect_io import width

    path = tmp_path / "zh.json"
    zh = "我们的支付服务必须在每天凌晨两点之前完成对账，否则财务那边第二天早上的报表会出错，请记住"
    en = "Our payments service must finish reconciliation before 2am every day or finance breaks."
    path.write_text(json.dumps([{"role": "user", "content": t} for t in (zh, en)]))
    code, out, _ = invoke("inspect", str(path))
    rows = out.splitlines()[1:3]
    assert code == 0 and all(row.endswith("…") for row in rows)
    assert abs(width(rows[0]) - width(rows[1])) <= 1


@pytest.mark.parametrize("extra", [["--json"], ["--answer", "-"]])
def test_prompt_takes_no_answer_or_json(convo: Path, extra: list[str]) -> None:
    code, _, err = invoke("inspect", str(convo), "--prompt", *extra)
    assert code == 2 and "--prompt prints the question alone" in err


@pytest.mark.parametrize(
    ("content", "said"),
    [('{"messages": []}', "it has no messages"), ("[1, 2, 3]", "no message could be read")],
)
def test_prompt_refuses_a_transcript_of_no_readable_message(
    tmp_path: Path, content: str, said: str
) -> None:
    # As inspect refuses it: a model asked about nothing would answer nothing.
    path = tmp_path / "t.json"
    path.write_text(content)
    code, out, err = invoke("inspect", str(path), "--prompt")
    assert (code, out) == (2, "") and said in err and len(err.splitlines()) == 1
    # A damaged one is asked about, and what it lost is said.
    path.write_text('[1, {"role": "user", "content": "Ship the CSV export."}]')
    code, out, err = invoke("inspect", str(path), "--prompt")
    assert code == 0 and "Ship the CSV export." in out and "1 record could not be read" in err


def test_snapshot_table_has_a_header_and_a_pasted_key_alone_is_no_memory(tmp_path: Path) -> None:
    path = tmp_path / "key.json"
    key = "ghp_" + "0123456789abcdefghij" * 2
    said = [("user", "Build the exporter."), ("user", key), ("user", f"The token is {key}.")]
    path.write_text(json.dumps([{"role": r, "content": t} for r, t in said]))
    code, out, _ = invoke("snapshot", str(path))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["CRITICAL", "KIND", "ID", "CONTENT"]
    # The key alone would only say "[secret:github-token]"; said in a sentence it stays.
    assert "The token is [secret:github-token]." in out and out.count("[secret:") == 1
    assert lines[-1] == "2 items, 1 critical" and key not in out


def test_inspect_honours_the_project_s_thresholds(
    convo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.setenv("CONTEXTWARD_HOME", str(tmp_path / "home"))

    def actions() -> set[str]:
        code, out, _ = invoke("inspect", str(convo), "--json")
        assert code == 0
        return {c["action"] for c in json.loads(out)["candidates"]}

    assert "keep" in actions()
    (project / ".contextward").mkdir()
    (project / ".contextward" / "config.toml").write_text("[inspect]\nkeep_confidence = 1.0\n")
    assert "keep" not in actions()  # nothing is that sure: what was kept goes to review


def test_the_documented_inspect_json_is_what_the_shipped_example_gives() -> None:
    docs = (Path(__file__).parent.parent / "docs" / "inspect.md").read_text(encoding="utf-8")
    shown = json.loads(docs.split("### `inspect --json`\n\n```json\n", 1)[1].split("```", 1)[0])
    example = Path(__file__).parent.parent / "src" / "contextward" / "examples"
    code, out, _ = invoke("inspect", str(example / "conversation.json"), "--json")
    actual = json.loads(out)
    assert code == 0
    assert {k: actual[k] for k in ("schema_version", "mode", "messages", "counts")} == {
        k: shown[k] for k in ("schema_version", "mode", "messages", "counts")
    }
    (documented,) = shown["candidates"]
    assert documented in actual["candidates"]


def test_a_password_with_a_question_or_exclamation_mark_is_masked_whole(tmp_path: Path) -> None:
    said = [
        "My password is Zebra!Plum42 ok",
        "The DSN is postgres://admin:Pa?ss99word@db.internal:5432/app for now.",
        "密码是 Qwerty!2024x",
    ]
    path = tmp_path / "pw.json"
    path.write_text(json.dumps([{"role": "user", "content": text} for text in said]))
    for command in (["guidance", str(path)], ["snapshot", str(path), "--json"]):
        code, out, _ = invoke(*command)
        assert code == 0
        assert "Plum42" not in out and "ss99word" not in out and "2024x" not in out


def test_json_escapes_what_a_terminal_hides_and_guidance_keeps_ideographic_spaces(
    tmp_path: Path,
) -> None:
    rule = "不要改公共\u3000API，\u202e也不要删\u200b除迁移文件。"
    path = tmp_path / "zh.json"
    path.write_text(json.dumps([{"role": "user", "content": rule}]))
    code, out, _ = invoke("inspect", str(path), "--json")
    assert code == 0 and "\u202e" not in out and "\u200b" not in out
    assert "\\u202e" in out and "\\u200b" in out
    contents = [c["content"] for c in json.loads(out)["candidates"]]
    assert "".join(contents).replace(" ", "") == rule.replace(" ", "")  # the same value
    code, out, _ = invoke("guidance", str(path))
    assert code == 0 and "不要改公共\u3000API" in out  # verbatim, as "Must preserve" says
    assert "\u202e" not in out and "\u200b" not in out


def test_a_replaces_not_followed_is_counted_on_stderr_and_in_the_json(
    convo: Path, tmp_path: Path
) -> None:
    """walk12 #3: a `replaces` the owner's rule is not retired by is counted, and the CLI
    says so, as it says what it rejected (here the agent's word naming the owner's)."""
    answer = tmp_path / "answer.json"
    hunch = "I wonder whether the partner team still calls the legacy sync endpoint every night."
    answer.write_text(
        json.dumps([{"kind": "risk", "content": hunch, "replaces": "Never push to main."}])
    )
    code, out, err = invoke("inspect", str(convo), "--json", "--answer", str(answer))
    data = json.loads(out)
    assert code == 0 and data["provider_refused"] == 1
    rule = next(c for c in data["candidates"] if c["content"] == "Never push to main.")
    assert rule["action"] == "keep"
    assert err.endswith(
        "contextward: 1 proposal of the answer whose `replaces` was not followed (a word or "
        "two of a statement, the owner's word named by the agent's or a tool output's, or "
        "the owner's rule by a statement that does not read as replacing it)\n"
    )


@pytest.mark.parametrize("command", ["guidance", "snapshot"])
@pytest.mark.parametrize(
    ("decisions", "error"),
    [
        ('[{"candidate_id": "fact-zzzz", "action": "keep"}]', "no candidate 'fact-zzzz'"),
        ("{", "malformed JSON at line 1 column 2"),
    ],
)
def test_bad_decisions_with_an_answer_are_one_line(
    convo: Path, tmp_path: Path, command: str, decisions: str, error: str
) -> None:
    # walk12 #18: the answer's note had come first, then the error: two lines.
    answer = tmp_path / "answer.txt"
    answer.write_text("Sorry, nothing to add.", encoding="utf-8")
    bad = tmp_path / "decisions.json"
    bad.write_text(decisions, encoding="utf-8")
    code, _, err = invoke(command, str(convo), "--answer", str(answer), "--decisions", str(bad))
    assert code == 2 and err == f"contextward: error: decisions {bad}: {error}\n"
    good = tmp_path / "none.json"
    good.write_text("[]", encoding="utf-8")
    code, _, err = invoke(command, str(convo), "--answer", str(answer), "--decisions", str(good))
    assert code == 0
    assert err == "contextward: answer not used (the model's answer holds no JSON): rules mode\n"
