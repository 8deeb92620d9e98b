"""The command line: click commands that parse, call one library function, print.

Every failure a user can cause ends in one line on stderr and exit 2; no
command prints a traceback or echoes the content of a file it was given.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import click

from .. import __version__
from ..errors import ContextwardError
from ..printable import one_line
from ..redact import mask


class _Group(click.Group):
    """A group whose errors are one line (``contextward: error: …``), never click's usage block."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        run = super().main
        argv = list(args) if args is not None else sys.argv[1:]
        if sys.stdout is None and standalone_mode and argv[:1] != ["hook"]:
            # Started with its output closed (`>&-`): whatever it printed would be lost. A
            # hook answers nothing then, and its host reads exit 2 as a block: it goes on.
            _exit(2, "standard output is closed: nothing could be printed")
        if not standalone_mode:
            return run(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            result = run(args, prog_name, complete_var, standalone_mode=False, **extra)
            if sys.stdout is not None:
                sys.stdout.flush()  # a write error surfaces here, not at interpreter exit
        except BrokenPipeError:
            _broken_pipe()
        except click.ClickException as exc:
            _exit(exc.exit_code, exc.format_message())
        except ContextwardError as exc:
            # A damaged or busy store, a refused contract change…: one line, exit 2.
            _exit(2, str(exc))
        except click.Abort:
            _exit(1, "aborted")
        except KeyboardInterrupt:
            _exit(130, "interrupted")
        except UnicodeError:  # a last guard: a stray byte that reached an encoder
            _exit(2, "text that is not valid UTF-8 (in an argument, the environment or a file)")
        except OSError as exc:  # a full disk or a closed terminal under stdout
            _quiet_stdout()
            _exit(2, os_error(exc))
        sys.exit(result if isinstance(result, int) else 0)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self.commands.get(cmd_name) or _load(self, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:  # before click's own handler, which exits 1 as if we failed
            _broken_pipe()


def _broken_pipe() -> NoReturn:
    """The reader stopped reading (``| head``): nothing failed, so exit 0 (a script with
    ``pipefail`` is not failed by a pager or ``head`` that had seen enough)."""
    _quiet_stdout()
    sys.exit(0)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    if sys.stdout is not None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def os_error(exc: OSError) -> str:
    """One line for a file system failure no command caught: what the system said, and the
    file's name ("STATE.md: Read-only file system"), never its directory.
    Without a file, it is the output (a full disk or a closed terminal under stdout)."""
    reason = exc.strerror or type(exc).__name__
    name = os.path.basename(exc.filename) if isinstance(exc.filename, str) else ""
    return f"{name}: {reason}" if name else f"input/output error ({reason})"


def _exit(code: int, message: str) -> NoReturn:
    # An error may repeat an argument: never a secret or an escape sequence.
    line = one_line(mask(message))
    click.echo(f"contextward: error: {line}", err=True)
    sys.exit(code)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="contextward")
def main() -> None:
    """Keep an AI coding agent's critical context alive across compaction, and prove it."""


#: Which module holds each command (each module exposes ``commands`` or ``command``).
#: A command's module is imported only when it runs (or ``--help`` lists it), so
#: ``contextward --version`` or ``contextward status`` does not pay for inspection's
#: rules, the MCP server or the bridge. ``tests/test_cli_lazy.py`` checks this table
#: against what the modules define.
COMMANDS: dict[str, str] = {
    "bridge": "bridge",
    "brief": "brief_cmds",
    "budget": "guard_cmds",
    "check": "check",
    "checkpoint": "state_cmds",
    "compact-test": "compaction_cmds",
    "contract": "store_cmds",
    "decide": "state_cmds",
    "demo": "demo",
    "diff": "guard_cmds",
    "doctor": "store_cmds",
    "evidence": "evidence_cmds",
    "export": "store_cmds",
    "guidance": "inspect_guidance",
    "hook": "hosts_cmds",
    "import": "store_cmds",
    "init": "store_cmds",
    "inspect": "inspect",
    "install": "hosts_cmds",
    "intent": "guard_cmds",
    "journal": "store_cmds",
    "load": "state_cmds",
    "log": "state_cmds",
    "loops": "evidence_cmds",
    "mcp": "mcp_cmd",
    "note": "store_cmds",
    "orientation": "guard_cmds",
    "preflight": "guard_cmds",
    "recall": "recall_cmds",
    "report": "report_cmd",
    "restore": "compaction_cmds",
    "review": "inspect_review",
    "snapshot": "inspect_snapshot",
    "state": "state_cmds",
    "status": "store_cmds",
    "uninstall": "hosts_cmds",
    "verify": "evidence_cmds",
}


def module_commands(name: str) -> tuple[click.Command, ...]:
    """The commands command module ``name`` defines."""
    module = importlib.import_module(f".{name}", __name__)
    return tuple(getattr(module, "commands", None) or (module.command,))


def _load(group: click.Group, name: str) -> click.Command | None:
    module = COMMANDS.get(name)
    if module is None:
        return None
    try:
        commands = module_commands(module)
    except Exception as exc:  # an upgrade under way, a half-edited checkout
        _exit(2, f"contextward could not be loaded ({type(exc).__name__}); reinstall it")
    for command in commands:
        if command.name == name:
            group.add_command(command)  # once: later lookups find it in ``commands``
            return command
    return None


__all__ = ["main"]
