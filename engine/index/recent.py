"""``docs_recent``, the newest documents with 2-3 character prefix indexes, and what a first
index does differently (the first-index speed and index-size budgets).

``docs_recent`` holds every document at or above the ``recent_floor`` row id (kept in ``meta``),
the newest ``RECENT_DOCS`` to ``RECENT_DOCS + RECENT_SLACK`` of them; below ``RECENT_MIN_CORPUS``
documents it holds none (the floor sits above every document). ``engine.index.documents`` writes
it with every batch (``raise_recent_floor`` first); a first index holds its rows back and writes
them once at its end (``recent_deferred``), with ``docs_fts`` merging only then.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING

import apsw

from engine.basics.logs import get_logger
from engine.index.schema import TRANSIENT_ERRORS
from engine.index.tuning import DEFAULT_TUNING, WriteTuning
from engine.index.txn import immediate, meta_set, scalar
from engine.index.vacuum import convert_if_empty, give_back_free_pages, give_back_if_worth

if TYPE_CHECKING:
    from engine.index.documents import IndexDoc, _Derived

log = get_logger(__name__)


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

_FLOOR_KEY = "recent_floor"


def recent_floor(conn: apsw.Connection) -> int:
    """The lowest row id ``docs_recent`` holds: every document at or above it is in it."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (_FLOOR_KEY,)).fetchone()
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
    meta_set(conn, _FLOOR_KEY, str(new_floor))
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
        meta_set(conn, _FLOOR_KEY, str(new_floor))
    return new_floor


def corpus_is_small(conn: apsw.Connection) -> bool:
    """Whether the index holds fewer than ``RECENT_MIN_CORPUS`` documents."""
    return scalar(conn, "SELECT count(*) FROM docs") < RECENT_MIN_CORPUS


class RecentDeferral:
    """The ``docs_recent`` rows of a first index, held in memory until it ends.

    Written as they come, ~70% of a first index's documents went into the prefix-indexed table
    and most of them out again as the floor rose (a third of the build's CPU on the 40 MB
    corpus). ``rows`` replays the floor rule of ``raise_recent_floor`` over the documents this
    connection writes, so it is what ``docs_recent`` would hold; meanwhile every commit keeps
    the floor above every stored document, which the empty table satisfies.
    """

    def __init__(self) -> None:
        self.rows: dict[int, tuple[int, str, str, str]] = {}
        self.floor = 0

    def hold(self, conn: apsw.Connection, rows: list[tuple[int, IndexDoc, _Derived]]) -> int:
        """Keep ``rows``'s FTS values; the live floor the batch commits with (none goes in)."""
        for rowid, doc, d in rows:
            if rowid >= self.floor:
                self.rows[rowid] = (rowid, doc.rank_title, doc.body, d.parts)
        if len(self.rows) > RECENT_DOCS + RECENT_SLACK:
            newest = sorted(self.rows, reverse=True)
            self.floor = newest[RECENT_DOCS - 1]
            for rowid in newest[RECENT_DOCS:]:
                del self.rows[rowid]
        live = recent_floor(conn)
        top = max(live, max(row[0] for row in rows) + 1)
        if top > live:
            # Another writer's rows between the two floors leave the table with them. It is
            # looked for first: a multi-row DELETE on an FTS5 table, even one that deletes
            # nothing, opens a statement savepoint, and FTS5 flushes every table's pending
            # terms at a savepoint, so a group of passes (``engine.ingest.pass_group``) would
            # write a ``docs_fts`` segment a pass again (benchmarks/journal/waves-1-to-3.md, "Writer in the pipeline").
            held = "FROM docs_recent_docsize WHERE id >= ? AND id < ?"
            if conn.execute(f"SELECT 1 {held} LIMIT 1", (live, top)).fetchone() is not None:
                conn.execute(f"DELETE FROM docs_recent WHERE rowid IN (SELECT id {held})",
                             (live, top))  # fmt: skip
            meta_set(conn, _FLOOR_KEY, str(top))
        return top

    def fill(self, conn: apsw.Connection) -> None:
        """Write the held rows and lower the floor to the replayed one, in one transaction; when
        a stored document it needs is not held (another writer's, a rolled-back delete), the
        live floor stays: the table is then small, never wrong, and refills as documents come."""
        if not self.rows:
            return  # nothing was written (an entry that failed, a busy index): no lock to take
        with immediate(conn):
            live = recent_floor(conn)
            if self.floor >= live or corpus_is_small(conn):
                return  # a small index keeps the live floor, above every document
            needed = [int(r[0]) for r in conn.execute(
                "SELECT id FROM docs WHERE id >= ? AND id < ? ORDER BY id", (self.floor, live))]  # fmt: skip
            if any(rowid not in self.rows for rowid in needed):
                return
            _set_recent_hashsize(conn, FILL_HASHSIZE)
            conn.executemany(
                "INSERT INTO docs_recent(rowid, rank_title, body, parts) VALUES (?,?,?,?)",
                [self.rows[rowid] for rowid in needed],
            )
            # The limit only matters while inserting: the pending terms are flushed at commit.
            _set_recent_hashsize(conn, FTS_HASHSIZE)
            meta_set(conn, _FLOOR_KEY, str(self.floor) if self.floor else None)


FILL_HASHSIZE = 32 << 20
"""``docs_recent``'s pending-terms limit (FTS5 ``hashsize``, bytes) while a first index's held rows
are written in one transaction. At the default (1 MiB) ~10,000 documents with two prefix indexes
flushed a segment every 1 MiB and ``automerge`` merged them inside the same transaction; with
room for the whole fill it writes one segment at its commit: ~0.35 s less CPU for the writer on
the 60 MB corpus and a smaller file (benchmarks/journal/waves-1-to-3.md, "Writer, third pass")."""

FTS_HASHSIZE = 1 << 20
"""FTS5's default ``hashsize``, put back before the fill commits (the setting is stored in the
table's config, so it would otherwise outlive the fill)."""


def _set_recent_hashsize(conn: apsw.Connection, size: int) -> None:
    conn.execute("INSERT INTO docs_recent(docs_recent, rank) VALUES ('hashsize', ?)", (size,))


deferrals: weakref.WeakKeyDictionary[apsw.Connection, RecentDeferral] = weakref.WeakKeyDictionary()
"""The first index in progress on a connection (``recent_deferred``), read by ``upsert_docs``."""


def first_index_running(conn: apsw.Connection) -> bool:
    """Whether a first index is being written on ``conn`` (inside ``recent_deferred``)."""
    return conn in deferrals


FTS_AUTOMERGE = 4
"""``docs_fts``'s ``automerge`` (FTS5's default): every write merges a little, so the table holds
few segments."""

FIRST_INDEX_AUTOMERGE = 0
"""``docs_fts``'s ``automerge`` during a first index: segments are merged only when a level holds
``crisismerge`` (16) of them. A first index commits one small segment per transcript pass, and
merging them as they came cost ~30% of the table's build CPU on the 330 MB corpus; left so, it
would end with 24 segments instead of 9 and a table 15% larger, so it ends with ``merge_fts``
(benchmarks/journal/waves-1-to-3.md, "Writer cost")."""

MERGE_STEP_PAGES = 500
"""Pages one ``merge`` step of ``merge_fts`` writes (~50 ms on this machine): the write lock is
let go between steps, so a live append waits at most one step."""

MERGE_MAX_STEPS = 10_000
"""A bound on ``merge_fts``'s steps (the 330 MB corpus's first index needs ~80)."""


def fts_automerge(conn: apsw.Connection) -> int:
    """``docs_fts``'s current ``automerge`` setting."""
    row = conn.execute("SELECT v FROM docs_fts_config WHERE k = 'automerge'").fetchone()
    return FTS_AUTOMERGE if row is None else int(row[0])


def _set_fts_automerge(conn: apsw.Connection, value: int) -> None:
    """Set ``docs_fts``'s ``automerge`` in a transaction of its own, best effort: a busy index
    keeps the setting it has (a first index then merges as usual; a lowered setting is put
    back by the next drain)."""
    try:
        if conn.in_transaction or fts_automerge(conn) == value:
            return
        with immediate(conn):
            conn.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES ('automerge', ?)", (value,))
    except TRANSIENT_ERRORS:
        log.debug("setting the FTS automerge: busy", exc_info=True)
    except apsw.Error:
        log.warning("setting the FTS automerge failed", exc_info=True)


def merge_fts(conn: apsw.Connection) -> int:
    """Merge ``docs_fts``'s segments, one short transaction a step, until FTS5 finds no more to
    merge; returns the steps taken. Merged once, the 330 MB corpus's table is one segment and
    7% smaller than automerge left it, for ~3.4 s of CPU (less than it saved)."""
    steps = 0
    while steps < MERGE_MAX_STEPS:
        with immediate(conn):
            before = conn.total_changes()
            conn.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES ('merge', ?)",
                         (MERGE_STEP_PAGES,))  # fmt: skip
            worked = conn.total_changes() - before > 1
        steps += 1
        if not worked:
            break
    return steps


@contextlib.contextmanager
def recent_deferred(conn: apsw.Connection, tuning: WriteTuning = DEFAULT_TUNING) -> Iterator[None]:
    """While the block runs, a first index (no document stored yet) writes no ``docs_recent``
    row; they are written once at its end. A 2-3 character prefix meanwhile ranks on
    ``docs_fts`` (the table holds no window). Interrupted (a crash), the live floor stays above
    the stored documents and the table refills with the documents that come after.

    A first index also runs ``docs_fts`` with ``FIRST_INDEX_AUTOMERGE``, and at its end puts
    ``FTS_AUTOMERGE`` back, merges the table (``merge_fts``) and gives the pages the merge freed
    back to the file system (``engine.index.vacuum``); one that was interrupted has the setting
    put back by the next block."""
    if conn in deferrals:
        yield
        return
    if conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is not None:
        _set_fts_automerge(conn, FTS_AUTOMERGE)
        yield
        give_back_if_worth(conn, tuning.vacuum_step_pages)  # best effort, never raises
        return
    convert_if_empty(conn, enabled=tuning.vacuum)
    _set_fts_automerge(conn, FIRST_INDEX_AUTOMERGE)
    deferral = deferrals[conn] = RecentDeferral()
    try:
        yield
    finally:
        del deferrals[conn]
        try:
            deferral.fill(conn)
        except TRANSIENT_ERRORS:
            # Another process holds the write lock: the live floor stays (valid, see above).
            log.debug("filling the recent-documents table: busy", exc_info=True)
        except apsw.Error:
            log.warning("filling the recent-documents table failed", exc_info=True)
        _set_fts_automerge(conn, FTS_AUTOMERGE)
        try:
            if deferral.rows:  # this connection wrote documents: their segments are its own
                merge_fts(conn)
        except TRANSIENT_ERRORS:
            # Busy: the segments stay as they are (valid; later writes merge them as usual).
            log.debug("merging the FTS segments: busy", exc_info=True)
        except apsw.Error:
            log.warning("merging the FTS segments failed", exc_info=True)
        if deferral.rows:
            give_back_free_pages(conn, tuning.vacuum_step_pages)  # best effort, never raises
