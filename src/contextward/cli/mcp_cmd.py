"""``contextward mcp``: serve every capability as MCP tools on stdio."""

from __future__ import annotations

import click


@click.command("mcp")
def command() -> None:
    """Run the MCP server on stdio (for Claude Code, Codex, OpenCode or any MCP client).

    Serves the project in $CONTEXTWARD_PROJECT_DIR, else $CLAUDE_PROJECT_DIR, else the
    current directory; a variable naming a folder that is not there refuses to start.
    What the model writes is recorded as agent (unverified).
    """
    from ..errors import ConfigError
    from ..hosts.mcp import project_dir, serve
    from ._io import BadInput, require_stdio

    require_stdio()
    try:
        project_dir()  # a mistyped project is said once, now, not at every tool call
    except ConfigError as exc:
        raise BadInput(str(exc)) from None
    serve()
