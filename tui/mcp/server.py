"""The MCP server over stdio, on the official SDK's low-level ``Server``.

Tools answer on one worker thread of their own (the engine is synchronous, and one thread keeps
each SQLite connection on the thread that opened it) while the event loop goes on reading
requests. Every failure of a call is a tool error with one line, never the end of the server:
bad input says the CLI's message, a missing project says so and the next call tries again, an
unexpected fault is named in one line. A reader that went away (a closed pipe) ends the server
quietly: nobody is left to answer.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

from engine import __version__
from engine.errors import AdeError
from tui.mcp.answers import list_sessions, search, status
from tui.mcp.backend import Backend
from tui.mcp.catalog import INSTRUCTIONS, TOOLS
from tui.mcp.opening import OpenFailed, open_link

_ANSWERERS: dict[str, Callable[[Backend, dict[str, Any]], str]] = {
    "search": search,
    "open": open_link,
    "list_sessions": list_sessions,
    "status": lambda backend, _arguments: status(backend),
}
"""Tool name → the function answering it (JSON text), run on the worker thread."""

_COMMAND = {
    "search": "ade search",
    "open": "ade open",
    "list_sessions": "ade mcp",
    "status": "ade search",
}
"""The command whose one-line error message a tool's error repeats."""

_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
"""Every tool reads; none writes, resumes or rebuilds anything."""


def tool_list() -> list[types.Tool]:
    """The SDK's ``Tool`` records of ``catalog.TOOLS``."""
    return [
        types.Tool(
            name=tool["name"],
            title=tool["title"],
            description=tool["description"],
            input_schema=tool["inputSchema"],
            annotations=_READ_ONLY,
        )
        for tool in TOOLS
    ]


def answer(backend: Backend, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
    """The text of tool ``name``'s answer and whether it is an error; never raises."""
    answerer = _ANSWERERS.get(name)
    if answerer is None:
        return f"unknown tool {name!r}; tools: {', '.join(_ANSWERERS)}", True
    try:
        return answerer(backend, dict(arguments or {})), False
    except OpenFailed as err:
        return f"ade open: {err}", True
    except AdeError as err:  # usage, project and link errors: the CLI's one line
        return f"{_COMMAND[name]}: {err}", True
    except OSError as err:
        where = f" ({err.filename})" if err.filename else ""
        return f"{_COMMAND[name]}: {err.strerror or err}{where}", True
    except Exception as err:  # a fault of ours must not end the server: say it, go on
        return f"{_COMMAND[name]}: internal error: {type(err).__name__}: {err}", True


def build_server(backend: Backend) -> Server[Any]:
    """The low-level server with the four tools, answering through ``backend``."""
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ade-mcp")
    tools = tool_list()

    async def on_list_tools(
        _ctx: Any, _params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def on_call_tool(_ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        def run() -> tuple[str, bool]:
            return answer(backend, params.name, params.arguments)

        text, failed = await anyio.to_thread.run_sync(lambda: worker.submit(run).result())
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=failed
        )

    return Server(
        "ade-search",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def serve(backend: Backend) -> int:
    """Serve over stdin/stdout until the client closes stdin (0), or the pipe breaks (0)."""

    async def main() -> None:
        server = build_server(backend)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    try:
        anyio.run(main)
    except BaseException as err:
        if not _only_closed_pipes(err):
            raise
    finally:
        backend.close()
    return 0


def _only_closed_pipes(err: BaseException) -> bool:
    """Whether ``err`` (or every exception of a group) is a pipe the client closed."""
    if isinstance(err, BaseExceptionGroup):
        return all(_only_closed_pipes(inner) for inner in err.exceptions)
    return isinstance(err, (BrokenPipeError, ConnectionResetError, anyio.BrokenResourceError))


if __name__ == "__main__":
    sys.exit(serve(Backend(None)))
