"""The connection last used remembers its corrections and inflections only while the index
stands still (``engine.query.vocab._remembered``): a word another connection commits, or this
one writes, is seen by the next lookup. Over a real SQLite file holding the FTS5 table the
lookups read."""

from __future__ import annotations

from pathlib import Path

import apsw

from engine.query.vocab import correct, inflections, open_vocab


def _index(path: Path, *bodies: str) -> apsw.Connection:
    conn = apsw.Connection(str(path))
    conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(body)")
    for body in bodies:
        conn.execute("INSERT INTO docs_fts(body) VALUES (?)", (body,))
    assert open_vocab(conn)
    return conn


def test_another_connections_commit_is_seen(tmp_path: Path) -> None:
    reader = _index(tmp_path / "index.db", "the timeout fired")
    assert correct(reader, "timeuot") == "timeout"
    assert correct(reader, "timeuot") == "timeout"  # remembered: the same answer
    writer = _index(tmp_path / "index.db", "timeuot is a word here now")
    writer.close()
    assert correct(reader, "timeuot") is None  # known now: nothing to correct


def test_its_own_write_is_seen(tmp_path: Path) -> None:
    conn = _index(tmp_path / "index.db", "retry once")
    assert inflections(conn, "retry") == ()
    conn.execute("INSERT INTO docs_fts(body) VALUES ('retries and retrying')")
    assert inflections(conn, "retry") == ("retries", "retrying")
