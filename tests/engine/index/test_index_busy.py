"""A lock held by another process is not damage: opening never deletes a live index (RELIABILITY 13).

Two ingesting processes start on a fresh project: one creates the file and switches it to WAL while
the other opens it. A busy answer there once counted as "cannot open", and the file — with the
first process's schema and rows — was deleted under it ("no such table: sources" in the other).
"""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from engine.index import db as index_db
from engine.index.db import open_index


def test_a_locked_index_is_never_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ".ade" / "cache" / "search-index.db"
    path.parent.mkdir(parents=True)
    holder = apsw.Connection(str(path))
    holder.execute("CREATE TABLE keep(x); INSERT INTO keep VALUES (1)")
    inode = path.stat().st_ino
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setattr(index_db, "BUSY_TIMEOUT_MS", 50)  # wait briefly, not the full 5 s
    try:
        with pytest.raises(apsw.BusyError):
            open_index(path)
    finally:
        holder.execute("COMMIT")
    assert path.stat().st_ino == inode
    assert holder.execute("SELECT x FROM keep").fetchall() == [(1,)]
    holder.close()
