"""Time for the ingestion queue: a monotonic clock plus one-shot timers, injectable for tests.

The queue never sleeps: it asks a ``TimerFactory`` to call it back when the earliest entry is due.
Production uses ``ThreadTimerFactory`` (``time.monotonic`` and one scheduler thread); tests pass a
``ManualTimerFactory`` and move time with ``advance()`` so no test waits on a wall clock.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextvars
import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Protocol

from engine.basics.caller_env import carried
from engine.basics.logs import get_logger

log = get_logger(__name__)


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


class _ThreadHandle:
    """A callback of ``ThreadTimerFactory``, dropped if cancelled before it is due."""

    __slots__ = ("cancelled",)

    def __init__(self) -> None:
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class ThreadTimerFactory:
    """Real time: ``time.monotonic`` and one scheduler thread, started by the first arming.

    One thread waits for the earliest due callback and runs the callbacks one after the other,
    each in a context of its own (as a new thread's: empty, then ``carried``'s environment). A
    thread a callback (``threading.Timer``) cost a thread start, ~0.1-0.7 ms of a busy process,
    on every arming: a search right after a write armed one or two (the queue's debounce when the
    write is noticed, the gate's hold when it falls due) beside a ~3 ms answer
    (benchmarks/journal/2026-12-08-read-your-writes.md). ``cancel`` never blocks (it may be called
    under the queue's lock, which a callback takes); ``close`` drops what is pending and joins the
    thread, after the callback it is running, so none outlives us.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition(threading.Lock())
        self._due: list[tuple[float, int, _ThreadHandle, Callable[[], None]]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None
        self._closed = False

    def monotonic(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle:
        handle = _ThreadHandle()
        entry = (time.monotonic() + max(0.0, delay), next(self._order), handle, carried(callback))
        with self._changed:
            if self._closed:
                return handle
            heapq.heappush(self._due, entry)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="ade-ingest-timer", daemon=True
                )
                self._thread.start()
            else:
                self._changed.notify()
        return handle

    def _run(self) -> None:
        with self._changed:
            while not self._closed:
                if not self._due:
                    self._changed.wait()
                    continue
                due, _, handle, callback = self._due[0]
                left = due - time.monotonic()
                if left > 0:
                    self._changed.wait(left)
                    continue
                heapq.heappop(self._due)
                if handle.cancelled:
                    continue
                self._changed.release()
                try:
                    contextvars.Context().run(callback)
                except Exception:  # a failing callback must not stop the ones after it
                    log.exception("an ingest timer's callback failed")
                finally:
                    self._changed.acquire()

    def close(self) -> None:
        """Drop every pending callback and join the thread (idempotent)."""
        with self._changed:
            self._closed = True
            self._due.clear()
            self._changed.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()


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
