"""A group of passes holds its ``docs_fts`` rows and writes them in row-id order before its
commit (``IndexWriter.begin_group``, the first-index budget): the same rows as written one by
one, fewer segments, and nothing of a group that rolls back."""

from __future__ import annotations

import apsw
import pytest

from engine.index.checks import health_check
from engine.index.db import scalar
from engine.index.writer import IndexWriter
from tests.engine.index.index_helpers import NOW_MS, doc


def _matches(conn: apsw.Connection, query: str) -> list[str]:
    return [str(r[0]) for r in conn.execute(
        "SELECT d.doc_id FROM docs_fts JOIN docs AS d ON d.id = docs_fts.rowid"
        " WHERE docs_fts MATCH ? ORDER BY d.doc_id", (query,))]  # fmt: skip


def _segments(conn: apsw.Connection) -> int:
    return scalar(conn, "SELECT count(DISTINCT segid) FROM docs_fts_idx")


def _group(writer: IndexWriter, passes: list[list[tuple[str, str, int]]]) -> None:
    writer.begin_group()
    for batch in passes:
        with writer.transaction():
            writer.upsert_docs([doc(i, body, updated_at=NOW_MS + s * 1000) for i, body, s in batch])
    assert writer.commit_group()


def test_held_rows_are_written_sorted_and_a_replaced_one_only_in_its_last_version(
    writer: IndexWriter,
) -> None:
    # Three passes whose seconds go down: written as they came, each would flush a segment.
    _group(writer, [[("chat:a:1", "alpha one", 30), ("chat:a:2", "shared", 31)],
                    [("chat:b:1", "bravo", 20), ("chat:a:1", "alpha two", 30)],
                    [("chat:c:1", "charlie shared", 10)]])  # fmt: skip
    conn = writer.conn
    assert _segments(conn) == 1
    assert _matches(conn, "one") == []  # replaced inside the group: never reached the table
    assert _matches(conn, "two") == ["chat:a:1"]
    assert _matches(conn, "shared") == ["chat:a:2", "chat:c:1"]
    assert _matches(conn, "bravo") == ["chat:b:1"]
    assert health_check(conn) == []


def test_a_group_rolled_back_inside_a_pass_keeps_none_of_its_held_rows(
    writer: IndexWriter,
) -> None:
    conn = writer.conn
    writer.begin_group()
    with writer.transaction():
        writer.upsert_docs([doc("chat:a:1", "lost words", updated_at=NOW_MS)])
    with pytest.raises(apsw.ConstraintError), writer.transaction():
        conn.execute("INSERT INTO meta(key, value) VALUES ('k', NULL)")  # rolls the group back
    # After the rollback a pass commits alone, and its rows go into the table with it.
    with writer.transaction():
        writer.upsert_docs([doc("chat:b:1", "kept words", updated_at=NOW_MS)])
    assert not writer.commit_group()
    assert _matches(conn, "words") == ["chat:b:1"]
    assert _matches(conn, "lost") == []  # the row id is free again: it went to chat:b:1
    assert health_check(conn) == []


def test_an_abandoned_group_stores_nothing(writer: IndexWriter) -> None:
    writer.begin_group()
    with writer.transaction():
        writer.upsert_docs([doc("chat:a:1", "gone", updated_at=NOW_MS)])
    writer.abandon_group()
    assert scalar(writer.conn, "SELECT count(*) FROM docs") == 0
    assert _matches(writer.conn, "gone") == []
