"""One project's search service: notify hooks, the writer thread, queries, status and rebuild.

Writes never run on a hot path (DESIGN §4): a notify hook is a dict membership test, and only a
source not yet queued takes a lock. One writer thread drains due sources one at a time;
``process_pending_now`` drains on the caller's thread instead (tests, the CLI's catch-up, rebuild)
under the same lock, so there is never more than one drain. Queries run on a read connection
owned by the calling thread (RELIABILITY 14), so a long query never waits for the writer.

The service is built of collaborators it hands to one another: the read connections
(``engine.service.readers.ReadConnections``), the catch-up, the drain of everything queued and a
damaged file's recovery (``engine.service.catch_up.CatchUp``), the catch-up before a daemon's
answer (``engine.service.fresh.FreshAnswers``). One query's answer is ``engine.service.answer``
and the status ``engine.service.status`` (imported when asked: a search never needs it); both
are handed what they read, never the service.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TypeVar

import apsw
import msgspec

from engine.basics.caller_env import carried
from engine.basics.clock import Clock, system_clock
from engine.basics.logs import get_logger
from engine.basics.text import encodable_args
from engine.external.catalog import FOREIGN
from engine.index.schema import DAMAGE_ERRORS
from engine.index.tuning import WriteTuning
from engine.ingest.drain import Drainer
from engine.ingest.queue import IngestGate, IngestQueue
from engine.ingest.timers import ThreadTimerFactory, TimerFactory
from engine.links.places import place_links
from engine.project.lane_memo import list_lanes, one_listing
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally
from engine.service.answer import answer_query
from engine.service.catch_up import CatchUp, OnceNote
from engine.service.fresh import FreshAnswers
from engine.service.readers import UNAVAILABLE_PREFIX, ReadConnections
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


class SearchService:
    """The search service of one project (see the module docstring for the threading model)."""

    def __init__(
        self,
        project: Project,
        *,
        clock: Clock | None = None,
        timer: TimerFactory | None = None,
        start_worker: bool = True,
        tuning: WriteTuning | None = None,
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
        self._once_note = OnceNote()
        self.queue = IngestQueue(self.timers, self._on_due)
        self.ingest_gate = IngestGate(self.timers)
        """The daemon's queries wait here while a drain is due (ingestion first)."""
        self.drainer = Drainer(project, self.queue, self.tally, self.clock, tuning or WriteTuning())
        self.readers = ReadConnections(project, self.drainer, self.ingest_gate)
        """This thread's read connection, and the interrupts."""
        self.catching = CatchUp(
            project, self.drainer, self.queue, self.tally, readers=self.readers,
            note=self._once_note, background=start_worker, closed=lambda: self._closed,
        )  # fmt: skip
        """The catch-up and drains on the caller's thread, a damaged file's recovery."""
        self.fresh = FreshAnswers(project, self.drainer, self.catching)
        """The catch-up before a daemon's answer."""
        self._worker: threading.Thread | None = None
        self._chat = self.queue.pending["chat"]
        self._external = self.queue.pending["external"]
        self._terminal = self.queue.pending["terminal"]
        self._session = self.queue.pending["session"]
        self._pr = self.queue.pending["pr"]
        self._git = self.queue.pending["git"]
        self._external_stats: dict[Path, tuple[int, int, int]] = {}
        """Each external file's inode, size and mtime at its last change event."""
        if start_worker:
            # A writer thread serves live appends: the health check must not stop it (14.5).
            self.drainer.health.background = True
            self._worker = threading.Thread(
                target=carried(self._run), name="ade-ingest", daemon=True
            )
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
        if self._attributes_only(path):
            return
        sid = self.drainer.external.owner(path)
        if sid is None or (sid != FOREIGN and not path.exists()):
            self.request_reconcile()  # a new file, or a deleted one: its docs go
        elif sid != FOREIGN and sid not in self._external:
            self.queue.add("external", sid)

    def _attributes_only(self, path: Path) -> bool:
        """Whether ``path`` has the inode, size and mtime of its last change event: its owner or
        mode changed, not its content. SQLite run as root hands every ``-wal`` it opens to the
        database's owner, a read-only reader's too: followed, each read of an agent's store (a
        reconcile's) would ask for the next, forever."""
        try:
            st = path.stat()
        except OSError:
            self._external_stats.pop(path, None)
            return False  # deleted: the caller re-lists
        stats = (st.st_ino, st.st_size, st.st_mtime_ns)
        if self._external_stats.get(path) == stats:
            return True
        self._external_stats[path] = stats
        return False

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

    @property
    def closed(self) -> bool:
        """Whether ``dispose`` ran."""
        return self._closed

    def catch_up(
        self,
        progress: ProgressCallback | None = None,
        *,
        history_seconds: float | None = None,
        deadline: float | None = None,
        check_drift: bool = True,
    ) -> bool:
        """Stat every source, ingest only what changed, and return when the index is current
        (``CatchUp.catch_up``); False when ``deadline`` cut it short."""
        return self.catching.catch_up(
            progress, history_seconds=history_seconds, deadline=deadline, check_drift=check_drift
        )

    def catch_up_queued(
        self, progress: ProgressCallback | None = None, *, deadline: float | None = None
    ) -> bool:
        """Drain everything queued on this thread (``CatchUp.catch_up_queued``)."""
        return self.catching.catch_up_queued(progress, deadline=deadline)

    def catch_up_for_answer(self, bound: float | None = None) -> None:
        """Catch up before this thread's next answer (``FreshAnswers.catch_up_for_answer``)."""
        self.fresh.catch_up_for_answer(bound)

    def interrupt(self) -> None:
        """Interrupt every in-flight query (quit, superseded search)."""
        self.readers.interrupt()

    def interrupt_thread(self, thread_id: int) -> None:
        """Interrupt the query running on ``thread_id``'s read connection only."""
        self.readers.interrupt_thread(thread_id)

    def index_notes(self) -> list[str]:
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
        conn, unavailable = self.readers.reader_or_empty()
        return answer_query(
            args, conn, unavailable, project=self.project, tally=self.tally, clock=self.clock,
            external=self.drainer.external, lanes=self.lanes(),
        )  # fmt: skip

    def lanes(self) -> list[Lane]:
        """The project's lanes (fresh, or the listing of the enclosing ``one_listing`` block)."""
        return list_lanes(self.project, self.tally)

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        """Run one query on this thread's read connection.

        Raises:
            UsageError: bad input (unknown kind, bad cursor, bad filter…).
        """
        args = encodable_args(args)
        self.fresh.notice_replaced_index()
        with one_listing():  # the lane filter and the lane delegate share one `git worktree list`
            try:
                result = self._query(args)
            except DAMAGE_ERRORS as err:
                # Page damage the open check could not see (damaged pages heal): recreate, re-ingest
                # (the CLI now, the daemon's writer meanwhile) and answer from the new file.
                self.catching.recover(err)
                result = self._damaged_retry(lambda: self._query(args))
            except UnicodeDecodeError:
                # Bit-rot in a stored text column: cut the rows out, answer again.
                result = self._text_rot_retry(lambda: self._query(args))
            # Links land on the exact place: a terminal hit's matching line, its lane's envelope.
            result = place_links(result, self.project, self.lanes())
        notes = self.index_notes()
        if any(w.startswith(UNAVAILABLE_PREFIX) for w in result.warnings):
            notes = []  # the index is not read at all: its one line says why (docs/reliability-faults.md)
        if (fresh_note := self.fresh.take_fresh_note()) is not None:
            notes.insert(0, fresh_note)
        if (once := self._once_note.take()) is not None:  # said by the answer after what happened
            notes.insert(0, once)
        if not notes:
            return result
        return msgspec.structs.replace(result, warnings=(*result.warnings, *notes))

    def _damaged_retry(self, call: Callable[[], _T]) -> _T:
        """``call`` once more; should the file still be damaged, on an empty index."""
        try:
            return call()
        except DAMAGE_ERRORS as err:
            self.readers.drop_local_reader()
            with self.readers.unusable(f"search index damaged ({type(err).__name__})"):
                return call()

    def _text_rot_retry(self, call: Callable[[], _T]) -> _T:
        """``call`` again once the rows whose text is not UTF-8 are cut out and their sources
        marked for re-ingestion; when they cannot be (a read-only snapshot, a held lock), from
        the live sources only (``engine.index.text_rot``)."""
        from engine.index.text_rot import ROT_NOTE, heal_rotten_rows  # only on this fault

        conn, _ = self.readers.reader_or_empty()
        try:
            healed = heal_rotten_rows(conn)
        except apsw.Error:
            healed = 0
        if healed:
            self._once_note.text = ROT_NOTE.format(count=healed)
            with contextlib.suppress(UnicodeDecodeError):
                return call()
        with self.readers.unusable("search index holds unreadable text (invalid UTF-8)"):
            return call()

    # -- status and rebuild --------------------------------------------------------------------

    def state(self) -> IndexState:
        """``closed``, ``rebuilding``, ``recreated``, ``indexing`` or ``ready``."""
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
            self.fresh.notice_replaced_index()
            return self._index_status()
        except DAMAGE_ERRORS as err:
            self.catching.recover(err)
            return self._damaged_retry(self._index_status)

    def _index_status(self) -> IndexStatus:
        from engine.service.status import index_status_of  # deferred: a search never asks

        conn, unavailable = self.readers.reader_or_empty()
        return index_status_of(
            conn, unavailable, project=self.project, drainer=self.drainer, queue=self.queue,
            tally=self.tally, state=self.state(), notes=self.index_notes(),
            watcher_state=self.watcher_state,
        )  # fmt: skip

    def rebuild_index(self, progress: ProgressCallback | None = None) -> RebuildResult:
        """Clear every row in one transaction (never delete the file) and re-ingest everything."""
        from engine.index.checks import doc_count  # deferred: a search never rebuilds

        started = time.monotonic()
        self._rebuilding = True
        try:
            with self.drainer.lock:
                self.drainer.clear_for_rebuild()
            self.catching.catch_up_queued(progress)
        finally:
            self._rebuilding = False
        return RebuildResult(
            ok=True,
            doc_count=doc_count(self.readers.reader()),
            duration_ms=int((time.monotonic() - started) * 1000),
        )

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
        self.readers.close()


def now_ms(clock: Callable[[], datetime]) -> int:
    """Milliseconds since the epoch on ``clock``."""
    return int(clock().timestamp() * 1000)
