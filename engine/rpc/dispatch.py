"""What the daemon answers for one frame: its messages (one, or a batch), each parsed and
dispatched. ``rpc.hello`` binds the connection's role, ``rpc.status`` answers from the server,
any other method is an engine call on the worker pool (owned here) that an ``rpc.cancel`` can
interrupt; every failure becomes an error response. The connection loop around it is
``engine.rpc.server``, which hands it what it needs.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from engine import __version__
from engine.actions import SearchDomain
from engine.basics.logs import AUDIT_LOGGER, get_logger
from engine.errors import AdeError, ProjectError, UsageError
from engine.rpc.admission import ServedConnection
from engine.rpc.cancel import CallCancelled, EngineCall
from engine.rpc.idle import IdleClock
from engine.rpc.limits import ServerLimits
from engine.rpc.roles import role_for
from engine.rpc.validation import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REQUEST_CANCELLED,
    Request,
    RpcError,
    decode_frame,
    error_object,
    parse_request,
    request_id_of,
    result_object,
    split_batch,
)

log = get_logger(__name__)
audit = get_logger(AUDIT_LOGGER)


class RequestDispatch:
    """The answering side of ``DaemonServer``: what one frame is answered with, and the worker
    pool engine calls run on.

    Args:
        domain: the search action domain.
        cto_token: the secret a CTO client presents with ``rpc.hello``.
        status: extra fields for ``rpc.status``.
        limits: the worker pool's size, the idle exit ``rpc.status`` reports.
        idle: the idle clock every engine call keeps awake.
        connections: how many connections are open (for ``rpc.status``).
    """

    def __init__(
        self,
        domain: SearchDomain,
        cto_token: str,
        *,
        status: Callable[[], dict[str, Any]],
        limits: ServerLimits,
        idle: IdleClock,
        connections: Callable[[], int],
    ) -> None:
        self.domain = domain
        self.cto_token = cto_token
        self.status = status
        self.limits = limits
        self.idle = idle
        self.connections = connections
        self._started = time.time()
        self._executor: ThreadPoolExecutor | None = None

    def open_pool(self) -> None:
        """Start the worker pool engine calls run on (the server starts serving)."""
        self._executor = ThreadPoolExecutor(self.limits.workers, thread_name_prefix="ade-rpc")

    def close_pool(self) -> None:
        """Take no more engine calls; those running go on (``join`` waits for them)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)

    def join(self) -> None:
        """Wait for engine calls that were running at shutdown (after services are disposed)."""
        if self._executor is not None:
            self._executor.shutdown(wait=True)

    async def frame(self, frame: bytes, conn: ServedConnection) -> Any:
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

    async def _message(self, message: Any, conn: ServedConnection) -> dict[str, Any] | None:
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

    async def _dispatch(self, request: Request, conn: ServedConnection) -> Any:
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

        idle = self.idle
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

    def _hello(self, params: dict[str, Any], conn: ServedConnection) -> dict[str, Any]:
        """Bind a role to the connection: ``cto`` only with the right token."""
        presented = params.get("ctoToken")
        conn.role = role_for(presented, self.cto_token)
        if presented is not None and conn.role != "cto":
            audit.warning("wrong CTO token from %s: connection stays agent", conn.label)
        hello: dict[str, Any] = {"role": conn.role, "pid": os.getpid(), "version": __version__}
        if "context" in params:  # whether this daemon answers in the caller's environment
            from engine.basics.caller_env import unserved_reason

            hello["contextServed"] = unserved_reason(params["context"]) is None
        return hello

    def _status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "version": __version__,
            "uptimeMs": int((time.time() - self._started) * 1000),
            "connections": self.connections(),
            "idleExitS": self.limits.idle_exit,
            "idleExitInS": self.idle.left_s(),
            **self.status(),
        }
