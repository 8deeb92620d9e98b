"""The evidence runner with real bash processes and a real store."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from contextward.errors import InputError
from contextward.guard.evidence import TIMEOUT_EXIT, digest_of, run_verified, strip_ansi
from contextward.store import Store


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store.open(tmp_path)


def test_ok_run_is_recorded_with_an_id(store: Store, tmp_path: Path) -> None:
    result = run_verified(store, "echo hello", cwd=tmp_path)
    run = result.run
    assert run is not None and result.ok
    assert (run.id, run.exit_code, run.verdict, run.digest, run.output_bytes) == (
        "ev-0001",
        0,
        "ok",
        "hello",
        6,
    )
    assert run.cwd == str(tmp_path)
    assert store.evidence.get("ev-1") == run


def test_failure_records_exit_code_and_output_tail(store: Store, tmp_path: Path) -> None:
    result = run_verified(store, "echo boom >&2; exit 7", cwd=tmp_path)
    assert result.run is not None
    assert (result.run.exit_code, result.run.verdict, result.run.digest) == (7, "fail", "boom")


@pytest.mark.parametrize(
    "command",
    [
        "false | true",
        "false || true",
        "false; true",
        "false || :",
        "! false",
        # any fallback that is no second check of the failing command hides its failure
        'python3 -c "import sys; sys.exit(1)" || { echo "tests failed"; }',
        "false || (echo failed)",
        "false || sleep 0",
        "false || command true",
        "false || cat /dev/null",
        'bash -c "false || true"',
        'eval "false || true"',
        "if false; then :; fi",
    ],
)
def test_unproven_exit_zero_is_untrusted(store: Store, tmp_path: Path, command: str) -> None:
    result = run_verified(store, command, cwd=tmp_path)
    assert result.run is not None
    assert (result.run.exit_code, result.run.verdict) == (0, "untrusted")
    assert result.run.reasons
    assert not result.ok
    assert any(line.startswith("fix: ") for line in result.explanation())


def test_stdin_is_closed(store: Store, tmp_path: Path) -> None:
    result = run_verified(store, "cat; echo done", cwd=tmp_path, timeout_s=5)
    assert result.run is not None and result.run.digest == "done"


def test_timeout_kills_the_whole_process_group(store: Store, tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    started = time.monotonic()
    result = run_verified(
        store, f"(sleep 30 & echo $! > {marker}; wait) ; sleep 30", cwd=tmp_path, timeout_s=1
    )
    assert time.monotonic() - started < 10
    assert result.run is not None
    assert (result.run.exit_code, result.run.verdict) == (TIMEOUT_EXIT, "timeout")
    child = int(marker.read_text())
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    else:
        pytest.fail("a child of the timed-out command survived")


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def test_digest_is_bounded_ansi_free_and_masked(store: Store, tmp_path: Path) -> None:
    command = (
        "for i in $(seq 1 3000); do printf '\\033[32mline %s\\033[0m\\n' $i; done;"
        " echo key AKIAABCDEFGHIJKLMNOP"
    )
    result = run_verified(store, command, cwd=tmp_path, digest_chars=500)
    run = result.run
    assert run is not None
    assert len(run.digest) == 500
    assert run.digest.startswith("…")
    assert "\x1b" not in run.digest
    assert run.digest.endswith("line 3000\nkey [secret:aws-access-key]")
    assert run.output_bytes > 30_000


def test_commands_with_secrets_are_stored_masked(store: Store, tmp_path: Path) -> None:
    result = run_verified(store, "test -n ghp_abcdefghijklmnopqrstuvwxyz0123456789", cwd=tmp_path)
    assert result.run is not None
    assert "ghp_" not in result.run.command
    assert "ghp_" not in str(
        store.query("SELECT command, fingerprint, streak_key FROM evidence")[0][:]
    )


def test_empty_command_is_bad_input(store: Store) -> None:
    with pytest.raises(InputError) as info:
        run_verified(store, "   ")
    assert info.value.code == "empty_command"


def test_strip_ansi_keeps_final_redraw() -> None:
    assert strip_ansi("\x1b]0;title\x07a\x1b[1;31mb\x1b[0m\r\nprogress 10%\rprogress 100%") == (
        "ab\nprogress 100%"
    )


def test_digest_of_small_output_is_whole(tmp_path: Path) -> None:
    spool = tmp_path / "out"
    spool.write_bytes(b"  one\ntwo  \n")
    with open(spool, "rb") as handle:
        assert digest_of(handle, 12, 2000) == "one\ntwo"
