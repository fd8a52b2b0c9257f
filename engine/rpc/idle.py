"""The daemon's idle exit: a daemon that ``ade search`` started for itself stops when unused.

Only domain requests (searches, status of an index, rebuilds) count as use: ``rpc.hello`` and
``rpc.status`` do not, or ``ade daemon status`` would keep an idle daemon alive by asking when
it will exit. A daemon is never idle while a request runs, however long it takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable

from engine.basics.logs import get_logger

log = get_logger(__name__)


class IdleClock:
    """When the daemon was last used, and the wait for it to have been unused for ``limit``.

    Args:
        limit: seconds without a request before ``until_stopped_or_idle`` returns; ``None``:
            never (a daemon the user started runs until stopped).
        clock: monotonic seconds (tests drive it).
    """

    def __init__(self, limit: float | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self._clock = clock
        self._last = clock()
        self._running = 0

    def request_started(self) -> None:
        self._running += 1
        self._last = self._clock()

    def request_ended(self) -> None:
        self._running -= 1
        self._last = self._clock()

    def idle_s(self) -> float:
        """Seconds since the last request started or ended; 0 while one runs."""
        return 0.0 if self._running else max(0.0, self._clock() - self._last)

    def left_s(self) -> float | None:
        """Seconds until the idle exit if nothing comes; ``None`` without a limit."""
        if self.limit is None:
            return None
        return max(0.0, self.limit - self.idle_s())

    async def until_stopped_or_idle(self, stop: asyncio.Event) -> None:
        """Return when ``stop`` is set or, with a limit, once no request came for that long."""
        while not stop.is_set():
            left = self.left_s()
            if left is None:
                await stop.wait()
                return
            if left <= 0 and not self._running:
                log.info("ade daemon unused for %g s: exiting (idle exit)", self.limit)
                return
            # While a request runs past the limit, look again a limit later at most.
            wait = left if left > 0 else self.limit
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), timeout=wait)
