"""The daemon's connection loop: asyncio over the Unix socket, one JSON-RPC message a line.

Every connection is checked (peer uid, connection cap), read with deadlines (a client that stalls
mid-frame or sits idle is cut off so it cannot pin a slot), and answered in order. Engine calls
are synchronous (apsw), so they run on a thread pool; apsw releases the GIL, so they overlap.
Nothing a client sends can stop the daemon serving others: every failure becomes an error
response or, for abuse of the framing, a closed connection.

Each connection is read by one task and answered, in order, by another, so the reader still
sees an ``rpc.cancel`` notification or the client hanging up while a request runs, and then
interrupts that request's read connection (``engine.rpc.cancel``).

Which connections are kept is ``engine.rpc.admission``, their limits ``engine.rpc.limits``, and
what a frame is answered with ``engine.rpc.dispatch``.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine.actions import SearchDomain
from engine.basics.logs import AUDIT_LOGGER, get_logger
from engine.basics.text import replace_surrogates_in
from engine.rpc.admission import ServedConnection, admit
from engine.rpc.cancel import ThreadInterrupt, cancel_target, hung_up
from engine.rpc.dispatch import RequestDispatch
from engine.rpc.framing import FrameDecoder, FrameTooLarge, encode_frame
from engine.rpc.idle import IdleClock
from engine.rpc.lifecycle import peer_allowed, peer_credentials
from engine.rpc.limits import ServerLimits
from engine.rpc.validation import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    SERVER_BUSY,
    RpcError,
    decode_frame,
    error_object,
    parse_request,
    result_object,
)

log = get_logger(__name__)

CANCEL_AGAIN_S = 0.2
"""At shutdown, how long a cancelled connection task has before it is cancelled again."""
audit = get_logger(AUDIT_LOGGER)


@dataclass
class DaemonServer:
    """Serve the search domain on an already bound listening socket (each frame answered by
    its ``RequestDispatch``).

    Args:
        domain: the search action domain.
        cto_token: the secret a CTO client presents with ``rpc.hello``.
        status: extra fields for ``rpc.status`` (open projects, socket path…).
        limits: deadlines and caps.
        own_uid: the uid peers must have (the daemon's own, unless a test says otherwise).
        interrupt_thread: interrupts the read connections of a worker thread (cancellation).
    """

    domain: SearchDomain
    cto_token: str
    status: Callable[[], dict[str, Any]] = dict
    limits: ServerLimits = field(default_factory=ServerLimits)
    own_uid: int = field(default_factory=os.getuid)
    interrupt_thread: ThreadInterrupt = field(default=lambda _thread_id: None)
    idle: IdleClock | None = None
    """Default: an ``IdleClock`` of ``limits.idle_exit``."""
    _active: int = field(default=0, init=False)
    _tasks: set[asyncio.Task[None]] = field(default_factory=set, init=False)
    _open: dict[ServedConnection, None] = field(default_factory=dict, init=False)
    """Admitted connections, oldest first (a dict keeps insertion order)."""

    def __post_init__(self) -> None:
        self._idle = self.idle or IdleClock(self.limits.idle_exit)
        self.dispatch = RequestDispatch(
            self.domain, self.cto_token, status=self.status, limits=self.limits,
            idle=self._idle, connections=lambda: self._active,
        )  # fmt: skip

    async def serve(self, sock: socket.socket, stop: asyncio.Event) -> None:
        """Accept connections until ``stop`` is set, then close them all.

        Engine calls still running are not waited for here: the caller disposes the services
        (which makes them return) and then calls ``join``.
        """
        self.dispatch.open_pool()
        server = await asyncio.start_unix_server(self._accept, sock=sock)
        try:
            await self._idle.until_stopped_or_idle(stop)
        finally:
            server.close()
            await self._cancel_tasks()
            self.dispatch.close_pool()

    async def _cancel_tasks(self) -> None:
        """Cancel every connection task until none is left.

        Cancelled once, a task can swallow it: on Python 3.11 ``asyncio.wait_for`` drops a
        cancellation that lands as its inner await completes, and the answering task then
        waited for frames for ever, so SIGTERM under load left the daemon running (seen in
        benchmarks/bench_daemon_load.py). So cancel again until every task has ended.
        """
        while pending := [task for task in self._tasks if not task.done()]:
            for task in pending:
                task.cancel()
            await asyncio.wait(pending, timeout=CANCEL_AGAIN_S)

    def join(self) -> None:
        """Wait for engine calls that were running at shutdown (after services are disposed)."""
        self.dispatch.join()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self._active += 1
        try:
            await self._connection(reader, writer)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            self._active -= 1
            self._tasks.discard(task)
            writer.close()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = peer_credentials(writer.get_extra_info("socket"))
        if not peer_allowed(peer, self.own_uid):
            audit.warning("refused connection from uid %d pid %d: not our user", peer.uid, peer.pid)
            return
        conn = ServedConnection(peer=peer, writer=writer)
        if not admit(self._open, conn, self.limits):
            log.warning("refused %s: %d connections open, all working", conn.label, len(self._open))
            busy = RpcError(SERVER_BUSY, "server busy: too many connections, retry later")
            await self._send(writer, error_object(None, busy))
            return
        try:
            await self._serve_connection(reader, writer, conn)
        finally:
            self._open.pop(conn, None)

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: ServedConnection
    ) -> None:
        frames: asyncio.Queue[bytes | None] = asyncio.Queue(self.limits.pipeline)
        conn.queued = frames.qsize
        answering = asyncio.create_task(self._answer(frames, conn, writer))
        self._tasks.add(answering)  # cancelled at shutdown like the connection's own task
        answering.add_done_callback(self._tasks.discard)
        waiting = await self._read(reader, writer, conn, frames, answering)
        if waiting:  # the client half-closed: it still waits for what it asked
            await frames.put(None)
            await answering
            return
        for call in list(conn.inflight.values()):  # nobody waits: stop the engine work
            self._spawn(call.cancel(self.interrupt_thread))
        answering.cancel()
        await asyncio.gather(answering, return_exceptions=True)

    async def _read(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        conn: ServedConnection,
        frames: asyncio.Queue[bytes | None],
        answering: asyncio.Task[None],
    ) -> bool:
        """Read frames until the client stops; True when it half-closed and awaits answers."""
        decoder = FrameDecoder()
        frame_started: float | None = None
        while True:
            if frame_started is None:
                deadline = self.limits.idle_timeout
            else:
                # The whole frame has one deadline from its first byte: a client dripping a
                # byte every half second used to reset it on every read (slow and idle clients).
                deadline = frame_started + self.limits.frame_deadline - time.monotonic()
            try:
                if deadline <= 0:
                    raise TimeoutError
                data = await asyncio.wait_for(reader.read(65536), deadline)
            except TimeoutError:
                if not decoder.pending and (conn.busy or not frames.empty()):
                    continue  # a long request is running: the client is waiting, not idle
                limits = self.limits
                limit = limits.idle_timeout if frame_started is None else limits.frame_deadline
                log.info("cut off %s: no complete request within %.1fs", conn.label, limit)
                return False
            if conn.evicted:
                return False
            conn.last_active = time.monotonic()
            if not data:
                gone = answering.done() or hung_up(writer.get_extra_info("socket"))
                if gone and (conn.inflight or conn.busy):
                    log.info("%s hung up: cancelling its request", conn.label)
                return not gone
            try:
                received = decoder.feed(data)
            except FrameTooLarge as err:
                log.warning("cut off %s: %s", conn.label, err)
                await self._send(writer, error_object(None, RpcError(INVALID_REQUEST, str(err))))
                return False
            conn.partial = decoder.pending
            if not decoder.pending:
                frame_started = None
            elif frame_started is None or received:
                frame_started = conn.last_active  # a new frame began in this read
            for frame in received:
                if not await self._cancel_now(frame, conn, writer):
                    await frames.put(frame)

    async def _answer(
        self,
        frames: asyncio.Queue[bytes | None],
        conn: ServedConnection,
        writer: asyncio.StreamWriter,
    ) -> None:
        """Answer queued frames in order; a client that cannot take its answer is dropped."""
        while (frame := await frames.get()) is not None:
            conn.busy = True
            try:
                response = await self.dispatch.frame(frame, conn)
                if response is not None:
                    await self._send(writer, response)
            except (ConnectionError, TimeoutError):
                writer.close()  # the reader then sees the end of the stream
                return
            finally:
                conn.busy = False

    async def _cancel_now(
        self, frame: bytes, conn: ServedConnection, writer: asyncio.StreamWriter
    ) -> bool:
        """Handle an ``rpc.cancel`` on arrival (not in turn); False for any other frame."""
        if b"rpc.cancel" not in frame:
            return False
        try:
            message = decode_frame(frame)
            if not isinstance(message, dict) or message.get("method") != "rpc.cancel":
                return False
            request = parse_request(message)
            target = cancel_target(request.params)
        except RpcError:
            return False  # answered in turn, with the usual error
        except ValueError as err:
            if not request.is_notification:
                await self._send(
                    writer, error_object(request.id, RpcError(INVALID_PARAMS, str(err)))
                )
            return True
        call = conn.inflight.get(target)
        if call is not None:
            log.info("%s cancelled request %r", conn.label, target)
            self._spawn(call.cancel(self.interrupt_thread))
        if not request.is_notification:
            await self._send(writer, result_object(request.id, {"cancelled": call is not None}))
        return True

    def _spawn(self, work: Any) -> None:
        task: asyncio.Task[None] = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send(self, writer: asyncio.StreamWriter, message: Any) -> None:
        try:
            data = msgspec.json.encode(message)
        except UnicodeEncodeError:
            # A file name that is not UTF-8 (surrogate-escaped by Python) in a hit or an error
            # message: answer with U+FFFD in its place instead of dropping the connection.
            data = msgspec.json.encode(replace_surrogates_in(msgspec.to_builtins(message)))
        writer.write(encode_frame(data))
        await asyncio.wait_for(writer.drain(), self.limits.write_timeout)
