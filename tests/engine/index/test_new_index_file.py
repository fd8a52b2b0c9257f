"""A new index file is made without the syncs that protect nothing yet: no rollback journal for
its two header writes, no ``VACUUM`` and checkpoint of a schema nothing was dropped from, and the
writer keeps the connection that made it (closing it would checkpoint and delete the ``-wal``).
Each was an fsync or an unlink on the way to a first index's first document
(benchmarks/journal/2026-12-08-first-index-small.md). What the file is made with stays."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from engine.index import vacuum
from engine.index.db import PAGE_SIZE, connect, open_index, scalar
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION, check_open
from engine.index.writer import IndexWriter


class _CountingVFS(apsw.VFS):
    """The default VFS, counting what reaches the disk: files opened, synced and deleted."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []
        super().__init__("counting-syncs", "unix", makedefault=True)

    def xOpen(self, name: str | apsw.URIFilename | None, flags: list[int]) -> apsw.VFSFile:
        return _CountingFile(self, name, flags)

    def xDelete(self, filename: str, syncdir: bool) -> None:
        self.events.append(("delete", os.path.basename(filename)))
        super().xDelete(filename, syncdir)


class _CountingFile(apsw.VFSFile):
    def __init__(
        self, vfs: _CountingVFS, name: str | apsw.URIFilename | None, flags: list[int]
    ) -> None:
        self._vfs = vfs
        path = name.filename() if isinstance(name, apsw.URIFilename) else str(name)
        self._name = os.path.basename(path)
        vfs.events.append(("open", self._name))
        super().__init__("unix", name, flags)

    def xSync(self, flags: int) -> None:
        self._vfs.events.append(("sync", self._name))
        super().xSync(flags)


@pytest.fixture
def disk() -> Iterator[_CountingVFS]:
    vfs = _CountingVFS()
    try:
        yield vfs
    finally:
        vfs.unregister()


def test_a_new_index_reaches_the_writer_without_a_journal_a_checkpoint_or_a_reopen(
    tmp_path: Path, disk: _CountingVFS
) -> None:
    writer = IndexWriter(tmp_path / "cache" / "search-index.db")
    try:
        conn = writer.connection()
        events = list(disk.events)
        assert not [e for e in events if e[1].endswith("-journal")]  # no rollback journal
        assert not [e for e in events if e[0] == "delete"]  # no -wal checkpointed away
        assert [e for e in events if e == ("open", "search-index.db")] == [
            ("open", "search-index.db")
        ]
        # The WAL's header, synced by SQLite as the first commit starts it: the only sync.
        assert [e for e in events if e[0] == "sync"] == [("sync", "search-index.db-wal")]
        # Made as before: WAL, NORMAL syncs from here on, 16 KiB pages, incremental vacuum.
        assert conn.pragma("journal_mode") == "wal"
        assert conn.pragma("synchronous") == 1
        assert scalar(conn, "PRAGMA page_size") == PAGE_SIZE
        assert scalar(conn, "PRAGMA auto_vacuum") == vacuum.AUTO_VACUUM_INCREMENTAL
        assert check_open(conn) == (None, True)
    finally:
        writer.close()
    other = connect(tmp_path / "cache" / "search-index.db")  # the next process's
    try:
        assert check_open(other) == (None, True)
        assert scalar(other, "PRAGMA auto_vacuum") == vacuum.AUTO_VACUUM_INCREMENTAL
    finally:
        other.close()


def test_an_index_recreated_over_dropped_tables_is_still_vacuumed(
    tmp_path: Path, disk: _CountingVFS
) -> None:
    path = tmp_path / "search-index.db"
    old = connect(path)
    old.execute("CREATE TABLE notes(body TEXT)")
    old.execute("INSERT INTO notes VALUES (?)", ("an unredacted title " * 4000,))
    old.pragma("user_version", SEARCH_INDEX_SCHEMA_VERSION - 1)
    old.close()
    disk.events.clear()
    report = open_index(path)
    assert report.recreated_reason is not None
    # The dropped table's pages were cleared: the VACUUM and its checkpoint ran.
    assert ("sync", "search-index.db") in disk.events
    conn = connect(path)
    try:
        assert scalar(conn, "PRAGMA freelist_count") == 0
        assert b"unredacted" not in path.read_bytes()
    finally:
        conn.close()
