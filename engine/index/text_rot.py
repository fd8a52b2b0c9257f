"""Stored text that is not UTF-8 (docs/reliability-faults.md): bit-rot inside a row, which ``quick_check`` cannot
see (SQLite stores TEXT as given and never validates it), makes apsw raise
``UnicodeDecodeError`` on every read that reaches the row. The row is cut out of the index and
its source marked for re-ingestion, so the search answers now and the row comes back from its
source at the next catch-up (the daemon's writer, or the next CLI run).
"""

from __future__ import annotations

import apsw

from engine.index.documents import delete_rows_by_id
from engine.index.schema import BUSY_TIMEOUT_MS
from engine.index.sources import MANIFEST_KEY, mark_for_reingest_in_txn
from engine.index.txn import immediate

TEXT_COLUMNS = ("doc_id", "kind", "title", "rank_title", "title_norm", "session_id", "lane_id",
                "anchor", "source_key", "tool")  # fmt: skip
"""Every TEXT column of ``docs`` (``body`` and ``digest`` are BLOBs, never decoded)."""

ROT_NOTE = (
    "skipped {count} index row(s) with invalid UTF-8 (disk bit-rot); re-indexing their sources"
)
"""Said once by the answer that met the rows."""


def _is_utf8(value: bytes | None) -> bool:
    if value is None:
        return True
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def find_rotten_rows(conn: apsw.Connection) -> dict[int, str | None]:
    """Row id → source key (None when none, or itself unreadable) of every document with a text
    column that is not UTF-8. Read as BLOBs, which apsw hands over undecoded: one pass over the
    rows (~50 ms for 100k documents), paid only after a read failed."""
    blobs = ", ".join(f"CAST({col} AS BLOB)" for col in TEXT_COLUMNS)
    key_at = TEXT_COLUMNS.index("source_key")
    rotten: dict[int, str | None] = {}
    for rowid, *values in conn.execute(f"SELECT id, {blobs} FROM docs"):
        if all(_is_utf8(v) for v in values):
            continue
        key = values[key_at]
        rotten[int(rowid)] = key.decode("utf-8") if _is_utf8(key) and key is not None else None
    return rotten


def heal_rotten_rows(conn: apsw.Connection) -> int:
    """Delete every document whose stored text is not UTF-8 and mark its source for
    re-ingestion; returns how many were deleted (0: the error came from elsewhere)."""
    rotten = find_rotten_rows(conn)
    if not rotten:
        return 0
    conn.set_busy_timeout(BUSY_TIMEOUT_MS)
    # One transaction: rows deleted without their source's mark would be lost until a rebuild
    # (a mark taken apart from the delete fails whenever the daemon's writer holds the lock).
    with immediate(conn):
        delete_rows_by_id(conn, list(rotten))
        # A row whose source key is itself unreadable: the next reconcile re-lists everything.
        conn.execute("DELETE FROM meta WHERE key = ?", (MANIFEST_KEY,))
        for key in sorted({k for k in rotten.values() if k is not None}):
            mark_for_reingest_in_txn(conn, key)
    return len(rotten)
