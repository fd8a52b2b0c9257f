"""One project's search service: notify hooks, the writer thread, queries, status and rebuild.

Writes never run on a hot path (DESIGN §4): a notify hook is a dict membership test, and only a
source not yet queued takes a lock. One writer thread drains due sources one at a time;
``process_pending_now`` drains on the caller's thread instead (tests, the CLI's catch-up, rebuild)
under the same lock, so there is never more than one drain. Queries run on a read connection
owned by the calling thread (RELIABILITY 14), so a long query never waits for the writer.

The read connections are ``engine.service.readers``, one query's answer
``engine.service.answer``, and the status and rebuild ``engine.service.status`` (imported when
asked: a search never needs it).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import apsw
import msgspec

from engine.clock import Clock, system_clock
from engine.external.catalog import FOREIGN
from engine.index.db import clear_index, immediate, meta_get, meta_set
from engine.index.faults import count_drift, write_fault
from engine.index.schema import DAMAGE_ERRORS, TRANSIENT_ERRORS
from engine.ingest.drain import Drainer
from engine.ingest.queue import IngestGate, IngestQueue
from engine.ingest.timers import ThreadTimerFactory, TimerFactory
from engine.links.places import place_links
from engine.logs import get_logger
from engine.project.lane_memo import list_lanes, one_listing
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally
from engine.service.answer import answer_query
from engine.service.readers import ReadConnections
from engine.text import encodable_args
from engine.types import (
    IndexState,
    IndexStatus,
    ProgressCallback,
    RebuildResult,
    SearchQueryArgs,
    SearchQueryResult,
)

_T = TypeVar("_T")

_log = get_logger(__name__)


BUSY_NOTE = (
    "search index busy: another process holds its write lock; the newest changes may be missing"
)
"""Said by the answer after a catch-up that gave up waiting for the write lock (issue 13.12)."""


class SearchService(ReadConnections):
    """The search service of one project (see the module docstring for the threading model)."""

    def __init__(
        self,
        project: Project,
        *,
        clock: Clock | None = None,
        timer: TimerFactory | None = None,
        start_worker: bool = True,
    ) -> None:
        self.project = project
        self.clock: Clock = clock or system_clock
        self.timers: TimerFactory = timer or ThreadTimerFactory()
        self.tally = WarningTally()
        self.watcher_state = "off"
        self._closers: list[Callable[[], None]] = []
        self._wake = threading.Event()
        self._closed = False
        self._rebuilding = False
        self._once_note: str | None = None
        self._readers_lock = threading.Lock()
        self._readers: dict[int, apsw.Connection] = {}
        self._local = threading.local()
        self.queue = IngestQueue(self.timers, self._on_due)
        self.ingest_gate = IngestGate(self.timers)
        """The daemon's queries wait here while a drain is due (issue 14.5)."""
        self.drainer = Drainer(project, self.queue, self.tally, self.clock)
        self._worker: threading.Thread | None = None
        self._chat = self.queue.pending["chat"]
        self._external = self.queue.pending["external"]
        self._terminal = self.queue.pending["terminal"]
        self._session = self.queue.pending["session"]
        self._pr = self.queue.pending["pr"]
        self._git = self.queue.pending["git"]
        if start_worker:
            # A writer thread serves live appends: the health check must not stop it (14.5).
            self.drainer.health.background = True
            self._worker = threading.Thread(target=self._run, name="ade-ingest", daemon=True)
            self._worker.start()

    # -- notify hooks: a membership test on the hot path, the lock only for a new source --------

    def notify_chat_event(self, session_id: str) -> None:
        """A chat event was appended to ``session_id``'s transcript."""
        if session_id not in self._chat:
            self.queue.add("chat", session_id)

    def notify_terminal_data(self, session_id: str) -> None:
        """PTY output was appended to ``session_id``'s log."""
        if session_id not in self._terminal:
            self.queue.add("terminal", session_id)

    def notify_session_changed(self, session_id: str) -> None:
        """``session_id``'s metadata changed (title, lane, archived, ended) or it was deleted."""
        if session_id not in self._session:
            self.queue.add("session", session_id)

    def notify_pr_changed(self, number: int) -> None:
        """PR ``number``'s snapshot was written or removed."""
        key = str(number)
        if key not in self._pr:
            self.queue.add("pr", key)
            self.queue.add("prs", "*")

    def notify_lane_activity(self, lane_id: str) -> None:
        """Something happened in a lane's git state (commit, checkout, branch)."""
        del lane_id  # every lane is re-derived together: commit attribution spans lanes
        if "*" not in self._git:
            self.queue.add("git", "*")

    def notify_external_file(self, path: Path) -> None:
        """A file under the Claude Code / Codex transcript folders changed: queue the session
        owning it, list sessions again for a new or deleted file, ignore another project's."""
        sid = self.drainer.external.owner(path)
        if sid is None or (sid != FOREIGN and not path.exists()):
            self.request_reconcile()  # a new file, or a deleted one: its docs go
        elif sid != FOREIGN and sid not in self._external:
            self.queue.add("external", sid)

    def request_reconcile(self) -> None:
        """Stat every source soon (the watcher re-armed, or saw a folder-level change)."""
        if "watch" not in self.queue.pending["reconcile"]:
            self.queue.add("reconcile", "watch", delay=0.0)

    def add_closer(self, closer: Callable[[], None]) -> None:
        """Run ``closer`` first thing in ``dispose`` (stops the watcher)."""
        self._closers.append(closer)

    # -- draining ------------------------------------------------------------------------------

    def _on_due(self) -> None:
        if self._worker is not None:
            self.ingest_gate.close()  # before the wake: the drain finds the queries held
            self._wake.set()
        else:
            self._drain_due()

    def _drain_due(self) -> None:
        done = self.drainer.drain(everything=False, should_stop=lambda: self._closed)
        if done and not self.queue.source_count():
            with self.drainer.lock:
                self.drainer.checkpoint()
        self.queue.rearm()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait()
            self._wake.clear()
            if self._closed:
                break
            try:
                self._drain_due()
            except Exception:  # the writer thread must survive anything a source throws
                _log.exception("ingestion drain failed")
            finally:
                self.ingest_gate.open()
        with self.drainer.lock:
            self.drainer.close()

    def process_pending_now(self) -> None:
        """Drain every queued source synchronously on this thread (sources in backoff excepted)."""
        self.drainer.drain(everything=True, should_stop=lambda: self._closed)
        self.queue.rearm()

    def catch_up(
        self, progress: ProgressCallback | None = None, *, history_seconds: float | None = None
    ) -> None:
        """Stat every source, ingest only what changed, and return when the index is current.

        A warm run where nothing changed stats files and reads no transcript. With
        ``history_seconds``, a commit-history pass still under way after that long is left to
        the background writer (or the next run) and answers say so.
        """
        self.drainer.history_deadline = (
            None if history_seconds is None else time.monotonic() + history_seconds
        )
        try:
            self._catch_up(progress)
        finally:
            self.drainer.history_deadline = None

    def _catch_up(self, progress: ProgressCallback | None) -> None:
        with self.drainer.lock:
            try:
                conn = self.drainer.connection()
                self._reconcile_checked(conn)
            except DAMAGE_ERRORS as err:
                if not self._recover(err):
                    return
            except (apsw.Error, OSError) as err:
                # The index cannot be opened (reported by wiring and in every answer's
                # warnings), another process holds the write lock, or the disk is full:
                # queries answer from the index as it is (with a warning), the writer retries.
                if isinstance(err, TRANSIENT_ERRORS):
                    self._once_note = BUSY_NOTE
                self.drainer.write_fault = (
                    write_fault(err, self.project.index_path) or self.drainer.write_fault
                )
                _log.debug("catch-up skipped", exc_info=True)
                return
            self.catch_up_queued(progress)
            self.drainer.store_manifest(conn)
            self._mark_backfilled()
            if self.drainer.busy and self._once_note is None:
                # The lock was held through the whole busy timeout: this answer misses what
                # was not ingested, so it says so (a daemon's routine retries never do).
                self._once_note = BUSY_NOTE

    def _mark_backfilled(self) -> None:
        """The first catch-up that drains everything is the backfill `--status` reports; the
        daemon's backfill entry records it the same way (issue 15.12)."""
        if self.queue.source_count() or self.drainer.busy or self.drainer.write_fault is not None:
            return
        with contextlib.suppress(apsw.Error, OSError):
            conn = self.drainer.connection()
            if meta_get(conn, "backfill_completed_at") is None:
                with immediate(conn):
                    meta_set(conn, "backfill_completed_at", str(self.drainer.now_ms()))

    def _reconcile_checked(self, conn: apsw.Connection) -> None:
        """Queue what changed; when documents and FTS rows disagree (the cheap count check of
        issue 13.10) clear the index and queue everything, as the daemon's health check does."""
        drift = count_drift(conn)
        if drift is None:
            self.drainer.reconcile(conn, everything=False)
            return
        _log.info("search index drift (%s): re-indexing", drift)
        self.tally.add("index", f"re-indexed after {drift}")
        self._once_note = f"search index had lost rows ({drift}) and was re-indexed"
        clear_index(conn)
        self.drainer.reconcile(conn, everything=True)

    def _recover(self, err: BaseException) -> bool:
        """Recreate a damaged index file and, without a writer thread (the CLI), re-ingest it
        now (issue 13.9). False when even that failed (the file stays, retried later)."""
        damaged = getattr(self._local, "identity", None)  # the file this thread read
        self._drop_local_reader()
        cause = type(err).__name__
        try:
            with self.drainer.lock:
                self.drainer.recover_damage(err, damaged)
        except (apsw.Error, OSError):
            _log.warning("recreating the index failed", exc_info=True)
            self._once_note = f"search index damaged ({cause}); it could not be recreated yet"
            return False
        self._once_note = f"search index was damaged ({cause}) and has been recreated"
        if self._worker is None and not self._closed:
            self.catch_up_queued()
        else:
            self._once_note += "; re-indexing in the background"
        return True

    def _index_notes(self) -> list[str]:
        """Warnings about the index's health that every answer and the status carry."""
        notes: list[str] = []
        if self.drainer.write_fault is not None:
            notes.append(
                f"search index degraded: {self.drainer.write_fault}; answering from the index"
                " as it is, new changes are indexed once writes succeed again"
            )
        return notes

    def start_backfill(self, delay: float = 0.0) -> None:
        """Enqueue every session, PR and lane once (after ``delay`` seconds), drop gone sessions,
        and start the periodic reconcile."""
        self.queue.add("backfill", "*", delay=delay)
        self.queue.add(
            "reconcile", "periodic", delay=delay + self.drainer.reconcile_interval, retry=True
        )

    # -- queries -------------------------------------------------------------------------------

    def _query(self, args: SearchQueryArgs) -> SearchQueryResult:
        return answer_query(self, args)

    def lanes(self) -> list[Lane]:
        """The project's lanes (fresh, or the listing of the enclosing ``one_listing`` block)."""
        return list_lanes(self.project, self.tally)

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        """Run one query on this thread's read connection.

        Raises:
            UsageError: bad input (unknown kind, bad cursor, bad filter…).
        """
        args = encodable_args(args)
        with one_listing():  # the lane filter and the lane delegate share one `git worktree list`
            try:
                result = self._query(args)
            except DAMAGE_ERRORS as err:
                # Page damage the open check could not see (issue 13.9): recreate, re-ingest
                # (the CLI now, the daemon's writer meanwhile) and answer from the new file.
                self._recover(err)
                result = self._damaged_retry(lambda: self._query(args))
            # Links land on the exact place: a terminal hit's matching line, its lane's envelope.
            result = place_links(result, self.project, self.lanes())
        notes = self._index_notes()
        if self._once_note is not None:  # said once, by the answer after what happened
            notes.insert(0, self._once_note)
            self._once_note = None
        if not notes:
            return result
        return msgspec.structs.replace(result, warnings=(*result.warnings, *notes))

    def _damaged_retry(self, call: Callable[[], _T]) -> _T:
        """``call`` once more; should the file still be damaged, on an empty index."""
        try:
            return call()
        except DAMAGE_ERRORS as err:
            self._drop_local_reader()
            self._local.unusable = f"search index damaged ({type(err).__name__})"
            try:
                return call()
            finally:
                self._local.unusable = None

    # -- status and rebuild --------------------------------------------------------------------

    def _state(self) -> IndexState:
        if self._closed:
            return "closed"
        if self._rebuilding:
            return "rebuilding"
        pending = self.queue.pending_sources()
        if self.drainer.recreated_reason is not None and not pending:
            return "recreated"
        return "indexing" if pending else "ready"

    def index_status(self) -> IndexStatus:
        """Live state of the index and the ingester (``degraded`` with the reason in ``warnings``
        when the index file cannot be opened or written: a full disk)."""
        try:
            return self._index_status()
        except DAMAGE_ERRORS as err:
            self._recover(err)
            return self._damaged_retry(self._index_status)

    def _index_status(self) -> IndexStatus:
        from engine.service.status import index_status_of  # deferred: a search never asks

        return index_status_of(self)

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        """Clear every row in one transaction (never delete the file) and re-ingest everything."""
        from engine.service.status import rebuild_of

        return rebuild_of(self, progress)

    def catch_up_queued(self, progress: ProgressCallback | None = None) -> None:
        """Drain everything queued, reporting ``progress(done, total)``.

        The periodic reconcile is queued due-only, so it is left for its time (it re-queues
        itself when run: taking it here would never end).
        """
        with self.drainer.lock:
            total = max(self.queue.source_count(), 1)
            done = 0
            with self.drainer.deferring_recent():
                while not self._closed:
                    entry = self.queue.pop_next(ignore_due=True)
                    if entry is None:
                        break
                    self.drainer.run(entry)
                    if self.drainer.busy or self.drainer.write_fault is not None:
                        # Another process holds the write lock, or the disk refuses writes: every
                        # further entry would wait or fail the same way; answer from the index.
                        break
                    done += 1
                    total = max(total, done + self.queue.source_count())
                    if progress is not None:
                        progress(done, total)
            _release_inflated()
        self.queue.rearm()

    def dispose(self) -> None:
        """Stop the writer thread and timers, close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for closer in self._closers:
            closer()
        self.drainer.stop_health_check()  # interrupts a running check: dispose never waits it out
        self.queue.close()
        self.ingest_gate.open()
        self.timers.close()
        self._wake.set()
        if self._worker is not None and self._worker is not threading.current_thread():
            self._worker.join()
        with self.drainer.lock:
            self.drainer.close()
        with self._readers_lock:
            readers, self._readers = list(self._readers.values()), {}
        for conn in readers:
            with contextlib.suppress(apsw.Error):
                conn.close()


def now_ms(clock: Callable[[], datetime]) -> int:
    """Milliseconds since the epoch on ``clock``."""
    return int(clock().timestamp() * 1000)


def _release_inflated() -> None:
    """Drop the inflated ``.gz`` a pass kept (``engine.ingest.gzcache``); a catch-up that read
    no transcript never imported it, so there is nothing to drop and nothing to import."""
    gzcache = sys.modules.get("engine.ingest.gzcache")
    if gzcache is not None:
        gzcache.release()
