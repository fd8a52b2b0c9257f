"""``index_db.connect`` sets WAL and the busy timeout itself (without ``apsw.bestpractice``)."""

from __future__ import annotations

from pathlib import Path

from engine.index import db as index_db
from engine.index.schema import BUSY_TIMEOUT_MS


def test_connect_turns_on_wal_and_the_busy_timeout(tmp_path: Path) -> None:
    conn = index_db.connect(tmp_path / "x.db")
    try:
        assert conn.pragma("journal_mode") == "wal"
        assert conn.pragma("busy_timeout") == BUSY_TIMEOUT_MS
        assert conn.pragma("synchronous") == 1  # NORMAL
    finally:
        conn.close()
