"""``ThreadTimerFactory``: the ingest queue's real timers, one scheduler thread for all of them
(a thread started per arming cost a search right after a write ~0.1-0.7 ms)."""

from __future__ import annotations

import contextvars
import threading

from engine.ingest.timers import ThreadTimerFactory

_SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="fresh")


def test_callbacks_run_in_due_order_on_one_thread_and_cancelled_ones_never() -> None:
    timers = ThreadTimerFactory()
    ran: list[tuple[str, str]] = []
    done = threading.Event()

    def record(name: str) -> None:
        ran.append((name, threading.current_thread().name))

    try:
        gate = threading.Event()
        timers.call_later(0.0, gate.wait)  # holds the thread while the rest are armed
        timers.call_later(0.02, lambda: record("second"))
        timers.call_later(0.01, lambda: record("first"))
        timers.call_later(0.0, lambda: record("cancelled")).cancel()
        timers.call_later(0.03, done.set)
        before = threading.active_count()
        for _ in range(50):  # arming starts no thread
            timers.call_later(60.0, lambda: record("far")).cancel()
        assert threading.active_count() == before
        gate.set()
        assert done.wait(10)
    finally:
        timers.close()
    assert ran == [("first", "ade-ingest-timer"), ("second", "ade-ingest-timer")]


def test_a_failing_callback_does_not_stop_the_next_and_each_runs_in_a_fresh_context() -> None:
    timers = ThreadTimerFactory()
    seen: list[str] = []
    done = threading.Event()

    def leaves_a_value() -> None:
        _SEEN.set("left behind")
        raise RuntimeError("boom")

    try:
        timers.call_later(0.0, leaves_a_value)
        timers.call_later(0.0, lambda: seen.append(_SEEN.get()))
        timers.call_later(0.0, done.set)
        assert done.wait(10)
    finally:
        timers.close()
    assert seen == ["fresh"]  # a new thread's context each time, not the last callback's


def test_close_drops_what_is_pending_and_joins_the_thread() -> None:
    timers = ThreadTimerFactory()
    ran: list[str] = []
    started = threading.Event()
    timers.call_later(0.0, started.set)
    assert started.wait(10)
    thread = next(t for t in threading.enumerate() if t.name == "ade-ingest-timer" and t.is_alive())
    timers.call_later(0.05, lambda: ran.append("late"))
    timers.close()
    assert not thread.is_alive()
    timers.call_later(0.0, lambda: ran.append("after close"))
    timers.close()  # idempotent
    assert ran == []
