"""A first index runs ``docs_fts`` without incremental merging and with room for a group's
pending terms, and puts both back at its end (``IndexWriter.first_index``, the first-index
budget): no merges while it builds, one segment a group, one merge at its end, the usual settings
for every write after it, also after a first index that was interrupted."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

import engine.index.recent as recent
from engine.index.checks import health_check
from engine.index.db import connect, scalar
from engine.index.first_index import (
    FIRST_INDEX_AUTOMERGE,
    FIRST_INDEX_HASHSIZE,
    FTS_AUTOMERGE,
    FTS_HASHSIZE,
    fts_automerge,
    fts_hashsize,
)
from engine.index.writer import IndexWriter
from tests.engine.index.index_helpers import NOW_MS, doc


def _segments(conn: apsw.Connection) -> int:
    return scalar(conn, "SELECT count(DISTINCT segid) FROM docs_fts_idx")


def _passes(writer: IndexWriter, n: int, tag: str) -> None:
    """``n`` committed passes of documents large enough (several pages a segment) for FTS5's
    incremental merging to run: tiny segments are left alone whatever the setting."""
    for i in range(n):
        words = (" ".join(f"{tag}{i}x{j}x{k}" for k in range(3000)) for j in range(3))
        with writer.transaction():
            writer.upsert_docs([doc(f"chat:{tag}:{i}:{j}", body, updated_at=NOW_MS + i * 1000)
                                for j, body in enumerate(words)])  # fmt: skip


def test_a_first_index_merges_its_segments_once_at_its_end(writer: IndexWriter) -> None:
    conn = writer.conn
    assert fts_automerge(conn) == FTS_AUTOMERGE
    with writer.first_index():
        assert fts_automerge(writer.conn) == FIRST_INDEX_AUTOMERGE
        assert fts_hashsize(writer.conn) == FIRST_INDEX_HASHSIZE
        _passes(writer, 12, "first")
        # One segment a committed pass; with automerge 4 they are merged as they come.
        assert _segments(conn) == 12
    assert fts_automerge(conn) == FTS_AUTOMERGE
    assert fts_hashsize(conn) == FTS_HASHSIZE
    assert _segments(conn) == 1  # merged once at its end
    assert health_check(conn) == []
    words = conn.execute("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'first3x1x7'")
    assert words.fetchone() == (1,)


def test_a_group_of_a_first_index_writes_one_segment(writer: IndexWriter) -> None:
    conn = writer.conn
    with writer.first_index():
        writer.begin_group()
        # 36 documents of 3,000 distinct words: several MiB of pending terms, which FTS5's
        # default hashsize (1 MiB) flushed as several segments inside the group's statement.
        _passes(writer, 12, "first")
        assert writer.commit_group()
        assert _segments(conn) == 1
    assert fts_hashsize(conn) == FTS_HASHSIZE
    found = conn.execute("SELECT count(*) FROM docs_fts WHERE docs_fts MATCH 'first3x1x7'")
    assert found.fetchone() == (1,)
    assert health_check(conn) == []


def test_a_first_index_writes_its_recent_rows_as_one_segment_and_keeps_the_usual_hashsize(
    writer: IndexWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = writer.conn
    monkeypatch.setattr(recent, "RECENT_MIN_CORPUS", 0)  # a corpus large enough to hold rows
    # 36 documents of 3,000 distinct words with two prefix indexes: far more pending terms than
    # FTS5's default 1 MiB, which flushed (and merged) several segments inside the fill.
    with writer.first_index():
        _passes(writer, 12, "first")
    assert scalar(conn, "SELECT count(DISTINCT segid) FROM docs_recent_idx") == 1
    hashsize = conn.execute("SELECT v FROM docs_recent_config WHERE k = 'hashsize'").fetchone()
    assert hashsize == (FTS_HASHSIZE,)
    found = "SELECT count(*) FROM docs_recent WHERE docs_recent MATCH ?"
    assert conn.execute(found, ("first3x1x7",)).fetchone() == (1,)
    assert conn.execute(found, ("fi*",)).fetchone() == (36,)
    assert health_check(conn) == []


def test_a_later_drain_writes_with_the_usual_automerge(writer: IndexWriter) -> None:
    _passes(writer, 1, "seed")
    with writer.first_index():  # not a first index: nothing is lowered
        assert fts_automerge(writer.conn) == FTS_AUTOMERGE
        assert fts_hashsize(writer.conn) == FTS_HASHSIZE
        assert not writer.first_index_running
        _passes(writer, 11, "more")
    assert _segments(writer.conn) < 12


def test_an_interrupted_first_index_has_automerge_put_back_by_the_next_drain(
    writer: IndexWriter, index_path: Path
) -> None:
    interrupted = writer.first_index()
    interrupted.__enter__()  # never left: the process died during its first index
    _passes(writer, 2, "first")
    assert writer.first_index_running
    reader = connect(index_path)
    assert fts_automerge(reader) == FIRST_INDEX_AUTOMERGE
    assert fts_hashsize(reader) == FIRST_INDEX_HASHSIZE
    reader.close()
    other = IndexWriter(index_path)  # the next process
    with other.first_index():
        assert fts_automerge(other.conn) == FTS_AUTOMERGE
        assert fts_hashsize(other.conn) == FTS_HASHSIZE
    other.close()
