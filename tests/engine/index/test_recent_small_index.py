"""Below ``RECENT_MIN_CORPUS`` documents ``docs_recent`` holds none (the index-size budget,
docs/index-size.md): its floor sits above every document, written batch by batch or by a first
index, and a 2-3 character prefix is answered exactly from ``docs_fts``."""

from __future__ import annotations

import apsw
import pytest
from index_helpers import NOW, NOW_MS, doc, insert, write

import engine.index.recent as recent
from engine.index.checks import health_check
from engine.index.db import IndexDoc, delete_docs, immediate, scalar
from engine.index.recent import recent_floor
from engine.index.writer import IndexWriter
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs


def _docs(start: int, count: int, body: str) -> list[IndexDoc]:
    return [doc(f"chat:c:{i}", f"{body} {i}", session_id="c", updated_at=NOW_MS - 10**6 + i * 1000)
            for i in range(start, start + count)]  # fmt: skip


def _recent_rows(conn: apsw.Connection) -> int:
    return scalar(conn, "SELECT count(*) FROM docs_recent")


def _top(conn: apsw.Connection) -> int:
    return scalar(conn, "SELECT max(id) FROM docs")


def test_a_small_index_written_batch_by_batch_keeps_no_recent_rows(
    conn: apsw.Connection, project: Project
) -> None:
    for start in range(0, 60, 7):
        insert(conn, _docs(start, 7, "thunder" if start % 2 else "thimble"))
        assert _recent_rows(conn) == 0
        assert recent_floor(conn) > _top(conn)
    with immediate(conn):
        delete_docs(conn, ["chat:c:3"])
    assert health_check(conn) == []
    # 63 documents, 28 of them thunder, one thimble deleted.
    for text, want in (("th", 62), ("thu", 28), ("thi", 34), ("thunder", 28)):
        res = run_query(conn, SearchQueryArgs(query=text, limit=100), project=project, now=NOW)
        assert res.total == want, text
        assert not res.warnings
        assert not res.results_truncated


def test_a_small_first_index_writes_no_recent_rows_and_answers_prefixes(
    writer: IndexWriter, project: Project
) -> None:
    conn = writer.conn
    with writer.first_index():
        for start in range(0, 40, 8):
            write(writer, _docs(start, 8, "zephyr"))
    assert _recent_rows(conn) == 0
    assert recent_floor(conn) > _top(conn)
    assert health_check(conn) == []
    res = run_query(conn, SearchQueryArgs(query="ze", limit=100), project=project, now=NOW)
    assert sorted(i.doc_id for i in res.items) == sorted(f"chat:c:{i}" for i in range(40))
    assert not res.warnings


def test_an_index_written_before_the_bound_drops_its_recent_rows_on_the_next_write(
    conn: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as m:  # the rule before the bound: every document held
        m.setattr(recent, "RECENT_MIN_CORPUS", 0)
        insert(conn, _docs(0, 10, "thunder"))
        assert recent_floor(conn) == 0
        assert _recent_rows(conn) == 10
    insert(conn, _docs(10, 2, "thunder"))
    assert _recent_rows(conn) == 0
    assert health_check(conn) == []
    res = run_query(conn, SearchQueryArgs(query="thu"), project=project, now=NOW)
    assert res.total == 12


def test_past_the_bound_the_table_fills_with_new_documents(
    conn: apsw.Connection, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(recent, "RECENT_MIN_CORPUS", 30)
    insert(conn, _docs(0, 25, "rain"))
    assert _recent_rows(conn) == 0
    # The batch that takes the index past the bound is the first the table holds.
    insert(conn, _docs(25, 10, "thunder"))
    insert(conn, _docs(35, 4, "thunder"))
    assert _recent_rows(conn) == 14
    assert health_check(conn) == []
    res = run_query(conn, SearchQueryArgs(query="th", limit=100), project=project, now=NOW)
    assert res.total == 14
