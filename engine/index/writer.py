"""The one writer of an index file: its connection, its transactions, and its modes.

The drain builds one ``IndexWriter`` with the index path and a ``WriteTuning`` and hands it to
every pass that writes. Everything that changes how a write is done is held here, in plain
sight, and handed to ``engine.index.documents`` as ``WriteTargets`` with each batch:

- the connection and its identity check (``connection``): a file deleted or swapped under it is
  reopened (RELIABILITY 13), and the drain told (``on_open``);
- ``transaction()``: ``BEGIN IMMEDIATE`` … ``COMMIT``, or a block of the open group;
- the group (``begin_group`` / ``commit_group`` / ``abandon_group``): several transactions'
  blocks in one, their ``docs_fts`` rows held and written in row-id order before its
  ``COMMIT`` (a first index's passes, ``engine.ingest.pass_group``);
- the row-id runs it has walked (``engine.index.rowids.KnownRuns``);
- the vector sink of the semantic extra (``engine.index.vector_hook``);
- the first index, a mode entered with ``with writer.first_index(): …``
  (``engine.index.first_index``: ``docs_recent`` deferred, ``automerge`` off, merged at its end).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import apsw

from engine.basics.logs import get_logger
from engine.index import first_index
from engine.index.db import clear_rows, file_identity, open_index_connection
from engine.index.documents import (
    IndexDoc,
    WriteTargets,
    delete_docs,
    delete_docs_by_source,
    delete_docs_where_session_not_in,
    upsert_docs,
)
from engine.index.first_index import RecentDeferral
from engine.index.recent import FtsRow
from engine.index.rowids import KnownRuns
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.txn import immediate, rollback
from engine.index.vector_hook import VectorSink

log = get_logger(__name__)

DELETED_REASON = "index file was deleted"
REPLACED_REASON = "index file was replaced"
"""Why the writer reopened: the file vanished or changed under the open connection."""

_PENDING, _OPEN, _LOST = "pending", "open", "lost"
"""A group's states: opened, its transaction not begun yet (no block ran); begun; rolled back."""

OnOpen = Callable[[str | None, str | None], None]
"""Told ``(recreated_reason, replaced_reason)`` each time the writer opens the file: why
``open_index`` recreated it (None: it was sound), and whether it went or was swapped under
the open connection (``DELETED_REASON`` / ``REPLACED_REASON``; None: a first open)."""


class _FirstIndex:
    """The ``first_index`` mode of one drain: begun at its first write (``begin``), over when
    the block ends or the connection closes."""

    def __init__(self) -> None:
        self.begun = False
        self.conn: apsw.Connection | None = None
        self.deferral: RecentDeferral | None = None


class IndexWriter:
    """The writer connection of one index file and everything its writes depend on."""

    def __init__(
        self,
        path: Path,
        tuning: WriteTuning = DEFAULT_TUNING,
        *,
        vectors: Callable[[], VectorSink | None] = lambda: None,
        on_open: OnOpen | None = None,
    ) -> None:
        """``vectors`` gives the sink of each connection opened (None: no vectors kept)."""
        self.path = path
        self.tuning = tuning
        self._vectors_for = vectors
        self._on_open = on_open
        self._conn: apsw.Connection | None = None
        self._identity: tuple[int, int] | None = None
        self.vectors: VectorSink | None = None
        self._runs = KnownRuns()
        self._group: str | None = None
        self._held: dict[int, FtsRow] | None = None
        self._first: _FirstIndex | None = None

    # -- the connection ------------------------------------------------------------------------

    def connection(self) -> apsw.Connection:
        """The writer connection, reopened when the index file was replaced or deleted; a
        ``first_index`` block not begun yet begins here."""
        current = file_identity(self.path)
        if self._conn is None or current is None or current != self._identity:
            # An open writer whose file went (``rm -rf .ade/cache``) or was swapped: the new
            # file is compared with the sources again, never served as an empty "ready" index.
            replaced = None
            if self._conn is not None:
                replaced = REPLACED_REASON if current is not None else DELETED_REASON
            self.close()
            report, self._conn = open_index_connection(self.path, vacuum=self.tuning.vacuum)
            self._identity = file_identity(self.path)
            self.vectors = self._vectors_for()
            if self._on_open is not None:
                self._on_open(report.recreated_reason, replaced)
        if self._first is not None and not self._first.begun:
            self._begin_first_index(self._conn)
        return self._conn

    @property
    def conn(self) -> apsw.Connection:
        """The open connection (no identity check: ``connection`` made it), opened if none is;
        a ``first_index`` block not begun yet begins here too."""
        if self._conn is None:
            return self.connection()
        if self._first is not None and not self._first.begun:
            self._begin_first_index(self._conn)
        return self._conn

    @property
    def identity(self) -> tuple[int, int] | None:
        """The identity of the file the open connection holds (None: none open)."""
        return self._identity if self._conn is not None else None

    @property
    def is_open(self) -> bool:
        return self._conn is not None

    def holds(self, conn: apsw.Connection) -> bool:
        """Whether ``conn`` is the open writer connection (not closed or replaced since)."""
        return self._conn is conn

    def close(self) -> None:
        """Close the connection (checkpointing the WAL). An open group is rolled back with it,
        and a first index in progress ends without its fill (the next drain puts ``automerge``
        back; the live floor stays valid)."""
        self._group, self._held = None, None
        self._runs.clear()
        if self._first is not None:
            self._first.conn, self._first.deferral = None, None
        if self._conn is not None:
            try:
                self._conn.close()
            except apsw.Error:
                log.debug("closing the writer connection failed", exc_info=True)
            self._conn = None

    # -- transactions and the group ------------------------------------------------------------

    def _forget_runs(self) -> None:
        self._runs.clear()  # the ids the rolled-back transaction wrote are free again

    @contextlib.contextmanager
    def transaction(self) -> Iterator[apsw.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` (``txn.immediate``), forgetting the walked row ids
        when it rolls back.

        Inside a group (``begin_group``) the block joins the group's transaction, begun by the
        group's first block: it commits with the group, and an error inside it rolls the whole
        group back (no savepoint: an FTS5 savepoint flushes the table's pending terms, the very
        segments a group saves).
        """
        conn = self.conn
        if self._group == _PENDING:
            conn.execute("BEGIN IMMEDIATE")
            self._group = _OPEN
        if self._group == _OPEN and conn.in_transaction:
            try:
                yield conn
            except BaseException:
                self._group = _LOST
                rollback(conn, self._forget_runs)
                raise
            return
        if self._group == _OPEN:
            self._group = _LOST  # rolled back under an error its caller swallowed
        with immediate(conn, self._forget_runs):
            yield conn

    def begin_group(self) -> None:
        """Open a group: the next ``transaction`` blocks share one transaction, which the first
        of them begins (so what runs before it, planning a pass, holds no lock); the new
        ``docs_fts`` rows are held until its ``COMMIT``.

        Row ids are packed by time (``engine.index.rowids``), so the passes of different
        sessions interleave, and FTS5 flushes its pending terms as a segment whenever a row id
        is not above the previous one: written as they came, a group still flushed about once a
        pass. Held and written sorted, they flush only when the pending terms fill FTS5's
        ``hashsize`` (benchmarks/journal/waves-1-to-3.md, "Writer in the pipeline")."""
        self._group, self._held = _PENDING, {}

    @property
    def group_open(self) -> bool:
        """Whether a group's transaction is open (begun, not rolled back)."""
        return self._group == _OPEN and self._conn is not None and self._conn.in_transaction

    def commit_group(self) -> bool:
        """Write the held rows in row-id order and commit the group's transaction. False when
        it was rolled back (an error inside one of its blocks, a full disk): nothing written
        inside the group is stored.

        Raises:
            apsw.Error: writing the held rows or the ``COMMIT`` failed (the group is rolled back).
        """
        state, held = self._group, self._held
        if state == _PENDING:
            self._group, self._held = None, None
            return True  # no block ran: nothing to store
        if not self.group_open:
            self._group, self._held = None, None
            return False
        conn = self.conn
        try:
            if held:
                conn.executemany(
                    "INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (?,?,?,?)",
                    [held[rowid] for rowid in sorted(held)],
                )
            conn.execute("COMMIT")
        except BaseException:
            self.abandon_group()  # a failed write of the held rows leaves the transaction open
            raise
        self._group, self._held = None, None
        return True

    def abandon_group(self) -> None:
        """Roll the group back (a failed write before its ``COMMIT``)."""
        self._group, self._held = None, None
        if self._conn is not None:
            with contextlib.suppress(apsw.Error):
                rollback(self._conn, self._forget_runs)

    # -- the first index -----------------------------------------------------------------------

    @contextlib.contextmanager
    def first_index(self) -> Iterator[None]:
        """Around a drain's loop of passes: when its first write finds the index empty (a first
        index), ``docs_recent`` is written once at the end, ``docs_fts`` merges only then and
        the freed pages are given back (``engine.index.first_index``). Nested, it is one mode.
        Nothing happens (no connection is opened) when no pass runs."""
        if self._first is not None:
            yield
            return
        mode = self._first = _FirstIndex()
        try:
            yield
        finally:
            self._first = None
            if mode.conn is not None and mode.conn is self._conn:
                first_index.end(mode.conn, mode.deferral, self.tuning)

    @property
    def first_index_running(self) -> bool:
        """Whether a first index is being written (its ``docs_recent`` rows held)."""
        return self._first is not None and self._first.deferral is not None

    def _begin_first_index(self, conn: apsw.Connection) -> None:
        mode = self._first
        assert mode is not None
        mode.begun = True
        try:
            mode.deferral = first_index.begin(conn, self.tuning)
        except (apsw.Error, OSError):
            log.debug("starting the first-index mode failed", exc_info=True)
            return
        mode.conn = conn

    # -- documents -----------------------------------------------------------------------------

    def targets(self) -> WriteTargets:
        """What a batch written now does besides the tables (``engine.index.documents``)."""
        return WriteTargets(
            held_fts=self._held if self.group_open else None,
            recent=self._first.deferral if self._first is not None else None,
            runs=self._runs,
            vectors=self.vectors,
        )

    def upsert_docs(self, docs: Iterable[IndexDoc]) -> None:
        """``documents.upsert_docs`` with this writer's targets, inside its transaction."""
        upsert_docs(self.conn, docs, self.targets())

    def delete_docs(self, doc_ids: Iterable[str]) -> None:
        delete_docs(self.conn, doc_ids, self.targets())

    def delete_docs_by_source(self, source_key: str) -> None:
        delete_docs_by_source(self.conn, source_key, self.targets())

    def delete_docs_where_session_not_in(self, kind: str, session_ids: Iterable[str]) -> int:
        return delete_docs_where_session_not_in(self.conn, kind, session_ids, self.targets())

    def clear_index(self) -> None:
        """Wipe every document, FTS row, source and meta value in one transaction; keep the
        schema (``engine.index.db.clear_rows``). What the writer knew of the rows goes too."""
        with self.transaction() as conn:
            self._runs.clear()
            if self._held is not None:
                self._held.clear()
            clear_rows(conn)
