"""Driving the real `ade mcp` through the SDK's own client over stdio: the server is a child
process started as an agent starts it (``ade mcp``), with the test's environment."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from cli_helpers import DEMO_NOW, no_daemon_flag
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ENTRY = "from tui.cli import main_entry; main_entry()"


def server_argv(root: Path | str, *extra: str) -> list[str]:
    """``ade mcp --project ROOT`` on the test's path (``--no-daemon`` in process)."""
    return ["-c", ENTRY, "mcp", "--project", str(root), *no_daemon_flag(), *extra]


def server_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ADE_SESSION_ID", "NO_COLOR")}
    env.setdefault("ADE_NOW", DEMO_NOW)
    return {**env, **extra}


@asynccontextmanager
async def mcp_server(root: Path | str, *extra: str) -> AsyncIterator[Client]:
    """A connected client of ``ade mcp`` for ``root`` (its stderr goes to the test's)."""
    params = StdioServerParameters(
        command=sys.executable, args=server_argv(root, *extra), env=server_env()
    )
    async with Client(params, read_timeout_seconds=60) as client:
        yield client


async def call(client: Client, name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
    """The text of one tool call's answer and whether it is an error."""
    result = await client.call_tool(name, arguments)
    assert len(result.content) == 1
    block = result.content[0]
    assert block.type == "text"
    return block.text, bool(result.is_error)


async def answer(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A successful call's answer, decoded."""
    text, failed = await call(client, name, arguments)
    assert not failed, text
    decoded: dict[str, Any] = json.loads(text)
    return decoded
