"""``PreparedDocs`` (derived values computed before the write transaction) and the row ids of a
second that holds more than 1024 documents (only spilled slots are probed)."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

import engine.index.documents as index_documents
from engine.index.checks import health_check
from engine.index.db import connect, immediate, open_index, upsert_docs
from engine.index.documents import PreparedDocs
from tests.engine.index.index_helpers import NOW_MS, doc


def _rows(conn: apsw.Connection) -> list[tuple[object, ...]]:
    return list(conn.execute("SELECT * FROM docs ORDER BY id"))


def _batch() -> list[index_documents.IndexDoc]:
    return [doc(f"chat:s:{i}", f"readTimeout number {i}", title=f"Title{i} HTTPServer",
                updated_at=NOW_MS + i * 1000) for i in range(5)]  # fmt: skip


def test_prepared_batch_writes_what_a_plain_batch_writes(tmp_path: Path, monkeypatch) -> None:
    plain_conn, prepared_conn = (connect(open_index(tmp_path / n).path) for n in ("a.db", "b.db"))
    with immediate(plain_conn):
        upsert_docs(plain_conn, _batch())
    batch = PreparedDocs(_batch())
    extra = doc("chat:s:extra", "notPrepared yet", title="Late")  # not in the batch: derived now
    # Everything the batch holds was derived up front: the transaction computes no parts for it.
    real = index_documents.identifier_parts
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(index_documents, "identifier_parts", lambda *t: calls.append(t) or real(*t))
    with immediate(prepared_conn):
        upsert_docs(prepared_conn, batch.subset([*batch, extra]))
    assert calls == [("Late", "notPrepared yet"), ("Late",)]
    with immediate(plain_conn):
        upsert_docs(plain_conn, [extra])
    assert _rows(prepared_conn) == _rows(plain_conn)
    for conn in (plain_conn, prepared_conn):
        hits = conn.execute("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'parts:timeout'")
        assert hits.fetchone() == (5,)
        assert health_check(conn) == []


def test_unchanged_prepared_docs_are_left_alone(conn: apsw.Connection) -> None:
    with immediate(conn):
        upsert_docs(conn, PreparedDocs(_batch()))
    before = _rows(conn)
    with immediate(conn):
        upsert_docs(conn, PreparedDocs(_batch()))
    assert _rows(conn) == before


@pytest.mark.parametrize("first", [1100, 2100])
def test_a_crowded_second_spills_without_overwriting_the_next(conn: apsw.Connection,
                                                              first: int) -> None:  # fmt: skip
    next_second = doc("chat:s:next", "next second", updated_at=NOW_MS + 1000)
    with immediate(conn):
        upsert_docs(conn, [next_second])
        upsert_docs(conn, [doc(f"chat:a:{i}", f"a {i}") for i in range(first)])
    with immediate(conn):
        upsert_docs(conn, [doc(f"chat:b:{i}", f"b {i}") for i in range(300)])
    ids = [r[0] for r in conn.execute("SELECT id FROM docs")]
    assert len(ids) == len(set(ids)) == first + 301
    assert conn.execute("SELECT body FROM docs WHERE doc_id = 'chat:s:next'").fetchone()
    assert health_check(conn) == []
