"""The ``sources`` table: each source key's ingestion progress, and a source marked for
re-ingestion from the query path (DESIGN §3).

Writes run inside the caller's transaction (the one that wrote the source's documents), except
``mark_for_reingest``, which takes its own and never waits for the write lock
(``mark_for_reingest_in_txn`` writes the same inside the caller's).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from typing import Any

import apsw
import msgspec

from engine.index.schema import BUSY_TIMEOUT_MS
from engine.index.txn import immediate


class SourceRow(msgspec.Struct):
    """Ingestion progress of one source key (a transcript, a PR, a lane's git log)."""

    key: str
    cursor: int = 0
    identity: str = "{}"
    size: int = 0
    last_run: int = 0
    state: str = "{}"


REINGEST_STAT_PREFIX = "stat:"
"""The change-check row of a session source (``engine.ingest.reconcile.STAT_PREFIX``)."""

MANIFEST_KEY = "reconcile_manifest"
"""The ``meta`` row holding the digest of the last fully drained reconcile (the warm-run
manifest, ``engine.ingest.manifest``): while it matches, a catch-up skips the reconcile."""


def mark_for_reingest(conn: apsw.Connection, source_key: str) -> bool:
    """Make the next catch-up re-ingest ``source_key`` from zero (its docs rebuilt).

    Called from the query path when a re-derived snippet text no longer matches what was
    indexed (the transcript was rewritten, compressed or is gone): the cursor's fingerprint is
    cleared, so the next pass resets the source, its change-check row is dropped and the warm-run
    manifest forgotten, so the next catch-up reconciles and queues it (the file itself may be
    unchanged: a manifest that still matched would skip it). Never waits for the write lock (a query must not stall behind a
    drain); returns False when the mark could not be written now.
    """
    conn.set_busy_timeout(0)
    try:
        with immediate(conn):
            mark_for_reingest_in_txn(conn, source_key)
    except apsw.Error:
        return False
    finally:
        conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    return True


def mark_for_reingest_in_txn(conn: apsw.Connection, source_key: str) -> None:
    """What :func:`mark_for_reingest` writes, inside the caller's transaction: a caller that
    deletes a source's rows marks it in the same transaction, so the rows never go without
    the mark that brings them back."""
    conn.execute("UPDATE sources SET identity = '{}' WHERE key = ?", (source_key,))
    conn.execute("DELETE FROM sources WHERE key = ?", (REINGEST_STAT_PREFIX + source_key,))
    conn.execute("DELETE FROM meta WHERE key = ?", (MANIFEST_KEY,))


def _source_row(r: Any) -> SourceRow:
    return SourceRow(str(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4]), str(r[5]))


def get_source(conn: apsw.Connection, key: str) -> SourceRow | None:
    """The stored progress of ``key``, or None when it was never ingested."""
    row = conn.execute(
        "SELECT key, cursor, identity, size, last_run, state FROM sources WHERE key = ?", (key,)
    ).fetchone()
    return None if row is None else _source_row(row)


def put_source(conn: apsw.Connection, row: SourceRow) -> None:
    """Insert or replace one source row (inside the transaction that wrote its docs)."""
    conn.execute(
        "INSERT OR REPLACE INTO sources(key, cursor, identity, size, last_run, state)"
        " VALUES (?,?,?,?,?,?)",
        (row.key, row.cursor, row.identity, row.size, row.last_run, row.state),
    )


def delete_source(conn: apsw.Connection, key: str) -> None:
    """Forget one source's progress (the next pass starts from zero)."""
    conn.execute("DELETE FROM sources WHERE key = ?", (key,))


def list_sources(conn: apsw.Connection) -> list[SourceRow]:
    """Every source row, by key."""
    rows = conn.execute(
        "SELECT key, cursor, identity, size, last_run, state FROM sources ORDER BY key"
    ).fetchall()
    return [_source_row(r) for r in rows]
