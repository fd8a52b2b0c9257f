"""The daemon's connection loop: asyncio over the Unix socket, one JSON-RPC message a line.

Every connection is checked (peer uid, connection cap), read with deadlines (a client that stalls
mid-frame or sits idle is cut off so it cannot pin a slot), and answered in order. Engine calls
are synchronous (apsw), so they run on a thread pool; apsw releases the GIL, so they overlap.
Nothing a client sends can stop the daemon serving others: every failure becomes an error
response or, for abuse of the framing, a closed connection.

Each connection is read by one task and answered, in order, by another, so the reader still
sees an ``rpc.cancel`` notification or the client hanging up while a request runs, and then
interrupts that request's read connection (``engine.rpc.cancel``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import msgspec

from engine import __version__
from engine.actions import Role, SearchDomain
from engine.errors import AdeError, ProjectError, UsageError
from engine.rpc.cancel import CallCancelled, EngineCall, ThreadInterrupt, cancel_target, hung_up
from engine.rpc.framing import FrameDecoder, FrameTooLarge, encode_frame
from engine.rpc.idle import IdleClock
from engine.rpc.lifecycle import PeerCredentials, peer_allowed, peer_credentials
from engine.rpc.roles import role_for
from engine.rpc.validation import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    REQUEST_CANCELLED,
    SERVER_BUSY,
    Request,
    RpcError,
    decode_frame,
    error_object,
    parse_request,
    request_id_of,
    result_object,
    split_batch,
)
from engine.text import replace_surrogates_in

log = logging.getLogger("ade.daemon")

CANCEL_AGAIN_S = 0.2
"""At shutdown, how long a cancelled connection task has before it is cancelled again."""
audit = logging.getLogger("ade.daemon.audit")


@dataclass(frozen=True, slots=True)
class ServerLimits:
    """Per-connection limits (RELIABILITY 23); tests shorten the deadlines."""

    frame_deadline: float = 5.0
    """Seconds a started frame may take to finish: a real client sends a line in one write."""
    idle_timeout: float = 120.0
    """Seconds a connection may sit without a request; clients reconnect transparently."""
    write_timeout: float = 10.0
    """Seconds a client may take to read its answer before it is dropped."""
    max_connections: int = 64
    """Concurrent connections: more than any palette + CLI + agents need, bounded for safety.
    At the cap the oldest idle connection is closed for a new one; only when every connection
    is working is a new one refused."""
    idle_per_uid: int = 16
    """Idle connections one uid may hold open; beyond it the oldest idle ones are closed, so a
    client that opens and abandons connections cannot lock others out (issue 13.16)."""
    idle_grace: float = 1.0
    """Seconds a connection must have been idle to count against its uid's idle budget: one of
    50 clients querying flat out is idle between an answer and its next request, and closing
    it then failed ~5% of their requests (issue 14.5). The connection cap ignores the grace."""
    workers: int = 8
    """Engine calls in flight at once; apsw releases the GIL, so these overlap for real."""
    pipeline: int = 16
    """Requests a client may send ahead of their answers before the daemon stops reading."""
    query_hold: float | None = None
    """Longest a query waits for a due drain; None: the gate's default; 0: never waits."""
    idle_exit: float | None = None
    """Seconds without a request before the daemon stops by itself (``engine.rpc.idle``);
    None: never. A daemon ``ade search`` started for itself sets it (``engine.rpc.autostart``)."""


@dataclass(slots=True, eq=False)
class _Connection:
    peer: PeerCredentials
    writer: asyncio.StreamWriter | None = None
    role: Role = "agent"
    inflight: dict[Any, EngineCall] = field(default_factory=dict)
    busy: bool = False
    partial: bool = False
    """Part of a frame has arrived without its newline."""
    queued: Callable[[], int] = lambda: 0
    last_active: float = field(default_factory=time.monotonic)
    evicted: bool = False

    @property
    def label(self) -> str:
        return f"pid={self.peer.pid} uid={self.peer.uid}"

    @property
    def idle(self) -> bool:
        """Nothing asked, nothing running, nothing half sent: closing it loses no work."""
        return not (self.busy or self.partial or self.inflight or self.queued())

    def evict(self) -> None:
        self.evicted = True
        if self.writer is not None:
            self.writer.close()  # the reader sees the end of the stream and winds down


@dataclass
class DaemonServer:
    """Serve the search domain on an already bound listening socket.

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
    _active: int = 0
    _started: float = field(default_factory=time.time)
    idle: IdleClock | None = None
    """Default: an ``IdleClock`` of ``limits.idle_exit``."""
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _open: dict[_Connection, None] = field(default_factory=dict)
    """Admitted connections, oldest first (a dict keeps insertion order)."""

    async def serve(self, sock: socket.socket, stop: asyncio.Event) -> None:
        """Accept connections until ``stop`` is set, then close them all.

        Engine calls still running are not waited for here: the caller disposes the services
        (which makes them return) and then calls ``join``.
        """
        self._executor = ThreadPoolExecutor(self.limits.workers, thread_name_prefix="ade-rpc")
        server = await asyncio.start_unix_server(self._accept, sock=sock)
        try:
            await self._idle_clock().until_stopped_or_idle(stop)
        finally:
            server.close()
            await self._cancel_tasks()
            self._executor.shutdown(wait=False, cancel_futures=True)

    def _idle_clock(self) -> IdleClock:
        if self.idle is None:
            self.idle = IdleClock(self.limits.idle_exit)
        return self.idle

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
        executor = getattr(self, "_executor", None)
        if executor is not None:
            executor.shutdown(wait=True)

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
        conn = _Connection(peer=peer, writer=writer)
        if not self._admit(conn):
            log.warning("refused %s: %d connections open, all working", conn.label, len(self._open))
            busy = RpcError(SERVER_BUSY, "server busy: too many connections, retry later")
            await self._send(writer, error_object(None, busy))
            return
        try:
            await self._serve_connection(reader, writer, conn)
        finally:
            self._open.pop(conn, None)

    def _admit(self, new: _Connection) -> bool:
        """Make room for ``new``: close the oldest idle connections beyond its uid's idle budget
        and, at the cap, the oldest idle one of anyone. False when every connection works."""
        settled = time.monotonic() - self.limits.idle_grace
        same_uid = sorted((c for c in self._open if c.idle and c.peer.uid == new.peer.uid
                           and c.last_active <= settled),
                          key=lambda c: c.last_active)  # fmt: skip
        for old in same_uid[: max(0, len(same_uid) - self.limits.idle_per_uid + 1)]:
            log.info("closed idle %s: over the idle budget of its uid", old.label)
            self._drop(old)
        while len(self._open) >= self.limits.max_connections:
            oldest = min((c for c in self._open if c.idle), key=lambda c: c.last_active,
                         default=None)  # fmt: skip
            if oldest is None:
                return False
            log.info("closed idle %s: connection cap reached", oldest.label)
            self._drop(oldest)
        self._open[new] = None
        return True

    def _drop(self, conn: _Connection) -> None:
        self._open.pop(conn, None)
        conn.evict()

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, conn: _Connection
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
        conn: _Connection,
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
                # byte every half second used to reset it on every read (issue 13.16).
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
        self, frames: asyncio.Queue[bytes | None], conn: _Connection, writer: asyncio.StreamWriter
    ) -> None:
        """Answer queued frames in order; a client that cannot take its answer is dropped."""
        while (frame := await frames.get()) is not None:
            conn.busy = True
            try:
                response = await self._frame(frame, conn)
                if response is not None:
                    await self._send(writer, response)
            except (ConnectionError, TimeoutError):
                writer.close()  # the reader then sees the end of the stream
                return
            finally:
                conn.busy = False

    async def _cancel_now(
        self, frame: bytes, conn: _Connection, writer: asyncio.StreamWriter
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

    async def _frame(self, frame: bytes, conn: _Connection) -> Any:
        """Answer one frame: a single response, a batch list, or ``None`` (notifications)."""
        try:
            messages, is_batch = split_batch(decode_frame(frame))
        except RpcError as err:
            return error_object(None, err)
        responses = []
        for message in messages:
            response = await self._message(message, conn)
            if response is not None:
                responses.append(response)
        if is_batch:
            return responses or None
        return responses[0] if responses else None

    async def _message(self, message: Any, conn: _Connection) -> dict[str, Any] | None:
        try:
            request = parse_request(message)
        except RpcError as err:
            return error_object(request_id_of(message), err)
        try:
            result = await self._dispatch(request, conn)
        except RpcError as err:
            response = error_object(request.id, err)
        except (UsageError, ProjectError) as err:
            data = {"type": type(err).__name__}
            response = error_object(request.id, RpcError(INVALID_PARAMS, str(err), data))
        except AdeError as err:
            response = error_object(request.id, RpcError(INTERNAL_ERROR, str(err)))
        except Exception:
            log.exception("internal error in %s from %s", request.method, conn.label)
            response = error_object(request.id, RpcError(INTERNAL_ERROR, "internal error"))
        else:
            response = result_object(request.id, result)
        return None if request.is_notification else response

    async def _dispatch(self, request: Request, conn: _Connection) -> Any:
        if request.method == "rpc.hello":
            return self._hello(request.params, conn)
        if request.method == "rpc.status":
            return self._status()
        loop = asyncio.get_running_loop()
        call = EngineCall()
        if not request.is_notification:
            conn.inflight[request.id] = call

        def work() -> Any:
            return self.domain.call(request.method, request.params, conn.role, conn.label)

        idle = self._idle_clock()
        idle.request_started()
        try:
            return await loop.run_in_executor(self._executor, call.run, work)
        except (Exception, CallCancelled):
            if call.cancelled:  # an interrupted statement surfaces as any engine error
                raise RpcError(REQUEST_CANCELLED, "request cancelled") from None
            raise
        finally:
            idle.request_ended()
            if conn.inflight.get(request.id) is call:
                del conn.inflight[request.id]

    def _hello(self, params: dict[str, Any], conn: _Connection) -> dict[str, Any]:
        """Bind a role to the connection: ``cto`` only with the right token."""
        presented = params.get("ctoToken")
        conn.role = role_for(presented, self.cto_token)
        if presented is not None and conn.role != "cto":
            audit.warning("wrong CTO token from %s: connection stays agent", conn.label)
        return {"role": conn.role, "pid": os.getpid(), "version": __version__}

    def _status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "version": __version__,
            "uptimeMs": int((time.time() - self._started) * 1000),
            "connections": self._active,
            "idleExitS": self.limits.idle_exit,
            "idleExitInS": self._idle_clock().left_s(),
            **self.status(),
        }
