"""Daemon-side cancellation (RELIABILITY 20): ``rpc.cancel`` and a hang-up stop the query.

The daemon runs ``slow_daemon.py``: the real daemon, whose ``slowpoke…`` queries hold their read
connection in an endless statement, so they end only when the daemon interrupts that connection.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from engine.errors import AdeError
from engine.rpc.client import connect_daemon
from engine.types import SearchQueryArgs

SCRIPT = Path(__file__).with_name("slow_daemon.py")
DEADLINE_S = 20.0


def _send(conn: Any, request_id: int, method: str, params: dict[str, Any]) -> None:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    conn.send_raw(json.dumps(message).encode() + b"\n")


def _log_count(daemon: Any, text: str, count: int) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while daemon.log_text().count(text) < count:
        assert time.monotonic() < deadline, f"{text!r} x{count} not in the daemon log"
        time.sleep(0.02)  # the daemon is another process


@pytest.fixture
def slow_daemon(make_daemon: Any) -> Any:
    daemon = make_daemon(start=False)
    daemon.command = lambda: [
        sys.executable, str(SCRIPT), "--log-file", str(daemon.log), "--backfill-delay", "0",
    ]  # fmt: skip
    return daemon.start()


@pytest.fixture
def project(short_dir: Path, chat_project: Any) -> Path:
    return chat_project(short_dir / "alpha", "alpha", "Alpha", 12).resolve()  # type: ignore[no-any-return]


def test_cancel_and_hang_up_interrupt_only_their_own_query(slow_daemon: Any, project: Path) -> None:
    first, second = slow_daemon.connect(), slow_daemon.connect()
    root = {"projectRoot": str(project)}
    assert first.call("search.query", {**root, "query": "zebra"})["result"]["total"] == 12
    _send(first, 7, "search.query", {**root, "query": "slowpoke one"})
    _send(second, 9, "search.query", {**root, "query": "slowpoke two"})
    _log_count(slow_daemon, "holding slowpoke", 2)

    first.send_raw(b'{"jsonrpc":"2.0","method":"rpc.cancel","params":{"id":7}}\n')
    answer = first.read_line()
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32800
    assert "interrupted slowpoke one" in slow_daemon.log_text()
    assert "interrupted slowpoke two" not in slow_daemon.log_text()  # only its own query
    assert select.select([second.sock], [], [], 0)[0] == []  # still running, no answer yet
    # The interrupted read connection serves the next query on that connection.
    first._ids = 10
    assert first.call("search.query", {**root, "query": "zebra"})["result"]["total"] == 12
    cancel_unknown = first.call("rpc.cancel", {"id": 7})["result"]
    assert cancel_unknown == {"cancelled": False}
    assert "error" in first.call("rpc.cancel", {"id": [7]})

    second.close()  # hang up: nobody waits for request 9 any more
    _log_count(slow_daemon, "interrupted slowpoke two", 1)
    assert "hung up: cancelling" in slow_daemon.log_text()


def test_half_closed_client_still_gets_its_answer(slow_daemon: Any, project: Path) -> None:
    conn = slow_daemon.connect()
    _send(conn, 1, "search.query", {"projectRoot": str(project), "query": "zebra"})
    conn.sock.shutdown(socket.SHUT_WR)  # like `socat`: sent, now waiting
    assert conn.read_line()["result"]["total"] == 12


def test_daemon_client_interrupt_stops_the_daemon_query(slow_daemon: Any, project: Path) -> None:
    env = {"ADE_RUNTIME_DIR": str(slow_daemon.runtime), "ADE_CONFIG_DIR": str(slow_daemon.config)}
    client = connect_daemon(project, env=env)
    assert client is not None
    failure: list[BaseException] = []

    def search() -> None:
        try:
            client.query(SearchQueryArgs(query="slowpoke three"))
        except AdeError as err:
            failure.append(err)

    worker = threading.Thread(target=search)
    worker.start()
    _log_count(slow_daemon, "holding slowpoke three", 1)
    client.interrupt()
    worker.join(DEADLINE_S)
    assert not worker.is_alive()
    assert "interrupted" in str(failure[0])
    _log_count(slow_daemon, "interrupted slowpoke three", 1)
    assert slow_daemon.log_text().count("holding slowpoke three") == 1  # not sent again
    assert client.query(SearchQueryArgs(query="zebra")).total == 12  # reconnects
    client.close()
