"""`ade mcp` when things go wrong around it: the client goes away mid-answer, a line is no
JSON-RPC, the folder is no project, the SDK is not installed. The server never dies with a
traceback: it answers an error and goes on, or exits quietly when its client is gone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from mcp_client import answer, call, mcp_server, server_argv, server_env

from tui.commands.mcp import INSTALL_HINT

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
}


def _start(root: Path) -> subprocess.Popen[str]:
    """The server as an agent starts it, spoken to in raw JSON-RPC lines."""
    return subprocess.Popen(
        [sys.executable, *server_argv(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=server_env(),
    )


def _send(stdin: IO[str], message: dict[str, Any] | str) -> None:
    stdin.write((message if isinstance(message, str) else json.dumps(message)) + "\n")
    stdin.flush()


def _ended(server: subprocess.Popen[str]) -> str:
    """What the server said on stderr once it has exited (its stdin is closed)."""
    assert server.stderr is not None
    server.wait(timeout=60)
    return server.stderr.read()


def _handshake(server: subprocess.Popen[str]) -> None:
    assert server.stdin is not None
    assert server.stdout is not None
    _send(server.stdin, INITIALIZE)
    assert json.loads(server.stdout.readline())["id"] == 1
    _send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})


def test_a_client_gone_mid_answer_ends_the_server_quietly(demo_project: Path) -> None:
    server = _start(demo_project)
    assert server.stdin is not None
    assert server.stdout is not None
    _handshake(server)
    ask = {"name": "search", "arguments": {"query": "timeout", "limit": 100}}
    for n in range(2, 6):
        _send(server.stdin, {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": ask})
    server.stdout.close()  # the client is gone before the answers are written
    server.stdin.close()
    err = _ended(server)
    assert "Traceback" not in err, err
    assert server.returncode == 0


def test_a_line_that_is_no_json_rpc_does_not_end_the_server(demo_project: Path) -> None:
    """The SDK drops a line it cannot parse (no reply: it has no id to answer); the server
    answers the next request as before."""
    server = _start(demo_project)
    assert server.stdin is not None
    assert server.stdout is not None
    _handshake(server)
    _send(server.stdin, "{this is not json")
    _send(server.stdin, {"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    reply = json.loads(server.stdout.readline())
    server.stdin.close()
    err = _ended(server)
    assert reply["id"] == 7
    assert next(t["name"] for t in reply["result"]["tools"]) == "search"
    assert "Traceback" not in err
    assert server.returncode == 0


async def test_a_folder_that_is_no_project_is_a_tool_error_and_the_server_goes_on(
    tmp_path: Path, demo_project: Path
) -> None:
    nowhere = tmp_path / "not-a-project"
    nowhere.mkdir()
    async with mcp_server(nowhere) as client:
        text, failed = await call(client, "search", {"query": "timeout"})
        status_text, status_failed = await call(client, "status", {})
        listed = await client.list_tools()
    assert failed
    assert status_failed
    assert "\n" not in text
    assert "project" in text
    assert status_text == text
    assert len(listed.tools) == 4
    assert not (nowhere / ".ade").exists()  # nothing was created there
    async with mcp_server(demo_project) as client:  # and a project is answered as before
        assert (await answer(client, "search", {"query": "timeout"}))["total"] > 0


def test_without_the_sdk_ade_mcp_says_how_to_install_it_in_one_line(demo_project: Path) -> None:
    blocked = "import sys; sys.modules['mcp'] = None; "  # as if the package were not installed
    done = subprocess.run(
        [sys.executable, "-c", blocked + "from tui.cli import main_entry; main_entry()", "mcp"],
        capture_output=True,
        text=True,
        env=server_env(),
        cwd=demo_project,
        timeout=60,
    )
    assert (done.returncode, done.stdout, done.stderr) == (2, "", INSTALL_HINT + "\n")
