"""``contextward mcp``: serve every capability as MCP tools on stdio."""

from __future__ import annotations

import click


@click.command("mcp")
def command() -> None:
    """Run the MCP server on stdio (for Claude Code, Codex, OpenCode or any MCP client).

    Serves the project in $CONTEXTWARD_PROJECT_DIR, else $CLAUDE_PROJECT_DIR, else the
    current directory. What the model writes is recorded as agent (unverified).
    """
    from ..hosts.mcp import serve
    from ._io import require_stdio

    require_stdio()
    serve()
