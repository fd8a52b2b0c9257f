"""Row ids in a second that spilled: the writer resumes the walk of stored ids where its last
one ended (``engine.index.rowids``), and takes the very ids a fresh walk would take."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from engine.index.checks import health_check
from engine.index.db import IndexDoc, connect, immediate, upsert_docs
from engine.index.documents import PLAIN, delete_docs
from engine.index.rowids import doc_rowid
from engine.index.writer import IndexWriter
from tests.engine.index.index_helpers import NOW_MS, doc

WALK = "NOT EXISTS (SELECT 1 FROM docs WHERE id = d.id + 1)"
BASE = doc_rowid(NOW_MS)


def _batch(tag: str, n: int) -> list[IndexDoc]:
    return [doc(f"chat:{tag}:{i}", f"{tag} body {i}") for i in range(n)]


def _walk_starts(conn: apsw.Connection) -> list[int]:
    starts: list[int] = []

    def trace(_cursor: apsw.Cursor, sql: str, bindings: object) -> bool:
        if WALK in sql:
            assert isinstance(bindings, tuple)
            starts.append(int(bindings[0]))
        return True

    conn.exec_trace = trace
    return starts


def test_each_pass_resumes_the_walk_where_the_last_one_ended(writer: IndexWriter) -> None:
    conn = writer.conn
    with writer.transaction():
        writer.upsert_docs(_batch("first", 1100))  # fills the second and spills 76 slots
    starts = _walk_starts(conn)
    for n in range(4):
        with writer.transaction():
            writer.upsert_docs(_batch(f"pass{n}", 100))
    # Each walk starts past every id stored before it: without the known runs each one started
    # at the second's end (BASE + 1024) and walked the whole spill again.
    assert starts == [BASE + 1024, BASE + 1100, BASE + 1200, BASE + 1300]
    ids = [int(r[0]) for r in conn.execute("SELECT id FROM docs ORDER BY id")]
    assert ids == list(range(BASE, BASE + 1500))


def _scenario(path: Path, *, remembered: bool) -> list[tuple[int, str]]:
    """Spilled passes with deletes, a rolled-back batch and another connection's writes in
    between, by the writer (``remembered``: its known runs) or walked afresh at every batch
    (the plain targets); returns the docs table."""
    writer = IndexWriter(path)
    conn, other = writer.connection(), connect(path)

    def write(docs: list[IndexDoc]) -> None:
        upsert_docs(conn, docs, writer.targets() if remembered else PLAIN)

    def rolled_back(docs: list[IndexDoc]) -> None:
        with writer.transaction():
            write(docs)
            raise RuntimeError("abort")

    with writer.transaction():
        write(_batch("first", 1100))
    for n in range(6):
        with writer.transaction():
            write(_batch(f"pass{n}", 90))
        if n == 1:  # holes inside a known run
            with writer.transaction():
                delete_docs(conn, ["chat:pass0:10", "chat:pass0:11", "chat:first:1050"],
                            writer.targets() if remembered else PLAIN)  # fmt: skip
        if n == 2:  # a batch that rolls back after taking ids
            with pytest.raises(RuntimeError, match="abort"):
                rolled_back(_batch("rolled", 40))
        if n == 3:  # another process writes into the run's continuation
            with immediate(other):
                upsert_docs(other, _batch("other", 70))
    rows = [(int(r[0]), str(r[1])) for r in conn.execute("SELECT id, doc_id FROM docs ORDER BY id")]
    assert health_check(conn) == []
    writer.close()
    other.close()
    return rows


def test_known_runs_take_the_ids_a_fresh_walk_takes(tmp_path: Path) -> None:
    remembered = _scenario(tmp_path / "a.db", remembered=True)
    walked_afresh = _scenario(tmp_path / "b.db", remembered=False)
    assert remembered == walked_afresh
    ids = [row[0] for row in remembered]
    assert len(ids) == len(set(ids)) == 1100 + 6 * 90 + 70 - 3
    doc_ids = {row[1] for row in remembered}
    assert not any(str(d).startswith("chat:rolled:") for d in doc_ids)
