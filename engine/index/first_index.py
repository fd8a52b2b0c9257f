"""A first index: what the writer does differently while it fills an empty index
(``IndexWriter.first_index``; the first-index speed and index-size budgets).

While it runs, no ``docs_recent`` row is written (``RecentDeferral`` holds them and writes them
once at its end; a 2-3 character prefix meanwhile ranks on ``docs_fts``), and ``docs_fts`` runs
with ``FIRST_INDEX_AUTOMERGE`` and ``FIRST_INDEX_HASHSIZE``. At its end ``begin``'s settings are
undone by ``end``: ``FTS_AUTOMERGE`` and ``FTS_HASHSIZE`` put back, the table merged
(``merge_fts``) and the pages the merge freed given back to the file system
(``engine.index.vacuum``). Interrupted (a crash), the live floor stays
above the stored documents, the table refills with the documents that come after, and the next
drain puts the settings back.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import apsw

from engine.basics.logs import get_logger
from engine.index import recent
from engine.index.recent import FLOOR_KEY, FtsRow, corpus_is_small, recent_floor
from engine.index.schema import TRANSIENT_ERRORS
from engine.index.tuning import WriteTuning
from engine.index.txn import immediate, meta_set
from engine.index.vacuum import convert_if_empty, give_back_free_pages, give_back_if_worth

log = get_logger(__name__)


class RecentDeferral:
    """The ``docs_recent`` rows of a first index, held in memory until it ends.

    Written as they come, ~70% of a first index's documents went into the prefix-indexed table
    and most of them out again as the floor rose (a third of the build's CPU on the 40 MB
    corpus). ``rows`` replays the floor rule of ``raise_recent_floor`` over the documents the
    writer writes, so it is what ``docs_recent`` would hold; meanwhile every commit keeps
    the floor above every stored document, which the empty table satisfies.
    """

    def __init__(self) -> None:
        self.rows: dict[int, FtsRow] = {}
        self.floor = 0

    def hold(self, conn: apsw.Connection, rows: list[FtsRow]) -> int:
        """Keep ``rows`` (a batch's FTS values); the live floor the batch commits with (none
        goes in)."""
        for row in rows:
            if row[0] >= self.floor:
                self.rows[row[0]] = row
        if len(self.rows) > recent.RECENT_DOCS + recent.RECENT_SLACK:
            newest = sorted(self.rows, reverse=True)
            self.floor = newest[recent.RECENT_DOCS - 1]
            for rowid in newest[recent.RECENT_DOCS :]:
                del self.rows[rowid]
        live = recent_floor(conn)
        top = max(live, max(row[0] for row in rows) + 1)
        if top > live:
            # Another writer's rows between the two floors leave the table with them. It is
            # looked for first: a multi-row DELETE on an FTS5 table, even one that deletes
            # nothing, opens a statement savepoint, and FTS5 flushes every table's pending
            # terms at a savepoint, so a group of passes (``IndexWriter.begin_group``) would
            # write a ``docs_fts`` segment a pass again (benchmarks/journal/waves-1-to-3.md, "Writer in the pipeline").
            held = "FROM docs_recent_docsize WHERE id >= ? AND id < ?"
            if conn.execute(f"SELECT 1 {held} LIMIT 1", (live, top)).fetchone() is not None:
                conn.execute(f"DELETE FROM docs_recent WHERE rowid IN (SELECT id {held})",
                             (live, top))  # fmt: skip
            meta_set(conn, FLOOR_KEY, str(top))
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
            meta_set(conn, FLOOR_KEY, str(self.floor) if self.floor else None)


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


FTS_AUTOMERGE = 4
"""``docs_fts``'s ``automerge`` (FTS5's default): every write merges a little, so the table holds
few segments."""

FIRST_INDEX_AUTOMERGE = 0
"""``docs_fts``'s ``automerge`` during a first index: segments are merged only when a level holds
``crisismerge`` (16) of them. A first index commits one small segment per transcript pass, and
merging them as they came cost ~30% of the table's build CPU on the 330 MB corpus; left so, it
would end with 24 segments instead of 9 and a table 15% larger, so it ends with ``merge_fts``
(benchmarks/journal/waves-1-to-3.md, "Writer cost")."""

FIRST_INDEX_HASHSIZE = 32 << 20
"""``docs_fts``'s pending-terms limit (``hashsize``, bytes) during a first index. A group of
passes (``IndexWriter.begin_group``) writes its held rows in one statement before its ``COMMIT``;
at FTS5's default (1 MiB) that flushed a segment every 1 MiB of pending terms, and merged them
when a level held ``crisismerge`` of them; with room for a whole group it writes one segment at
the ``COMMIT`` (benchmarks/journal/2026-12-07-first-index-sqlite.md). Memory: at most this much
per writer while the group's statement runs."""

MERGE_STEP_PAGES = 500
"""Pages one ``merge`` step of ``merge_fts`` writes (~50 ms on this machine): the write lock is
let go between steps, so a live append waits at most one step."""

MERGE_MAX_STEPS = 10_000
"""A bound on ``merge_fts``'s steps (the 330 MB corpus's first index needs ~80)."""


def fts_automerge(conn: apsw.Connection) -> int:
    """``docs_fts``'s current ``automerge`` setting."""
    row = conn.execute("SELECT v FROM docs_fts_config WHERE k = 'automerge'").fetchone()
    return FTS_AUTOMERGE if row is None else int(row[0])


def fts_hashsize(conn: apsw.Connection) -> int:
    """``docs_fts``'s current ``hashsize`` setting (bytes)."""
    row = conn.execute("SELECT v FROM docs_fts_config WHERE k = 'hashsize'").fetchone()
    return FTS_HASHSIZE if row is None else int(row[0])


def _set_fts_mode(conn: apsw.Connection, automerge: int, hashsize: int) -> None:
    """Set ``docs_fts``'s ``automerge`` and ``hashsize`` in a transaction of their own, best
    effort: a busy index keeps the settings it has (a first index then merges and flushes as
    usual; lowered settings are put back by the next drain)."""
    try:
        if conn.in_transaction:
            return
        if fts_automerge(conn) == automerge and fts_hashsize(conn) == hashsize:
            return
        with immediate(conn):
            for name, value in (("automerge", automerge), ("hashsize", hashsize)):
                conn.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES (?, ?)", (name, value))
    except TRANSIENT_ERRORS:
        log.debug("setting the FTS automerge and hashsize: busy", exc_info=True)
    except apsw.Error:
        log.warning("setting the FTS automerge and hashsize failed", exc_info=True)


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


def begin(conn: apsw.Connection, tuning: WriteTuning) -> RecentDeferral | None:
    """At a drain's first write: a ``RecentDeferral`` when the index holds no document (a first
    index, ``docs_fts`` merging only at its end), else None (an interrupted first index's
    ``automerge`` put back)."""
    if conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is not None:
        _set_fts_mode(conn, FTS_AUTOMERGE, FTS_HASHSIZE)
        return None
    convert_if_empty(conn, enabled=tuning.vacuum)
    _set_fts_mode(conn, FIRST_INDEX_AUTOMERGE, FIRST_INDEX_HASHSIZE)
    return RecentDeferral()


def end(conn: apsw.Connection, deferral: RecentDeferral | None, tuning: WriteTuning) -> None:
    """At the drain's end (no transaction open): a first index fills ``docs_recent``, puts
    ``automerge`` back, merges ``docs_fts`` and gives the freed pages back; any other drain gives
    pages back when enough are free. Best effort: never raises."""
    if deferral is None:
        give_back_if_worth(conn, tuning.vacuum_step_pages)
        return
    try:
        deferral.fill(conn)
    except TRANSIENT_ERRORS:
        # Another process holds the write lock: the live floor stays (valid, see above).
        log.debug("filling the recent-documents table: busy", exc_info=True)
    except apsw.Error:
        log.warning("filling the recent-documents table failed", exc_info=True)
    _set_fts_mode(conn, FTS_AUTOMERGE, FTS_HASHSIZE)
    try:
        if deferral.rows:  # this writer wrote documents: their segments are its own
            merge_fts(conn)
    except TRANSIENT_ERRORS:
        # Busy: the segments stay as they are (valid; later writes merge them as usual).
        log.debug("merging the FTS segments: busy", exc_info=True)
    except apsw.Error:
        log.warning("merging the FTS segments failed", exc_info=True)
    if deferral.rows:
        give_back_free_pages(conn, tuning.vacuum_step_pages)  # best effort, never raises
