"""Reads over the whole index: the health check and the document counts (DESIGN §3)."""

from __future__ import annotations

import contextlib

import apsw

from engine.index.recent import recent_floor
from engine.index.schema import TRANSIENT_ERRORS
from engine.index.txn import scalar

QUICK_CHECK_RUNS_FTS5 = tuple(int(p) for p in apsw.sqlite_lib_version().split(".")[:2]) >= (3, 44)
"""SQLite 3.44 made ``PRAGMA quick_check`` run every virtual table's integrity method, FTS5's
``integrity-check`` included (a damaged segment is reported as ``fts5: corruption found ...``).
Running the three FTS5 checks again doubled the health check (~0.6 of ~1.3 s on a 30 MB index,
ingestion first under load), and the writer thread indexes nothing while it runs."""


def health_check(conn: apsw.Connection) -> list[str]:
    """Problems found by ``quick_check`` (FTS5's ``integrity-check`` included) and row counts.

    Every statement reads one snapshot (a read transaction around them all): on a reader
    racing the writer (ingestion first), a commit between two counts must not look like drift.

    Returns:
        One line per problem; empty when the index is healthy. Anything else means rebuild.

    Raises:
        apsw.InterruptError: the check was interrupted (the service is closing).
        apsw.BusyError, apsw.LockedError: a lock, which says nothing about the file.
    """
    problems: list[str] = []
    own = not conn.in_transaction
    try:
        if own:
            conn.execute("BEGIN")
        rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check")]
        if rows != ["ok"]:
            problems.extend(f"quick_check: {r}" for r in rows)
        if not QUICK_CHECK_RUNS_FTS5:
            conn.execute("INSERT INTO docs_fts(docs_fts, rank) VALUES ('integrity-check', 1)")
            conn.execute("INSERT INTO docs_title(docs_title, rank) VALUES ('integrity-check', 1)")
            conn.execute("INSERT INTO docs_recent(docs_recent, rank) VALUES ('integrity-check', 1)")
        docs = scalar(conn, "SELECT count(*) FROM docs")
        fts = scalar(conn, "SELECT count(*) FROM docs_fts")
        if docs != fts:
            problems.append(f"row count drift: {docs} docs, {fts} FTS rows")
        floor = recent_floor(conn)
        held = scalar(conn, "SELECT count(*) FROM docs WHERE id >= ?", (floor,))
        recent = scalar(conn, "SELECT count(*) FROM docs_recent")
        if held != recent:
            problems.append(f"recent row drift: {held} docs above the floor, {recent} rows")
        titled = scalar(conn, "SELECT count(*) FROM docs WHERE rank_title != ''")
        titles = scalar(conn, "SELECT count(*) FROM docs_title")
        if titled != titles:
            problems.append(f"title row drift: {titled} titled docs, {titles} title rows")
    except (apsw.InterruptError, *TRANSIENT_ERRORS):
        raise
    except apsw.Error as err:
        problems.append(f"{type(err).__name__}: {err}")
    finally:
        if own and conn.in_transaction:
            with contextlib.suppress(apsw.Error):
                conn.execute("ROLLBACK")  # read only: nothing to keep
    return problems


def doc_count(conn: apsw.Connection) -> int:
    """How many documents the index holds."""
    return scalar(conn, "SELECT count(*) FROM docs")


def docs_by_kind(conn: apsw.Connection) -> dict[str, int]:
    """Document count per kind (kinds with no document are absent)."""
    rows = conn.execute("SELECT kind, count(*) FROM docs GROUP BY kind ORDER BY kind")
    return {str(k): int(n) for k, n in rows}
