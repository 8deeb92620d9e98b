"""Configuration layers: built-in defaults < personal ``config.toml`` < project ``config.toml``.

Owns: the settings table (name, default, type, bounds), reading the two TOML
layers, validating each value, and the merge rules:

* an unknown key, a wrongly typed, fractional or out-of-range value falls
  back (to the personal value, else the default) with a warning;
* a project value equal to the built-in default means "no opinion", so a
  personal value survives it; any other project value wins;
* an unreadable or malformed file is ignored with a warning, never repaired.

Must never: write the personal layer, or raise for a bad value (only
``render_defaults`` text is written, by ``contextward init``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .database import Retention
from .paths import CONFIG_NAME, personal_dir, store_dir

_TOOLS = ("git", "python3", "pip", "node", "npm", "rg", "pytest")


def _int(default: int, low: int, high: int, doc: str) -> Any:
    return field(default=default, metadata={"range": (low, high), "doc": doc})


def _fraction(default: float, doc: str) -> Any:
    return field(default=default, metadata={"range": (0.0, 1.0), "doc": doc})


@dataclass(frozen=True)
class Config:
    """Effective settings. ``warnings`` explain every value that fell back; ``sources`` name the layer."""

    loop_block_after: int = _int(3, 2, 100, "refuse the Nth identical failing attempt")
    verify_timeout_s: int = _int(180, 1, 900, "default timeout of `contextward verify`")
    verify_digest_chars: int = _int(2000, 200, 20_000, "output characters kept per run")
    diff_warn_lines: int = _int(400, 0, 10_000_000, "changed-line warning threshold")
    diff_hard_lines: int = _int(800, 0, 10_000_000, "changed-line hard threshold")
    diff_warn_files: int = _int(10, 0, 1_000_000, "changed-file warning threshold")
    ctx_warn_pct: int = _int(70, 0, 100, "first context-usage watermark (percent)")
    brief_mode: str = field(
        default="changed",
        metadata={"choices": ("always", "changed"), "doc": "inject the brief when it changed"},
    )
    brief_max_precedents: int = _int(3, 0, 10, "lessons re-injected per brief (0 disables)")
    risk_confirm: bool = field(default=True, metadata={"doc": "ask before risky commands"})
    preflight_tools: tuple[str, ...] = field(
        default=_TOOLS, metadata={"doc": "executables checked by preflight"}
    )
    state_file: str = field(default="STATE.md", metadata={"doc": "STATE.md path in the repo"})
    plans_dir: str = field(default="plans", metadata={"doc": "task planning folders"})
    state_log_cap: int = _int(200, 10, 100_000, "STATE.md Log entries kept")
    state_artifacts: tuple[str, ...] = field(
        default=("goal.md", "anchor.md", "plan.md", "summary.md"),
        metadata={"doc": "planning files a task folder is expected to hold"},
    )
    retention_journal: int = _int(20_000, 100, 10_000_000, "journal rows kept (lessons always)")
    retention_prompts: int = _int(5_000, 100, 10_000_000, "owner prompts kept")
    retention_evidence: int = _int(5_000, 100, 10_000_000, "evidence runs kept")
    retention_attempts: int = _int(20_000, 100, 10_000_000, "command attempts kept")
    retention_events: int = _int(50_000, 100, 10_000_000, "events kept")
    retention_records: int = _int(500, 10, 1_000_000, "inspections/snapshots kept (reports 2x)")
    retention_sessions: int = _int(1_000, 10, 1_000_000, "sessions kept")
    # Inspection's keep / drop / review thresholds ([inspect] keep_confidence = 0.9 too).
    inspect_keep_importance: float = _fraction(0.8, "keep a memory this important …")
    inspect_keep_confidence: float = _fraction(0.8, "… and this sure of its kind")
    inspect_drop_importance: float = _fraction(0.25, "drop anything this unimportant …")
    inspect_drop_confidence: float = _fraction(0.8, "… or noise this sure")
    inspect_confirm_confidence: float = _fraction(
        0.82, "provider mode: a rules memory this unsure needs the model to name it"
    )
    warnings: tuple[str, ...] = field(default=(), compare=False, metadata={"meta": True})
    sources: Mapping[str, str] = field(default_factory=dict, compare=False, metadata={"meta": True})

    def retention(self) -> Retention:
        return Retention(
            journal=self.retention_journal,
            prompts=self.retention_prompts,
            evidence=self.retention_evidence,
            attempts=self.retention_attempts,
            events=self.retention_events,
            inspections=self.retention_records,
            snapshots=self.retention_records,
            check_reports=self.retention_records * 2,
            sessions=self.retention_sessions,
        )

    def policy(self) -> dict[str, float]:
        """The inspection thresholds, as ``PolicyConfig.from_mapping`` takes them."""
        prefix = "inspect_"
        return {
            f.name.removeprefix(prefix): getattr(self, f.name)
            for f in setting_fields()
            if f.name.startswith(prefix)
        }

    def as_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in setting_fields()}


def _plain(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


def setting_fields() -> tuple[Any, ...]:
    return tuple(f for f in fields(Config) if not f.metadata.get("meta"))


DEFAULTS = Config()


def validate(name: str, value: object) -> tuple[object | None, str | None]:
    """``(value, None)`` when valid (normalised), else ``(None, why)``."""
    spec = next((f for f in setting_fields() if f.name == name), None)
    if spec is None:
        return None, "is not a setting"
    default = getattr(DEFAULTS, name)
    if isinstance(default, bool):
        return (value, None) if isinstance(value, bool) else (None, "must be true or false")
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return None, "must be a number"
        low, high = spec.metadata["range"]
        if not low <= value <= high:
            return None, f"must be between {low:g} and {high:g}"
        return float(value), None
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            return None, "must be a whole number"
        low, high = spec.metadata["range"]
        if not low <= value <= high:
            return None, f"must be between {low} and {high}"
        return value, None
    if isinstance(default, str):
        choices = spec.metadata.get("choices")
        if not isinstance(value, str):
            return None, "must be a string"
        if choices and value not in choices:
            return None, f"must be one of {', '.join(choices)}"
        return value, None
    if isinstance(default, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return None, "must be a list of strings"
        return tuple(value), None
    return None, "has an unsupported type"  # pragma: no cover - every setting is typed above


def _read_layer(path: Path, label: str, warnings: list[str]) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            # An editor's byte order mark is not TOML, but it is not the owner's mistake.
            return tomllib.loads(handle.read().removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as exc:
        warnings.append(f"{label} config {path.name}: not valid TOML ({exc}); ignored")
    except (ValueError, RecursionError):
        # Not UTF-8, absurd nesting, or an integer of more digits than Python converts.
        warnings.append(
            f"{label} config {path.name}: not valid TOML (not UTF-8, nested too deeply or a "
            "number too long); ignored"
        )
    except OSError as exc:
        warnings.append(f"{label} config {path.name}: unreadable ({exc.strerror}); ignored")
    return {}


def _layer_values(data: dict[str, Any], label: str, warnings: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for key, value in data.items():
        if isinstance(value, dict):
            # One level of tables is allowed: [retention] journal = 1 == retention_journal.
            for sub, inner in value.items():
                out.update(_layer_values({f"{key}_{sub}": inner}, label, warnings))
            continue
        good, why = validate(key, value)
        if why is not None:
            warnings.append(f"{label} config: {key} {why}; ignored")
        else:
            out[key] = good
    return out


def load_config(root: Path | None, *, env: Mapping[str, str] | None = None) -> Config:
    """Merge defaults, the personal layer and the project layer (``root`` may be None)."""
    env = os.environ if env is None else env
    warnings: list[str] = []
    personal = _layer_values(
        _read_layer(personal_dir(env) / CONFIG_NAME, "personal", warnings), "personal", warnings
    )
    project: dict[str, object] = {}
    if root is not None:
        project = _layer_values(
            _read_layer(store_dir(root) / CONFIG_NAME, "project", warnings), "project", warnings
        )
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for spec in setting_fields():
        name, default = spec.name, getattr(DEFAULTS, spec.name)
        values[name], sources[name] = default, "default"
        if name in personal:
            values[name], sources[name] = personal[name], "personal"
        if name in project and (project[name] != default or name not in personal):
            values[name], sources[name] = project[name], "project"
    if values["diff_hard_lines"] < values["diff_warn_lines"]:  # type: ignore[operator]
        warnings.append("diff_hard_lines is below diff_warn_lines; using the defaults for both")
        values["diff_hard_lines"] = DEFAULTS.diff_hard_lines
        values["diff_warn_lines"] = DEFAULTS.diff_warn_lines
    return Config(**values, warnings=tuple(warnings), sources=sources)  # type: ignore[arg-type]


def render_defaults() -> str:
    """The ``config.toml`` that ``contextward init`` writes: every setting at its default."""
    lines = [
        "# contextward project configuration (TOML). Owner-authored: commit it.",
        "# Layers: built-in defaults < personal ($CONTEXTWARD_HOME or",
        "# $XDG_CONFIG_HOME/contextward)/config.toml < this file. A value equal to",
        "# the built-in default means 'no opinion', so a personal value still applies.",
        "# Bad values fall back with a warning (see `contextward doctor`).",
        "",
    ]
    for spec in setting_fields():
        value = getattr(DEFAULTS, spec.name)
        lines.append(f"# {spec.metadata.get('doc', '')}")
        lines.append(f"{spec.name} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(f'"{v}"' for v in value) + "]"
    raise TypeError(type(value).__name__)  # pragma: no cover


__all__ = ["DEFAULTS", "Config", "load_config", "render_defaults", "setting_fields", "validate"]
