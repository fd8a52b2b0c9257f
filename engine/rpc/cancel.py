"""Cancelling an engine call the daemon is running (RELIABILITY 20: a query nobody waits for).

A request runs on a worker thread, and queries run on that thread's own read connection, so the
daemon cancels by interrupting the read connections of *that thread* (``sqlite3_interrupt``),
never a shared one. Two triggers: an ``rpc.cancel`` notification naming the request's id on the
same connection, and the client hanging up while its request runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

CANCEL_REPEAT_S = 0.05
"""An interrupt only stops the statement running *now*; a query runs several statements in a
row, so the interrupt is repeated at this period until the call returns."""

ThreadInterrupt = Callable[[int], None]
"""Interrupt every read connection owned by the given thread id (``ServicePool``)."""


class CallCancelled(Exception):
    """The call was cancelled before its worker thread started it."""


@dataclass(slots=True)
class EngineCall:
    """One engine call in flight: the worker thread running it, and whether it is cancelled.

    ``lock`` orders "the worker finished" against "interrupt the worker's thread", so an
    interrupt never lands on the next request that thread picks up.
    """

    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: int | None = None
    done: bool = False
    cancelled: bool = False

    def run(self, work: Callable[[], Any]) -> Any:
        """Run ``work`` on this (worker) thread, recording the thread for ``cancel``."""
        with self.lock:
            if self.cancelled:
                raise CallCancelled
            self.thread = threading.get_ident()
        try:
            return work()
        finally:
            with self.lock:
                self.done = True

    async def cancel(self, interrupt: ThreadInterrupt) -> None:
        """Mark the call cancelled and interrupt its thread until it returns."""
        with self.lock:
            self.cancelled = True
        while True:
            with self.lock:
                if self.done or self.thread is None:  # finished, or ``run`` will refuse to start
                    return
                interrupt(self.thread)
            await asyncio.sleep(CANCEL_REPEAT_S)


def cancel_target(params: dict[str, Any]) -> Any:
    """The request id an ``rpc.cancel`` names, or raise ``ValueError``."""
    target = params.get("id")
    if isinstance(target, bool) or not isinstance(target, (int, str)) or len(params) != 1:
        raise ValueError('rpc.cancel takes exactly {"id": <the request id>}')
    return target


def hung_up(sock: Any) -> bool:
    """True when the peer closed the connection entirely, not just its sending side.

    A client may send its request and shut down its writing side (``socat``, ``nc -N``) and
    still wait for the answer; only a full close (``POLLHUP``) means nobody is waiting.
    """
    if sock is None:
        return True
    with contextlib.suppress(OSError, ValueError):
        poller = select.poll()
        poller.register(sock.fileno(), select.POLLIN)
        return any(ev & (select.POLLHUP | select.POLLERR) for _, ev in poller.poll(0))
    return True
