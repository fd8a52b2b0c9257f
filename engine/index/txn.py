"""The index's transaction and small-value helpers, shared by ``engine.index.db`` and
``engine.index.recent``: ``immediate`` (the write lock taken up front), ``scalar``, and the
``meta`` table's values."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import apsw

from engine.index.rowids import forget_all


@contextlib.contextmanager
def immediate(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error): a write lock taken up front.

    A deferred read-then-write transaction racing another writer fails at once with ``BusyError``
    whatever the busy timeout (RELIABILITY 12); taking the lock first makes it wait instead.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        forget_all(conn)  # the ids this transaction wrote are free again
        # SQLITE_FULL and some I/O errors roll the transaction back themselves; a ROLLBACK then
        # fails with "no transaction is active" and hides the real error (a full disk).
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        forget_all(conn)
        if conn.in_transaction:
            conn.execute("ROLLBACK")  # a failed COMMIT (disk full) leaves the transaction open
        raise


def scalar(conn: apsw.Connection, sql: str, params: Any = ()) -> int:
    """The first column of the first row of ``sql`` as an int (0 when there is no row)."""
    row: Any = conn.execute(sql, params).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


def meta_get(conn: apsw.Connection, key: str) -> str | None:
    """A bookkeeping value (``backfill_completed_at`` …), or None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def meta_set(conn: apsw.Connection, key: str, value: str | None) -> None:
    """Set (or, with None, remove) a bookkeeping value."""
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
