"""The drain: take due queue entries one at a time and run the matching processor.

Only one drain runs at a time (the writer thread, or a caller of ``process_pending_now``), over one
writer connection. Before each entry it checks that the index file is still the one it opened
(RELIABILITY 13) and reopens if not. A failing entry (disk full, I/O error, a lock held through
every retry) leaves its cursor where it was and is re-enqueued with exponential backoff.

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
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.errors import AdeError
from engine.external.catalog import ExternalCatalog, external_signature
from engine.index.db import (
    clear_index,
    connect,
    file_identity,
    immediate,
    meta_get,
    meta_set,
    open_index,
    recreate_damaged,
)
from engine.index.faults import count_drift, write_fault
from engine.index.recent import first_index_running, recent_deferred
from engine.index.schema import DAMAGE_ERRORS, TRANSIENT_ERRORS
from engine.index.sources import MANIFEST_KEY
from engine.ingest.health import HEALTH_EVERY, HealthChecker, heal
from engine.ingest.history import HistoryWalker
from engine.ingest.manifest import Manifest, project_manifest
from engine.ingest.pass_group import PassGroup
from engine.ingest.queue import IngestQueue
from engine.logs import get_logger
from engine.project import lane_memo
from engine.project.lanes import list_lanes
from engine.project.model import Project, SessionKind
from engine.project.tally import WarningTally
from engine.project.transcripts import TranscriptNotReady, TranscriptUnreadable

if TYPE_CHECKING:
    from engine.ingest.planner import Prefetcher

log = get_logger(__name__)

NOT_READY_RETRY_S = 1.0
"""Wait before re-reading a ``.gz`` that is still being written (RELIABILITY 5)."""

BACKOFF_BASE_S = 0.5
"""First retry delay after a failed pass; doubles per consecutive failure."""

BACKOFF_MAX_S = 60.0
"""Longest retry delay: a full disk is retried about once a minute."""

RECONCILE_INTERVAL_S = 30.0
"""Stat-based reconcile period with a watcher running: catches events the watcher lost."""

RECONCILE_NO_WATCHER_S = 5.0
"""Reconcile period without a watcher: the reconcile is then the only way changes arrive."""

HISTORY_WAIT_S = 0.5
"""Delay of the next history slice once a catch-up's history budget is spent."""

Entry = tuple[str, str]

SESSION_QUEUE_KINDS = ("chat", "terminal")
"""Queue kinds whose passes the planning worker can plan."""


class Drainer:
    """Runs queue entries against the index, one at a time, on whichever thread calls it."""

    def __init__(
        self,
        project: Project,
        queue: IngestQueue,
        tally: WarningTally,
        clock: Callable[[], datetime],
    ) -> None:
        self.project = project
        self.queue = queue
        self.tally = tally
        self.clock = clock
        self.lock = threading.RLock()
        self.failures: dict[Entry, int] = {}
        self.last_ingest_ms: int | None = None
        self.recreated_reason: str | None = None
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
        self._conn: apsw.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self.pending_manifest: str | None = None
        """The manifest of the last full reconcile, stored once its entries all drained."""
        self._incomplete = False
        """An entry since that reconcile failed or was unreadable: the manifest cannot vouch."""
        self._warned = 0
        """The tally's total before that reconcile: a new warning keeps the manifest out."""
        self.prefetch: Prefetcher | None = None
        """The planning worker's handle (``engine.ingest.planner``), made on the first
        transcript entry: a warm run that ingests nothing never imports it."""
        self._deferral: contextlib.ExitStack | None = None
        """The open ``deferring_recent`` scope whose first entry has not run yet."""
        self.group = PassGroup()
        """A first index's passes sharing one transaction (``engine.ingest.pass_group``)."""
        self.full_reconciles = 0
        self.skipped_reconciles = 0
        """Reconciles run in full, and skipped on an unchanged manifest (tests read both)."""
        self.health = HealthChecker(
            project.index_path, lambda: queue.add("health", "verdict", delay=0.0)
        )
        """The health check, off the writer thread once the service has one (issue 14.5)."""

    @property
    def path(self) -> Path:
        return self.project.index_path

    def connection(self) -> apsw.Connection:
        """The writer connection, reopened when the index file was replaced or deleted."""
        current = file_identity(self.path)
        if self._conn is None or current is None or current != self._identity:
            self.close()
            report = open_index(self.path)
            if report.recreated_reason is not None:
                self.recreated_reason = report.recreated_reason
            self._conn = connect(self.path)
            self._identity = file_identity(self.path)
        return self._conn

    def close(self) -> None:
        """Close the writer connection (checkpointing the WAL), the history walk and the
        planning worker, if open. An open group of passes is rolled back with the connection:
        its passes are queued again."""
        self._requeue(self.group.abandon())
        self.history.close()
        if self.prefetch is not None:
            self.prefetch.close()
        if self._conn is not None:
            try:
                self._conn.close()
            except apsw.Error:
                log.debug("closing the writer connection failed", exc_info=True)
            self._conn = None

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
        """Around a loop of ``run``: when its first entry finds the index empty (a first index),
        the recent-prefix table is written once at the end (``recent_deferred``)."""
        with contextlib.ExitStack() as stack:
            self._deferral = stack
            try:
                yield
            finally:
                self._deferral = None
                self.end_group()  # before the deferral's fill and merge, which need no group

    def run(self, entry: Entry) -> None:
        """Process one entry; on failure re-enqueue it with backoff (nothing half-written)."""
        if self._deferral is not None:
            stack, self._deferral = self._deferral, None
            with contextlib.suppress(apsw.Error, OSError, AdeError):
                stack.enter_context(recent_deferred(self.connection()))
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

    def _grouped_dispatch(self, kind: str, ident: str) -> bool:
        """``_dispatch`` inside a first index's group of passes when the entry may join one
        (``engine.ingest.pass_group``); an entry that raises ends the group first."""
        conn = self.connection()
        group = self.group
        live = self.queue.live_adds
        if group.open and not group.admits(conn, kind, live):
            self.end_group()
        if not group.open and kind in SESSION_QUEUE_KINDS and first_index_running(conn):
            group.begin(conn, live)
        try:
            more = self._dispatch(kind, ident)
        except BaseException:
            self.end_group()
            raise
        group.joined((kind, ident))
        return more

    def end_group(self) -> None:
        """Commit the open group of passes. One rolled back already (an error inside it) or
        whose ``COMMIT`` fails stored none of its passes: they are queued again."""
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
            # for debugging only and never reaches a user's warnings (issue 7, dual host).
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

    def _dispatch(self, kind: str, ident: str) -> bool:
        conn = self.connection()
        now = self.now_ms()
        if kind in ("chat", "terminal"):
            return self._session(conn, kind, ident, now)  # type: ignore[arg-type]
        if kind == "external":
            return self._external(conn, ident, now)
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
            process_pr(conn, self.project, int(ident), lanes, self.tally, now)
        elif kind == "prs":
            sweep_prs(conn, self.project)
        elif kind == "git":
            process_git(conn, self.project, self.tally, now)
            self.queue.add("history", "*", delay=0.0)
        elif kind == "history":
            from engine.ingest.history import process_history

            return process_history(conn, self.project, self.tally, now, self.history)
        elif kind == "backfill":
            if not self.check_health(conn) and self._conn is not conn:
                return False  # the file was recreated: it queued a new backfill
            self.reconcile(conn, everything=True)
            self.queue.add("reconcile", "backfill-done", delay=0.0)
        elif ident == "backfill-done":
            with immediate(conn):
                meta_set(conn, "backfill_completed_at", str(now))
        elif kind == "health":
            problems = self.health.take(self._identity)
            if problems:
                heal(self, conn, problems)
        elif kind == "reconcile":
            self.reconcile(conn, everything=False)
            if ident == "periodic":
                self._periodic += 1
                # The count check costs ~1 ms (issue 13.10): every period, not hourly, so lost
                # FTS rows are repaired within a reconcile period, not after the health check.
                if self._periodic % HEALTH_EVERY == 0 or count_drift(conn) is not None:
                    self.check_health(conn)
                self.queue.add("reconcile", "periodic", delay=self.reconcile_interval, retry=True)
        return False

    def check_health(self, conn: apsw.Connection) -> bool:
        """Check the index's health (``engine.ingest.health``): on a thread of its own when
        ``health.background`` (its complaint comes back as a ``health`` entry), else now.
        Returns False when the index was found unhealthy now (and is being rebuilt)."""
        if self.health.background:
            self.health.start()
            return True
        problems = self.health.run_now()
        return not problems or heal(self, conn, problems)

    def recover_damage(
        self, cause: BaseException | str, damaged: tuple[int, int] | None = None
    ) -> None:
        """Recreate a damaged index file and queue every source again (issue 13.9).

        ``damaged``: identity of the file found damaged (default: the writer's own file).

        Raises:
            apsw.BusyError: another process holds the write lock (retried with backoff).
        """
        reason = cause if isinstance(cause, str) else type(cause).__name__
        # Info, not warning: the answer that tripped over it says so (the CLI would print both).
        log.info("search index damaged (%s): recreating it and re-indexing", reason)
        with self.lock:
            damaged = damaged or self._identity or file_identity(self.path)
            self.health.cancel()  # a running check reads the file about to go
            self.close()
            recreate_damaged(self.path, damaged)
            self.recreated_reason = f"damaged index ({reason})"
            self.queue.add("backfill", "*", delay=0.0)

    def clear_for_rebuild(self) -> None:
        """Clear every row and queue every source; a damaged file is recreated instead (its
        ``DELETE`` would fail on the damaged pages, issue 13.9).

        Raises:
            AdeError: another process holds the write lock, or the disk refused the write
                (the index is left as it was).
        """
        try:
            conn = self.connection()
            clear_index(conn)
            self.health.cancel()
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

    def checkpoint(self) -> None:
        """Checkpoint the WAL while idle so it cannot grow without bound (RELIABILITY 14)."""
        if self._conn is None:
            return
        try:
            self._conn.wal_checkpoint(mode=apsw.SQLITE_CHECKPOINT_PASSIVE)
        except apsw.Error:
            log.debug("idle checkpoint failed", exc_info=True)

    def _session(self, conn: apsw.Connection, kind: SessionKind, sid: str, now: int) -> bool:
        from engine.ingest.reconcile import session_signature, store_session_signature
        from engine.ingest.transcripts import process_session  # deferred: see module docstring

        prefetch = self._plan_ahead(conn, (kind, sid))
        signature = session_signature(self.project, kind, sid)
        planned = prefetch.take((kind, sid), conn, signature, self.tally)
        result = process_session(conn, self.project, kind, sid, self.tally, now, planned)
        if not result.more:
            store_session_signature(conn, kind, sid, signature, now)
        # The backlog is done when no transcript entry is left: the worker stops.
        if prefetch.running and not result.more and not self.queue.upcoming(SESSION_QUEUE_KINDS, 1):
            prefetch.idle()
        return result.more

    def _plan_ahead(self, conn: apsw.Connection, entry: Entry) -> Prefetcher:
        """Start the planning worker for a big backlog and send it the next transcript
        entries, so their passes are planned while this one is written (issue 14.1)."""
        from engine.ingest import planner  # deferred: only a transcript entry needs it

        if self.prefetch is None:
            self.prefetch = planner.Prefetcher(self.project)
            self.prefetch.before_wait = self.end_group
        prefetch = self.prefetch
        if prefetch.running:
            prefetch.before(
                conn, entry, self.queue.upcoming(SESSION_QUEUE_KINDS, planner.WINDOW), 0
            )
        elif prefetch.should_check():
            # One long transcript alone is a backlog too: its next passes are planned ahead.
            upcoming = self.queue.upcoming(SESSION_QUEUE_KINDS, planner.WINDOW)
            queued = [(k, s) for k in SESSION_QUEUE_KINDS for s in self.queue.queued(k)]
            backlog = planner.backlog_bytes(conn, self.project, [entry, *queued])
            prefetch.before(conn, entry, upcoming, backlog)
        return prefetch

    def _external(self, conn: apsw.Connection, sid: str, now: int) -> bool:
        """One pass over a Claude Code / Codex session (4 MiB per file); True when more is left."""
        from engine.ingest.external_pass import process_external  # deferred like the other builders
        from engine.ingest.reconcile import store_session_signature

        meta = self.external.get(sid)
        if meta is None:
            return False  # not listed (any more): the next reconcile lists it or drops its docs
        signature = external_signature(meta)
        result = process_external(conn, meta, self.tally, now)
        if not result.more:
            store_session_signature(conn, "chat", sid, signature, now)
        return result.more

    def reconcile(self, conn: apsw.Connection, *, everything: bool) -> list[Entry]:
        """Enqueue every changed source (every source with ``everything``); drop gone sessions.

        Skipped, reading one ``meta`` row, when the manifest equals the stored one
        (``engine.ingest.manifest``): nothing changed since every source was last ingested.
        """
        warned = self.tally.total()
        manifest = None if everything else self._manifest()
        if manifest is not None and manifest.digest == meta_get(conn, MANIFEST_KEY):
            self.skipped_reconciles += 1
            return []
        self.full_reconciles += 1
        # Deferred like the processors: a warm run whose manifest matched never lists sources.
        from engine.ingest.reconcile import changed_sources, remove_gone_sessions

        entries, sessions = changed_sources(
            conn, self.project, self.tally, everything=everything, external=self.external
        )
        remove_gone_sessions(conn, sessions)
        for kind, ident in entries:
            self.queue.add(kind, ident, delay=0.0)
        # A session remembered from another environment lies outside the folders it lists.
        covered = manifest is not None and manifest.covers(self.external.sessions())
        self.pending_manifest = manifest.digest if manifest is not None and covered else None
        self._incomplete = False
        self._warned = warned
        return entries

    def _manifest(self) -> Manifest | None:
        lanes = lane_memo.list_lanes(self.project, self.tally)
        return project_manifest(self.project, lanes, self.external.env())

    def store_manifest(self, conn: apsw.Connection) -> None:
        """Remember the last full reconcile's manifest once everything it queued is ingested
        (one small write, only after a reconcile that ran in full)."""
        manifest, self.pending_manifest = self.pending_manifest, None
        if manifest is None or self._incomplete or self.queue.source_count() or self.failures:
            return
        if self.tally.total() > self._warned:
            # A hostile file was counted: its warning is this process's, so later runs must
            # list it again to say it (``ade search --status``), never skip it silently.
            return
        if self.busy or self.write_fault is not None:
            return
        try:
            with immediate(conn):
                meta_set(conn, MANIFEST_KEY, manifest)
        except (apsw.Error, OSError):
            log.debug("storing the reconcile manifest failed", exc_info=True)
