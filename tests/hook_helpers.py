"""Helpers shared by the hook tests: a Claude Code hook fired in process, and whether
this machine can make a real read-only bind mount."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from contextward.hosts import claude_code


def fire(project: Path, event: str, **fields: Any) -> tuple[int, str, str]:
    """Run Claude Code's hook for ``event`` in ``project``: exit code, stdout, stderr."""
    payload = {"session_id": "s1", "cwd": str(project), "hook_event_name": event, **fields}
    out, err = io.StringIO(), io.StringIO()
    code = claude_code.run(io.BytesIO(json.dumps(payload).encode()), out, err, env={})
    return code, out.getvalue(), err.getvalue()


def read_only_mounts() -> bool:
    """Whether ``unshare -m`` works here (root in a container), for read-only mounts."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    return done.returncode == 0
