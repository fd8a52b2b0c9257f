"""The in-memory ingestion queue: one entry per source, per-kind debounce, lazy timer arming.

The notify hooks run on hot paths (every PTY read, every chat event), so the common case must be
a dict membership test and nothing else: a source already queued is left alone (its earlier due
time stands, so a steady stream of output is still indexed once per debounce period instead of
being postponed forever). Only a newly queued source takes the lock, and the timer is re-armed
only when the new entry is due before the armed wake-up.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import heapq
import threading
from collections.abc import Callable
from typing import Literal

from engine.ingest.timers import TimerFactory, TimerHandle

Kind = Literal[
    "chat", "external", "terminal", "session", "pr", "prs", "git", "history", "backfill",
    "reconcile", "health",
]  # fmt: skip
"""A queue kind: what a queued entry is (its debounce and drain order below)."""

Entry = tuple[Kind, str]
"""One queued entry: its kind and the ident of the source (a session id, a path, a lane)."""

DEBOUNCE_S: dict[Kind, float] = {
    "chat": 0.3,
    "external": 0.3,
    "terminal": 1.2,
    "session": 0.3,
    "pr": 0.5,
    "prs": 0.5,
    "git": 1.0,
    "history": 0.0,
    "backfill": 0.0,
    "reconcile": 0.0,
    "health": 0.0,
}
"""Seconds between a notify and the drain (DESIGN §4): chat 300 ms, terminal 1200 ms (PTY output
comes in bursts; one pass per burst), PR 500 ms, lane-git 1000 ms. Session metadata and external
(Claude Code / Codex) transcripts follow chat; the commit history pass is queued by the lane-git
entry (already debounced) and runs its slices back to back. ``health`` is no source: a health
check that ran off the writer thread queues it when it found a problem for the writer to act on
(``engine.ingest.health``)."""

KINDS: tuple[Kind, ...] = tuple(DEBOUNCE_S)

DRAIN_ORDER: dict[Kind, int] = {
    "session": 0,
    "chat": 1,
    "external": 1,
    "terminal": 2,
    "pr": 3,
    "prs": 4,
    "git": 5,
    "history": 6,
    "backfill": 7,
    "reconcile": 8,
    "health": 0,
}
"""Among entries due at the same moment, metadata first so transcripts see the fresh title (and a
health complaint before all: what is written into a damaged index is written again)."""

NOT_SOURCES: frozenset[Kind] = frozenset({"reconcile", "health"})
"""Kinds that are not sources: the periodic reconcile is always scheduled, a health verdict is
the writer's own bookkeeping; neither makes the status say "indexing"."""


class IngestQueue:
    """Pending sources keyed by ``(kind, ident)`` with their due time (monotonic seconds).

    ``pending[kind]`` is a plain dict the notify hooks test without a lock; writes happen under
    ``_lock``. ``on_due`` is called (from the timer's thread) when the armed wake-up fires.
    """

    def __init__(self, timers: TimerFactory, on_due: Callable[[], None]) -> None:
        self._timers = timers
        self._on_due = on_due
        self._lock = threading.Lock()
        self.pending: dict[Kind, dict[str, float]] = {kind: {} for kind in KINDS}
        self._heap: list[tuple[float, int, Kind, str]] = []
        self._armed_due: float | None = None
        self._armed: TimerHandle | None = None
        self.live_adds = 0
        """New entries queued with their kind's debounce (a notify hook: live activity); a first
        index's group of passes ends when it moves (``engine.ingest.pass_group``)."""
        self._closed = False
        self._generation = 0
        self._retry: set[tuple[Kind, str]] = set()
        self.running: tuple[Kind, str] | None = None
        """The entry the last ``pop_next`` took: being run until the next ``pop_next``."""

    def add(self, kind: Kind, ident: str, delay: float | None = None, retry: bool = False) -> None:
        """Queue ``(kind, ident)`` due after ``delay`` (default: the kind's debounce).

        An entry already due no later than the new one is left as it is. A ``retry`` entry (in
        backoff after a failure, or the self-rescheduling periodic reconcile) is only taken once
        due, even by ``pop_next(ignore_due=True)``.
        """
        due = self._timers.monotonic() + (DEBOUNCE_S[kind] if delay is None else delay)
        with self._lock:
            if self._closed:
                return
            entries = self.pending[kind]
            old = entries.get(ident)
            if old is not None and old <= due:
                return
            entries[ident] = due
            if delay is None:
                self.live_adds += 1
            if retry:
                self._retry.add((kind, ident))
            else:
                self._retry.discard((kind, ident))
            heapq.heappush(self._heap, (due, DRAIN_ORDER[kind], kind, ident))
            if self._armed_due is None or due < self._armed_due:
                self._arm_locked(due)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self.pending.values())

    def source_count(self) -> int:
        """Queued sources, not counting the periodic reconcile (always scheduled)."""
        return sum(
            len(entries) for kind, entries in self.pending.items() if kind not in NOT_SOURCES
        )

    def pending_sources(self) -> int:
        """Queued sources plus the one being run (``pop_next`` took it off the queue): what the
        status reports, so "ready, 0 pending" never shows while an entry still runs."""
        queued = self.source_count() - self._backfills_not_due()
        running = self.running
        if running is None or running[0] in NOT_SOURCES:
            return queued
        kind, ident = running
        return queued if ident in self.pending[kind] else queued + 1  # re-queued: counted once

    def _backfills_not_due(self) -> int:
        """A backfill scheduled for later (the daemon's, ``BACKFILL_DELAY_S`` after it opens a
        project it has just caught up) is a safety net, not work in hand: counted, it made the
        status say "indexing, 1 pending" for that whole delay. Its own line is "backfill: never"
        until it has run."""
        now = self._timers.monotonic()
        with self._lock:
            return sum(1 for due in self.pending["backfill"].values() if due > now)

    def pop_next(self, *, ignore_due: bool = False) -> tuple[Kind, str] | None:
        """Remove and return the earliest entry that is due (any entry with ``ignore_due``)."""
        now = self._timers.monotonic()
        with self._lock:
            deferred: list[tuple[float, int, Kind, str]] = []
            found: tuple[Kind, str] | None = None
            while self._heap:
                due, _, kind, ident = self._heap[0]
                if self.pending[kind].get(ident) != due:
                    heapq.heappop(self._heap)  # superseded by an earlier due time, or taken
                    continue
                if due > now and not ignore_due:
                    break
                if due > now and (kind, ident) in self._retry:
                    deferred.append(heapq.heappop(self._heap))  # in backoff: not yet
                    continue
                heapq.heappop(self._heap)
                del self.pending[kind][ident]
                self._retry.discard((kind, ident))
                found = (kind, ident)
                break
            for item in deferred:
                heapq.heappush(self._heap, item)
            # The drain loops call pop_next until it finds nothing: that call ends the last run.
            self.running = found
            return found

    def upcoming(self, kinds: tuple[Kind, ...], limit: int) -> list[tuple[Kind, str]]:
        """Up to ``limit`` entries of ``kinds`` in the order ``pop_next(ignore_due=True)`` would
        take them (entries in backoff left out), without taking them: what to plan ahead."""
        now = self._timers.monotonic()
        with self._lock:
            width = limit * 4 + 8
            while True:
                found: list[tuple[Kind, str]] = []
                for due, _, kind, ident in heapq.nsmallest(width, self._heap):
                    if self.pending[kind].get(ident) != due or kind not in kinds:
                        continue
                    if due > now and (kind, ident) in self._retry:
                        continue
                    found.append((kind, ident))
                    if len(found) == limit:
                        return found
                if width >= len(self._heap):
                    return found
                width *= 4

    def queued(self, kind: Kind) -> list[str]:
        """Every queued ident of ``kind`` (a snapshot)."""
        with self._lock:
            return list(self.pending[kind])

    def next_due(self) -> float | None:
        """Due time of the earliest pending entry."""
        with self._lock:
            while self._heap:
                due, _, kind, ident = self._heap[0]
                if self.pending[kind].get(ident) == due:
                    return due
                heapq.heappop(self._heap)
        return None

    def rearm(self) -> None:
        """Arm the timer for the earliest pending entry (after a drain took what was due)."""
        due = self.next_due()
        with self._lock:
            if (
                due is not None
                and not self._closed
                and (self._armed_due is None or due < self._armed_due)
            ):
                self._arm_locked(due)

    def close(self) -> None:
        """Drop every entry and the armed timer; later ``add`` calls do nothing."""
        with self._lock:
            self._closed = True
            if self._armed is not None:
                self._armed.cancel()
            self._armed = None
            self._armed_due = None
            for entries in self.pending.values():
                entries.clear()
            self._heap.clear()
            self._retry.clear()
            self.running = None

    def _arm_locked(self, due: float) -> None:
        if self._armed is not None:
            self._armed.cancel()
        self._armed_due = due
        self._generation += 1
        generation = self._generation
        delay = max(0.0, due - self._timers.monotonic())
        self._armed = self._timers.call_later(delay, lambda: self._fire(generation))

    def _fire(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return  # a cancelled timer that had already started: a newer one is armed
            self._armed = None
            self._armed_due = None
            if self._closed:
                return
        self._on_due()


QUERY_HOLD_S = 0.5
"""Longest a new query waits for a due drain (ingestion first). A chat pass takes tens of ms alone,
but shares the GIL and both cores with every query already running; queries that keep starting
while it runs stretch it several times over (measured: chat lag p95 0.36 s idle, 1.53 s under 50
clients on the 16 MB corpus). A backfill's drain can run for minutes: past the hold, queries go
ahead while it finishes."""


PAUSE_STEPS = 50_000
"""SQLite instructions between two looks at the gate from a running query (SQLite runs several
million a second: a running query notices a due drain within ~10-20 ms)."""


class IngestGate:
    """Queries step aside while a drain is due, for at most ``hold`` seconds per drain.

    The queue's timer closes the gate when work falls due (``close``); the writer opens it when
    that drain returns (``open``); ``admit`` (a query thread, before it starts) waits while the
    gate is closed, and so does a query already running, at its next SQLite progress callback
    (``pause_query``): with the GIL and two cores, the queries already in flight are what
    stretch a drain, not only the ones that start. The hold runs from ``close`` and is the same for every waiter, so a flood of
    queries cannot postpone a due drain (none starts until it is done or the hold is over), and a
    long drain (a backfill) holds queries once, for at most ``hold``: a wake-up while the hold is
    spent leaves the gate open until that drain returns. The hold's end is a timer of the injected
    factory, so tests move it with the manual clock.
    """

    def __init__(self, timers: TimerFactory, hold: float = QUERY_HOLD_S) -> None:
        self._timers = timers
        self.hold = hold
        """Seconds of the hold (the daemon's ``--query-hold`` sets it)."""
        self._changed = threading.Condition()
        self._state: Literal["open", "held", "spent"] = "open"
        self._generation = 0
        self._expiry: TimerHandle | None = None
        self.waiting = 0
        """Query threads waiting in ``admit`` (or paused in ``pause_query``) now."""
        self.enabled = False
        """Off, queries never wait (the palette, the CLI); the daemon turns it on."""

    @property
    def state(self) -> str:
        """``open``, ``held`` (queries wait) or ``spent`` (the hold passed; the drain runs on)."""
        with self._changed:
            return self._state

    def close(self) -> None:
        """A drain is due: hold new queries until ``open`` or the hold has passed."""
        if not self.enabled:
            return  # the palette and the CLI: no hold, and no timer armed for one per drain
        with self._changed:
            if self._state != "open":
                return
            self._state = "held"
            self._generation += 1
            generation = self._generation
            expiry = self._expiry
            self._expiry = self._timers.call_later(self.hold, lambda: self._expire(generation))
        if expiry is not None:
            expiry.cancel()

    def open(self) -> None:
        """The drain returned (or the service is closing): let every waiting query go."""
        with self._changed:
            self._state = "open"
            self._generation += 1
            expiry, self._expiry = self._expiry, None
            self._changed.notify_all()
        if expiry is not None:
            expiry.cancel()

    def admit(self) -> None:
        """Return once no drain is due, or once the due drain's hold has passed."""
        with self._changed:
            if not self.enabled or self._state != "held":
                return
            self.waiting += 1
            self._changed.notify_all()
            try:
                self._changed.wait_for(lambda: self._state != "held")
            finally:
                self.waiting -= 1

    def pause_query(self) -> bool:
        """A read connection's progress handler: a query already running steps aside too.

        Called by SQLite every ``PAUSE_STEPS`` instructions of a query; returns False (go on).
        """
        if self.enabled and self._state == "held":  # unlocked reads: the common case is cheap
            self.admit()
        return False

    def wait_for_waiters(self, count: int, timeout: float) -> bool:
        """Block until ``count`` query threads wait in ``admit`` (for tests: no sleeps)."""
        with self._changed:
            return self._changed.wait_for(lambda: self.waiting >= count, timeout)

    def _expire(self, generation: int) -> None:
        with self._changed:
            if generation == self._generation and self._state == "held":
                self._state = "spent"  # queries go while the drain finishes
                self._expiry = None
                self._changed.notify_all()
