"""One answer reads one state of the index (``run.one_snapshot``): a document replaced by a write
committed while the answer is being made (between the window's row ids and the rows read for
the page, ``tail.read_head``) is still shown, as it was when the answer began."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import apsw
import msgspec
import pytest
from index_helpers import NOW, NOW_MS, doc, insert

import engine.query.run as run
from engine.index.db import connect
from engine.project.model import Project
from engine.query.run import run_query
from engine.types import SearchQueryArgs


def test_a_document_replaced_mid_answer_is_still_shown(
    conn: apsw.Connection, index_path: Path, project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    insert(conn, [doc(f"terminal:s@{i}", f"deploy step {i}", session_id="s",
                      updated_at=NOW_MS - i * 1000) for i in range(30)])  # fmt: skip
    args = SearchQueryArgs(query="deploy", limit=10)
    before = run_query(conn, args, project=project, now=NOW)
    assert before.items[0].doc_id == "terminal:s@0"
    other = connect(index_path)
    read_head = run.read_head

    def replaced_meanwhile(*given: Any, **options: Any) -> Any:
        # Another process's write lands between the window and the page's reads: the newest
        # document is rewritten, so its row id changes.
        insert(other, [doc("terminal:s@0", "deploy step 0 and more", session_id="s",
                           updated_at=NOW_MS)])  # fmt: skip
        return read_head(*given, **options)

    monkeypatch.setattr(run, "read_head", replaced_meanwhile)
    during = run_query(conn, args, project=project, now=NOW)
    other.close()
    assert msgspec.json.encode(during) == msgspec.json.encode(before)
    monkeypatch.setattr(run, "read_head", read_head)
    after = run_query(conn, SearchQueryArgs(query="deploy", limit=50), project=project, now=NOW)
    shown = {item.doc_id: item.snippet for item in after.items}
    assert "and more" in shown["terminal:s@0"]  # the next answer reads the new state


def test_an_answer_inside_a_callers_transaction_keeps_it(
    conn: apsw.Connection, project: Project
) -> None:
    insert(conn, [doc("terminal:s@1", "deploy step", session_id="s")])
    conn.execute("BEGIN")
    try:
        answer = run_query(conn, SearchQueryArgs(query="deploy"), project=project, now=NOW)
        assert not conn.getautocommit()  # still the caller's
    finally:
        conn.execute("COMMIT")
    assert [item.doc_id for item in answer.items] == ["terminal:s@1"]
    assert conn.getautocommit()
