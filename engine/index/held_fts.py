"""``docs_fts`` rows a group of first-index passes holds back and writes in row-id order.

Row ids are packed by time (``engine.index.rowids``), so the passes of different sessions
interleave, and FTS5 flushes its pending terms as a segment whenever a row id is not above the
previous one: written as they came, a group of passes (``engine.ingest.pass_group``) still
flushed about once a pass. Held and written sorted before the group's ``COMMIT``, they flush
only when the pending terms fill FTS5's ``hashsize`` (benchmarks/journal/waves-1-to-3.md, "Writer in the
pipeline"). The rows are the group's own: nothing outside it reads them.
"""

from __future__ import annotations

import weakref

import apsw

from engine.index.txn import group_open

FtsRow = tuple[int, str, str, str]
"""``(rowid, rank_title, body, parts)``, as ``docs_fts`` takes them."""

_held: weakref.WeakKeyDictionary[apsw.Connection, dict[int, FtsRow]] = weakref.WeakKeyDictionary()


def hold_fts_rows(conn: apsw.Connection) -> None:
    """Hold the new ``docs_fts`` rows written on ``conn`` while its group's transaction is open."""
    _held[conn] = {}


def held_rows(conn: apsw.Connection) -> dict[int, FtsRow] | None:
    """The rows held for ``conn``'s open group, by row id, or None (write them to the table).
    Only while the group's own transaction is open: after a rollback its later passes commit
    alone, and their rows must go into the table with them."""
    held = _held.get(conn)
    return held if held is not None and group_open(conn) else None


def write_held_fts(conn: apsw.Connection) -> None:
    """Write the held rows in row-id order (inside the group's transaction, before its
    ``COMMIT``) and stop holding; rows of a group that was rolled back are dropped."""
    held = _held.pop(conn, None)
    if held and group_open(conn):
        conn.executemany("INSERT INTO docs_fts(rowid, rank_title, body, parts) VALUES (?,?,?,?)",
                         [held[rowid] for rowid in sorted(held)])  # fmt: skip


def drop_held_fts(conn: apsw.Connection) -> None:
    """Stop holding without writing (the group is being rolled back)."""
    _held.pop(conn, None)
