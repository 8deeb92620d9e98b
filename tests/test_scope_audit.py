"""Scope audit against real git repositories in temporary folders."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from contextward.cli import main
from contextward.guard.scope import (
    EMPTY_TREE,
    FileChange,
    ScopeError,
    ScopeLimits,
    ScopeThresholds,
    audit_scope,
)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo)}
    done = subprocess.run(
        ["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "a.txt").write_text("one\ntwo\nthree\n")
    (root / ".gitignore").write_text("ignored/\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    return root


def lines(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(n))


def test_clean_tree_is_ok(repo: Path) -> None:
    report = audit_scope(repo)
    assert report.verdict == "ok"
    assert report.files == ()
    assert report.baseline == "HEAD"
    assert report.baseline_commit == git(repo, "rev-parse", "HEAD").strip()


def test_tracked_staged_and_untracked_work_is_counted(repo: Path) -> None:
    (repo / "a.txt").write_text("one\nTWO\nthree\nfour\n")  # unstaged edit
    (repo / "b.txt").write_text("x\ny\n")
    git(repo, "add", "b.txt")  # staged new file
    (repo / "c.txt").write_text("no newline at end")  # untracked
    (repo / "ignored").mkdir()
    (repo / "ignored" / "big.txt").write_text(lines(5000))  # ignored: not counted
    report = audit_scope(repo)
    assert report.files == (
        FileChange("a.txt", 2, 1),
        FileChange("b.txt", 2, 0),
        FileChange("c.txt", 1, 0, untracked=True),
    )
    assert (report.added, report.deleted, report.lines) == (5, 1, 6)
    assert report.verdict == "ok"


def test_line_thresholds_give_warn_then_hard(repo: Path) -> None:
    (repo / "new.txt").write_text(lines(50))
    small = ScopeThresholds(warn_lines=40, hard_lines=100)
    assert audit_scope(repo, thresholds=small).verdict == "warn"
    (repo / "new.txt").write_text(lines(150))
    report = audit_scope(repo, thresholds=small)
    assert report.verdict == "hard"
    assert report.reasons == ("lines 150 > hard 100",)


def test_file_thresholds(repo: Path) -> None:
    for n in range(4):
        (repo / f"f{n}.txt").write_text("x\n")
    assert audit_scope(repo, thresholds=ScopeThresholds(warn_files=3)).verdict == "warn"
    hard = ScopeThresholds(warn_files=2, hard_files=3)
    assert audit_scope(repo, thresholds=hard).verdict == "hard"


def test_binary_files_count_as_files_with_zero_lines(repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"\0\1\2" * 100)
    (repo / "tracked.bin").write_bytes(b"\0abc")
    git(repo, "add", "tracked.bin")
    report = audit_scope(repo)
    assert report.files == (
        FileChange("blob.bin", 0, 0, untracked=True, binary=True),
        FileChange("tracked.bin", 0, 0, binary=True),
    )


def test_explicit_baseline_counts_committed_work(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "later.txt").write_text(lines(10))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "second")
    assert audit_scope(repo).files == ()
    report = audit_scope(repo, baseline=first)
    assert report.files == (FileChange("later.txt", 10, 0),)
    assert report.baseline == first


def test_file_count_cap_makes_a_lower_bound_and_at_least_a_warning(repo: Path) -> None:
    for n in range(6):
        (repo / f"u{n}.txt").write_text("x\n")
    report = audit_scope(repo, limits=ScopeLimits(max_untracked_files=3))
    assert len(report.files) == 3
    assert report.lower_bound
    assert report.verdict == "warn"
    assert report.capped == ("more than 3 untracked files",)


def test_byte_caps_truncate_and_warn(repo: Path) -> None:
    (repo / "huge.txt").write_text(lines(1000))
    report = audit_scope(repo, limits=ScopeLimits(max_file_bytes=100))
    (change,) = report.files
    assert change.path == "huge.txt"
    assert change.added == lines(1000)[:100].count("\n")  # full lines within 100 bytes
    assert report.verdict == "warn"
    assert report.lower_bound


def test_scan_stops_once_hard_is_certain(repo: Path) -> None:
    for n in range(5):
        (repo / f"big{n}.txt").write_text(lines(100))
    report = audit_scope(repo, thresholds=ScopeThresholds(warn_lines=50, hard_lines=150))
    assert report.verdict == "hard"
    assert len(report.files) == 2
    assert report.lower_bound


def test_symlink_is_not_followed(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text(lines(500))
    (repo / "link").symlink_to(outside)
    report = audit_scope(repo)
    assert report.files == (FileChange("link", 0, 0, untracked=True, symlink=True),)


def test_tracked_symlinks_count_as_files_with_zero_lines(repo: Path) -> None:
    (repo / "moved").symlink_to("a.txt")
    (repo / "gone").symlink_to("a.txt")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "links")
    (repo / "moved").unlink()
    (repo / "moved").symlink_to("elsewhere/" + "x" * 200)
    git(repo, "rm", "-q", "gone")
    (repo / "added").symlink_to("other/target")  # nothing like "gone": no rename
    git(repo, "add", "added")
    report = audit_scope(repo)
    assert report.files == (
        FileChange("added", 0, 0, symlink=True),
        FileChange("gone", 0, 0, symlink=True),
        FileChange("moved", 0, 0, symlink=True),
    )


def test_a_rename_counts_only_its_content_change(repo: Path) -> None:
    (repo / "b.txt").write_text(lines(500))
    (repo / "e.txt").write_text(lines(500))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "two big files")
    git(repo, "mv", "b.txt", "c.txt")
    git(repo, "mv", "e.txt", "f.txt")
    (repo / "f.txt").write_text(lines(500).replace("line 7\n", "line seven\n"))
    report = audit_scope(repo, thresholds=ScopeThresholds(warn_lines=1, hard_lines=800))
    assert report.files == (
        FileChange("c.txt", 0, 0, renamed_from="b.txt"),
        FileChange("f.txt", 1, 1, renamed_from="e.txt"),
    )
    assert (report.verdict, report.reasons) == ("warn", ("lines 2 > warn 1",))


def test_a_rewrite_under_a_new_name_is_still_delete_and_add(repo: Path) -> None:
    git(repo, "mv", "a.txt", "z.txt")
    (repo / "z.txt").write_text("nothing\nin\ncommon\n")
    assert audit_scope(repo).files == (FileChange("a.txt", 0, 3), FileChange("z.txt", 3, 0))


def test_diff_text_names_what_a_file_was_renamed_from(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "b.txt").write_text(lines(500))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "big")
    git(repo, "mv", "b.txt", "c.txt")
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["diff"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1:] == ["         +0/-0  c.txt (renamed from b.txt)"]
    assert result.stdout.splitlines()[0].endswith(": +0/-0 · 1 files · verdict ok")


def test_diff_text_labels_a_symlink_as_a_symlink(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repo / "link").symlink_to("/etc/passwd")
    (repo / "blob.bin").write_bytes(b"\0\1")
    monkeypatch.chdir(repo)
    result = CliRunner().invoke(main, ["diff"])
    assert result.stdout.splitlines()[1:] == [
        "        binary  blob.bin (untracked)",
        "       symlink  link (untracked)",
    ]


def test_repository_without_commits_uses_the_empty_tree(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "x.txt").write_text("a\nb\n")
    report = audit_scope(tmp_path)
    assert report.baseline_commit == EMPTY_TREE
    assert report.files == (FileChange("x.txt", 2, 0, untracked=True),)


def test_audit_from_a_subfolder_covers_the_whole_worktree(repo: Path) -> None:
    (repo / "sub").mkdir()
    (repo / "top.txt").write_text("x\n")
    assert [f.path for f in audit_scope(repo / "sub").files] == ["top.txt"]


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(ScopeError) as info:
        audit_scope(tmp_path)
    assert info.value.code == "not_a_repo"


@pytest.mark.parametrize("ref", ["no-such-ref", "--output=/tmp/x", ""])
def test_bad_baseline(repo: Path, ref: str) -> None:
    with pytest.raises(ScopeError) as info:
        audit_scope(repo, baseline=ref)
    assert info.value.code == "bad_baseline"


def test_report_dict_is_complete(repo: Path) -> None:
    (repo / "n.txt").write_text("x\n")
    data = audit_scope(repo).to_dict()
    assert data["verdict"] == "ok"
    assert data["changes"] == [
        {
            "path": "n.txt",
            "added": 1,
            "deleted": 0,
            "untracked": True,
            "binary": False,
            "symlink": False,
            "renamed_from": None,
        }
    ]
    assert data["lower_bound"] is False
    assert data["thresholds"] == {
        "warn_lines": 400,
        "hard_lines": 800,
        "warn_files": 10,
        "hard_files": None,
    }


def test_file_names_are_masked_in_json_and_kept_on_one_line_in_text(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = "ghp_" + "a" * 36
    (repo / f"{token}.txt").write_text("x\n")
    (repo / "two\nlines.txt").write_text("y\n")
    monkeypatch.chdir(repo)
    as_json = CliRunner().invoke(main, ["diff", "--json"])
    assert token not in as_json.stdout and "[secret:github-token].txt" in as_json.stdout
    text = CliRunner().invoke(main, ["diff"]).stdout
    assert token not in text
    assert not any(line.startswith("lines.txt") for line in text.splitlines())
    oriented = CliRunner().invoke(main, ["orientation", "--json"]).stdout
    assert token not in oriented
