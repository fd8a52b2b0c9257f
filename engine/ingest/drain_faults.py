"""What the drain does when a write fails: back off, recreate a damaged file, heal a complaint.

A failing entry (disk full, I/O error, a lock held through every retry) leaves its cursor where it
was and is re-enqueued with exponential backoff; a damaged file is recreated and every source
queued again (damaged pages heal); a rebuild clears the rows instead, unless the file is damaged.
``WriteFaults`` is a mixin of ``engine.ingest.drain.Drainer``, which owns the attributes below.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.errors import AdeError
from engine.index.db import file_identity, recreate_damaged
from engine.index.faults import write_fault
from engine.index.schema import DAMAGE_ERRORS, TRANSIENT_ERRORS
from engine.index.tuning import WriteTuning
from engine.index.writer import IndexWriter
from engine.ingest.queue import Entry, IngestQueue
from engine.project.model import Project
from engine.project.tally import WarningTally

if TYPE_CHECKING:
    from engine.ingest.health import HealthChecker

log = get_logger(__name__)

BACKOFF_BASE_S = 0.5
"""First retry delay after a failed pass; doubles per consecutive failure."""

BACKOFF_MAX_S = 60.0
"""Longest retry delay: a full disk is retried about once a minute."""


class WriteFaults:
    """The failure side of ``Drainer`` (a mixin: the drainer owns the attributes below)."""

    project: Project
    tuning: WriteTuning
    queue: IngestQueue
    tally: WarningTally
    lock: threading.RLock
    failures: dict[Entry, int]
    recreated_reason: str | None
    write_fault: str | None
    busy: bool
    _health: HealthChecker | None
    writer: IndexWriter
    _incomplete: bool

    if TYPE_CHECKING:

        def connection(self) -> apsw.Connection: ...

        def close(self) -> None: ...

        def reconcile(self, conn: apsw.Connection, *, everything: bool) -> list[Entry]: ...

    @property
    def path(self) -> Path:
        return self.project.index_path

    @property
    def health(self) -> HealthChecker:
        """The health check, off the writer thread once the service has one (ingestion first);
        built on first use (``engine.ingest.health``: a warm search never checks)."""
        if self._health is None:
            from engine.ingest.health import HealthChecker

            queue = self.queue
            self._health = HealthChecker(
                self.project.index_path, lambda: queue.add("health", "verdict", delay=0.0)
            )
        return self._health

    def stop_health_check(self) -> None:
        """Interrupt a running health check and join its thread (the service's dispose)."""
        if self._health is not None:
            self._health.close()

    def _cancel_health_check(self) -> None:
        # A checker never built has no check under way: nothing to drop.
        if self._health is not None:
            self._health.cancel()

    def _recovered(self, err: BaseException) -> bool:
        try:
            self.recover_damage(err)
        except (apsw.Error, OSError):
            log.debug("recreating the damaged index failed; retrying", exc_info=True)
            return False
        return True

    def _back_off(self, entry: Entry, err: BaseException) -> None:
        """Leave the entry's cursor where it was and retry it later (doubling delays)."""
        kind, ident = entry
        self._incomplete = True
        self.busy = isinstance(err, apsw.BusyError)
        fault = write_fault(err, self.path)
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
        if isinstance(err, apsw.Error) and not isinstance(err, apsw.BusyError):
            self.close()  # a fresh connection after I/O or corruption errors
        self.queue.add(kind, ident, delay=delay, retry=True)

    def check_health(self, conn: apsw.Connection) -> bool:
        """Check the index's health (``engine.ingest.health``): on a thread of its own when
        ``health.background`` (its complaint comes back as a ``health`` entry), else now.
        Returns False when the index was found unhealthy now (and is being rebuilt)."""
        from engine.ingest.health import heal  # deferred with the checker

        if self.health.background:
            self.health.start()
            return True
        problems = self.health.run_now()
        return not problems or heal(self, conn, problems)

    def recover_damage(
        self, cause: BaseException | str, damaged: tuple[int, int] | None = None
    ) -> None:
        """Recreate a damaged index file and queue every source again (damaged pages heal).

        ``damaged``: identity of the file found damaged (default: the writer's own file).

        Raises:
            apsw.BusyError: another process holds the write lock (retried with backoff).
        """
        reason = cause if isinstance(cause, str) else type(cause).__name__
        # Info, not warning: the answer that tripped over it says so (the CLI would print both).
        log.info("search index damaged (%s): recreating it and re-indexing", reason)
        with self.lock:
            damaged = damaged or self.writer.identity or file_identity(self.path)
            self._cancel_health_check()  # a running check reads the file about to go
            self.close()
            recreate_damaged(self.path, damaged, vacuum=self.tuning.vacuum)
            self.recreated_reason = f"damaged index ({reason})"
            self.queue.add("backfill", "*", delay=0.0)

    def clear_for_rebuild(self) -> None:
        """Clear every row and queue every source; a damaged file is recreated instead (its
        ``DELETE`` would fail on the damaged pages).

        Raises:
            AdeError: another process holds the write lock, or the disk refused the write
                (the index is left as it was).
        """
        try:
            conn = self.connection()
            self.writer.clear_index()
            self._cancel_health_check()
        except DAMAGE_ERRORS as err:
            self.recover_damage(err)  # readers see the new inode and reopen
            conn = self.connection()
        except TRANSIENT_ERRORS:
            raise AdeError(
                "cannot rebuild now: another process holds the search index's write lock;"
                " retry in a moment"
            ) from None
        except (apsw.Error, OSError) as err:
            fault = write_fault(err, self.path) or type(err).__name__
            raise AdeError(f"cannot rebuild: {fault}; the index was left as it was") from None
        self.reconcile(conn, everything=True)
