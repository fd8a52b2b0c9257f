"""The read connections of one project's search service, one per querying thread
(RELIABILITY 14): made on first use, reopened when the index file was replaced, a snapshot of
the main file when no ``-shm`` can be written, an empty in-memory index when the file cannot be
opened at all; and the interrupts that reach them."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import apsw

from engine.errors import AdeError
from engine.index.db import connect, file_identity
from engine.index.faults import connect_snapshot, write_fault
from engine.index.schema import (
    DAMAGE_ERRORS,
    SEARCH_INDEX_SCHEMA_VERSION,
    WRITE_FAULT_ERRORS,
    recreate_in_place,
)
from engine.index.sql import QUERY_CACHE_KIB
from engine.ingest.queue import PAUSE_STEPS

if TYPE_CHECKING:
    from engine.ingest.drain import Drainer
    from engine.ingest.queue import IngestGate
    from engine.project.model import Project


UNAVAILABLE_PREFIX = "search index unavailable"
"""How an answer that could not read the index at all begins its one warning."""


class ReadConnections:
    """The read connections of one project's search service, one per querying thread, and the
    interrupts that reach them (owned by ``SearchService``, handed to its collaborators)."""

    def __init__(self, project: Project, drainer: Drainer, ingest_gate: IngestGate) -> None:
        self.project = project
        self.drainer = drainer
        self.ingest_gate = ingest_gate
        self._readers_lock = threading.Lock()
        self._readers: dict[int, apsw.Connection] = {}
        self._local = threading.local()

    def reader(self) -> apsw.Connection:
        """This thread's read connection: made on first use, reopened when the index file was
        replaced; raises when the file cannot be opened or was never filled."""
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
            # is rather than nothing (a full disk, a held write lock); a real reader once writes work again.
            conn = connect_snapshot(self.project.index_path)
            snapshot = True
            fault = write_fault(err, self.project.index_path)
            self.drainer.write_fault = fault or self.drainer.write_fault
        if int(conn.pragma("user_version")) != SEARCH_INDEX_SCHEMA_VERSION:
            # The schema and its version are written in one transaction: a file without them was
            # made but never filled (a first index on a full disk, docs/reliability-faults.md). Answered from
            # the live sources until the writer creates it; checked again by the next query.
            self._drop_reader(conn)
            fault = self.drainer.write_fault
            raise AdeError("not created yet" + (f": {fault}" if fault else ""))
        conn.pragma("cache_size", -QUERY_CACHE_KIB)  # see QUERY_CACHE_KIB (the start-up budget)
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

    def reader_or_empty(self) -> tuple[apsw.Connection, str | None]:
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
            return self.reader(), None
        except DAMAGE_ERRORS:
            raise  # the callers recreate the file (damaged pages heal), then ask again
        except AdeError as err:  # our own words already say what is wrong
            reason = f"{UNAVAILABLE_PREFIX} ({err})"
        except (apsw.Error, OSError) as err:
            reason = f"{UNAVAILABLE_PREFIX} ({type(err).__name__}: {err})"
        empty: apsw.Connection | None = getattr(self._local, "empty", None)
        if empty is None:
            empty = connect(Path(":memory:"))
            recreate_in_place(empty)
            self._local.empty = empty
        return empty, reason

    def drop_local_reader(self) -> None:
        """Close this thread's read connection (the next ``reader`` opens the file again)."""
        conn: apsw.Connection | None = getattr(self._local, "conn", None)
        if conn is not None:
            self._local.conn = None
            self._drop_reader(conn)

    def local_identity(self) -> tuple[int, int] | None:
        """The identity of the index file this thread's connection read (``file_identity``)."""
        identity: tuple[int, int] | None = getattr(self._local, "identity", None)
        return identity

    @contextlib.contextmanager
    def unusable(self, reason: str) -> Iterator[None]:
        """Within the block, this thread answers from an empty index, saying ``reason``."""
        self._local.unusable = reason
        try:
            yield
        finally:
            self._local.unusable = None

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

    def close(self) -> None:
        """Close every thread's read connection (the service is disposed)."""
        with self._readers_lock:
            readers, self._readers = list(self._readers.values()), {}
        for conn in readers:
            with contextlib.suppress(apsw.Error):
                conn.close()
