"""The index's transaction and small-value helpers, shared by ``engine.index.db``,
``engine.index.documents``, ``engine.index.sources`` and ``engine.index.recent``: ``immediate``
(the write lock taken up front), ``scalar``, and the ``meta`` table's values. The writer's own
transactions, and its group of several blocks in one (a first index's passes), are
``engine.index.writer.IndexWriter``'s."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import apsw


@contextlib.contextmanager
def immediate(
    conn: apsw.Connection, on_rollback: Callable[[], None] | None = None
) -> Iterator[apsw.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error): a write lock taken up front.

    A deferred read-then-write transaction racing another writer fails at once with ``BusyError``
    whatever the busy timeout (RELIABILITY 12); taking the lock first makes it wait instead.
    ``on_rollback`` runs when the block does not commit (the writer forgets the row ids it walked).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        rollback(conn, on_rollback)
        raise
    try:
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn, on_rollback)  # a failed COMMIT (disk full) leaves the transaction open
        raise


def rollback(conn: apsw.Connection, on_rollback: Callable[[], None] | None = None) -> None:
    """Roll back what is open. SQLITE_FULL and some I/O errors roll the transaction back
    themselves; a ROLLBACK then fails with "no transaction is active" and hides the real error
    (a full disk), so it is only issued while one is active."""
    if on_rollback is not None:
        on_rollback()
    if conn.in_transaction:
        conn.execute("ROLLBACK")


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
