"""2-3 character prefixes are answered from ``docs_recent`` (the index-size budget).

``docs_fts`` has no prefix index; ``docs_recent`` holds every document at or above a row-id floor
(the newest ``RECENT_DOCS``) with 2- and 3-character prefix indexes. The constants are made small
here so the floor moves within a test.
"""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
from index_helpers import NOW, NOW_MS, doc, insert, write

import engine.index.db as index_db
import engine.index.first_index as first_index
import engine.index.recent as recent
import engine.query.candidates as candidates
from engine.index.checks import health_check
from engine.index.db import connect, delete_docs, immediate, open_index, scalar
from engine.index.recent import recent_floor
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION
from engine.index.writer import IndexWriter
from engine.project.model import Project
from engine.query.candidates import RECENT_NOTE
from engine.query.cursor import decode_cursor, query_fingerprint
from engine.query.explain import explain_item
from engine.query.plan import build_plan
from engine.query.run import resolve_kinds, run_query
from engine.types import SearchQueryArgs


@pytest.fixture(autouse=True)
def small_recent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recent, "RECENT_DOCS", 20)
    monkeypatch.setattr(recent, "RECENT_SLACK", 5)
    monkeypatch.setattr(recent, "RECENT_MIN_CORPUS", 0)
    monkeypatch.setattr(candidates, "RECENT_DOCS", 20)
    monkeypatch.setattr(candidates, "BM25_WINDOW", 10)


def _held(conn: apsw.Connection) -> tuple[int, int]:
    floor = recent_floor(conn)
    above = scalar(conn, "SELECT count(*) FROM docs WHERE id >= ?", (floor,))
    return above, scalar(conn, "SELECT count(*) FROM docs_recent")


def _docs(start: int, count: int, body: str) -> list[index_db.IndexDoc]:
    return [doc(f"chat:c:{i}", f"{body} {i}", session_id="c", updated_at=NOW_MS - 10**6 + i * 1000)
            for i in range(start, start + count)]  # fmt: skip


def test_the_recent_table_holds_exactly_the_documents_above_its_floor(
    conn: apsw.Connection,
) -> None:
    insert(conn, _docs(0, 10, "old"))
    assert recent_floor(conn) == 0
    assert _held(conn) == (10, 10)
    for start in range(10, 60, 7):
        insert(conn, _docs(start, 7, "new"))
        above, rows = _held(conn)
        assert above == rows
        assert rows <= 25
    assert recent_floor(conn) > 0
    with immediate(conn):
        delete_docs(conn, ["chat:c:58", "chat:c:2"])
    assert _held(conn)[0] == _held(conn)[1]
    assert health_check(conn) == []


def test_a_short_prefix_fills_its_window_from_the_newest_documents(
    conn: apsw.Connection, project: Project
) -> None:
    insert(conn, _docs(0, 60, "thunder"))
    res = run_query(conn, SearchQueryArgs(query="th"), project=project, now=NOW)
    assert res.results_truncated  # the total counts the newest documents only: a floor
    assert RECENT_NOTE.format(chars=2, docs=20) in res.warnings
    floor = recent_floor(conn)
    rowids = dict(conn.execute("SELECT doc_id, id FROM docs").fetchall())
    assert all(rowids[item.doc_id] >= floor for item in res.items[:10])  # the ranked window
    # The other matches follow it (newest first), older documents too: paging reaches all 60.
    rest = run_query(conn, SearchQueryArgs(query="th", offset=50), project=project, now=NOW)
    assert len({i.doc_id for i in (*res.items, *rest.items)}) == 60
    # A longer prefix reads every document (no note).
    longer = run_query(conn, SearchQueryArgs(query="thund"), project=project, now=NOW)
    assert longer.total == 60
    assert not longer.warnings


def test_a_short_prefix_only_old_documents_hold_is_still_found(
    conn: apsw.Connection, project: Project
) -> None:
    insert(conn, _docs(0, 5, "zephyr"))
    insert(conn, _docs(5, 55, "thunder"))
    assert recent_floor(conn) > 0
    res = run_query(conn, SearchQueryArgs(query="zep"), project=project, now=NOW)
    assert sorted(item.doc_id for item in res.items) == [f"chat:c:{i}" for i in range(5)]
    assert res.total == 5
    assert not res.warnings


def test_with_every_document_recent_a_short_prefix_is_answered_exactly(
    conn: apsw.Connection, project: Project
) -> None:
    insert(conn, _docs(0, 15, "thunder"))
    res = run_query(conn, SearchQueryArgs(query="thu"), project=project, now=NOW)
    assert recent_floor(conn) == 0
    assert res.total == 15
    assert not res.results_truncated
    assert not res.warnings


def test_an_index_of_schema_6_is_dropped_and_rebuilt(index_path: Path) -> None:
    index_path.parent.mkdir(parents=True)
    old = connect(index_path)
    old.execute(
        "CREATE TABLE docs(id INTEGER PRIMARY KEY, doc_id TEXT, body BLOB);"
        " CREATE VIRTUAL TABLE docs_fts USING fts5(body, rank_title, parts, content='',"
        " contentless_delete=1, prefix='2 3'); PRAGMA user_version = 6"
    )
    old.execute("INSERT INTO docs(doc_id, body) VALUES ('chat:c:1', x'78')")
    old.close()
    report = open_index(index_path)
    assert report.recreated_reason == f"schema version 6, expected {SEARCH_INDEX_SCHEMA_VERSION}"
    assert SEARCH_INDEX_SCHEMA_VERSION >= 7  # 8: the file gives free pages back
    fresh = connect(index_path)
    assert scalar(fresh, "SELECT count(*) FROM docs") == 0
    assert scalar(fresh, "SELECT count(*) FROM sqlite_schema WHERE name = 'docs_recent'") == 1
    fresh.close()


def test_explain_scores_a_short_prefix_on_the_table_it_was_ranked_on(
    conn: apsw.Connection, project: Project
) -> None:
    # Older documents are longer and a third hold no match: both tables' statistics differ.
    words = ["rain" if i % 3 == 0 else "thunder" for i in range(60)]
    insert(conn, [doc(f"chat:c:{i}", f"{words[i]} " * (1 + i % 3) + "storm " * (60 - i),
                      session_id="c", updated_at=NOW_MS - 10**6 + i * 1000)
                  for i in range(60)])  # fmt: skip
    assert recent_floor(conn) > 0
    for text in ("th", "thunder"):
        res = run_query(conn, SearchQueryArgs(query=text, limit=5), project=project, now=NOW)
        assert res.next_cursor is not None
        last = decode_cursor(
            res.next_cursor, query_fingerprint(text, resolve_kinds(None, None), ())
        )
        plan = build_plan(SearchQueryArgs(query=text), now=NOW, lanes=())
        assert explain_item(conn, plan, res.items[-1]).sort_key == last, text


def _recent_rows(conn: apsw.Connection) -> list[int]:
    return [int(r[0]) for r in conn.execute("SELECT rowid FROM docs_recent ORDER BY rowid")]


def _second(tmp_path: Path) -> apsw.Connection:
    path = tmp_path / "second.db"
    open_index(path)
    return connect(path)


def test_a_first_index_writes_its_recent_rows_once_and_ends_as_writing_them_as_they_came(
    writer: IndexWriter, tmp_path: Path
) -> None:
    conn = writer.conn
    # Batches out of row-id order, replaced and deleted documents: the floor rule replayed in
    # memory must leave the same floor and the same rows as the table written batch by batch.
    batches = [_docs(30, 9, "mid"), _docs(0, 12, "old"), _docs(50, 14, "new"), _docs(39, 11, "x"),
               _docs(5, 3, "retold"), _docs(64, 8, "newer")]  # fmt: skip
    plain = _second(tmp_path)
    for batch in batches:
        insert(plain, batch)
    with immediate(plain):
        delete_docs(plain, ["chat:c:70", "chat:c:33"])
    with writer.first_index():
        for batch in batches:
            write(writer, batch)
            assert _recent_rows(conn) == []  # nothing written before the end
            assert health_check(conn) == []  # the floor stays above every stored document
        with writer.transaction():
            writer.delete_docs(["chat:c:70", "chat:c:33"])
    assert recent_floor(conn) == recent_floor(plain) > 0
    assert _recent_rows(conn) == _recent_rows(plain)
    hits = "SELECT rowid FROM docs_recent WHERE docs_recent MATCH 'ne*' ORDER BY rowid"
    assert conn.execute(hits).fetchall() == plain.execute(hits).fetchall()
    assert health_check(conn) == []
    plain.close()


def test_only_an_empty_index_defers_its_recent_rows(writer: IndexWriter) -> None:
    write(writer, _docs(0, 3, "old"))
    with writer.first_index():
        write(writer, _docs(3, 3, "new"))
        assert len(_recent_rows(writer.conn)) == 6


def test_an_interrupted_first_index_leaves_a_valid_table_that_refills(
    writer: IndexWriter, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crash(self: object, conn: apsw.Connection) -> None:
        raise apsw.IOError("killed before the end")

    conn = writer.conn
    monkeypatch.setattr(first_index.RecentDeferral, "fill", crash)
    with writer.first_index():
        write(writer, _docs(0, 30, "thunder"))
    assert health_check(conn) == []
    assert _recent_rows(conn) == []
    # A short prefix ranks every document on docs_fts meanwhile: nothing is said to be cut.
    res = run_query(conn, SearchQueryArgs(query="th"), project=project, now=NOW)
    assert RECENT_NOTE.format(chars=2, docs=20) not in res.warnings
    assert res.items
    for start in range(30, 60, 5):
        insert(conn, _docs(start, 5, "rain"))
    # 30 new documents passed RECENT_DOCS + RECENT_SLACK: the floor moved to the newest 20.
    assert _held(conn) == (20, 20)
    assert health_check(conn) == []
