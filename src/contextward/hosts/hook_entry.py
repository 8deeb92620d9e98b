"""Fast entry for host hooks: ``python -S .../contextward/hosts/hook_entry.py HOST``.

A hook runs on every prompt and tool call, so its start-up cost matters.
``-S`` skips the site import (the largest part of a bare start); this file
puts the folder that holds the ``contextward`` package on ``sys.path`` itself
and imports only what the host adapter needs: never click, mcp or pydantic.
"""

import os
import sys

# sys.path[0] is this file's folder; it must not shadow the standard library.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_ADAPTERS = {"claude": "claude_code", "codex": "codex", "gemini": "gemini"}


def main() -> int:
    import importlib

    host = sys.argv[1] if len(sys.argv) > 1 else "claude"
    adapter = importlib.import_module("contextward.hosts." + _ADAPTERS.get(host, "claude_code"))
    code: int = adapter.run()
    return code


if __name__ == "__main__":
    sys.exit(main())
