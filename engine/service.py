"""One project's search service: notify hooks, the writer thread, queries, status and rebuild.

Writes never run on a hot path (DESIGN §4): a notify hook is a dict membership test, and only a
source not yet queued takes a lock. One writer thread drains due sources one at a time;
``process_pending_now`` drains on the caller's thread instead (tests, the CLI's catch-up, rebuild)
under the same lock, so there is never more than one drain. Queries run on a read connection
owned by the calling thread (RELIABILITY 14), so a long query never waits for the writer.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import apsw
import msgspec

from engine.clock import Clock, system_clock
from engine.delegates.gather import delegated_for_plan
from engine.errors import AdeError
from engine.external.catalog import FOREIGN
from engine.index.db import (
    SEARCH_INDEX_SCHEMA_VERSION,
    SourceRow,
    clear_index,
    connect,
    doc_count,
    docs_by_kind,
    file_identity,
    immediate,
    list_sources,
    meta_get,
    meta_set,
)
from engine.index.faults import connect_snapshot, count_drift, write_fault
from engine.index.schema import (
    DAMAGE_ERRORS,
    TRANSIENT_ERRORS,
    WRITE_FAULT_ERRORS,
    recreate_in_place,
)
from engine.index.sql import QUERY_CACHE_KIB
from engine.ingest import gzcache
from engine.ingest.drain import Drainer
from engine.ingest.history import history_status, history_warnings_for
from engine.ingest.queue import PAUSE_STEPS, IngestGate, IngestQueue
from engine.ingest.timers import ThreadTimerFactory, TimerFactory
from engine.links.places import place_links
from engine.logs import get_logger
from engine.project.lane_memo import list_lanes, one_listing
from engine.project.locate import identity_warnings
from engine.project.model import Lane, Project
from engine.project.sessions import list_sessions
from engine.project.tally import WarningTally
from engine.project.transcripts import refused_transcript
from engine.query.overlap import Background
from engine.query.plan import QueryPlan, build_plan
from engine.query.ranking import Candidate
from engine.query.run import run_query
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

NOT_GIT_NOTE = "not a git repository: commits, branches, lanes and files are not searched"
"""The one note a plain folder gets (issue 2): it works, with .ade/ sources only."""


class SearchService:
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

    def _drop_local_reader(self) -> None:
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            self._drop_reader(conn)

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

    def _reader(self) -> apsw.Connection:
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        identity = file_identity(self.project.index_path)
        snapshot = getattr(self._local, "snapshot", False)
        same = identity == getattr(self._local, "identity", None)
        if conn is not None and same and not (snapshot and self.drainer.write_fault is None):
            return conn
        if conn is not None:
            self._drop_reader(conn)
        if identity is None:
            with self.drainer.lock:
                self.drainer.connection()  # creates the index file
            identity = file_identity(self.project.index_path)
        snapshot = False
        try:
            conn = connect(self.project.index_path)
        except WRITE_FAULT_ERRORS as err:
            # No -shm can be made (disk full) or written (read-only): read the main file as it
            # is rather than nothing (issue 13.11, 13.12); a real reader once writes work again.
            conn = connect_snapshot(self.project.index_path)
            snapshot = True
            fault = write_fault(err, self.project.index_path)
            self.drainer.write_fault = fault or self.drainer.write_fault
        conn.pragma("cache_size", -QUERY_CACHE_KIB)  # see QUERY_CACHE_KIB (issue 14.4)
        # A running query steps aside while a drain is due (only when the daemon enabled it).
        conn.set_progress_handler(self.ingest_gate.pause_query, PAUSE_STEPS)
        self._local.conn, self._local.identity = conn, identity
        self._local.snapshot = snapshot
        with self._readers_lock:
            self._readers[threading.get_ident()] = conn
        return conn

    def _drop_reader(self, conn: apsw.Connection) -> None:
        with self._readers_lock:
            self._readers = {k: v for k, v in self._readers.items() if v is not conn}
        with contextlib.suppress(apsw.Error):
            conn.close()

    def _reader_or_empty(self) -> tuple[apsw.Connection, str | None]:
        """This thread's read connection, or an empty in-memory index and the reason why.

        When the index file cannot be opened at all (read-only cache folder, a directory where
        the file should be), queries still answer from delegated sources (lanes, files,
        artifacts, live transcripts) instead of failing (RELIABILITY 9); the writer keeps
        retrying with backoff, so the index comes back by itself once the cause is fixed.
        """
        unusable: str | None = getattr(self._local, "unusable", None)
        try:
            if unusable is not None:
                raise AdeError(unusable)
            return self._reader(), None
        except DAMAGE_ERRORS:
            raise  # the callers recreate the file (issue 13.9), then ask again
        except (apsw.Error, OSError, AdeError) as err:
            reason = f"search index unavailable ({type(err).__name__}: {err})"
        empty: apsw.Connection | None = getattr(self._local, "empty", None)
        if empty is None:
            empty = connect(Path(":memory:"))
            recreate_in_place(empty)
            self._local.empty = empty
        return empty, reason

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

    def _query(self, args: SearchQueryArgs) -> SearchQueryResult:
        conn, unavailable = self._reader_or_empty()
        lanes = self.lanes()
        # Parsed and resolved once; every source below reads this plan, none the raw text.
        plan = build_plan(args, now=self.clock(), lanes=lanes)
        extras: list[Candidate] = []
        replace: frozenset[str] = frozenset()
        fresh = None
        if plan.sessions:  # deferred: only a `session:` query reads a live tail
            from engine.ingest.freshness import session_candidates

            fresh = session_candidates(conn, self.project, plan, self.tally)
        if fresh is not None:
            extras.extend(fresh.candidates)
            replace = fresh.replace_doc_ids
        # The delegates (git of the lanes) run while SQLite answers the index (issue 14.4).
        delegation = Background(lambda: delegated_for_plan(self.project, plan, lanes))
        result = run_query(conn, plan, project=self.project, lanes=lanes,
                           extra_candidates=lambda: [*extras, *delegation.result()[0]],
                           replace_doc_ids=replace)  # fmt: skip
        delegate_warnings = delegation.result()[1]
        if not result.items and not result.total and plan.cursor is None and unavailable is None:
            delegate_warnings = [*_did_you_mean(conn, plan), *delegate_warnings]
        if unavailable is not None:
            delegate_warnings = [f"{unavailable}: showing live sources only", *delegate_warnings]
        if not self.project.is_git:
            delegate_warnings = [NOT_GIT_NOTE, *delegate_warnings]
        delegate_warnings = [*history_warnings_for(conn, plan.kinds), *delegate_warnings]
        if not delegate_warnings:
            return result
        return msgspec.structs.replace(result, warnings=(*result.warnings, *delegate_warnings))

    def interrupt(self) -> None:
        """Interrupt every in-flight query (quit, superseded search)."""
        with self._readers_lock:
            readers = list(self._readers.values())
        for conn in readers:
            with contextlib.suppress(apsw.Error):
                conn.interrupt()

    def interrupt_thread(self, thread_id: int) -> None:
        """Interrupt the query running on ``thread_id``'s read connection only (the daemon
        cancelling one request while other threads' queries go on)."""
        with self._readers_lock:
            conn = self._readers.get(thread_id)
        if conn is not None:
            with contextlib.suppress(apsw.Error):
                conn.interrupt()

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
        conn, unavailable = self._reader_or_empty()
        sources = list_sources(conn)
        backfill = meta_get(conn, "backfill_completed_at")
        try:
            size = os.stat(self.project.index_path).st_size
        except OSError:
            size = 0
        warnings = self._warnings(sources)
        notes = self._index_notes()
        if unavailable is not None:
            notes.insert(0, unavailable)
        if notes:
            warnings = {**dict.fromkeys(notes, 1), **warnings}
        degraded = unavailable is not None or self.drainer.write_fault is not None
        return IndexStatus(
            state="degraded" if degraded and not self._closed else self._state(),
            schema_version=SEARCH_INDEX_SCHEMA_VERSION,
            db_path=str(self.project.index_path),
            db_bytes=size,
            doc_count=doc_count(conn),
            docs_by_kind=docs_by_kind(conn),
            source_count=sum(1 for s in sources if not s.key.startswith("stat:")),
            pending_sources=self.queue.pending_sources(),
            last_ingest_at=self.drainer.last_ingest_ms or _last_source_run(sources),
            backfill_completed_at=int(backfill) if backfill and backfill.isdigit() else None,
            watcher_state=self.watcher_state,
            recreated_reason=self.drainer.recreated_reason,
            warnings=warnings,
            commit_history=history_status(conn),
            discovery=self.drainer.external.discovery_roots(),
        )

    def _warnings(self, sources: list[SourceRow]) -> dict[str, int]:
        """This process's counts, the skipped-line counts stored with the cursors (they outlive
        the run that saw the lines: a later ``--status`` still shows them) and project.json's."""
        from engine.ingest.tailing import persisted_skips  # deferred: a warm search never asks

        counts = self.tally.snapshot()
        for key, stored in persisted_skips(sources).items():
            counts[key] = max(counts.get(key, 0), stored)  # this run's lines are in both
        found = WarningTally()
        identity_warnings(self.project.root, found)
        # Counted here, not only by the reconcile: a warm run whose manifest matched lists none.
        for meta in list_sessions(self.project, found):  # a FIFO or a link out stays
            refused = refused_transcript(self.project, meta.kind, meta.id)  # one warning
            if refused is not None:
                found.add(f"{meta.kind}:{meta.id}", refused)
        for key, count in found.snapshot().items():
            counts[key] = max(counts.get(key, 0), count)
        return dict(sorted(counts.items()))

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        """Clear every row in one transaction (never delete the file) and re-ingest everything."""
        started = time.monotonic()
        self._rebuilding = True
        try:
            with self.drainer.lock:
                self.drainer.clear_for_rebuild()
            self.catch_up_queued(progress)
        finally:
            self._rebuilding = False
        conn = self._reader()
        return RebuildResult(
            ok=True,
            doc_count=doc_count(conn),
            duration_ms=int((time.monotonic() - started) * 1000),
        )

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
            gzcache.release()
        self.queue.rearm()

    def dispose(self) -> None:
        """Stop the writer thread and timers, close every connection. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for closer in self._closers:
            closer()
        self.drainer.health.close()  # interrupts a running check: dispose never waits it out
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


def _last_source_run(sources: list[SourceRow]) -> int | None:
    """When a source was last ingested, as the index recorded it: a later process (the next
    `ade search --status`) reports it too, not only the one that ingested (issue 15.12)."""
    runs = [s.last_run for s in sources if not s.key.startswith("stat:") and s.last_run]
    return max(runs, default=None)


def _did_you_mean(conn: apsw.Connection, plan: QueryPlan) -> list[str]:
    """A query that found nothing is not a dead end: the nearest indexed words (issue 15.10)."""
    from engine.query.suggest import suggest_query  # deferred: only a zero-result query pays

    better = suggest_query(conn, plan)
    return [] if better is None else [f"did you mean {better}?"]
