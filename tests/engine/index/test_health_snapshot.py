"""``health_check`` on a reader racing the writer (ingestion first): its statements read one snapshot,
so a commit landing between two of its counts cannot look like drift."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw

from engine.index.checks import health_check
from engine.index.db import connect, immediate, open_index, upsert_docs
from tests.engine.index.index_helpers import doc


def test_a_commit_between_two_counts_is_not_drift(tmp_path: Path) -> None:
    path = open_index(tmp_path / "index.db").path
    writer, reader = connect(path), connect(path)
    with immediate(writer):
        upsert_docs(writer, [doc(f"chat:s:{i}", f"first words {i}") for i in range(3)])
    committed: list[str] = []

    def commit_before_the_fts_count(cursor: apsw.Cursor, sql: str, bindings: Any) -> bool:
        if "FROM docs_fts" in sql and not committed:
            with immediate(writer):  # a WAL reader never blocks this commit
                upsert_docs(writer, [doc("chat:s:late", "late words")])
            committed.append(sql)
        return True

    reader.exec_trace = commit_before_the_fts_count
    try:
        assert health_check(reader) == []
        assert committed, "the writer did not commit during the check"
        reader.exec_trace = None
        assert health_check(reader) == []  # the next check sees the late document, whole
        assert reader.execute("SELECT count(*) FROM docs").fetchone()[0] == 4
    finally:
        reader.close()
        writer.close()
