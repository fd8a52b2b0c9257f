"""``docs_recent``, the newest documents with 2-3 character prefix indexes, and what a first
index does differently (the first-index speed and index-size budgets).

``docs_recent`` holds every document at or above the ``recent_floor`` row id (kept in ``meta``),
the newest ``RECENT_DOCS`` to ``RECENT_DOCS + RECENT_SLACK`` of them; below ``RECENT_MIN_CORPUS``
documents it holds none (the floor sits above every document). ``engine.index.documents`` writes
it with every batch (``raise_recent_floor`` first); a first index holds its rows back and writes
them once at its end (``engine.index.first_index``).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import heapq
import itertools

import apsw

from engine.index.txn import meta_set, scalar

FtsRow = tuple[int, str, str, str]
"""``(rowid, rank_title, body, parts)``, as ``docs_fts`` and ``docs_recent`` take them."""


RECENT_DOCS = 10_000
"""Documents ``docs_recent`` holds at least (the newest by row id): 2-3 character prefixes match
most documents, so their window is the newest matches anyway. On the 330 MB corpus (268,932
docs) it costs 0.07x of the text at 10,000 and 0.12x at 20,000 (prefix indexes over every
document: ~0.66x); benchmarks/journal/waves-1-to-3.md, "Index size"."""

RECENT_SLACK = RECENT_DOCS // 4
"""Documents above ``RECENT_DOCS`` before the floor moves: pruning runs once per that many."""

RECENT_MIN_CORPUS = 50_000
"""Documents an index holds before ``docs_recent`` holds any. The table is for prefixes so common
that merging their doclists over every document is slow; with its floor below 10,000 documents
it held a small corpus a second time, 1.47x of the 2.33x a 10 MB project's index was of its text.
Below this size ``docs_fts`` answers them: a 2-character prefix in ~40 ms at 8,000 documents and
~140 ms at 81,000 (in process, against 14-21 ms from the table there); from it on the table's 10,000
documents are at most a sixth of the corpus, ~0.25x of the text (docs/index-size.md)."""

FLOOR_KEY = "recent_floor"


def recent_floor(conn: apsw.Connection) -> int:
    """The lowest row id ``docs_recent`` holds: every document at or above it is in it."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (FLOOR_KEY,)).fetchone()
    return int(row[0]) if row is not None else 0


def raise_recent_floor(conn: apsw.Connection, new_rowids: list[int]) -> int:
    """The floor once ``new_rowids`` (not yet written) are stored: raised to the newest
    ``RECENT_DOCS`` of the stored and new documents once ``RECENT_SLACK`` more have arrived, the
    stored rows it leaves behind deleted from ``docs_recent`` and the floor saved."""
    floor = recent_floor(conn)
    small = _small_index_floor(conn, floor, new_rowids)
    if small is not None:
        return small
    fresh = sorted((rowid for rowid in new_rowids if rowid >= floor), reverse=True)
    held = scalar(conn, "SELECT count(*) FROM docs WHERE id >= ?", (floor,))
    if held + len(fresh) <= RECENT_DOCS + RECENT_SLACK:
        return floor
    stored = [int(r[0]) for r in conn.execute(
        "SELECT id FROM docs WHERE id >= ? ORDER BY id DESC LIMIT ?", (floor, RECENT_DOCS))]  # fmt: skip
    newest = heapq.merge(stored, fresh, reverse=True)
    new_floor = next(itertools.islice(newest, RECENT_DOCS - 1, None))
    conn.execute(
        "DELETE FROM docs_recent WHERE rowid IN (SELECT id FROM docs WHERE id >= ? AND id < ?)",
        (floor, new_floor),
    )
    meta_set(conn, FLOOR_KEY, str(new_floor))
    return new_floor


def _small_index_floor(conn: apsw.Connection, floor: int, new_rowids: list[int]) -> int | None:
    """The floor above every stored and new document while the index stays below
    ``RECENT_MIN_CORPUS`` documents and the table holds none (or every one: an index written
    before the bound, whose rows are dropped); ``None`` once the table is in use."""
    top = scalar(conn, "SELECT max(id) FROM docs")
    if floor and floor <= top:
        return None  # the table holds documents: it keeps them (the corpus grew past the bound)
    if scalar(conn, "SELECT count(*) FROM docs") + len(new_rowids) >= RECENT_MIN_CORPUS:
        return None
    if not floor and top:
        conn.execute("INSERT INTO docs_recent(docs_recent) VALUES ('delete-all')")
    new_floor = max([top, *new_rowids]) + 1
    if new_floor != floor:
        meta_set(conn, FLOOR_KEY, str(new_floor))
    return new_floor


def corpus_is_small(conn: apsw.Connection) -> bool:
    """Whether the index holds fewer than ``RECENT_MIN_CORPUS`` documents."""
    return scalar(conn, "SELECT count(*) FROM docs") < RECENT_MIN_CORPUS
