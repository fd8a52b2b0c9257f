"""The index health check, run off the writer thread (ingestion first).

``PRAGMA quick_check`` (FTS5's integrity check included, SQLite >= 3.44) reads the whole index:
~4.9 s on the 330 MB one. Run on the writer thread, every live chat or terminal append waited
behind it at the daemon's first backfill and hourly. Here it runs on a read connection and a
thread of its own: WAL readers never block the writer, so ingestion goes on, and the writer
only acts on what the check reports (the ``health`` queue entry, between two passes, never in
the middle of one).

What a reader racing the writer sees: the whole check is one read transaction
(``health_check``), so it reads one committed snapshot and a commit landing meanwhile cannot
look like drift. A verdict is kept only for the file it read (its ``file_identity``) and only if
no clear or recreation happened since it started (``cancel``): a verdict about a file the writer
already replaced, or rows it already cleared, is dropped. A complaint found while the writer is
mid-pass waits for that pass to end (the ``health`` entry is taken between passes); a pass that
trips over the damage first recreates the file itself, and the verdict about the old one is
dropped. ``close`` (the service's dispose) interrupts a running check and joins its thread.

The cost: while the snapshot is held the writer's checkpoint cannot move past it, so the WAL
grows by what is written during the check (a few seconds of ingestion) and is checkpointed by
the next idle drain after the check ends.

Without a writer thread (the CLI, tests driving the drain themselves) the check runs inline on
the caller's thread, as before: there is no live writer for it to hold up, and the caller
expects the drain to have acted when it returns.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

import apsw

from engine.basics.caller_env import carried
from engine.basics.logs import get_logger
from engine.index import fts_rank
from engine.index.checks import QUICK_CHECK_RUNS_FTS5, health_check
from engine.index.db import BUSY_TIMEOUT_MS, file_identity
from engine.index.schema import DAMAGE_ERRORS, TRANSIENT_ERRORS
from engine.index.writer import IndexWriter
from engine.ingest.queue import Entry
from engine.project.tally import WarningTally

log = get_logger(__name__)

HEALTH_EVERY = 120
"""Periodic reconciles between health checks: hourly at the 30 s watcher-on period (the check
reads the whole index, so it runs rarely, and off the writer thread when there is one)."""

PAGE_DAMAGE_PREFIXES = ("quick_check", "CorruptError", "NotADBError")
"""Problems that mean damaged pages: the file is recreated (clearing rows would walk them)."""


def page_damage(problems: list[str]) -> bool:
    """True when a complaint names damaged pages, not only drifted rows."""
    return any(p.startswith(PAGE_DAMAGE_PREFIXES) for p in problems)


class Rebuilder(Protocol):
    """What ``heal`` needs of the drainer (``engine.ingest.drain.Drainer``)."""

    tally: WarningTally
    writer: IndexWriter

    @property
    def health(self) -> HealthChecker: ...

    def recover_damage(
        self, cause: BaseException | str, damaged: tuple[int, int] | None = None
    ) -> None: ...

    def reconcile(self, conn: apsw.Connection, *, everything: bool) -> list[Entry]: ...


def heal(owner: Rebuilder, conn: apsw.Connection, problems: list[str]) -> bool:
    """Act on a health complaint, on the writer thread: clear the index and re-ingest it all
    (RELIABILITY 10: some corruption only shows up in the check); damaged pages recreate the
    file instead. Returns False (the index was unhealthy)."""
    log.warning("search index unhealthy, rebuilding: %s", "; ".join(problems[:3]))
    owner.tally.add("index", f"health check failed: {problems[0]}")
    if page_damage(problems):
        # Damaged pages: clearing rows would walk them (and fail, forever).
        owner.recover_damage(problems[0])
        return False
    try:
        owner.writer.clear_index()
    except DAMAGE_ERRORS as err:
        owner.recover_damage(err)
        return False
    owner.health.cancel()  # a check still reading the old rows has nothing left to say
    owner.reconcile(conn, everything=True)
    return False


class Verdict:
    """What one check found, and about which file and generation of its rows."""

    __slots__ = ("generation", "identity", "problems")

    def __init__(
        self, problems: list[str], identity: tuple[int, int] | None, generation: int
    ) -> None:
        self.problems = problems
        self.identity = identity
        self.generation = generation


def _reader(path: Path) -> apsw.Connection:
    """A read-only connection of the checker's own (it never writes, so it takes no lock a
    writer waits on). Before SQLite 3.44 the FTS5 checks are ``INSERT`` commands: read-write."""
    flags = apsw.SQLITE_OPEN_READONLY if QUICK_CHECK_RUNS_FTS5 else apsw.SQLITE_OPEN_READWRITE
    conn = apsw.Connection(str(path), flags=flags)
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    fts_rank.register(conn)
    return conn


class HealthChecker:
    """Runs ``health_check`` on its own connection, inline or on a thread of its own.

    ``on_verdict`` is called (from the checker's thread) once a background check has a verdict
    to act on; the drainer queues a ``health`` entry there, and the writer ``take``s it.
    """

    def __init__(self, path: Path, on_verdict: Callable[[], None]) -> None:
        self.path = path
        self.on_verdict = on_verdict
        self.background = False
        """Run checks on a thread of their own (the service sets it when it has a writer thread)."""
        self.on_progress: Callable[[], None] | None = None
        """Called from a running check's SQLite progress handler, every ``progress_steps``
        steps: tests hold a check with it. None (the default): no handler, no Python call
        inside the check (``close`` and ``cancel`` stop it through ``interrupt``)."""
        self.progress_steps = 1
        self.stopping = threading.Event()
        """Set by ``close``: a running check gives up, no new one starts."""
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._conn: apsw.Connection | None = None
        self._generation = 0
        self._verdict: Verdict | None = None
        self.outcome: str | None = None
        """How the last check ended: ``healthy``, ``unhealthy``, ``interrupted``, ``busy``."""
        self._started_ms = 0

    @property
    def running(self) -> bool:
        """A background check is under way."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    @property
    def running_since_ms(self) -> int | None:
        """When the background check under way started (epoch ms); None when none runs. The
        status says it, so a busy disk or a slow answer during a check has a visible cause."""
        return self._started_ms if self.running else None

    def start(self) -> bool:
        """Start a background check unless one is running (or closing). True when started."""
        with self._lock:
            if self.stopping.is_set() or self.running:
                return False
            generation = self._generation
            self._started_ms = int(time.time() * 1000)
            self._thread = threading.Thread(
                target=carried(self._run), args=(generation,), name="ade-health", daemon=True
            )
            self._thread.start()
        return True

    def run_now(self) -> list[str] | None:
        """Check on the calling thread; the problems found (None: the check could not run)."""
        with self._lock:
            generation = self._generation
        verdict = self._check(generation)
        return None if verdict is None else verdict.problems

    def take(self, identity: tuple[int, int] | None) -> list[str] | None:
        """The background verdict to act on, if it is about ``identity`` (the writer's file)
        and nothing was cleared or recreated since its check started."""
        with self._lock:
            verdict, self._verdict = self._verdict, None
            current = self._generation
        if verdict is None or verdict.generation != current or verdict.identity != identity:
            return None
        return verdict.problems

    def cancel(self) -> None:
        """The rows were cleared or the file recreated: a running check's verdict is moot."""
        with self._lock:
            self._generation += 1
            self._verdict = None
            if self._conn is not None:
                # Safe from any thread, and under the lock the check cannot close it meanwhile;
                # the check's statement ends with InterruptError at its next step.
                self._conn.interrupt()

    def close(self) -> None:
        """Stop a running check and wait for its thread (it notices within milliseconds)."""
        self.stopping.set()
        self.cancel()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def wait(self) -> None:
        """Block until a running background check has ended (tests and benchmarks drive it)."""
        thread = self._thread
        if thread is not None:
            thread.join()

    def _run(self, generation: int) -> None:
        try:
            verdict = self._check(generation)
        except Exception:  # a thread of its own: nothing above it would log this
            log.exception("index health check failed")
            return
        if verdict is None or not verdict.problems:
            return
        with self._lock:
            if verdict.generation != self._generation:
                return
            self._verdict = verdict
        self.on_verdict()

    def _progress(self) -> bool:
        if self.on_progress is not None:
            self.on_progress()
        return self.stopping.is_set()  # True aborts the statement (InterruptError)

    def _check(self, generation: int) -> Verdict | None:
        identity = file_identity(self.path)
        if identity is None:
            return None
        try:
            conn = _reader(self.path)
        except TRANSIENT_ERRORS:
            self.outcome = "busy"
            return None
        except apsw.Error as err:
            self.outcome = "unhealthy"
            return Verdict([f"{type(err).__name__}: {err}"], identity, generation)
        if self.on_progress is not None:
            conn.set_progress_handler(self._progress, self.progress_steps)
        with self._lock:
            # Replaced between the stat and the open: this connection reads another file.
            stale = generation != self._generation or file_identity(self.path) != identity
            self._conn = None if stale else conn
        try:
            if stale or self.stopping.is_set():
                self.outcome = "interrupted"
                return None
            problems = health_check(conn)
        except apsw.InterruptError:
            self.outcome = "interrupted"
            return None
        except TRANSIENT_ERRORS:
            # A lock says nothing about the file (a second process recreating it): next time.
            self.outcome = "busy"
            return None
        finally:
            with self._lock:
                self._conn = None
            conn.close()
        self.outcome = "unhealthy" if problems else "healthy"
        return Verdict(problems, identity, generation)
