"""The drain: take due queue entries one at a time and run the matching processor.

Only one drain runs at a time (the writer thread, or a caller of ``process_pending_now``), over one
writer connection. Before each entry it checks that the index file is still the one it opened
(RELIABILITY 13) and reopens if not. ``Drainer`` is the dispatch and the writer connection; its
per-kind passes and the reconcile are ``engine.ingest.drain_passes``, and what it does when a
write fails (backoff, a damaged file recreated, a health complaint healed) is
``engine.ingest.drain_faults``.

The processors (and the document builders, redaction and chunking behind them) are imported
when an entry runs, and the source listing when a reconcile runs in full: a warm CLI search
where nothing changed never needs them.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.external.catalog import ExternalCatalog
from engine.index.db import meta_set
from engine.index.faults import count_drift
from engine.index.schema import BUSY_TIMEOUT_MS, DAMAGE_ERRORS
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.writer import IndexWriter
from engine.ingest.drain_faults import WriteFaults
from engine.ingest.drain_passes import SESSION_QUEUE_KINDS, SourcePasses
from engine.ingest.history import HistoryWalker
from engine.ingest.queue import Entry, IngestQueue, Kind
from engine.project.lanes import list_lanes
from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.project.transcripts import TranscriptNotReady, TranscriptUnreadable
from engine.semantic import enabled as semantic_enabled
from engine.semantic import hand_over_on_first_write

if TYPE_CHECKING:
    from engine.index.vector_hook import VectorSink
    from engine.ingest.pass_group import PassGroup
    from engine.ingest.planner import Prefetcher

log = get_logger(__name__)

NOT_READY_RETRY_S = 1.0
"""Wait before re-reading a ``.gz`` that is still being written (RELIABILITY 5)."""

RECONCILE_INTERVAL_S = 30.0
"""Stat-based reconcile period with a watcher running: catches events the watcher lost."""

RECONCILE_NO_WATCHER_S = 5.0
"""Reconcile period without a watcher: the reconcile is then the only way changes arrive."""

CHECKPOINT_WAIT_MS = 200
"""How long the idle checkpoint waits for a reader still on an older snapshot before it leaves
the WAL for the next one (a query takes well under this)."""

HISTORY_WAIT_S = 0.5
"""Delay of the next history slice once a catch-up's history budget is spent."""


class Drainer(SourcePasses, WriteFaults):
    """Runs queue entries against the index, one at a time, on whichever thread calls it."""

    def __init__(
        self,
        project: Project,
        queue: IngestQueue,
        tally: WarningTally,
        clock: Callable[[], datetime],
        tuning: WriteTuning = DEFAULT_TUNING,
    ) -> None:
        self.project = project
        self.tuning = tuning
        """The write path's sizes and switches, handed to every pass and the planning worker."""
        self.queue = queue
        self.tally = tally
        self.clock = clock
        self.lock = threading.RLock()
        self.failures: dict[Entry, int] = {}
        self.last_ingest_ms: int | None = None
        self.recreated_reason: str | None = None
        self.replaced_note: str | None = None
        """Said once by the next answer: the file went or changed under the open writer."""
        self.write_fault: str | None = None
        """Why the last write failed for the disk's sake ("disk full"); None once one succeeds."""
        self.busy = False
        """The last entry waited out the busy timeout: another process holds the write lock."""
        self.reconcile_interval = RECONCILE_NO_WATCHER_S
        self._periodic = 0
        self.external = ExternalCatalog(project)
        self.history = HistoryWalker()
        self.history_deadline: float | None = None
        """Monotonic time after which history slices wait for the background writer instead of
        running on (the CLI's catch-up answers then, saying the history is still indexing)."""
        self.writer = IndexWriter(
            project.index_path, tuning, vectors=_vector_sink, on_open=self._opened
        )
        """The writer connection and its modes (``engine.index.writer``)."""
        self.pending_manifest: str | None = None
        """The manifest of the last full reconcile, stored once its entries all drained."""
        self._incomplete = False
        """An entry since that reconcile failed or was unreadable: the manifest cannot vouch."""
        self._warned = 0
        self.listing_warnings = WarningTally()
        """What the last full reconcile's listing warned of (``SourcePasses.reconcile``)."""
        """The tally's total before that reconcile: a new warning keeps the manifest out."""
        self.prefetch: Prefetcher | None = None
        """The planning worker's handle (``engine.ingest.planner``), made on the first
        transcript entry: a warm run that ingests nothing never imports it."""
        self._group: PassGroup | None = None
        self.full_reconciles = 0
        self.skipped_reconciles = 0
        """Reconciles run in full, and skipped on an unchanged manifest (tests read both)."""
        self._health = None  # built on first use: ``WriteFaults.health``

    # The group of passes and the health checker (``WriteFaults.health``) are built on first
    # use: a warm search where nothing changed needs neither, nor their modules.

    @property
    def group(self) -> PassGroup:
        """A first index's passes sharing one transaction (``engine.ingest.pass_group``)."""
        if self._group is None:
            from engine.ingest.pass_group import PassGroup

            self._group = PassGroup(self.writer)
        return self._group

    @property
    def _group_open(self) -> bool:
        return self._group is not None and self._group.open

    def connection(self) -> apsw.Connection:
        """The writer connection, reopened when the index file was replaced or deleted."""
        return self.writer.connection()

    def _opened(self, recreated_reason: str | None, replaced: str | None) -> None:
        """The writer opened the file (``IndexWriter.connection``): why it was recreated, and
        whether it went or changed under the open connection (re-indexed from the sources)."""
        self._release()
        if recreated_reason is not None:
            self.recreated_reason = recreated_reason
        if replaced is not None:
            self.recreated_reason = replaced
            self.replaced_note = f"search index: {replaced}; made anew from the sources"
            log.info("search index file %s: re-indexing", replaced)
            self.queue.add("reconcile", "replaced", delay=0.0)

    def held_identity(self) -> tuple[int, int] | None:
        """The identity of the file the open writer connection holds (None: none open)."""
        return self.writer.identity

    def close(self) -> None:
        """Close the writer connection (checkpointing the WAL), the history walk and the
        planning worker, if open. An open group of passes is rolled back with the connection:
        its passes are queued again."""
        self._release()
        self.writer.close()

    def _release(self) -> None:
        if self._group is not None:
            self._requeue(self._group.abandon())
        self.history.close()
        if self.prefetch is not None:
            self.prefetch.close()

    def now_ms(self) -> int:
        return int(self.clock().timestamp() * 1000)

    def drain(self, *, everything: bool, should_stop: Callable[[], bool] = lambda: False) -> int:
        """Process due entries (every entry not in backoff with ``everything``) until none is left.

        Returns:
            How many entries were processed.
        """
        done = 0
        with self.lock, self.deferring_recent():
            while not should_stop():
                entry = self.queue.pop_next(ignore_due=everything)
                if entry is None:
                    break
                self.run(entry)
                done += 1
            from engine.ingest import gzcache  # deferred: see the module docstring

            gzcache.release()
            if self.prefetch is not None:
                self.prefetch.idle()  # what is left is not due yet: no backlog to plan ahead
        return done

    @contextlib.contextmanager
    def deferring_recent(self) -> Iterator[None]:
        """Around a loop of ``run``: when its first entry finds the index empty, the loop is a
        first index (``IndexWriter.first_index``); its group of passes ends before the mode does."""
        with self.writer.first_index():
            try:
                yield
            finally:
                self.end_group()  # before the first index's fill and merge, which need no group

    def run(self, entry: Entry) -> None:
        """Process one entry; on failure re-enqueue it with backoff (nothing half-written)."""
        kind, ident = entry
        try:
            more = self._grouped_dispatch(kind, ident)
        except TranscriptNotReady:
            self._incomplete = True
            self.queue.add(kind, ident, delay=NOT_READY_RETRY_S, retry=True)
            return
        except TranscriptUnreadable as err:
            self._incomplete = True
            self.tally.add(f"{kind}:{ident}", str(err))
            return
        except DAMAGE_ERRORS as err:
            if self._recovered(err):
                return  # every source is queued again: this entry included
            self._back_off(entry, err)
            return
        except (apsw.Error, OSError) as err:
            self._back_off(entry, err)
            return
        self.failures.pop(entry, None)
        self.write_fault, self.busy = None, False
        self.last_ingest_ms = self.now_ms()
        if more and kind == "history" and self._past_history_deadline():
            self.queue.add(kind, ident, delay=HISTORY_WAIT_S, retry=True)
        elif more:
            self.queue.add(kind, ident, delay=0.0)

    def _grouped_dispatch(self, kind: Kind, ident: str) -> bool:
        """``_dispatch`` inside a first index's group of passes when the entry may join one
        (``engine.ingest.pass_group``); an entry that raises ends the group first."""
        self.connection()
        live = self.queue.live_adds
        if self._group_open and not self.group.admits(kind, live):
            self.end_group()
        if not self._group_open and kind in SESSION_QUEUE_KINDS and self.writer.first_index_running:
            self.group.begin(live)
        try:
            more = self._dispatch(kind, ident)
        except BaseException:
            self.end_group()
            raise
        if self._group_open:
            self.group.joined((kind, ident))
        return more

    def end_group(self) -> None:
        """Commit the open group of passes. One rolled back already (an error inside it) or
        whose ``COMMIT`` fails stored none of its passes: they are queued again."""
        if self._group is None:
            return  # no first index ever grouped its passes here
        try:
            self._requeue(self.group.commit())
        except (apsw.Error, OSError) as err:
            lost, self.group.entries = self.group.entries, []
            for entry in lost:
                self._back_off(entry, err)

    def _requeue(self, entries: list[Entry]) -> None:
        if entries:
            self._incomplete = True
        for kind, ident in entries:
            self.queue.add(kind, ident, delay=0.0)

    def _past_history_deadline(self) -> bool:
        return self.history_deadline is not None and time.monotonic() >= self.history_deadline

    def _dispatch(self, kind: Kind, ident: str) -> bool:
        conn = self.connection()
        now = self.now_ms()
        if kind in ("chat", "terminal"):
            return self._session(conn, kind, ident, now)
        if kind == "external":
            return self._external(ident, now)
        if kind == "session":
            from engine.project.sessions import read_session  # deferred: see the module docstring

            meta = read_session(self.project, ident, self.tally)
            if meta is None:
                self.queue.add("reconcile", "cleanup", delay=0.0)
                return False
            self.queue.add(meta.kind, ident, delay=0.0)
            return False
        from engine.ingest.records import process_git, process_pr, sweep_prs  # deferred: see top

        if kind == "pr":
            lanes = list_lanes(self.project, self.tally)
            process_pr(self.writer, self.project, int(ident), lanes, self.tally, now)
        elif kind == "prs":
            sweep_prs(self.writer, self.project)
        elif kind == "git":
            process_git(self.writer, self.project, self.tally, now)
            self.queue.add("history", "*", delay=0.0)
        elif kind == "history":
            from engine.ingest.history import process_history

            return process_history(self.writer, self.project, self.tally, now, self.history)
        elif kind == "backfill":
            if not self.check_health(conn) and not self.writer.holds(conn):
                return False  # the file was recreated: it queued a new backfill
            self.reconcile(conn, everything=True)
            self.queue.add("reconcile", "backfill-done", delay=0.0)
        elif ident == "backfill-done":
            with self.writer.transaction():
                meta_set(conn, "backfill_completed_at", str(now))
        elif kind == "health":
            from engine.ingest.health import heal  # deferred: a complaint is rare

            problems = self.health.take(self.writer.identity)
            if problems:
                heal(self, conn, problems)
        elif kind == "reconcile":
            self.reconcile(conn, everything=False)
            if ident == "periodic":
                from engine.ingest.health import HEALTH_EVERY

                self._periodic += 1
                # The count check costs ~1 ms (lost FTS rows): every period, not hourly, so lost
                # FTS rows are repaired within a reconcile period, not after the health check.
                if self._periodic % HEALTH_EVERY == 0 or count_drift(conn) is not None:
                    self.check_health(conn)
                self.queue.add("reconcile", "periodic", delay=self.reconcile_interval, retry=True)
        return False

    def checkpoint(self) -> None:
        """Checkpoint the WAL while idle so it cannot grow without bound (RELIABILITY 14), and
        truncate it: after a burst of writes (a first index) the file would otherwise stay at
        its largest size on disk (docs/index-size.md). A reader still on the old snapshot is
        waited for at most ``CHECKPOINT_WAIT_MS``; the file is then cut back to
        ``WAL_SIZE_LIMIT`` when the next write restarts it."""
        if not self.writer.is_open:
            return
        conn = self.writer.conn
        try:
            conn.set_busy_timeout(CHECKPOINT_WAIT_MS)
            try:
                conn.wal_checkpoint(mode=apsw.SQLITE_CHECKPOINT_TRUNCATE)
            finally:
                conn.set_busy_timeout(BUSY_TIMEOUT_MS)
        except apsw.Error:
            log.debug("idle checkpoint failed", exc_info=True)


def _vector_sink() -> VectorSink | None:
    """The writer's vector sink when the semantic extra is on (docs/semantic.md)."""
    return hand_over_on_first_write if semantic_enabled() else None
