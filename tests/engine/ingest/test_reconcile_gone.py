"""What the reconcile finds gone (``engine.ingest.reconcile.remove_gone_sessions``): the
documents of a session whose file went, per kind, found by a skip scan of the session index."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from engine.index.db import IndexDoc, immediate, scalar, upsert_docs
from engine.index.writer import IndexWriter
from engine.ingest.reconcile import indexed_session_ids, remove_gone_sessions
from engine.project.model import SessionKind, SessionMeta


def _doc(doc_id: str, kind: str, sid: str) -> IndexDoc:
    return IndexDoc(doc_id=doc_id, kind=kind, title="", rank_title="", body=f"words of {sid}",
                    updated_at=1_780_000_000_000, session_id=sid)  # fmt: skip


def _meta(sid: str, kind: SessionKind) -> SessionMeta:
    at = datetime(2026, 5, 1, tzinfo=UTC)
    return SessionMeta(id=sid, kind=kind, title=sid, lane_id=None, created_at=at, updated_at=at)


def test_the_documents_of_a_gone_session_go_and_the_rest_stay(tmp_path: Path) -> None:
    writer = IndexWriter(tmp_path / "index.db")
    conn = writer.connection()
    docs = [_doc(f"chat:{s}:{i}", "chat", s) for s in ("a", "b", "c") for i in range(3)]
    docs += [_doc("terminal:b@0", "terminal", "b"), _doc("terminal:t@0", "terminal", "t")]
    with immediate(conn):
        upsert_docs(conn, docs)
    assert sorted(indexed_session_ids(conn)) == ["a", "b", "c", "t"]
    alive = [_meta("a", "chat"), _meta("b", "chat"), _meta("c", "chat"), _meta("t", "terminal")]
    assert remove_gone_sessions(writer, alive) == 1  # the terminal documents of chat session b
    assert remove_gone_sessions(writer, alive) == 0
    assert remove_gone_sessions(writer, [m for m in alive if m.id != "c"]) == 3
    assert scalar(conn, "SELECT count(*) FROM docs") == 7
    writer.close()
