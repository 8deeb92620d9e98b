"""Installing contextward's hooks into a Claude Code settings file, and removing them.

Merges into the user's JSON: every key and every hook that is not ours stays
exactly as it was; ours are recognised by the entry script in their command.
Writes are atomic. Never writes anything but the settings file it was given.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fsutil import atomic_write_text
from ..store.text import encodable

#: The file that runs a hook with ``python -S`` (no site import: a faster start).
ENTRY_SCRIPT = Path(__file__).with_name("hook_entry.py")

_TOOLS = "Bash|Write|Edit|MultiEdit|NotebookEdit"

#: (event, matcher, timeout seconds). Matchers follow Claude Code's exact-name syntax.
HOOK_EVENTS: tuple[tuple[str, str | None, int], ...] = (
    ("SessionStart", "startup|resume|clear|compact", 10),
    ("UserPromptSubmit", None, 10),
    ("PreToolUse", "Bash", 10),
    ("PostToolUse", _TOOLS, 10),
    ("PostToolUseFailure", _TOOLS, 10),
    ("PreCompact", "manual|auto", 30),
    ("SubagentStop", None, 30),
    ("PostCompact", "manual|auto", 30),
    ("Stop", None, 10),
    ("SessionEnd", None, 5),
)


class SettingsError(Exception):
    """The settings file cannot be merged safely; nothing was written."""

    code = "invalid_settings"


@dataclass(frozen=True, slots=True)
class Change:
    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def hook_command(python: str | None = None, host: str = "claude") -> str:
    """The shell command Claude Code runs for every event."""
    return f"{shlex.quote(python or sys.executable)} -S {shlex.quote(str(ENTRY_SCRIPT))} {host}"


def is_ours(handler: object) -> bool:
    if not isinstance(handler, Mapping):
        return False
    command = handler.get("command")
    if not isinstance(command, str):
        return False
    fast = ENTRY_SCRIPT.name in command and "contextward" in command
    return fast or command.strip().endswith("contextward hook claude")


def settings_path(scope: str, project_root: Path, home: Path) -> Path:
    if scope == "user":
        return home / ".claude" / "settings.json"
    return project_root / ".claude" / "settings.json"


def plan_install(path: Path, command: str) -> Change:
    before, settings = _load(path)
    hooks = _without_ours(settings)
    for event, matcher, timeout in HOOK_EVENTS:
        group: dict[str, Any] = {}
        if matcher is not None:
            group["matcher"] = matcher
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        hooks.setdefault(event, []).append(group)
    settings["hooks"] = hooks
    return Change(path, before, _dump(settings))


def plan_uninstall(path: Path) -> Change:
    before, settings = _load(path)
    if before is None:
        return Change(path, None, "")
    hooks = _without_ours(settings)
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    return Change(path, before, _dump(settings))


def apply(change: Change) -> None:
    if change.changed and not (change.before is None and change.after == ""):
        atomic_write_text(change.path, change.after)


def precompile() -> bool:
    """Byte-compile the package so a hook never compiles source at start-up.

    Matters where PYTHONDONTWRITEBYTECODE is set or the package folder is not
    writable by the host's user; best effort (False when it could not).
    """
    import compileall

    package = ENTRY_SCRIPT.parent.parent
    try:
        return bool(compileall.compile_dir(str(package), quiet=2, force=False))
    except OSError:
        return False


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")  # an editor's byte order mark is fine
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot be read ({type(exc).__name__})") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"{path}: malformed JSON at line {exc.lineno} column {exc.colno}; fix it first"
        ) from None
    except (ValueError, RecursionError):
        raise SettingsError(f"{path}: not JSON this tool can read; fix it first") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: settings must be a JSON object")
    if "\\u" in text and not encodable(data):
        # "\ud800" alone: the file could not be written back as UTF-8.
        raise SettingsError(f"{path}: holds an unpaired surrogate escape (\\ud800); fix it first")
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict) or not all(isinstance(v, list) for v in hooks.values()):
        raise SettingsError(f"{path}: 'hooks' is not an object of lists; fix it first")
    return text, data


def _without_ours(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The user's hooks with every handler of ours removed, and groups we emptied dropped."""
    kept: dict[str, Any] = {}
    for event, groups in dict(settings.get("hooks", {})).items():
        new_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, Mapping) else None
            if not isinstance(handlers, list):
                new_groups.append(group)  # not ours to judge
                continue
            remaining = [h for h in handlers if not is_ours(h)]
            if remaining or not handlers:
                new_groups.append({**group, "hooks": remaining})
        if new_groups:
            kept[event] = new_groups
    return kept


def _dump(settings: Mapping[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
