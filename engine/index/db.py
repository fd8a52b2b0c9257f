"""The disposable search index file: open check, recreate, connections, clear (DESIGN §3).

``.ade/cache/search-index.db`` holds ``docs`` (one row a document), ``docs_fts`` (a
contentless-delete FTS5 table over ``body``, ``rank_title`` and the camelCase ``parts`` of
identifiers), ``docs_recent`` (the same over the newest ``RECENT_DOCS`` documents, with 2- and
3-character prefix indexes), ``docs_title`` (the same over titled documents only, so title matches
never walk the body doclists), ``sources`` (ingestion cursors) and ``meta``. Their rows are written
and read by ``engine.index.documents`` (documents and FTS rows), ``engine.index.sources`` (the
cursors) and ``engine.index.checks`` (the health check and counts); the names most modules use are
re-exported here (not the checks: a warm search never runs them).

The open check (``engine.index.schema.check_open``) compares the file's DDL with what
``SCHEMA_SQL`` creates, so any schema change recreates an old file without a version bump.
Every connection from ``connect`` has ``ade_bm25_1_key`` (``engine.index.fts_rank``) registered.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import apsw
import msgspec

from engine.index import fts_rank
from engine.index.documents import (
    IndexDoc,
    delete_docs,
    delete_docs_by_source,
    upsert_docs,
)
from engine.index.schema import (
    BUSY_TIMEOUT_MS,
    DAMAGE_ERRORS,
    SCHEMA_SQL,
    TRANSIENT_ERRORS,
    WRITE_FAULT_ERRORS,
    check_open,
    recreate_in_place,
)
from engine.index.sources import SourceRow, get_source, list_sources, put_source
from engine.index.txn import immediate, meta_get, meta_set, scalar
from engine.index.vacuum import set_for_new_file

__all__ = [
    "BUSY_TIMEOUT_MS",
    "PAGE_SIZE",
    "SCHEMA_SQL",
    "IndexDoc",
    "OpenReport",
    "SourceRow",
    "clear_index",
    "clear_rows",
    "connect",
    "delete_docs",
    "delete_docs_by_source",
    "file_identity",
    "get_source",
    "immediate",
    "list_sources",
    "meta_get",
    "meta_set",
    "open_index",
    "open_index_connection",
    "put_source",
    "recreate_damaged",
    "scalar",
    "upsert_docs",
]


class OpenReport(msgspec.Struct, frozen=True):
    """What ``open_index`` found and did. ``recreated_reason`` is None when the file was usable."""

    path: Path
    recreated_reason: str | None
    identity: tuple[int, int] | None


def file_identity(path: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of the index file, or None when it does not exist.

    A drain compares it with the identity it opened: a different value means the file was replaced
    and its connection writes into a ghost (RELIABILITY 13), so it must reopen.
    """
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino)


PAGE_SIZE = 16384
"""Compressed bodies are ~2 KB: on 4 KB pages each spilled to a half-empty overflow page (+0.35x
of the text, measured); 16 KB pages hold them inline. Applies when the file is created."""


WAL_SIZE_LIMIT = 1 << 20
"""Bytes the ``-wal`` file is cut back to when a checkpoint restarts it (``journal_size_limit``).
Without it the file keeps its largest size: up to 2.65x of the text on the daemon path after a
first index (docs/index-size.md)."""


def connect(path: Path, *, vacuum: bool = True) -> apsw.Connection:
    """A new connection for the calling thread: WAL (cut back to ``WAL_SIZE_LIMIT``), busy
    timeout, ``synchronous=NORMAL``; a new file is made with 16 KiB pages and
    ``auto_vacuum = INCREMENTAL`` (``engine.index.vacuum``; ``vacuum`` False,
    ``WriteTuning.vacuum``: as before, ``NONE``)."""
    conn = apsw.Connection(str(path))
    # The busy timeout comes first: switching a new file to WAL takes a lock, and without a
    # timeout a second process doing the same fails at once (and used to look like damage).
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    conn.pragma("page_size", PAGE_SIZE)  # a no-op on an existing database
    # What apsw.bestpractice's connection_wal/connection_busy_timeout do, without importing it:
    # it pulls in apsw.ext (~12 ms of every CLI start-up).
    with contextlib.suppress(apsw.ReadOnlyError):
        if not conn.readonly("main"):
            if scalar(conn, "PRAGMA page_count") == 0:
                # A new file's two header writes below (``auto_vacuum``, then WAL) hold nothing
                # to protect yet: without a journal file and syncs they cost no rollback journal
                # made, synced and unlinked twice (4-8 fsyncs and unlinks, 8-60 ms of a first
                # index's wall on a shared disk, benchmarks/journal/2026-12-08-first-index-small.md).
                # A crash part way leaves a file the open check finds empty or unreadable, and
                # ``open_index`` makes it again. Neither pragma outlives the connection's WAL
                # switch and ``synchronous=NORMAL`` below.
                conn.pragma("journal_mode", "memory")
                conn.pragma("synchronous", "OFF")
            set_for_new_file(
                conn, enabled=vacuum
            )  # before WAL: switching a new file to WAL writes its header
            conn.pragma("journal_mode", "wal")
            conn.pragma("journal_size_limit", WAL_SIZE_LIMIT)
    conn.pragma("synchronous", "NORMAL")
    plan_without_bound_values(conn)
    fts_rank.register(conn)
    return conn


def plan_without_bound_values(conn: apsw.Connection) -> None:
    """Plan every statement of ``conn`` without looking at its bound values (SQLite's query
    planner stability guarantee, ``SQLITE_DBCONFIG_ENABLE_QPSG``).

    Without it, SQLite (3.47 on) reads a bound ``LIMIT ?`` or a ``column = ?`` while planning and
    marks the statement to be prepared again whenever that parameter is bound anew: a cached
    statement was parsed and planned again on every execution, and so were FTS5's own lookups
    into its segments (``WHERE segid = ?``), four a phrase a pass. That was ~0.5 M of the 2.5 M
    instructions a rare word's query cost at 10 MB (benchmarks/journal/2026-12-07-rare-common-10.md).
    The answers are the same: only how a plan is chosen changes, and no statement here has a
    plan that a bound value would change (no ``LIKE ?``, no ``sqlite_stat4``)."""
    conn.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 1)


def _ensure_cache_dir(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    ignore = path.parent / ".gitignore"
    if path.parent.name == "cache" and not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")


def _delete_files(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def open_index(path: Path, *, vacuum: bool = True) -> OpenReport:
    """Open or create the index at ``path``, recreating it when it is unusable (RELIABILITY 9).

    A sound SQLite file with the wrong schema is rebuilt in place under ``BEGIN IMMEDIATE`` so a
    second process holding it open follows along; only a file SQLite itself cannot read is deleted
    (with its ``-wal``/``-shm``) and created anew.

    Returns:
        The path, why it was recreated (None when it was fine or new), and its file identity.
    """
    report, conn = open_index_connection(path, vacuum=vacuum)
    conn.close()
    return report


def open_index_connection(path: Path, *, vacuum: bool = True) -> tuple[OpenReport, apsw.Connection]:
    """``open_index``, and the connection (``connect``'s) it checked or made the file with, left
    open for the writer: closing it and connecting again would checkpoint the ``-wal`` and delete
    it, sync the file and make a ``-wal`` and ``-shm`` again (for a new file, several ms of a first
    index's wall on a shared disk)."""
    _ensure_cache_dir(path)
    problem = None
    conn: apsw.Connection | None = None
    try:
        conn = connect(path, vacuum=vacuum)
    except TRANSIENT_ERRORS + WRITE_FAULT_ERRORS:
        raise  # a lock or the disk: retry later, never delete what it holds (a full disk)
    except apsw.Error as err:
        problem, sound = f"cannot open: {type(err).__name__}", False
    else:
        try:
            problem, sound = check_open(conn)
            if problem is not None and sound:
                recreate_in_place(conn, vacuum=vacuum)
        except TRANSIENT_ERRORS + WRITE_FAULT_ERRORS:
            conn.close()
            raise  # busy or a full disk is not damage: retry later (never delete a live index)
        except apsw.Error as err:
            problem, sound = problem or f"recreate failed: {type(err).__name__}", False
        except BaseException:
            conn.close()
            raise
        if problem is not None and not sound:
            conn.close()  # before the files go: closing may unlink the old -wal by name
            conn = None
    if conn is None:
        _delete_files(path)
        conn = connect(path, vacuum=vacuum)
        try:
            recreate_in_place(conn, vacuum=vacuum)
        except BaseException:
            conn.close()
            raise
    if problem == "new":
        problem = None
    return OpenReport(path=path, recreated_reason=problem, identity=file_identity(path)), conn


def recreate_damaged(
    path: Path, damaged: tuple[int, int] | None = None, *, vacuum: bool = True
) -> OpenReport:
    """Delete a damaged index (db, ``-wal``, ``-shm``) and create it empty (damaged pages heal).

    Page damage deep in a table passes the open check (its tiny MATCH never reads that page), so
    whoever trips over ``CorruptError`` later calls this. Same guard as for an unreadable file:
    a lock held by another process is not damage, so the write lock is taken first and a busy
    file raises instead of being deleted under its writer. Another process that still has the
    old file open sees its inode change on its next drain or query and reopens.

    ``damaged``: the ``file_identity`` of the file found damaged. When the path holds another
    file by now (a second process recreated it first), that one is kept.
    """
    _ensure_cache_dir(path)
    if damaged is not None and file_identity(path) not in (damaged, None):
        return OpenReport(path=path, recreated_reason=None, identity=file_identity(path))
    try:
        conn = connect(path)
    except DAMAGE_ERRORS:
        conn = None
    if conn is not None:
        try:
            with contextlib.suppress(*DAMAGE_ERRORS):
                conn.execute("BEGIN IMMEDIATE")  # raises BusyError while another process writes
            if damaged is not None and file_identity(path) != damaged:
                # Replaced while we waited for the lock: ours is a ghost, the new file is fine.
                return OpenReport(path=path, recreated_reason=None, identity=file_identity(path))
            _delete_files(path)  # under the lock: no writer is halfway through a transaction
        finally:
            conn.close()  # before the new file exists: closing may unlink the old -wal by name
    _delete_files(path)
    conn = connect(path, vacuum=vacuum)
    try:
        recreate_in_place(conn, vacuum=vacuum)
    finally:
        conn.close()
    return OpenReport(path=path, recreated_reason="damaged", identity=file_identity(path))


def clear_index(conn: apsw.Connection) -> None:
    """Wipe every document, FTS row, source and meta value in one transaction; keep the schema.

    Rebuild uses this instead of deleting the file, so another process holding the file open keeps
    writing into the same file rather than a ghost (RELIABILITY 13).
    """
    with immediate(conn):
        clear_rows(conn)


def clear_rows(conn: apsw.Connection) -> None:
    """``clear_index`` inside the caller's transaction (``IndexWriter.clear_index``)."""
    conn.execute("DELETE FROM docs")
    conn.execute("DELETE FROM doc_vectors")  # the semantic extra's (docs/semantic.md)
    conn.execute("INSERT INTO docs_fts(docs_fts) VALUES ('delete-all')")
    conn.execute("INSERT INTO docs_recent(docs_recent) VALUES ('delete-all')")
    conn.execute("INSERT INTO docs_title(docs_title) VALUES ('delete-all')")
    conn.execute("DELETE FROM commit_lanes")
    conn.execute("DELETE FROM sources")
    conn.execute("DELETE FROM meta")
