"""What the drain does when a write fails: back off, and the health checker that finds damage.

A failing entry (disk full, I/O error, a lock held through every retry) leaves its cursor where it
was and is re-enqueued with exponential backoff (``WriteFaults.back_off``); what the last write
said of the disk (``write_fault``, ``busy``) is kept for the status and every answer. Recreating a
damaged file and clearing the rows for a rebuild are the drain's (``engine.ingest.drain``): they
close the writer, the history walk and the planning worker alike.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.faults import write_fault
from engine.index.writer import IndexWriter
from engine.ingest.queue import Entry, IngestQueue
from engine.project.tally import WarningTally

if TYPE_CHECKING:
    from engine.ingest.health import HealthChecker

log = get_logger(__name__)

BACKOFF_BASE_S = 0.5
"""First retry delay after a failed pass; doubles per consecutive failure."""

BACKOFF_MAX_S = 60.0
"""Longest retry delay: a full disk is retried about once a minute."""


class WriteFaults:
    """The failures of the drain's writes: which entries wait out a backoff, what the disk said,
    and the health checker (built on first use: a warm search never checks)."""

    def __init__(self, writer: IndexWriter, queue: IngestQueue, tally: WarningTally) -> None:
        self.writer = writer
        self.queue = queue
        self.tally = tally
        self.failures: dict[Entry, int] = {}
        """Consecutive failures of each entry waiting out its backoff."""
        self.write_fault: str | None = None
        """Why the last write failed for the disk's sake ("disk full"); None once one succeeds."""
        self.busy = False
        """The last entry waited out the busy timeout: another process holds the write lock."""
        self.recreated_reason: str | None = None
        """Why the index file was last made anew (damage, a schema change, a file replaced)."""
        self._health: HealthChecker | None = None

    @property
    def health(self) -> HealthChecker:
        """The health check, off the writer thread once the service has one (ingestion first);
        built on first use (``engine.ingest.health``: a warm search never checks)."""
        if self._health is None:
            from engine.ingest.health import HealthChecker

            queue = self.queue
            self._health = HealthChecker(
                self.writer.path, lambda: queue.add("health", "verdict", delay=0.0)
            )
        return self._health

    def stop_health_check(self) -> None:
        """Interrupt a running health check and join its thread (the service's dispose)."""
        if self._health is not None:
            self._health.close()

    def cancel_health_check(self) -> None:
        """Drop a check under way (the rows it reads are going); a checker never built has none."""
        if self._health is not None:
            self._health.cancel()

    def succeeded(self, entry: Entry) -> None:
        """``entry`` ran: its backoff is over and the disk took the write."""
        self.failures.pop(entry, None)
        self.write_fault, self.busy = None, False

    def back_off(self, entry: Entry, err: BaseException) -> bool:
        """Leave the entry's cursor where it was and retry it later (doubling delays). True when
        the writer connection is to be made anew (I/O or corruption errors)."""
        kind, ident = entry
        self.busy = isinstance(err, apsw.BusyError)
        fault = write_fault(err, self.writer.path)
        if fault is not None:
            self.write_fault = fault
        count = self.failures.get(entry, 0) + 1
        self.failures[entry] = count
        delay = min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2 ** (count - 1))
        if isinstance(err, apsw.BusyError):
            # Another host (the daemon, a palette, the CLI) held the write lock through the
            # busy timeout: routine with two hosts on one file and retried, so it is logged
            # for debugging only and never reaches a user's warnings (dual host).
            log.debug("ingesting %s:%s: index busy; retry in %.1fs", kind, ident, delay)
        elif fault is not None:
            # Said once, as the status's "degraded" state and every answer's warning, not
            # once per source; nothing was written (rolled back), the cursor stays put.
            log.debug("ingesting %s:%s: %s; retry in %.1fs", kind, ident, fault, delay)
        else:
            log.warning("ingesting %s:%s failed (%s); retry in %.1fs", kind, ident, err, delay)
            self.tally.add(f"{kind}:{ident}", f"ingest failed: {type(err).__name__}")
        self.queue.add(kind, ident, delay=delay, retry=True)
        return isinstance(err, apsw.Error) and not isinstance(err, apsw.BusyError)

    @property
    def settled(self) -> bool:
        """No entry waits out a backoff and the last write went through."""
        return not self.failures and not self.busy and self.write_fault is None
