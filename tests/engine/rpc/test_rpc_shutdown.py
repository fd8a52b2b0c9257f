"""Stopping the daemon under load: every connection task ends, even one that swallowed its
cancellation (Python 3.11's ``asyncio.wait_for`` drops a cancel that lands as its inner await
completes; the answering task then waited for frames for ever and SIGTERM left the daemon
running, seen in benchmarks/bench_daemon_load.py). The real server loop and socket, in process."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.actions import SearchDomain
from engine.rpc.lifecycle import bind_socket
from engine.rpc.server import DaemonServer
from engine.types import IndexStatus, RebuildResult, SearchQueryArgs, SearchQueryResult


class _NoHost:
    def query(self, root: Path, args: SearchQueryArgs, *, fresh: bool = True) -> SearchQueryResult:
        raise AssertionError("not reached")

    def index_status(self, root: Path) -> IndexStatus:
        raise AssertionError("not reached")

    def rebuild_index(self, root: Path) -> RebuildResult:
        raise AssertionError("not reached")


async def test_serve_returns_when_a_task_swallowed_its_first_cancel(short_dir: Path) -> None:
    bound = bind_socket(short_dir / "run" / "daemon.sock")
    server = DaemonServer(SearchDomain(_NoHost()), "token")
    stop = asyncio.Event()
    serving = asyncio.create_task(server.serve(bound.sock, stop))
    swallowed = asyncio.Event()

    async def stubborn() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            swallowed.set()  # dropped, as wait_for on 3.11 can
        await asyncio.Event().wait()  # and waits for ever, unless cancelled again

    try:
        reader, writer = await asyncio.open_unix_connection(str(bound.path))
        writer.write(b'{"jsonrpc":"2.0","id":1,"method":"rpc.status"}\n')
        assert "result" in json.loads(await asyncio.wait_for(reader.readline(), 10))
        task = asyncio.create_task(stubborn())
        server._tasks.add(task)  # one more connection task, as the server tracks its own
        task.add_done_callback(server._tasks.discard)
        await asyncio.sleep(0)  # let it reach its first wait
        stop.set()
        await asyncio.wait_for(serving, 10)
        assert swallowed.is_set()
        assert task.done()
        assert not server._tasks
        writer.close()
    finally:
        stop.set()
        bound.sock.close()
        bound.remove()
