"""A file system failure no command caught is one line naming the file and what the
system said: "input/output error" for a read-only checkout had sent users looking for
a failing disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from contextward.cli import os_error
from contextward.fsutil import atomic_write_text
from hook_helpers import read_only_mounts


def test_a_file_error_names_the_file_not_its_folder(tmp_path: Path) -> None:
    with pytest.raises(OSError) as caught:
        open(tmp_path / "missing" / "STATE.md", "rb")  # noqa: SIM115 - it never opens
    assert os_error(caught.value) == "STATE.md: No such file or directory"


def test_an_output_error_without_a_file_is_an_input_output_error() -> None:
    assert os_error(OSError(28, "No space left on device")) == (
        "input/output error (No space left on device)"
    )


@pytest.mark.skipif(not read_only_mounts(), reason="needs unshare -m (root in a container)")
def test_a_read_only_checkout_names_the_file_it_could_not_write(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    atomic_write_text(tmp_path / "STATE.md", "# State\n")
    command = " ".join(
        [
            f"mount --bind -o ro '{tmp_path}' '{tmp_path}' &&",
            f"'{sys.executable}' -m contextward decide 'use SQLite'",
        ]
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", command],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 2
    # The file the user has, not the temporary name it was being written through.
    assert done.stderr == "contextward: error: STATE.md: Read-only file system\n"
    assert (tmp_path / "STATE.md").read_text() == "# State\n"
