"""The index under faults that are not damage: a full disk, an I/O error, a read-only ``-shm``,
and documents whose FTS rows went missing (docs/reliability.md).

``engine.index.db`` deletes a file only for damage (``DAMAGE_ERRORS``); for everything here the
index is kept, answered from, and written again once the cause is gone.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

import apsw

from engine.index import fts_rank
from engine.index.schema import WRITE_FAULT_ERRORS

__all__ = ["LOW_SPACE_BYTES", "connect_snapshot", "count_drift", "write_fault"]


LOW_SPACE_BYTES = 1 << 20
"""Free space under which an I/O error is reported as what it almost surely is: a full disk
(creating a ``-shm`` on a full disk fails as ``IOError``, not ``FullError``)."""


def write_fault(err: BaseException, path: Path | None = None) -> str | None:
    """A short reason for a write that failed because of the disk (None for anything else);
    ``path`` (the index) lets an I/O error on a full filesystem say ``disk full``."""
    if isinstance(err, apsw.FullError) or (isinstance(err, OSError) and err.errno == errno.ENOSPC):
        return "disk full"
    if path is not None and isinstance(err, (*WRITE_FAULT_ERRORS, OSError)):
        with contextlib.suppress(OSError):
            info = os.statvfs(path.parent)
            if info.f_bavail * info.f_frsize < LOW_SPACE_BYTES:
                return "disk full"
    if isinstance(err, apsw.ReadOnlyError):
        return "index is read-only"
    if isinstance(err, (apsw.IOError, apsw.CantOpenError)):
        return f"I/O error ({err})"
    if isinstance(err, OSError):
        return f"I/O error ({err.strerror or err})"
    return None


def connect_snapshot(path: Path) -> apsw.Connection:
    """A read-only connection that needs no ``-shm`` and takes no lock (``immutable=1``).

    For when a WAL connection cannot be had because of the disk: a full disk cannot create the
    ``-shm`` (every WAL reader needs one), a read-only ``-shm`` was left behind (a held
    write lock). It reads the main file only, so it misses what sits uncheckpointed in a ``-wal``
    and what others write meanwhile; the caller says so and retries a real connection later.
    """
    from urllib.parse import quote  # ~7 ms of imports: only on this rare path

    uri = f"file:{quote(os.fspath(path))}?immutable=1"
    conn = apsw.Connection(uri, flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        # Planned without bound values, as every connection is (engine.index.db.plan_without_bound_values).
        conn.config(apsw.SQLITE_DBCONFIG_ENABLE_QPSG, 1)
        fts_rank.register(conn)
        conn.execute("SELECT 1 FROM docs LIMIT 1").fetchall()
    except BaseException:
        conn.close()
        raise
    return conn


def count_drift(conn: apsw.Connection) -> str | None:
    """A cheap check that every document has its FTS row (lost FTS rows), for every CLI run.

    Both counts come from one statement, so one read snapshot: documents and their FTS rows
    commit together, so any difference is drift, never a writer caught halfway. ``count(*)``
    walks the b-trees' pages only (~0.2 ms for 100k documents, benchmarks/journal/waves-1-to-3.md).
    ``docs_fts_docsize`` is FTS5's own one-row-a-document shadow table.

    Returns:
        None when the counts agree, else one line naming them.
    """
    row: Any = conn.execute(
        "SELECT (SELECT count(*) FROM docs), (SELECT count(*) FROM docs_fts_docsize)"
    ).fetchone()
    docs, fts = int(row[0]), int(row[1])
    return None if docs == fts else f"row count drift: {docs} docs, {fts} FTS rows"
