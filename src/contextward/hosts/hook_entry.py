"""Fast entry for host hooks: ``python -S .../contextward/hosts/hook_entry.py HOST``.

A hook runs on every prompt and tool call, so its start-up cost matters.
``-S`` skips the site import (the largest part of a bare start); this file
puts the folder that holds the ``contextward`` package on ``sys.path`` itself,
tries the fast path (``fastpath``: a prompt that changes nothing), and only
then imports the host adapter. Never click, mcp or pydantic.
"""

import io
import os
import sys

# sys.path[0] is this file's folder; it must not shadow the standard library.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_ADAPTERS = {"claude": "claude_code", "codex": "codex", "gemini": "gemini"}


def main() -> int:
    import importlib

    host = sys.argv[1] if len(sys.argv) > 1 else "claude"
    data = sys.stdin.buffer.read() if sys.stdin is not None else b""
    try:
        from contextward.fastpath import answer

        if answer(data) is not None:
            return 0  # recorded; nothing to inject
    except Exception:  # the full path below decides, and fails open itself
        pass
    adapter = importlib.import_module("contextward.hosts." + _ADAPTERS.get(host, "claude_code"))
    code: int = adapter.run(stdin=io.BytesIO(data))
    return code


if __name__ == "__main__":
    sys.exit(main())
