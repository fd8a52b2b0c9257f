"""The index file under faults (RELIABILITY 9, 10, 12, 13), on real files."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import apsw
import pytest
from index_helpers import doc, insert

import engine.index.recent as recent
from engine.index.checks import doc_count, docs_by_kind, health_check
from engine.index.db import (
    SourceRow,
    clear_index,
    connect,
    delete_docs,
    delete_docs_by_source,
    file_identity,
    get_source,
    immediate,
    list_sources,
    meta_get,
    meta_set,
    open_index,
    put_source,
)
from engine.index.documents import delete_docs_where_session_not_in
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION


def _usable(path: Path) -> None:
    """The index answers a MATCH and takes a write."""
    c = connect(path)
    try:
        insert(c, [doc("pr:1", "hello world", title="greeting")])
        hits = c.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH '\"hello\"'").fetchall()
        assert len(hits) == 1
        assert c.pragma("user_version") == SEARCH_INDEX_SCHEMA_VERSION
    finally:
        c.close()


def _built(path: Path, n: int = 200) -> None:
    open_index(path)
    c = connect(path)
    insert(c, [doc(f"pr:{i}", f"body number {i} " * 50, title=f"pr {i}") for i in range(n)])
    c.pragma("wal_checkpoint", "TRUNCATE")
    c.close()


def test_new_index_creates_folders_and_gitignore(index_path: Path) -> None:
    report = open_index(index_path)
    assert report.recreated_reason is None
    assert (index_path.parent / ".gitignore").read_text() == "*\n"
    assert report.identity == file_identity(index_path)
    _usable(index_path)


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(b"\x00\xff garbage " * 500, id="garbage"),
        pytest.param(b"just some text, not a database\n" * 100, id="text"),
        pytest.param(b"SQLite format 3\x00" + b"\x00" * 34, id="50-byte-header"),
        pytest.param(b"", id="zero-length"),
    ],
)
def test_bad_file_at_index_path_is_recreated(index_path: Path, content: bytes) -> None:
    index_path.parent.mkdir(parents=True)
    index_path.write_bytes(content)
    report = open_index(index_path)
    if content:
        assert report.recreated_reason
    _usable(index_path)


def test_truncated_index_is_recreated(index_path: Path) -> None:
    _built(index_path)
    size = index_path.stat().st_size
    with open(index_path, "r+b") as fh:
        fh.truncate(size // 3)
    report = open_index(index_path)
    assert report.recreated_reason
    _usable(index_path)


def test_wrong_version_is_recreated_in_place(index_path: Path) -> None:
    index_path.parent.mkdir(parents=True)
    c = apsw.Connection(str(index_path))
    c.execute("CREATE TABLE docs(x); PRAGMA user_version = 3")
    c.close()
    inode = file_identity(index_path)
    report = open_index(index_path)
    assert report.recreated_reason == f"schema version 3, expected {SEARCH_INDEX_SCHEMA_VERSION}"
    assert file_identity(index_path) == inode  # same file: no ghost for other processes
    _usable(index_path)


def test_missing_table_is_recreated(index_path: Path) -> None:
    _built(index_path)
    c = connect(index_path)
    c.execute("DROP TABLE sources")
    c.close()
    assert "missing tables: sources" in (open_index(index_path).recreated_reason or "")
    _usable(index_path)


def test_healthy_index_passes_health_check(conn: apsw.Connection) -> None:
    insert(conn, [doc("pr:1", "alpha beta", title="x")])
    assert health_check(conn) == []


def test_fts_shadow_damage_is_caught_by_health_check(index_path: Path) -> None:
    _built(index_path)
    c = connect(index_path)
    assert health_check(c) == []
    # Silent damage: drop index segments; plain queries keep working.
    c.execute(
        "DELETE FROM docs_fts_data WHERE id > 10 AND id IN (SELECT id FROM docs_fts_data LIMIT 5)"
    )
    assert health_check(c)
    c.close()


@pytest.mark.parametrize("table", ["docs_fts", "docs_recent", "docs_title"])
def test_damage_to_any_full_text_table_is_caught_without_its_own_integrity_check(
    index_path: Path, table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recent, "RECENT_MIN_CORPUS", 0)  # docs_recent holds the documents
    # quick_check runs FTS5's integrity method (SQLite >= 3.44), so the health check no longer
    # runs each table's 'integrity-check' again: it must still see every table's damage.
    _built(index_path)
    c = connect(index_path)
    assert health_check(c) == []
    c.execute(f"UPDATE {table}_data SET block = zeroblob(length(block)) WHERE id > 10")
    assert any(p.startswith("quick_check: fts5") for p in health_check(c))
    c.close()


def test_fts_shadow_damage_at_open_recreates(index_path: Path) -> None:
    _built(index_path)
    c = connect(index_path)
    c.execute("UPDATE docs_fts_data SET block = zeroblob(length(block))")
    c.execute("DELETE FROM docs_fts_config")
    c.close()
    report = open_index(index_path)
    assert report.recreated_reason
    _usable(index_path)


def test_drift_between_docs_and_fts_is_reported(conn: apsw.Connection) -> None:
    insert(conn, [doc("pr:1", "alpha"), doc("pr:2", "beta")])
    rowid = conn.execute("SELECT id FROM docs WHERE doc_id = 'pr:2'").fetchone()[0]
    conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))
    assert any("drift" in p for p in health_check(conn))


def test_second_connection_writing_while_schema_is_recreated(index_path: Path) -> None:
    index_path.parent.mkdir(parents=True)
    other = apsw.Connection(str(index_path))
    other.set_busy_timeout(5000)
    other.pragma("journal_mode", "wal")
    other.execute("CREATE TABLE docs(x); PRAGMA user_version = 3")
    inode = file_identity(index_path)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO docs VALUES (1)")
    reports = []
    opener = threading.Thread(target=lambda: reports.append(open_index(index_path)))
    opener.start()  # waits on the busy timeout while ``other`` holds the write lock
    other.execute("COMMIT")
    opener.join()
    assert reports[0].recreated_reason
    # The other connection follows the new schema in the very same file (no ghost file).
    insert(other, [doc("pr:9", "written by the other process")])
    assert file_identity(index_path) == inode
    mine = connect(index_path)
    assert mine.execute("SELECT doc_id FROM docs").fetchall() == [("pr:9",)]
    mine.close()
    other.close()


def test_file_identity_changes_when_the_file_is_replaced(index_path: Path, tmp_path: Path) -> None:
    open_index(index_path)
    before = file_identity(index_path)
    replacement = tmp_path / "other.db"
    replacement.write_bytes(index_path.read_bytes())
    os.replace(replacement, index_path)
    assert file_identity(index_path) != before
    os.unlink(index_path)
    assert file_identity(index_path) is None


def test_deferred_read_then_write_races_but_immediate_waits(index_path: Path) -> None:
    open_index(index_path)
    a, b = connect(index_path), connect(index_path)
    # The fault: a deferred reader that then writes after another commit fails at once.
    b.execute("BEGIN")
    assert get_source(b, "chat:s1") is None
    with immediate(a):
        put_source(a, SourceRow("chat:s1", cursor=10))
    with pytest.raises(apsw.BusyError):
        put_source(b, SourceRow("chat:s1", cursor=20))
    b.execute("ROLLBACK")
    # The handling: read-modify-write under BEGIN IMMEDIATE waits for the lock instead.
    a.execute("BEGIN IMMEDIATE")
    put_source(a, SourceRow("chat:s1", cursor=30))

    def bump() -> None:
        with immediate(b):
            row = get_source(b, "chat:s1")
            assert row is not None
            put_source(b, SourceRow("chat:s1", cursor=row.cursor + 1))

    worker = threading.Thread(target=bump)
    worker.start()
    a.execute("COMMIT")
    worker.join()
    assert get_source(a, "chat:s1") == SourceRow("chat:s1", cursor=31)
    a.close()
    b.close()


def test_immediate_rolls_back_on_error(conn: apsw.Connection) -> None:
    def failing_write() -> None:
        with immediate(conn):
            put_source(conn, SourceRow("k", cursor=5))
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        failing_write()
    assert get_source(conn, "k") is None


def test_clear_index_keeps_schema_and_file(index_path: Path, conn: apsw.Connection) -> None:
    insert(conn, [doc("pr:1", "alpha", source_key="pr:1")])
    put_source(conn, SourceRow("pr:1", cursor=1))
    meta_set(conn, "backfill_completed_at", "1")
    inode = file_identity(index_path)
    clear_index(conn)
    assert doc_count(conn) == 0
    assert list_sources(conn) == []
    assert meta_get(conn, "backfill_completed_at") is None
    assert file_identity(index_path) == inode
    assert health_check(conn) == []
    _usable(index_path)


def test_upsert_replaces_and_is_idempotent(conn: apsw.Connection) -> None:
    insert(conn, [doc("pr:1", "alpha", updated_at=1000)])
    insert(conn, [doc("pr:1", "alpha", updated_at=1000)])
    insert(conn, [doc("pr:1", "gamma", updated_at=2000)])
    assert doc_count(conn) == 1
    assert (
        conn.execute("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'alpha'").fetchone()[0]
        == 0
    )
    assert (
        conn.execute("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'gamma'").fetchone()[0]
        == 1
    )
    assert health_check(conn) == []


def test_many_docs_in_one_second_all_land(conn: apsw.Connection) -> None:
    # More than the 1024 slots of one second spill over; nothing is lost or duplicated.
    insert(conn, [doc(f"terminal:s@{i}", f"chunk {i}", updated_at=5000) for i in range(1500)])
    insert(conn, [doc("pr:1", "later", updated_at=6000)])
    assert doc_count(conn) == 1501
    assert health_check(conn) == []


def test_delete_functions(conn: apsw.Connection) -> None:
    insert(conn, [
        doc("chat:s1:m1", "a", session_id="s1", source_key="chat:s1"),
        doc("chat:s2:m1", "b", session_id="s2", source_key="chat:s2"),
        doc("terminal:s3@0", "c", session_id="s3", source_key="terminal:s3"),
        doc("pr:1", "d", source_key="pr:1"),
    ])  # fmt: skip
    with immediate(conn):
        assert delete_docs_where_session_not_in(conn, "chat", ["s1"]) == 1
        delete_docs_by_source(conn, "terminal:s3")
        delete_docs(conn, ["pr:1", "pr:404"])
    assert docs_by_kind(conn) == {"chat": 1}
    assert health_check(conn) == []


def test_sources_round_trip(conn: apsw.Connection) -> None:
    row = SourceRow(
        "chat:s1", cursor=42, identity='{"ino": 1}', size=99, last_run=7, state='{"t": 1}'
    )
    with immediate(conn):
        put_source(conn, row)
    assert get_source(conn, "chat:s1") == row
    assert list_sources(conn) == [row]
    from engine.index.sources import delete_source

    with immediate(conn):
        delete_source(conn, "chat:s1")
    assert get_source(conn, "chat:s1") is None
