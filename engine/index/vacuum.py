"""The index file without free pages (index-size budget): made with ``auto_vacuum = INCREMENTAL``, its
free pages given back in short steps after a first index.

FTS5's merges free the pages of the segments they replace; a first index ends with one merge of
every segment (``engine.index.recent.merge_fts``), which left ~9% of the 330 MB corpus's file on
the free list (23 MB of 247.5 MB, benchmarks/journal/waves-1-to-3.md, "Index size (14.2)"). Later writes
reuse free pages before they grow the file, but not all of them: the end of a later drain gives
them back once they are more than ``IDLE_FREE_SHARE`` of the file (``give_back_if_worth``).

``auto_vacuum`` can only be chosen before the file's first table: ``connect`` sets it on a file
with no page yet (``set_for_new_file``). A file made before it (``auto_vacuum = NONE``) has an
older ``SEARCH_INDEX_SCHEMA_VERSION`` and is recreated, as DESIGN §3 says; the ``VACUUM`` that
``recreate_in_place`` runs after dropping the old tables converts it (``convert_vacuum``). A
file whose conversion failed (that ``VACUUM`` is best effort) is converted at the start of its
next first index, when the file holds no document and a ``VACUUM`` costs next to nothing
(``convert_if_empty``). Why a version and not the open check seeing the pragma: the check would
drop a full index on every open for as long as its conversion kept failing; a version mismatch
recreates a file once, and only the empty file is ever converted.

With WAL the file only shrinks at a checkpoint that copies the last step: the CLI's when its
last connection closes, the daemon's at its drainer's idle checkpoint.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Iterator

import apsw

from engine.basics.logs import get_logger
from engine.index.errors import TRANSIENT_ERRORS
from engine.index.tuning import DEFAULT_TUNING
from engine.index.txn import immediate, scalar

log = get_logger(__name__)

AUTO_VACUUM_INCREMENTAL = 2
"""``PRAGMA auto_vacuum``'s value for ``INCREMENTAL``: free pages stay in the file until a
``PRAGMA incremental_vacuum`` gives them back (``FULL`` would move pages at every commit)."""

VACUUM_MAX_STEPS = 20_000
"""A bound on one ``give_back_free_pages`` (the 330 MB corpus's first index needs ~12 steps):
a writer freeing pages as fast as the steps give them back cannot keep it going forever."""


def set_for_new_file(conn: apsw.Connection, *, enabled: bool = True) -> None:
    """Choose ``INCREMENTAL`` on a file with no page yet (a no-op on any other: the pragma would
    take the write lock on every connection of an existing file). ``enabled`` False
    (``WriteTuning.vacuum``): the file is made as before (``auto_vacuum = NONE``)."""
    if enabled and scalar(conn, "PRAGMA page_count") == 0:
        conn.pragma("auto_vacuum", AUTO_VACUUM_INCREMENTAL)


def incremental(conn: apsw.Connection) -> bool:
    """Whether the file can give free pages back (made or converted by this code)."""
    return scalar(conn, "PRAGMA auto_vacuum") == AUTO_VACUUM_INCREMENTAL


def convert_vacuum(conn: apsw.Connection, *, enabled: bool = True) -> None:
    """``VACUUM`` the file, choosing ``INCREMENTAL`` on the way when it has another mode: the
    only way to change the mode of a file that has tables. Costs what the file holds, so it is
    run only on a file just emptied (``recreate_in_place``, ``convert_if_empty``)."""
    if enabled and not incremental(conn):
        conn.pragma("auto_vacuum", AUTO_VACUUM_INCREMENTAL)
    conn.execute("VACUUM")


def convert_if_empty(conn: apsw.Connection, *, enabled: bool = True) -> None:
    """At the start of a first index: a file left with ``auto_vacuum = NONE`` (its conversion
    failed) is converted while it holds no document. Best effort, never fatal."""
    try:
        if not enabled or conn.in_transaction or incremental(conn):
            return
        if conn.execute("SELECT 1 FROM docs LIMIT 1").fetchone() is None:
            convert_vacuum(conn)
    except TRANSIENT_ERRORS:
        log.debug("converting the index to incremental vacuum: busy", exc_info=True)
    except apsw.Error:
        log.warning("converting the index to incremental vacuum failed", exc_info=True)


def vacuum_steps(
    conn: apsw.Connection, step_pages: int = DEFAULT_TUNING.vacuum_step_pages
) -> Iterator[int]:
    """Give the free pages back, one transaction of ``step_pages`` a step; yields the
    pages each committed step gave back (the write lock is free at every yield). Stops when the
    free list is empty, a step gives nothing back, or after ``VACUUM_MAX_STEPS``."""
    if not incremental(conn):
        return
    for _ in range(VACUUM_MAX_STEPS):
        with immediate(conn):
            before = scalar(conn, "PRAGMA freelist_count")
            if before == 0:
                return
            # One row a page given back: the cursor must be run to its end.
            conn.execute(f"PRAGMA incremental_vacuum({int(step_pages)})").fetchall()
            freed = before - scalar(conn, "PRAGMA freelist_count")
        yield freed
        if freed <= 0:
            return


IDLE_FREE_SHARE = 0.05
"""The share of the file's pages that may be free before the end of a later drain gives them
back (``give_back_if_worth``). FTS5's automerge and the recent table's pruning free pages that
the next writes reuse, so a little is left to them; but left alone, 30 rounds of live appends
to a 34 MB index grew it to 48 MB with 27% of it free (12 MB; with this rule 36 MB, 3% free,
for 55 ms of steps; benchmarks/journal/waves-1-to-3.md, "The index file without free pages"). At 5% the 330 MB corpus's file (0.914x
of its text in use) stays under 0.97x."""

IDLE_FREE_MIN_PAGES = 256
"""Free pages (4 MiB) below which a later drain gives nothing back, however small the file."""


def give_back_if_worth(
    conn: apsw.Connection, step_pages: int = DEFAULT_TUNING.vacuum_step_pages
) -> int:
    """At the end of a later drain: give the free pages back when they are more than
    ``IDLE_FREE_SHARE`` of the file (live appends' merges, a big session gone, an interrupted
    vacuum). Two header reads when there is nothing to do. Returns the pages given back."""
    try:
        if conn.in_transaction:
            return 0
        free = scalar(conn, "PRAGMA freelist_count")
        if free < IDLE_FREE_MIN_PAGES or free <= IDLE_FREE_SHARE * scalar(
            conn, "PRAGMA page_count"
        ):
            return 0
    except apsw.Error:
        return 0
    return give_back_free_pages(conn, step_pages)


def give_back_free_pages(
    conn: apsw.Connection, step_pages: int = DEFAULT_TUNING.vacuum_step_pages
) -> int:
    """Run ``vacuum_steps`` to the end, best effort: a busy index or a failing step keeps the
    pages it has (valid; the next first index or ``VACUUM`` gives them back). Returns the pages
    given back."""
    freed = 0
    try:
        for pages in vacuum_steps(conn, step_pages):
            freed += pages
    except TRANSIENT_ERRORS:
        log.debug("giving free pages back: busy", exc_info=True)
    except apsw.Error:
        log.warning("giving free pages back failed", exc_info=True)
    return freed
