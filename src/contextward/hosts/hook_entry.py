"""Fast entry for host hooks: ``python -S .../contextward/hosts/hook_entry.py HOST``.

A hook runs on every prompt and tool call, so its start-up cost matters.
``-S`` skips the site import (the largest part of a bare start); this file
puts the folder that holds the ``contextward`` package on ``sys.path`` itself
and hands over to ``contextward.launcher.run_hook`` (the fast path first, then
the host adapter; never click, mcp or pydantic), which fails open on any
error, an import that fails included. Should even that module not load, the
hook still exits 0 with one line on stderr.
"""

import os
import sys

# sys.path[0] is this file's folder; it must not shadow the standard library.
sys.path[0] = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> int:
    host = sys.argv[1] if len(sys.argv) > 1 else "claude"
    try:
        from contextward.launcher import run_hook
    except Exception as exc:  # contextward cannot be loaded at all: fail open
        sys.stderr.write(f"contextward: unknown hook failed ({type(exc).__name__}); continuing\n")
        return 0
    return run_hook(host)


if __name__ == "__main__":
    sys.exit(main())
