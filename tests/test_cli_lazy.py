"""The CLI imports a command's module only when that command runs.

``contextward --version`` or ``status`` must not pay for inspection's rules, the MCP
server or the bridge; the table of which module holds which command must name every
command the modules define, and nothing else.
"""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from contextward import cli


def test_the_table_names_every_command_of_every_module_and_no_other() -> None:
    modules = {
        info.name
        for info in pkgutil.iter_modules(cli.__path__)
        if not info.name.startswith("_") and info.name not in ("inspect_io", "render")
    }
    defined = {
        command.name: name for name in sorted(modules) for command in cli.module_commands(name)
    }
    assert defined == cli.COMMANDS


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    listed = {
        line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()
    }
    assert listed == set(cli.COMMANDS)


def _imported_after(args: list[str]) -> set[str]:
    code = (
        "import sys\n"
        "from contextward.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(m for m in sys.modules if m.startswith('contextward')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return set(out.splitlines()[-1].split())


def test_version_imports_no_command_module() -> None:
    loaded = _imported_after(["--version"])
    assert not {m for m in loaded if m.startswith("contextward.cli.")}
    assert "contextward.inspect" not in loaded


def test_a_command_imports_its_own_module_only() -> None:
    loaded = _imported_after(["recall", "--help"])
    commands = {m.rsplit(".", 1)[1] for m in loaded if m.startswith("contextward.cli.")}
    assert "recall_cmds" in commands
    assert not commands & {"inspect", "mcp_cmd", "bridge", "demo", "report_cmd"}


def test_inspect_loads_no_compaction_loop(tmp_path: Path) -> None:
    # Inspecting reads the project's thresholds, not the compaction loop, the brief or
    # the facts verifier: a small transcript is inspected in the time it takes to start.
    transcript = tmp_path / "t.json"
    transcript.write_text('[{"role": "user", "content": "Never push to main."}]')
    loaded = _imported_after(["inspect", str(transcript), "--json"])
    assert "contextward.inspect" in loaded and "contextward.thresholds" in loaded
    assert not loaded & {"contextward.compaction", "contextward.brief", "contextward.core.facts"}


def test_an_unknown_command_is_one_line_and_exit_2() -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from contextward.cli import main; main()", "nosuch"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("contextward: error: ")
    assert len(result.stderr.strip().splitlines()) == 1
