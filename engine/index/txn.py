"""The index's transaction and small-value helpers, shared by ``engine.index.db``,
``engine.index.documents``, ``engine.index.sources`` and ``engine.index.recent``: ``immediate``
(the write lock taken up front), ``scalar``, and the ``meta`` table's values; ``begin_group`` /
``commit_group``, one transaction around several ``immediate`` blocks (a first index's passes,
``engine.ingest.pass_group``)."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import apsw

from engine.index.rowids import forget_all


@contextlib.contextmanager
def immediate(conn: apsw.Connection) -> Iterator[apsw.Connection]:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on error): a write lock taken up front.

    A deferred read-then-write transaction racing another writer fails at once with ``BusyError``
    whatever the busy timeout (RELIABILITY 12); taking the lock first makes it wait instead.

    Inside a group (``begin_group``) the block joins the group's transaction, begun by the
    group's first block: it commits with the group, and an error inside it rolls the whole
    group back (no savepoint: an FTS5 savepoint flushes the table's pending terms, the very
    segments a group saves).
    """
    state = _groups.get(conn)
    if state == _PENDING:
        conn.execute("BEGIN IMMEDIATE")
        state = _groups[conn] = _OPEN
    if state == _OPEN and conn.in_transaction:
        try:
            yield conn
        except BaseException:
            _groups[conn] = _LOST
            forget_all(conn)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return
    if state == _OPEN:
        _groups[conn] = _LOST  # rolled back under an error its caller swallowed
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


_PENDING, _OPEN, _LOST = "pending", "open", "lost"
"""A group's states: opened, its transaction not begun yet (no block ran); begun; rolled back."""

_groups: weakref.WeakKeyDictionary[apsw.Connection, str] = weakref.WeakKeyDictionary()
"""Connections with a group open (``begin_group``) and its state."""


def begin_group(conn: apsw.Connection) -> None:
    """Open a group: the next ``immediate`` blocks on ``conn`` share one transaction, which the
    first of them begins (so what runs before it, planning a pass, holds no lock)."""
    _groups[conn] = _PENDING


def commit_group(conn: apsw.Connection) -> bool:
    """Commit the group's transaction. False when it was rolled back (an error inside one of
    its blocks, a full disk): nothing written inside the group is stored.

    Raises:
        apsw.Error: the ``COMMIT`` failed (the group is rolled back).
    """
    state = _groups.pop(conn, None)
    if state == _PENDING:
        return True  # no block ran: nothing to store
    if state != _OPEN or not conn.in_transaction:
        return False
    try:
        conn.execute("COMMIT")
    except BaseException:
        forget_all(conn)
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return True


def group_open(conn: apsw.Connection) -> bool:
    """Whether a group's transaction is open on ``conn`` (begun, not rolled back)."""
    return _groups.get(conn) == _OPEN and conn.in_transaction


def abandon_group(conn: apsw.Connection) -> None:
    """Roll the group back (a failed write before its ``COMMIT``, or its connection closing)."""
    _groups.pop(conn, None)
    forget_all(conn)
    if conn.in_transaction:
        with contextlib.suppress(apsw.Error):
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
