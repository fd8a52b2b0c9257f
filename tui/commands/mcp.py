"""`ade mcp`: a read-only MCP server over stdio, so agents search the project themselves.

The server needs the official SDK (the ``mcp`` package, ~0.5 s to import), installed with the
``ade-search[mcp]`` extra so no other command pays for it. ``--config AGENT`` prints the set-up
snippet for that agent and needs nothing extra.
"""

from __future__ import annotations

import argparse
import sys
from importlib.util import find_spec

from tui.mcp.config import AGENTS

INSTALL_HINT = "ade mcp: the MCP server needs the mcp package: pip install 'ade-search[mcp]'"
"""The one line ``ade mcp`` says when the SDK is missing (exit 2)."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "set-up:\n"
        "  claude mcp add ade -- ade mcp     Claude Code\n"
        "  codex mcp add ade -- ade mcp      Codex\n"
        "  ade mcp --config gemini           the snippet for Gemini CLI (opencode, cursor…)\n\n"
        "tools: search, open, list_sessions, status (read-only)"
    )
    parser.add_argument("--project", metavar="DIR", help="project folder (default: git top level)")
    parser.add_argument("--no-daemon", action="store_true", help="never use a running daemon")
    parser.add_argument(
        "--config",
        choices=AGENTS,
        metavar="AGENT",
        help=f"print the set-up for an agent ({', '.join(AGENTS)}) and exit",
    )  # fmt: skip


def run(args: argparse.Namespace) -> int:
    if args.config:
        from pathlib import Path

        from tui.mcp.config import config_text

        project = str(Path(args.project).expanduser().resolve()) if args.project else None
        sys.stdout.write(config_text(args.config, project))
        return 0
    if find_spec("mcp") is None:
        print(INSTALL_HINT, file=sys.stderr)
        return 2
    from tui.mcp.backend import Backend
    from tui.mcp.server import serve

    return serve(Backend(args.project, no_daemon=args.no_daemon))
