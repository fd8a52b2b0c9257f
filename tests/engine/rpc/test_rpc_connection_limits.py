"""A whole frame must arrive within its deadline (a client dripping one byte at a
time is cut off), and idle connections cannot lock other clients out: beyond a per-uid budget,
or at the connection cap, the oldest idle ones are closed so a new client is always served.

Real daemons on real Unix sockets; every wait is bounded by the socket timeouts."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.actions import SearchDomain
from engine.rpc.lifecycle import bind_socket
from engine.rpc.limits import ServerLimits
from engine.rpc.server import DaemonServer
from engine.rpc.validation import SERVER_BUSY

DRIP_INTERVAL_S = 0.2
FRAME = (
    b'{"jsonrpc":"2.0","id":1,"method":"rpc.status","params":{"padding":"' + b"x" * 60 + b'"}}\n'
)


def test_a_client_dripping_bytes_is_cut_off_within_the_frame_deadline(daemon: Any) -> None:
    """The fixture's frame deadline is 0.5 s; the frame takes ~25 s at this pace. Each byte
    arrives well within 0.5 s of the previous one, which used to reset the deadline."""
    drip = daemon.connect(timeout=5)
    sent = 0
    closed = False
    for byte in FRAME:
        try:
            drip.send_raw(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        sent += 1
        time.sleep(DRIP_INTERVAL_S)  # the pace of the attack itself, not a wait for the daemon
        if sent % 5 == 0 and "cut off pid" in daemon.log_text():
            closed = drip.closed_by_peer()
            break
    assert closed, f"still connected after {sent} of {len(FRAME)} bytes"
    assert sent < len(FRAME) // 2
    assert "result" in daemon.connect().call("rpc.status")


def test_idle_connections_never_lock_a_new_client_out(make_daemon: Any) -> None:
    daemon = make_daemon("--max-connections", "64", "--idle-grace", "0")
    idle = [daemon.connect(timeout=10) for _ in range(70)]  # more than the cap, all silent
    newcomer = daemon.connect(timeout=10)
    assert newcomer.call("rpc.status")["result"]["pid"] == daemon.proc.pid
    # The oldest idle connections were the ones closed (beyond the uid's idle budget of 16).
    assert idle[0].closed_by_peer()
    assert "result" in idle[-1].call("rpc.status")  # the most recent idle ones live on
    assert sum(conn.closed_by_peer() for conn in idle[:50]) == 50  # all beyond the budget


def test_an_idle_budget_per_uid_closes_the_oldest_first(make_daemon: Any) -> None:
    daemon = make_daemon("--idle-per-uid", "3", "--idle-grace", "0")
    conns = [daemon.connect(timeout=10) for _ in range(3)]
    for conn in conns:
        assert "result" in conn.call("rpc.status")
    conns[0].call("rpc.status")  # the first is now the most recently active
    fresh = daemon.connect(timeout=10)
    assert "result" in fresh.call("rpc.status")
    assert conns[1].closed_by_peer()  # least recently active: closed
    assert "result" in conns[0].call("rpc.status")
    assert "result" in conns[2].call("rpc.status")


def test_a_client_between_two_requests_is_not_closed_for_the_idle_budget(make_daemon: Any) -> None:
    """Of 50 clients querying flat out, each is idle between an answer and its next
    request; closing those for the per-uid budget failed ~5% of their requests. Only a
    connection idle past the grace counts (here an hour: none does)."""
    daemon = make_daemon("--idle-per-uid", "1", "--idle-grace", "3600")
    conns = [daemon.connect(timeout=10) for _ in range(4)]
    for conn in conns:
        assert "result" in conn.call("rpc.status")
    for conn in conns:  # every one still open and served
        assert "result" in conn.call("rpc.status")


async def _yield_until(condition: Callable[[], bool], rounds: int = 100_000) -> None:
    """Let the server loop run (no wall-clock wait) until ``condition`` holds."""
    for _ in range(rounds):
        if condition():
            return
        await asyncio.sleep(0)
    raise AssertionError("the server never got there")


class _NoHost:
    def query(self, root: Any, args: Any, *, fresh: bool = True) -> Any:
        raise AssertionError("not reached")

    index_status = rebuild_index = query


async def test_cap_refuses_only_when_every_connection_is_working(short_dir: Path) -> None:
    """In process, so the test can see when the server has read each client's partial frame
    (the real server loop and socket; a connection mid-frame is working, not idle)."""
    bound = bind_socket(short_dir / "run" / "daemon.sock")
    limits = ServerLimits(max_connections=2, frame_deadline=30.0)
    server = DaemonServer(SearchDomain(_NoHost()), "token", limits=limits)
    stop = asyncio.Event()
    serving = asyncio.create_task(server.serve(bound.sock, stop))
    try:
        working = [await asyncio.open_unix_connection(str(bound.path)) for _ in range(2)]
        for _, writer in working:
            writer.write(b'{"jsonrpc":"2.0",')
            await writer.drain()
        await _yield_until(lambda: len(server._open) == 2 and all(c.partial for c in server._open))
        reader, writer = await asyncio.open_unix_connection(str(bound.path))
        refused = json.loads(await asyncio.wait_for(reader.readline(), 10))
        assert refused["error"]["code"] == SERVER_BUSY
        writer.close()

        first_reader, first_writer = working[0]
        first_writer.write(b'"id":1,"method":"rpc.status"}\n')
        answer = json.loads(await asyncio.wait_for(first_reader.readline(), 10))
        assert answer["result"]["pid"] == os.getpid()  # now idle: the next client may take it
        reader, writer = await asyncio.open_unix_connection(str(bound.path))
        writer.write(b'{"jsonrpc":"2.0","id":2,"method":"rpc.status"}\n')
        assert "result" in json.loads(await asyncio.wait_for(reader.readline(), 10))
        assert await asyncio.wait_for(first_reader.read(), 10) == b""  # the idle one was closed
        for _, w in [*working, (reader, writer)]:
            w.close()
    finally:
        stop.set()
        await serving
        bound.sock.close()
        bound.remove()
