"""Driving ingestion on the caller's thread in one project's search service: the catch-up that
makes the index current before a CLI answer (``SearchService.catch_up``), the drain of
everything queued (also the rebuild's), and a damaged index file recreated and re-ingested
(damaged pages heal), with the note the next answer carries about each. The writer thread that drains
in the background is ``engine.service``'s own.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.db import immediate, meta_get, meta_set
from engine.index.faults import count_drift, write_fault
from engine.index.schema import DAMAGE_ERRORS, TRANSIENT_ERRORS
from engine.types import ProgressCallback

if TYPE_CHECKING:
    from engine.ingest.drain import Drainer
    from engine.ingest.queue import IngestQueue
    from engine.project.model import Project
    from engine.project.tally import WarningTally
    from engine.service.readers import ReadConnections

_log = get_logger(__name__)

STILL_INDEXING = (
    "re-indexing goes on in the background: this answer may miss what is not indexed yet"
)
"""Said when an answer's catch-up reached its bound (``engine.client.CATCH_UP_BOUND_S``)."""

BUSY_NOTE = (
    "search index busy: another process holds its write lock; the newest changes may be missing"
)
"""Said by the answer after a catch-up that gave up waiting for the write lock."""


class OnceNote:
    """A note about what just happened to the index, carried by the next answer only."""

    def __init__(self) -> None:
        self.text: str | None = None

    def take(self) -> str | None:
        """The note, cleared: said once."""
        text, self.text = self.text, None
        return text


class CatchUp:
    """Ingestion driven on the caller's thread: the catch-up, the drain of everything queued, a
    damaged file's recovery (collaborators handed in by ``SearchService``)."""

    def __init__(
        self,
        project: Project,
        drainer: Drainer,
        queue: IngestQueue,
        tally: WarningTally,
        *,
        readers: ReadConnections,
        note: OnceNote,
        background: bool,
        closed: Callable[[], bool],
    ) -> None:
        """``background``: a writer thread drains what a bounded catch-up leaves; ``closed``:
        whether the service was disposed (every drain stops)."""
        self.project = project
        self.drainer = drainer
        self.queue = queue
        self.tally = tally
        self.readers = readers
        self.note = note
        self.background = background
        self.closed = closed

    def catch_up(
        self,
        progress: ProgressCallback | None = None,
        *,
        history_seconds: float | None = None,
        deadline: float | None = None,
        check_drift: bool = True,
    ) -> bool:
        """Stat every source, ingest only what changed, and return when the index is current.

        A warm run where nothing changed stats files and reads no transcript. With
        ``history_seconds``, a commit-history pass still under way after that long is left to
        the background writer (or the next run) and answers say so. With ``deadline`` (a
        ``time.monotonic()`` value), whatever is still queued then is left to the writer thread.
        ``check_drift=False``: skip the count check (a daemon's answers: its periodic reconcile
        makes it, and it costs ~1 ms).

        Returns:
            False when ``deadline`` cut it short (sources are still queued).
        """
        self.drainer.history_deadline = (
            None if history_seconds is None else time.monotonic() + history_seconds
        )
        try:
            return self._caught_up(progress, deadline, check_drift)
        finally:
            self.drainer.history_deadline = None

    def _caught_up(
        self, progress: ProgressCallback | None, deadline: float | None, check_drift: bool
    ) -> bool:
        with _locked(self.drainer.lock, deadline) as held:
            if not held:
                return False
            try:
                conn = self.drainer.connection()
                if check_drift:
                    self._reconcile_checked(conn)
                else:
                    self.drainer.reconcile(conn, everything=False)
            except DAMAGE_ERRORS as err:
                self.recover(err)
                return True
            except (apsw.Error, OSError) as err:
                # The index cannot be opened (reported by wiring and in every answer's
                # warnings), another process holds the write lock, or the disk is full:
                # queries answer from the index as it is (with a warning), the writer retries.
                if isinstance(err, TRANSIENT_ERRORS):
                    self.note.text = BUSY_NOTE
                self.drainer.write_fault = (
                    write_fault(err, self.project.index_path) or self.drainer.write_fault
                )
                _log.debug("catch-up skipped", exc_info=True)
                return True
            complete = self.catch_up_queued(progress, deadline=deadline)
            self.drainer.store_manifest(conn)
            self._mark_backfilled()
            if self.drainer.busy and self.note.text is None:
                # The lock was held through the whole busy timeout: this answer misses what
                # was not ingested, so it says so (a daemon's routine retries never do).
                self.note.text = BUSY_NOTE
            return complete

    def _mark_backfilled(self) -> None:
        """The first catch-up that drains everything is the backfill `--status` reports; the
        daemon's backfill entry records it the same way (``--status``'s last ingest)."""
        if self.queue.source_count() or self.drainer.busy or self.drainer.write_fault is not None:
            return
        with contextlib.suppress(apsw.Error, OSError):
            conn = self.drainer.connection()
            if meta_get(conn, "backfill_completed_at") is None:
                with immediate(conn):
                    meta_set(conn, "backfill_completed_at", str(self.drainer.now_ms()))

    def _reconcile_checked(self, conn: apsw.Connection) -> None:
        """Queue what changed; when documents and FTS rows disagree (the cheap count check of
        lost FTS rows) clear the index and queue everything, as the daemon's health check does."""
        drift = count_drift(conn)
        if drift is None:
            self.drainer.reconcile(conn, everything=False)
            return
        _log.info("search index drift (%s): re-indexing", drift)
        self.tally.add("index", f"re-indexed after {drift}")
        self.note.text = f"search index had lost rows ({drift}) and was re-indexed"
        self.drainer.writer.clear_index()
        self.drainer.reconcile(conn, everything=True)

    def recover(self, err: BaseException) -> bool:
        """Recreate a damaged index file and, without a writer thread (the CLI), re-ingest it
        now (damaged pages heal). False when even that failed (the file stays, retried later)."""
        damaged = self.readers.local_identity()  # the file this thread read
        self.readers.drop_local_reader()
        cause = type(err).__name__
        try:
            with self.drainer.lock:
                self.drainer.recover_damage(err, damaged)
        except (apsw.Error, OSError):
            _log.warning("recreating the index failed", exc_info=True)
            self.note.text = f"search index damaged ({cause}); it could not be recreated yet"
            return False
        self.note.text = f"search index was damaged ({cause}) and has been recreated"
        if self.closed():
            return True
        # The answer that found the damage waits for the re-ingest (healing answers): all of it in
        # the CLI, up to the bound in the daemon, whose writer thread goes on with the rest.
        deadline = time.monotonic() + catch_up_bound() if self.background else None
        if not self.catch_up_queued(deadline=deadline):
            self.note.text = f"{self.note.text}; {STILL_INDEXING}"
        return True

    def catch_up_queued(
        self, progress: ProgressCallback | None = None, *, deadline: float | None = None
    ) -> bool:
        """Drain everything queued, reporting ``progress(done, total)``; with ``deadline`` (a
        ``time.monotonic()`` value) stop there, leaving the rest to the writer thread.

        The periodic reconcile is queued due-only, so it is left for its time (it re-queues
        itself when run: taking it here would never end).

        Returns:
            False when ``deadline`` came first (or the writer held the lock until then).
        """
        complete = True
        with _locked(self.drainer.lock, deadline) as held:
            if not held:
                return False
            from engine.ingest.drain_progress import DrainProgress

            counted = DrainProgress(progress, self.queue.source_count())
            with self.drainer.deferring_recent():
                while not self.closed():
                    if deadline is not None and time.monotonic() >= deadline:
                        complete = not self.queue.upcoming(tuple(self.queue.pending), 1)
                        break
                    entry = self.queue.pop_next(ignore_due=True)
                    if entry is None:
                        break
                    self.drainer.run(entry)
                    if self.drainer.busy or self.drainer.write_fault is not None:
                        # Another process holds the write lock, or the disk refuses writes: every
                        # further entry would wait or fail the same way; answer from the index.
                        break
                    counted.ran(entry[0], self.queue.source_count(), self.drainer.connection())
            _release_inflated()
        self.queue.rearm()
        return complete


def catch_up_bound() -> float:
    """How long an answer waits for its catch-up (``engine.client.CATCH_UP_BOUND_S``)."""
    from engine.client import CATCH_UP_BOUND_S

    return CATCH_UP_BOUND_S


@contextlib.contextmanager
def _locked(lock: threading.RLock, deadline: float | None) -> Iterator[bool]:
    """Hold ``lock``, waiting at most until ``deadline`` (forever without one); yields whether
    it is held. The writer thread holds it through a drain: an answer waits for that drain,
    which is the catch-up it wants, but never past its bound."""
    timeout = -1.0 if deadline is None else max(0.0, deadline - time.monotonic())
    held = lock.acquire(timeout=timeout)
    try:
        yield held
    finally:
        if held:
            lock.release()


def _release_inflated() -> None:
    """Drop the inflated ``.gz`` a pass kept (``engine.ingest.gzcache``); a catch-up that read
    no transcript never imported it, so there is nothing to drop and nothing to import."""
    gzcache = sys.modules.get("engine.ingest.gzcache")
    if gzcache is not None:
        gzcache.release()
