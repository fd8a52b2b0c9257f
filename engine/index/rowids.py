"""Row ids of new documents: ``updated_at`` seconds above a 10-bit slot, spilled when full.

``doc_rowid`` packs a document's second above ``SLOT_BITS`` slot bits, so the FTS5 doclist order
is recency order. A second with more than 1024 documents spills into the slots after it, which
only blurs the order by a second. Spills are common (every chunk of a terminal pass shares its
``updated_at``; the generated corpus puts ~10,000 documents on each of its seconds), so finding
the first free id after a long run of stored ones must not cost a walk of the run per pass: the
writer (``engine.index.writer.IndexWriter``) keeps the runs it has walked (``KnownRuns``) and
hands them to each batch's ``RowidAllocator``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import bisect
from typing import Any

import apsw

from engine.index.schema import SLOT_BITS

_MAX_S = (1 << 52) - 1
"""``updated_at`` seconds are clamped so the packed rowid stays a positive int64."""


def doc_rowid(updated_at: int) -> int:
    """The first row id of ``updated_at``'s second: seconds in the high bits, a slot below."""
    return min(max(updated_at // 1000, 0), _MAX_S) << SLOT_BITS


def _scalar(conn: apsw.Connection, sql: str, params: Any) -> int:
    row: Any = conn.execute(sql, params).fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


class KnownRuns:
    """Stretches ``[start, end)`` of row ids the writer saw stored, every one of them.

    Without it each pass of a session whose second had spilled walked the whole run of stored
    ids again (10 of 41 s of the 330 MB corpus's first index). An entry only ever says where to
    resume the walk: the id it points to is checked against the table like any other, so an
    entry that went stale (a rolled-back insert) can make a document take a later free id,
    never a stored one. Entries are dropped when another connection commits (``data_version``,
    ``refresh``), when the writer deletes an id inside them (``forget``), and all of them when it
    rolls back or clears the index (``clear``).
    """

    def __init__(self) -> None:
        self.version = -1
        self.starts: list[int] = []
        self.ends: dict[int, int] = {}

    def clear(self) -> None:
        """Nothing walked is known now (the writer rolled back or cleared the index)."""
        self.starts, self.ends = [], {}

    def refresh(self, conn: apsw.Connection) -> None:
        """Drop what is known when another connection has committed since it was walked."""
        # ``PRAGMA data_version`` changes with another connection's commits only (apsw's
        # ``data_version()`` is the pager's counter, which this connection's own commits move).
        version = int(conn.pragma("data_version"))
        if version != self.version:
            self.version = version
            self.clear()

    def _holding(self, rowid: int) -> int | None:
        i = bisect.bisect_right(self.starts, rowid) - 1
        if i >= 0 and rowid < self.ends[self.starts[i]]:
            return self.starts[i]
        return None

    def resume(self, rowid: int) -> int:
        """Where the walk from ``rowid`` (a stored id) may start: the end of a known run."""
        start = self._holding(rowid)
        return rowid if start is None else self.ends[start]

    def add(self, start: int, end: int) -> None:
        """Every id in ``[start, end)`` is stored; runs that touch it are merged with it, so
        the runs never overlap and the one holding an id is found by one bisection."""
        held = self._holding(start)
        if held is None:
            held = self._holding(start - 1)
        if held is not None:
            start, end = held, max(end, self.ends[held])
        i = bisect.bisect_left(self.starts, start)
        while i < len(self.starts) and self.starts[i] <= end:
            end = max(end, self.ends.pop(self.starts.pop(i)))
        self.starts.insert(i, start)
        self.ends[start] = end

    def forget(self, rowid: int) -> None:
        """``rowid`` is no longer stored: the run holding it is not known any more."""
        start = self._holding(rowid)
        if start is not None:
            self.starts.remove(start)
            del self.ends[start]


class RowidAllocator:
    """Free row ids for one batch: the next slot of each second, never one taken in the batch."""

    def __init__(self, conn: apsw.Connection, runs: KnownRuns | None = None) -> None:
        """``runs``: the writer's known runs, added to as this batch walks; None (a caller
        outside the writer) walks afresh."""
        self._conn = conn
        self._next: dict[int, int] = {}
        self._taken: set[int] = set()
        if runs is None:
            runs = KnownRuns()
        else:
            runs.refresh(conn)
        self._runs = runs
        self._free = (0, 0)
        """``[start, end)``: ids found free in the table (the write lock keeps them so)."""

    def take(self, base: int) -> int:
        """The row id for a new document of the second starting at ``base``."""
        # Next slot of the second (one index probe the first time a second is seen).
        rowid = self._next.get(base)
        if rowid is None:
            top = _scalar(self._conn, "SELECT max(id) + 1 FROM docs WHERE id >= ? AND id < ?",
                          (base, base + (1 << SLOT_BITS)))  # fmt: skip
            rowid = max(base, top)
        # Below the second's end nothing is stored at or above ``top`` (the batch's own rows are
        # in ``_taken``), so only a slot spilled into a later second needs an index probe.
        limit = base + (1 << SLOT_BITS)
        while True:
            if rowid in self._taken:
                rowid += 1
            elif rowid >= limit and not self._free_in_table(rowid):
                rowid = self._after_run(rowid)
            else:
                break
        self._taken.add(rowid)
        self._next[base] = rowid + 1
        return rowid

    def _free_in_table(self, rowid: int) -> bool:
        """Whether no document holds ``rowid``; one statement finds the whole free stretch that
        starts there, so the spilled documents after it are not probed one by one."""
        if self._free[0] <= rowid < self._free[1]:
            return True
        stored = _scalar(self._conn, "SELECT min(id) FROM docs WHERE id >= ?", (rowid,))
        if stored == rowid:
            return False
        self._free = (rowid, stored if stored > rowid else 1 << 63)
        return True

    def _after_run(self, rowid: int) -> int:
        """The first free id after the run of stored ids that holds ``rowid``: resumed at the
        end of the run as far as the writer knows it, then walked in one statement (id by
        id from Python, every pass cost one query per earlier spilled doc)."""
        start = self._runs.resume(rowid)
        if start != rowid and self._free_in_table(start):
            free = start
        else:
            free = _scalar(
                self._conn,
                "SELECT id + 1 FROM docs AS d WHERE id >= ?"
                " AND NOT EXISTS (SELECT 1 FROM docs WHERE id = d.id + 1) ORDER BY id LIMIT 1",
                (start,),
            )
        self._runs.add(rowid, free)
        return free
