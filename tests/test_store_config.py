"""Configuration layers: defaults < personal < project, with fallbacks that warn."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from contextward.store.config import DEFAULTS, Config, load_config, render_defaults


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    root = tmp_path / "project"
    (root / ".contextward").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return root, home, {"CONTEXTWARD_HOME": str(home)}


def write(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def test_defaults_without_files(layers: tuple[Path, Path, dict[str, str]]) -> None:
    root, _, env = layers
    config = load_config(root, env=env)
    assert config == DEFAULTS
    assert config.warnings == ()
    assert set(config.sources.values()) == {"default"}


def test_project_beats_personal_beats_default(layers: tuple[Path, Path, dict[str, str]]) -> None:
    root, home, env = layers
    write(home / "config.toml", "loop_block_after = 5\nctx_warn_pct = 60\n")
    write(root / ".contextward" / "config.toml", "loop_block_after = 4\n")
    config = load_config(root, env=env)
    assert (config.loop_block_after, config.ctx_warn_pct) == (4, 60)
    assert config.sources["loop_block_after"] == "project"
    assert config.sources["ctx_warn_pct"] == "personal"


def test_a_project_value_equal_to_the_default_keeps_the_personal_value(
    layers: tuple[Path, Path, dict[str, str]],
) -> None:
    root, home, env = layers
    write(home / "config.toml", "ctx_warn_pct = 60\n")
    write(root / ".contextward" / "config.toml", render_defaults())
    config = load_config(root, env=env)
    assert config.ctx_warn_pct == 60
    assert config.warnings == ()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("loop_block_after = 0", "must be between 2 and 100"),
        ("loop_block_after = 1", "must be between 2 and 100"),
        ("loop_block_after = 2.5", "must be a whole number"),
        ("loop_block_after = true", "must be a whole number"),
        ("risk_confirm = 1", "must be true or false"),
        ('brief_mode = "sometimes"', "must be one of always, changed"),
        ("preflight_tools = [1, 2]", "must be a list of strings"),
        ("no_such_key = 1", "is not a setting"),
    ],
)
def test_bad_values_fall_back_with_a_warning(
    layers: tuple[Path, Path, dict[str, str]], line: str, why: str
) -> None:
    root, home, env = layers
    write(home / "config.toml", "loop_block_after = 7\n")
    write(root / ".contextward" / "config.toml", line + "\n")
    config = load_config(root, env=env)
    key = line.split(" ", maxsplit=1)[0]
    assert config.warnings == (f"project config: {key} {why}; ignored",)
    assert config.loop_block_after == 7  # the personal value survives a bad project value


def test_malformed_toml_is_ignored_with_a_warning(
    layers: tuple[Path, Path, dict[str, str]],
) -> None:
    root, home, env = layers
    write(home / "config.toml", "loop_block_after = [\n")
    config = load_config(root, env=env)
    assert config.loop_block_after == 3
    assert len(config.warnings) == 1 and "not valid TOML" in config.warnings[0]


def test_tables_name_prefixed_settings(layers: tuple[Path, Path, dict[str, str]]) -> None:
    root, _, env = layers
    write(root / ".contextward" / "config.toml", "[retention]\njournal = 500\nevidence = 200\n")
    config = load_config(root, env=env)
    assert (config.retention_journal, config.retention_evidence) == (500, 200)
    assert config.retention().journal == 500


def test_inverted_diff_thresholds_fall_back(layers: tuple[Path, Path, dict[str, str]]) -> None:
    root, _, env = layers
    write(root / ".contextward" / "config.toml", "diff_warn_lines = 900\ndiff_hard_lines = 100\n")
    config = load_config(root, env=env)
    assert (config.diff_warn_lines, config.diff_hard_lines) == (400, 800)
    assert len(config.warnings) == 1


def test_rendered_defaults_parse_back_to_the_defaults() -> None:
    data = tomllib.loads(render_defaults())
    assert data == DEFAULTS.as_dict()
    assert (
        Config(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()}) == DEFAULTS
    )


def test_xdg_config_home_is_the_fallback(tmp_path: Path) -> None:
    (tmp_path / "xdg" / "contextward").mkdir(parents=True)
    write(tmp_path / "xdg" / "contextward" / "config.toml", "loop_block_after = 9\n")
    config = load_config(None, env={"XDG_CONFIG_HOME": str(tmp_path / "xdg")})
    assert config.loop_block_after == 9


def test_inspection_thresholds_are_settings_in_a_table_or_flat(
    layers: tuple[Path, Path, dict[str, str]],
) -> None:
    root, home, env = layers
    write(home / "config.toml", "inspect_drop_importance = 0.1\n")
    write(root / ".contextward" / "config.toml", "[inspect]\nkeep_confidence = 0.95\n")
    config = load_config(root, env=env)
    assert config.policy() == {
        "keep_importance": 0.8,
        "keep_confidence": 0.95,
        "drop_importance": 0.1,
        "drop_confidence": 0.8,
        "confirm_confidence": 0.82,
    }
    assert config.warnings == ()


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("keep_confidence = 1.5", "must be between 0 and 1"),
        ('keep_confidence = "high"', "a number"),
    ],
)
def test_a_bad_threshold_falls_back_with_a_warning(
    layers: tuple[Path, Path, dict[str, str]], line: str, why: str
) -> None:
    root, _, env = layers
    write(root / ".contextward" / "config.toml", f"[inspect]\n{line}\n")
    config = load_config(root, env=env)
    assert config.inspect_keep_confidence == 0.8
    assert any(why in w for w in config.warnings)


def test_store_md_states_every_bounded_setting_as_the_product_checks_it() -> None:
    from dataclasses import fields

    doc = " ".join((Path(__file__).parent.parent / "docs" / "store.md").read_text().split())
    for setting in fields(Config):
        bounds = setting.metadata.get("range")
        if bounds is None or isinstance(setting.default, float):
            continue  # the fractions are documented together as "each in [0, 1]"
        low, high = bounds
        stated = f"`{setting.name}` ({setting.default:,}, {low:,}–{high:,})"
        assert stated in doc, stated
