"""``contextward check``, ``--version`` and ``demo`` through click's runner and a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward import __version__
from contextward.cli import main

SECRET = "sk-this-content-must-not-leak"
SNAPSHOT = {
    "schemaVersion": 1,
    "items": [
        {"id": "g1", "kind": "goal", "content": "Ship OAuth login.", "critical": False},
        {"id": "c1", "kind": "constraint", "content": "Never push to main.", "critical": True},
    ],
}


@pytest.fixture
def snap(tmp_path: Path) -> Path:
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(SNAPSHOT))
    return path


def invoke(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_version() -> None:
    code, out, _ = invoke("--version")
    assert (code, out) == (0, f"contextward, version {__version__}\n")


def test_json_report_exactly_as_the_contract(snap: Path, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("We will ship OAuth   login.")
    code, out, err = invoke(
        "check",
        "--snapshot",
        str(snap),
        "--context",
        str(summary),
        "--verifier",
        "literal",
        "--json",
    )
    assert (code, err) == (1, "")
    assert json.loads(out) == {
        "schemaVersion": 1,
        "ok": False,
        "findings": [
            {
                "itemId": "g1",
                "status": "preserved",
                "reason": "found in the context after whitespace folding and lowercasing",
            },
            {
                "itemId": "c1",
                "status": "lost",
                "reason": "not found in the context after whitespace folding and lowercasing",
            },
        ],
        "preserved": ["g1"],
        "changed": [],
        "lost": ["c1"],
        "unknown": [],
        "criticalFailures": ["c1"],
        "issues": [],
    }


def test_table_from_stdin_and_exit_zero_when_everything_survived(snap: Path) -> None:
    code, out, _ = invoke(
        "check",
        "--snapshot",
        str(snap),
        "--context",
        "-",
        "--verifier",
        "literal",
        stdin="Ship OAuth login. Never push to main.",
    )
    assert code == 0
    assert out == (
        "STATUS     CRIT  KIND        ID  ITEM\n"
        "preserved        goal        g1  Ship OAuth login.\n"
        "preserved  yes   constraint  c1  Never push to main.\n"
        "\n"
        "2 items: preserved 2 · changed 0 · lost 0 · unknown 0\n"
        "critical failures: none\n"
        "result: OK\n"
    )


def write(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize(
    ("snapshot", "message"),
    [
        (None, "no such file"),
        (b"{" + SECRET.encode(), "malformed JSON at line 1 column 2"),
        (b"\xff\xfe" + SECRET.encode(), "not UTF-8 text"),
        (
            json.dumps({"schemaVersion": 2, "items": []}).encode(),
            "unsupported snapshot schemaVersion",
        ),
        (
            json.dumps(
                {"schemaVersion": 1, "items": [SNAPSHOT["items"][1], SNAPSHOT["items"][1]]}  # type: ignore[index]
            ).encode(),
            "duplicate item id 'c1'",
        ),
        (
            json.dumps(
                {
                    "schemaVersion": 1,
                    "items": [{"id": "x", "kind": "x", "content": SECRET, "critical": True}],
                }
            ).encode(),
            "item 'x' has an unknown kind",
        ),
    ],
)
def test_bad_snapshots_exit_2_with_one_line(
    tmp_path: Path, snapshot: bytes | None, message: str
) -> None:
    path = (
        str(tmp_path / "missing.json") if snapshot is None else write(tmp_path, "s.json", snapshot)
    )
    context = write(tmp_path, "c.md", b"context")
    code, out, err = invoke("check", "--snapshot", path, "--context", context)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("contextward: error: snapshot ")
    assert message in err and SECRET not in err


def test_bad_context_files(tmp_path: Path, snap: Path) -> None:
    binary = write(tmp_path, "c.bin", b"\x80" + SECRET.encode())
    for context, message in [
        (binary, "not UTF-8 text (byte 0)"),
        (str(tmp_path), "is a directory"),
        (str(tmp_path / "nope.md"), "no such file"),
        (write(tmp_path, "empty.md", b""), "empty (nothing to check)"),
        (write(tmp_path, "blank.md", b"\xef\xbb\xbf \n\t\n"), "empty (nothing to check)"),
    ]:
        code, _, err = invoke("check", "--snapshot", str(snap), "--context", context)
        assert code == 2 and message in err and err.count("\n") == 1 and SECRET not in err


def test_usage_errors_are_one_line() -> None:
    code, _, err = invoke("check", "--snapshot")
    assert code == 2 and err.count("\n") == 1 and err.startswith("contextward: error: ")
    code, _, err = invoke("check", "--verifier", "psychic", "--snapshot", "x", "--context", "y")
    assert code == 2 and err.count("\n") == 1


def test_demo_shows_the_dropped_constraint_as_a_critical_failure() -> None:
    code, out, _ = invoke("demo")
    assert code == 0
    lines = out.splitlines()
    lost = next(line for line in lines if line.startswith("lost"))
    assert "never push to main; open a PR instead." in lost
    assert "critical failures: constraint-" in out
    changed = [line for line in lines if line.startswith("changed")]
    assert len(changed) == 2  # the flipped public-API rule and the $500 -> $5000 budget
    assert "└ changed: negation flipped (removed)" in out
    assert "└ changed: value swapped (currency)" in out
    restore = out[out.index("5. restore") :]
    assert "- [constraint] (lost) never push to main; open a PR instead." in restore


def installed_script() -> str:
    script = Path(sys.executable).parent / "contextward"
    if script.exists():
        return str(script)
    found = shutil.which("contextward")
    if found is None:
        pytest.fail("the contextward console script is not installed")
    return found


def test_the_installed_console_script_runs_as_a_real_process(snap: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_")}
    done = subprocess.run(
        [installed_script(), "check", "--snapshot", str(snap), "--context", "-", "--json"],
        input="Never push to main.",
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["lost"] == ["g1"]
    missing = subprocess.run(
        [installed_script(), "check", "--snapshot", str(tmp_path / "x"), "--context", "-"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert missing.stderr.count("\n") == 1


def test_a_stray_byte_in_a_long_summary_is_read_and_counted(tmp_path: Path, snap: Path) -> None:
    text = "The team is building OAuth login. Never push to main; open a PR. " * 20
    context = write(tmp_path, "c.md", text.encode()[:600] + b"\xff" + text.encode()[600:])
    code, out, err = invoke("check", "--snapshot", str(snap), "--context", context)
    assert code in (0, 1) and out
    assert "1 byte sequence that is not UTF-8 read as U+FFFD" in err


def test_an_item_said_with_terminal_escapes_verifies_against_its_guidance_copy(
    tmp_path: Path,
) -> None:
    # The snapshot keeps the text as said (escapes and all); guidance prints it without
    # them, so a summary that copies guidance word for word holds the item as printed.
    transcript = tmp_path / "t.json"
    transcript.write_text(
        json.dumps(
            [
                {"id": "u1", "role": "user", "content": "Never push to main."},
                {
                    "id": "u2",
                    "role": "user",
                    "content": "Deploy with \x1b[1mfly deploy --remote-only\x1b[0m from now on.",
                },
                {
                    "id": "u3",
                    "role": "user",
                    "content": "Set the export batch size to \x1b[32m500\x1b[0m rows.",
                },
            ]
        )
    )
    code, snapshot, _ = invoke("snapshot", str(transcript), "--json")
    assert code == 0 and "\\u001b[32m500" in snapshot
    code, guidance, _ = invoke("guidance", str(transcript))
    assert code == 0 and "\x1b" not in guidance
    kept = [line.split("] ", 1)[1] for line in guidance.splitlines() if line.startswith("- [")]
    assert len(kept) == 3
    (tmp_path / "snap.json").write_text(snapshot)
    for summary, verdict in (
        ("\n".join(kept), 0),
        ("\n".join(kept).replace("500", "800"), 1),  # a value swapped is still one
    ):
        (tmp_path / "summary.md").write_text(summary)
        for verifier in ("facts", "literal"):
            code, out, _ = invoke(
                "check",
                "--snapshot",
                str(tmp_path / "snap.json"),
                "--context",
                str(tmp_path / "summary.md"),
                "--verifier",
                verifier,
            )
            assert code == verdict, (verifier, out)
