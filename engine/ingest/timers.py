"""Time for the ingestion queue: a monotonic clock plus one-shot timers, injectable for tests.

The queue never sleeps: it asks a ``TimerFactory`` to call it back when the earliest entry is due.
Production uses ``ThreadTimerFactory`` (``time.monotonic`` and ``threading.Timer``); tests pass a
``ManualTimerFactory`` and move time with ``advance()`` so no test waits on a wall clock.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol

from engine.basics.caller_env import carried


class TimerHandle(Protocol):
    """A pending one-shot callback."""

    def cancel(self) -> None:
        """Stop the callback from running (no effect once it ran); joins any helper thread."""
        ...


class TimerFactory(Protocol):
    """Monotonic time and one-shot callbacks."""

    def monotonic(self) -> float:
        """Seconds on a clock that never goes backwards."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        """Run ``callback`` (on any thread) after ``delay`` seconds."""
        ...

    def close(self) -> None:
        """Cancel every pending callback and wait for helper threads to end."""
        ...


class ThreadTimerFactory:
    """Real time: ``time.monotonic`` and a short-lived ``threading.Timer`` per arming.

    Arming is rare (only when new work is due before the armed wake-up), so a thread per arming
    costs nothing measurable. ``cancel`` never joins (it may be called under the queue's lock,
    which the timer's callback takes); ``close`` joins every timer thread so none outlives us.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._timers: list[threading.Timer] = []

    def monotonic(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        timer = threading.Timer(max(0.0, delay), carried(callback))
        timer.name = "ade-ingest-timer"
        timer.daemon = True
        with self._lock:
            self._timers = [t for t in self._timers if t.is_alive()]
            self._timers.append(timer)
        timer.start()
        return timer

    def close(self) -> None:
        """Cancel and join every timer thread (idempotent)."""
        with self._lock:
            timers, self._timers = self._timers, []
        current = threading.current_thread()
        for timer in timers:
            timer.cancel()
            if timer is not current:
                timer.join()


class _ManualHandle:
    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ManualTimerFactory:
    """Test time: starts at 0 and only moves on ``advance``; due callbacks run on the caller."""

    def __init__(self) -> None:
        self._now = 0.0
        self._lock = threading.Lock()
        self._seq = itertools.count()
        self._heap: list[tuple[float, int, _ManualHandle, Callable[[], None]]] = []

    def monotonic(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        handle = _ManualHandle()
        with self._lock:
            heapq.heappush(
                self._heap, (self._now + max(0.0, delay), next(self._seq), handle, callback)
            )
        return handle

    def close(self) -> None:
        with self._lock:
            self._heap.clear()

    @property
    def armed(self) -> list[float]:
        """Due times of the callbacks still pending (for asserting re-arm behaviour)."""
        with self._lock:
            return sorted(due for due, _, handle, _ in self._heap if not handle.cancelled)

    def advance(self, seconds: float) -> None:
        """Move time forward, running every callback that becomes due, in due order."""
        target = self._now + seconds
        while True:
            with self._lock:
                if not self._heap or self._heap[0][0] > target:
                    break
                due, _, handle, callback = heapq.heappop(self._heap)
            self._now = max(self._now, due)
            if not handle.cancelled:
                callback()
        self._now = target
