"""The hook fast path: answer a prompt that changes nothing without loading contextward.

Runs before anything else in ``hosts/hook_entry.py`` and imports only ``os``,
``time``, ``contextward.minijson``, ``contextward.secret_hints`` and
``contextward.spool`` (top-level modules, so that no package ``__init__`` with
heavier imports runs first). It answers only when it can be sure the full path
would say nothing: a session whose last full answer is cached, none of the
files that answer depended on changed since (``spool.unchanged``), and a
prompt that cannot hold a secret. Then it spools the prompt for the store and
prints nothing. Anything else returns None and the full path runs.

Must never: write to the database, mask text, or print.
"""

from __future__ import annotations

import os
import time

from . import minijson, spool
from .secret_hints import may_hold_secret

#: Events the fast path may answer.
EVENTS = frozenset({"UserPromptSubmit", "BeforeAgent"})


#: The variables a host names its project folder in (as ``hosts.hooks`` reads them).
HOST_PROJECT_VARIABLES = ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")


def project_root(start: str, host_project: str | None = None) -> str:
    """The git worktree root above ``start``, else ``host_project`` when ``start`` is inside
    it, else ``start`` (as ``store.paths`` decides)."""
    here = os.path.realpath(start)
    candidate = here
    while True:
        if os.path.exists(os.path.join(candidate, ".git")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        candidate = parent
    if host_project:
        named = os.path.realpath(host_project)
        if here == named or here.startswith(named.rstrip(os.sep) + os.sep):
            return named
    return here


def host_project() -> str | None:
    """The first folder a host's project variable names, if it is a folder."""
    for variable in HOST_PROJECT_VARIABLES:
        value = os.environ.get(variable)
        if value and os.path.isdir(value):
            return value
    return None


def answer(data: bytes) -> str | None:
    """'' when the prompt was recorded and nothing is to be injected; None: take the full path."""
    try:
        payload = minijson.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    event = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if not isinstance(payload, dict) or event not in EVENTS:
        return None
    off = {p.strip().lower() for p in os.environ.get("CONTEXTWARD_HOOKS_OFF", "").split(",")}
    if "all" in off or str(event).lower() in off:
        return ""  # turned off by the owner: record nothing, say nothing
    text, session_id, cwd = payload.get("prompt"), payload.get("session_id"), payload.get("cwd")
    if not (isinstance(text, str) and text.strip() and isinstance(session_id, str) and session_id):
        return None
    if not isinstance(cwd, str) or not os.path.isdir(cwd):
        return None
    store_dir = os.path.join(project_root(cwd, host_project()), ".contextward")
    cache = spool.read_cache(store_dir, session_id)
    if cache is None or not spool.unchanged(cache) or may_hold_secret(text):
        return None
    prompt_id = payload.get("prompt_id")
    record: dict[str, object] = {
        "text": text,
        "session_id": session_id[:200],
        "prompt_id": prompt_id if isinstance(prompt_id, str) else None,
        "created_at": _utc_now(),
    }
    return "" if spool.append_prompt(store_dir, record) else None


def _utc_now() -> str:
    """Now as the store writes it (``store.database.utc_now``, not imported on this path):
    milliseconds, so a prompt sorts among rows of the same second."""
    now = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now * 1000) % 1000:03d}Z"
