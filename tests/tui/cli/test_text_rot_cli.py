"""A stored text column that is not UTF-8 (bit-rot the page checks cannot see) costs
the row, never the search: it is skipped with one warning and its source re-ingested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

from engine.index.db import connect

pytestmark = pytest.mark.usefixtures("cli_path")


def _rot_titles(index: Path) -> int:
    """Plant invalid UTF-8 in the title of every document whose title names a term, as a
    flipped bit would: ``quick_check`` still says ok."""
    conn = connect(index)
    try:
        conn.execute(
            "UPDATE docs SET title = CAST(x'66ff80fe' AS TEXT)"
            " WHERE id IN (SELECT id FROM docs WHERE kind = 'chat' ORDER BY updated_at DESC LIMIT 3)"
        )
        changed = conn.changes()
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
    finally:
        conn.close()
    return changed


def _doc_ids(index: Path) -> set[str]:
    conn = connect(index)
    try:
        # Reading every title decodes it: a row still rotten raises here.
        return {f"{r[0]} {r[1]}" for r in conn.execute("SELECT doc_id, title FROM docs")}
    finally:
        conn.close()


def test_an_invalid_utf8_row_is_skipped_with_a_warning_and_healed(
    warm_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = warm_demo / ".ade" / "cache" / "search-index.db"
    before = _doc_ids(index)
    assert _rot_titles(index) > 0
    first = run_main(capsys, search_argv(warm_demo, "--json", ""))
    assert first.code == 0, first.err
    assert "Traceback" not in first.err
    # The daemon's own catch-up may meet the rot first (an ingest pass reads the row): it heals
    # there too, never failing the request over to this process.
    assert "daemon failed" not in first.err, first.err
    answer = json.loads(first.out)
    assert answer["items"]
    assert any("invalid UTF-8" in w for w in answer["warnings"]), answer["warnings"]
    # The text view of the next search answers too, and the rows come back from their sources.
    again = run_main(capsys, search_argv(warm_demo, ""))
    assert (again.code, "Traceback" in again.err) == (0, False), again.err
    # The rows' sources were marked: the next catch-up (this run's, or the daemon's writer
    # before it answers the next search) re-ingested them, whole and readable.
    third = run_main(capsys, search_argv(warm_demo, "--status"))
    assert third.code == 0, third.err
    assert _doc_ids(index) == before
