"""``contextward hook HOST``, ``install claude`` and ``uninstall claude``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from ..hosts import claude_install
from ..store import project_root
from ._io import BadInput, say

HOSTS = ("claude", "codex", "gemini")
F = TypeVar("F", bound=Callable[..., Any])


@click.command("hook")
@click.argument("host", type=click.Choice(HOSTS))
@click.option(
    "--print-command",
    is_flag=True,
    help="Print the fast command to put in the host's hook configuration, and exit.",
)
def hook(host: str, print_command: bool) -> None:
    """Answer one hook payload from HOST on stdin (what the installed hooks run).

    Always exits 0: an internal error writes one line to stderr and injects nothing.
    With --print-command, print the command a host's hook configuration should run
    instead: the same answers, started without the CLI (about 10 ms, not 200).
    """
    if print_command:
        from ..hosts.claude_install import hook_command

        click.echo(hook_command(host=host))
        return
    from ..hosts import claude_code, codex, gemini

    adapter = {"claude": claude_code, "codex": codex, "gemini": gemini}[host]
    sys.exit(adapter.run())


def _scope_options(command: F) -> F:
    command = click.option(
        "--user", "scope", flag_value="user", help="~/.claude/settings.json (all projects)."
    )(command)
    return click.option(
        "--project",
        "scope",
        flag_value="project",
        default=True,
        help=".claude/settings.json of this project (default).",
    )(command)


#: Hosts set up by hand (their page says how); ``install`` writes Claude Code's settings only.
_BY_HAND = frozenset({"codex", "gemini", "pi", "opencode"})


def _claude_only(ctx: click.Context, param: click.Parameter, host: str) -> str:
    if host == "claude":
        return host
    page = host.lower()
    where = f"see docs/hosts/{page}.md" if page in _BY_HAND else "hosts: claude"
    raise click.BadParameter(f"only claude is installed by this command ({where})")


@click.command("install")
@click.argument("host", metavar="HOST", callback=_claude_only)
@click.option("--dry-run", is_flag=True, help="Print the settings file that would be written.")
@_scope_options
def install(host: str, scope: str, dry_run: bool) -> None:
    """Add contextward's hooks to Claude Code's settings, keeping everything else.

    HOST is `claude`; Codex, Gemini CLI, pi and OpenCode are set up by hand (docs/hosts/).
    """
    path = claude_install.settings_path(scope, project_root(), Path.home())
    try:
        change = claude_install.plan_install(path, claude_install.hook_command())
    except claude_install.SettingsError as exc:
        raise BadInput(str(exc)) from None
    if dry_run:
        say(change.after, nl=False)
        say(f"(dry run: {path} not written)", err=True)
        return
    claude_install.apply(change)
    claude_install.precompile()
    events = len(claude_install.HOOK_EVENTS)
    state = "updated" if change.changed else "already up to date"
    say(f"{path}: {state} ({events} hook events; your other settings are kept)")


@click.command("uninstall")
@click.argument("host", metavar="HOST", callback=_claude_only)
@click.option("--dry-run", is_flag=True, help="Print the settings file that would be written.")
@_scope_options
def uninstall(host: str, scope: str, dry_run: bool) -> None:
    """Remove contextward's hooks from Claude Code's settings, and nothing else."""
    path = claude_install.settings_path(scope, project_root(), Path.home())
    try:
        change = claude_install.plan_uninstall(path)
    except claude_install.SettingsError as exc:
        raise BadInput(str(exc)) from None
    if dry_run:
        say(change.after, nl=False)
        say(f"(dry run: {path} not written)", err=True)
        return
    claude_install.apply(change)
    say(f"{path}: {'hooks removed' if change.changed else 'no contextward hooks found'}")


commands = (hook, install, uninstall)
