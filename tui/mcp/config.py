"""`ade mcp --config AGENT`: the snippet each agent's MCP configuration takes, and the one-line
command where the agent has one.

Each shape follows that agent's own documentation: Claude Code (`claude mcp add <name> --
<command> [args…]`; a project's ``.mcp.json`` holds ``mcpServers``), Codex (`codex mcp add
<name> -- <command> [args…]`; ``~/.codex/config.toml`` holds ``[mcp_servers.<name>]`` with
``command`` and ``args``), Gemini CLI (``.gemini/settings.json`` holds
``mcpServers``; no command line is given: its ``mcp add`` would read ``--project`` as its own), OpenCode (``opencode.json`` holds ``mcp`` with
``type: "local"`` and the command as one array), Cursor (``.cursor/mcp.json`` holds
``mcpServers``).
"""

from __future__ import annotations

import json
import shlex

AGENTS = ("claude", "codex", "gemini", "opencode", "cursor")
"""The agents ``--config`` knows, in the order ``--help`` lists them."""

SERVER_NAME = "ade"
"""The name the server is registered under in every agent (its tools read ``ade.search``…)."""


def server_argv(project: str | None) -> list[str]:
    """The command an agent runs: ``ade mcp``, pinned to ``project`` when one was given (an
    agent may start its servers in another folder)."""
    return ["ade", "mcp", *(["--project", project] if project else [])]


def config_text(agent: str, project: str | None) -> str:
    """What to paste (or run) to give ``agent`` the server."""
    argv = server_argv(project)
    command, args = argv[0], argv[1:]
    line = shlex.join(argv)
    standard = json.dumps(
        {"mcpServers": {SERVER_NAME: {"command": command, "args": args}}}, indent=2
    )
    if agent == "claude":
        return (
            f"# run once (claude mcp add --scope user … for every project):\n"
            f"claude mcp add {SERVER_NAME} -- {line}\n\n"
            f"# or commit this as .mcp.json at the project root:\n{standard}\n"
        )
    if agent == "codex":
        toml_args = ", ".join(json.dumps(a) for a in args)
        return (
            f"# run once:\ncodex mcp add {SERVER_NAME} -- {line}\n\n"
            f"# or add to ~/.codex/config.toml:\n"
            f"[mcp_servers.{SERVER_NAME}]\ncommand = {json.dumps(command)}\nargs = [{toml_args}]\n"
        )
    if agent == "gemini":
        return (
            f"# add to .gemini/settings.json (~/.gemini/settings.json for every project):\n"
            f"{standard}\n"
        )
    if agent == "opencode":
        document = {
            "$schema": "https://opencode.ai/config.json",
            "mcp": {SERVER_NAME: {"type": "local", "command": argv, "enabled": True}},
        }
        return f"# add to opencode.json at the project root:\n{json.dumps(document, indent=2)}\n"
    if agent == "cursor":
        return f"# add to .cursor/mcp.json (~/.cursor/mcp.json for every project):\n{standard}\n"
    raise ValueError(agent)
