"""The drain: take due queue entries one at a time and run the matching processor.

Only one drain runs at a time (the writer thread, or a caller of ``process_pending_now``), over one
writer connection. Before each entry it checks that the index file is still the one it opened
(RELIABILITY 13) and reopens if not. ``Drainer`` is the dispatch, and what it does with a
damaged file or a health complaint; its collaborators, built here and handed what they use, are
the writer (``engine.index.writer.IndexWriter``: the connection, transactions, the group of passes
and the first-index mode), the per-kind passes and the reconcile (``drain_passes.SourcePasses``)
and the failures' backoff and health checker (``drain_faults.WriteFaults``).

The processors (and the document builders, redaction and chunking behind them) are imported
when an entry runs, and the source listing when a reconcile runs in full: a warm CLI search
where nothing changed never needs them.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.errors import AdeError
from engine.external.catalog import ExternalCatalog
from engine.index.db import file_identity, meta_set, recreate_damaged
from engine.index.faults import count_drift, write_fault
from engine.index.schema import BUSY_TIMEOUT_MS, DAMAGE_ERRORS, TRANSIENT_ERRORS
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
    from engine.ingest.health import HealthChecker
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


class Drainer:
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
        self.last_ingest_ms: int | None = None
        self.replaced_note: str | None = None
        """Said once by the next answer: the file went or changed under the open writer."""
        self.healed_note: str | None = None
        """Said once by the next answer: a pass met rotten rows and cut them out."""
        self.reconcile_interval = RECONCILE_NO_WATCHER_S
        self._periodic = 0
        self.history = HistoryWalker()
        self.history_deadline: float | None = None
        """Monotonic time after which history slices wait for the background writer instead of
        running on (the CLI's catch-up answers then, saying the history is still indexing)."""
        self.writer = IndexWriter(
            project.index_path, tuning, vectors=_vector_sink, on_open=self._opened
        )
        """The writer connection and its modes (``engine.index.writer``)."""
        self.faults = WriteFaults(self.writer, queue, tally)
        self.passes = SourcePasses(self.writer, queue, project, tally, end_group=self.end_group)
        self._group: PassGroup | None = None

    # What the service, the status and the tests read of the collaborators.

    @property
    def external(self) -> ExternalCatalog:
        return self.passes.external

    @property
    def prefetch(self) -> Prefetcher | None:
        return self.passes.prefetch

    @property
    def full_reconciles(self) -> int:
        return self.passes.full_reconciles

    @property
    def skipped_reconciles(self) -> int:
        return self.passes.skipped_reconciles

    @property
    def matched_manifest(self) -> str | None:
        return self.passes.matched_manifest

    @property
    def health(self) -> HealthChecker:
        return self.faults.health

    @property
    def failures(self) -> dict[Entry, int]:
        return self.faults.failures

    @property
    def busy(self) -> bool:
        return self.faults.busy

    @property
    def write_fault(self) -> str | None:
        return self.faults.write_fault

    @write_fault.setter
    def write_fault(self, value: str | None) -> None:
        self.faults.write_fault = value

    @property
    def recreated_reason(self) -> str | None:
        return self.faults.recreated_reason

    def stop_health_check(self) -> None:
        """Interrupt a running health check and join its thread (the service's dispose)."""
        self.faults.stop_health_check()

    # The group of passes is built on first use: a warm search where nothing changed needs
    # neither it nor its module.

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
            self.faults.recreated_reason = recreated_reason
        if replaced is not None:
            self.faults.recreated_reason = replaced
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
        self.passes.close()

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
            self.passes.idle()  # what is left is not due yet: no backlog to plan ahead
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
            self.passes.incomplete = True
            self.queue.add(kind, ident, delay=NOT_READY_RETRY_S, retry=True)
            return
        except TranscriptUnreadable as err:
            self.passes.incomplete = True
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
        except UnicodeDecodeError as err:
            self._heal_text_rot(entry, err)
            return
        self.faults.succeeded(entry)
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
        worker = self.prefetch is not None and self.prefetch.running
        if self._group_open and not self.group.admits(kind, live, worker=worker):
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
            self.passes.incomplete = True
        for kind, ident in entries:
            self.queue.add(kind, ident, delay=0.0)

    def _past_history_deadline(self) -> bool:
        return self.history_deadline is not None and time.monotonic() >= self.history_deadline

    def _dispatch(self, kind: Kind, ident: str) -> bool:
        conn = self.connection()
        now = self.now_ms()
        if kind in ("chat", "terminal"):
            return self.passes.session(conn, kind, ident, now)
        if kind == "external":
            return self.passes.external_session(ident, now)
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

            problems = self.faults.health.take(self.writer.identity)
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

    def reconcile(self, conn: apsw.Connection, *, everything: bool) -> list[Entry]:
        """Enqueue every changed source (every source with ``everything``); drop gone sessions
        (``SourcePasses.reconcile``)."""
        return self.passes.reconcile(conn, everything=everything)

    def store_manifest(self, conn: apsw.Connection) -> None:
        """Remember the last full reconcile's manifest once everything it queued is ingested."""
        self.passes.store_manifest(conn, settled=self.faults.settled)

    def _back_off(self, entry: Entry, err: BaseException) -> None:
        """Leave the entry's cursor where it was and retry it later (``WriteFaults.back_off``);
        a fresh connection after I/O or corruption errors."""
        self.passes.incomplete = True
        if self.faults.back_off(entry, err):
            self.close()

    def _heal_text_rot(self, entry: Entry, err: UnicodeDecodeError) -> None:
        """A pass read a stored text column that is not UTF-8 (bit-rot, ``engine.index.text_rot``):
        the rotten rows are cut out and their sources marked in one transaction, and this entry
        and a reconcile are queued, so the rows come back from their sources on this drain."""
        from engine.index.text_rot import ROT_NOTE, heal_rotten_rows  # only on this fault

        self.passes.incomplete = True
        try:
            healed = heal_rotten_rows(self.connection())
        except (apsw.Error, OSError) as write_err:
            self._back_off(entry, write_err)
            return
        if not healed:  # not the index's text: retried later like any failed pass
            self._back_off(entry, err)
            return
        self.healed_note = ROT_NOTE.format(count=healed)
        log.warning("%s", self.healed_note)
        self.queue.add("reconcile", "text-rot", delay=0.0)
        self.queue.add(*entry, delay=0.0)

    def _recovered(self, err: BaseException) -> bool:
        try:
            self.recover_damage(err)
        except (apsw.Error, OSError):
            log.debug("recreating the damaged index failed; retrying", exc_info=True)
            return False
        return True

    def check_health(self, conn: apsw.Connection) -> bool:
        """Check the index's health (``engine.ingest.health``): on a thread of its own when
        ``health.background`` (its complaint comes back as a ``health`` entry), else now.
        Returns False when the index was found unhealthy now (and is being rebuilt)."""
        from engine.ingest.health import heal  # deferred with the checker

        health = self.faults.health
        if health.background:
            health.start()
            return True
        problems = health.run_now()
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
            damaged = damaged or self.writer.identity or file_identity(self.writer.path)
            self.faults.cancel_health_check()  # a running check reads the file about to go
            self.close()
            recreate_damaged(self.writer.path, damaged, vacuum=self.tuning.vacuum)
            self.faults.recreated_reason = f"damaged index ({reason})"
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
            self.faults.cancel_health_check()
        except DAMAGE_ERRORS as err:
            self.recover_damage(err)  # readers see the new inode and reopen
            conn = self.connection()
        except TRANSIENT_ERRORS:
            raise AdeError(
                "cannot rebuild now: another process holds the search index's write lock;"
                " retry in a moment"
            ) from None
        except (apsw.Error, OSError) as err:
            fault = write_fault(err, self.writer.path) or type(err).__name__
            raise AdeError(f"cannot rebuild: {fault}; the index was left as it was") from None
        self.reconcile(conn, everything=True)

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
