"""Page damage inside the index and silently lost FTS rows, on a real
demo project with a real index file whose bytes are overwritten.

The open check (schema + a tiny MATCH) cannot see damage deep in the ``docs`` table: only the
statements that walk those pages raise ``CorruptError``. Every path that trips over it must
recreate the file and re-ingest, never print a traceback.
"""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest
from cli_helpers import no_daemon_flag

from engine.embedded import EmbeddedClient
from engine.index.db import PAGE_SIZE, connect, recreate_damaged
from engine.index.faults import count_drift
from engine.index.schema import DAMAGE_ERRORS
from engine.types import SearchQueryArgs
from tui.cli import main as ade_main

DAMAGE_BYTES = 40 * 1024
"""About what the issue overwrote: two and a half 16 KiB pages."""


def _index(root: Path) -> Path:
    return root / ".ade" / "cache" / "search-index.db"


def _build(root: Path) -> int:
    """Index the demo once (as a first `ade search` does) and return its document count."""
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()
        return client.index_status().doc_count


def _zero_docs_pages(root: Path) -> None:
    """Zero ~40 KB from a leaf page in the middle of the ``docs`` table (checkpointed first, so
    the damage is in the main file, where a reader meets it)."""
    conn = connect(_index(root))
    try:
        conn.pragma("wal_checkpoint", "TRUNCATE")
        pages = [
            int(r[0])
            for r in conn.execute(
                "SELECT pageno FROM dbstat WHERE name = 'docs' AND pagetype = 'leaf'"
                " ORDER BY pageno"
            )
        ]
    finally:
        conn.close()
    assert len(pages) > 4, "the demo's docs table should span many pages"
    with _index(root).open("r+b") as f:
        f.seek((pages[len(pages) // 2] - 1) * PAGE_SIZE)
        f.write(b"\0" * DAMAGE_BYTES)


def _damaged(root: Path) -> bool:
    conn = connect(_index(root))
    try:
        conn.execute("SELECT count(*), sum(length(body)) FROM docs").fetchall()
    except DAMAGE_ERRORS:
        return True
    finally:
        conn.close()
    return False


@pytest.fixture
def damaged_demo(demo_copy: Path) -> tuple[Path, int]:
    docs = _build(demo_copy)
    _zero_docs_pages(demo_copy)
    assert _damaged(demo_copy), "the overwrite did not reach the docs pages"
    return demo_copy, docs


def test_filter_only_query_recreates_a_damaged_index_and_answers(
    damaged_demo: tuple[Path, int],
) -> None:
    root, docs = damaged_demo
    with EmbeddedClient.open(root, start_worker=False) as client:
        # No catch-up: the query itself trips over the damaged pages (a full docs scan).
        result = client.query(SearchQueryArgs(query="kind:pr", limit=50))
        assert {item.kind for item in result.items} == {"pr"}
        assert len(result.items) == 5
        assert any("damaged (CorruptError)" in w for w in result.warnings)
        status = client.index_status()
        assert status.doc_count == docs
        assert status.recreated_reason == "damaged index (CorruptError)"
    assert not _damaged(root)


@pytest.mark.usefixtures("cli_path")
@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["search", "kind:pr"], id="filter-only"),
        pytest.param(["search", "--status"], id="status"),
        pytest.param(["search", "--rebuild"], id="rebuild"),
    ],
)
def test_cli_never_tracebacks_on_a_damaged_index(
    damaged_demo: tuple[Path, int],
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, docs = damaged_demo
    monkeypatch.setenv("ADE_ALLOW_REBUILD", "1")
    assert ade_main([argv[0], *no_daemon_flag(), "--project", str(root), *argv[1:]]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert not _damaged(root)
    with EmbeddedClient.open(root, start_worker=False) as client:
        # The CLI's own catch-up is bounded (it answers after CATCH_UP_BOUND_S on a slow machine
        # and says so); what must hold is that the recreated index comes back whole, not lost.
        client.service.catch_up()
        assert client.index_status().doc_count == docs  # re-ingested, nothing lost


@pytest.mark.usefixtures("cli_path")
def test_text_query_over_a_damaged_index_answers(
    damaged_demo: tuple[Path, int], capsys: pytest.CaptureFixture[str]
) -> None:
    """A query whose pages are intact answers as usual (the damage is healed by whichever
    path reads it); it never fails because pages elsewhere are damaged."""
    root, _ = damaged_demo
    assert ade_main(["search", *no_daemon_flag(), "--project", str(root), "retry"]) == 0
    assert "Traceback" not in capsys.readouterr().err


def test_rebuild_of_a_damaged_index_recreates_the_file(damaged_demo: tuple[Path, int]) -> None:
    root, docs = damaged_demo
    with EmbeddedClient.open(root, start_worker=False) as client:
        outcome = client.rebuild_index()
    assert outcome.ok
    assert outcome.doc_count == docs
    assert not _damaged(root)


def test_health_check_recreates_instead_of_retrying_a_delete_forever(
    damaged_demo: tuple[Path, int],
) -> None:
    """The daemon's backfill runs the health check first; on damage its ``DELETE`` failed and
    was retried with backoff forever. Now one pass recreates the file and re-ingests."""
    root, docs = damaged_demo
    with EmbeddedClient.open(root, start_worker=False) as client:
        service = client.service
        service.start_backfill()
        service.process_pending_now()
        assert not service.drainer.failures
        assert service.index_status().doc_count == docs
        assert service.drainer.recreated_reason is not None
    assert not _damaged(root)


def test_recreate_damaged_refuses_while_another_process_writes(demo_copy: Path) -> None:
    """The same guard as for unreadable files: a held write lock is not damage."""
    _build(demo_copy)
    holder = connect(_index(demo_copy))
    holder.set_busy_timeout(0)
    holder.execute("BEGIN IMMEDIATE")
    inode = _index(demo_copy).stat().st_ino
    try:
        import engine.index.db as db

        original = db.BUSY_TIMEOUT_MS
        db.BUSY_TIMEOUT_MS = 50
        try:
            with pytest.raises(apsw.BusyError):
                recreate_damaged(_index(demo_copy))
        finally:
            db.BUSY_TIMEOUT_MS = original
        assert _index(demo_copy).stat().st_ino == inode
    finally:
        holder.execute("ROLLBACK")
        holder.close()


# -- FTS rows lost while the documents stay ----------------------------------------------------


def _drop_fts_rows(root: Path, kind: str) -> int:
    conn = connect(_index(root))
    try:
        ids = [int(r[0]) for r in conn.execute("SELECT id FROM docs WHERE kind = ?", (kind,))]
        with conn:
            for rowid in ids:
                conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))
    finally:
        conn.close()
    return len(ids)


def test_count_drift_sees_lost_fts_rows(demo_copy: Path) -> None:
    _build(demo_copy)
    conn = connect(_index(demo_copy))
    try:
        assert count_drift(conn) is None
    finally:
        conn.close()
    lost = _drop_fts_rows(demo_copy, "pr")
    conn = connect(_index(demo_copy))
    try:
        drift = count_drift(conn)
    finally:
        conn.close()
    assert drift is not None
    assert f"{lost}" in drift or "FTS rows" in drift


def test_cli_catch_up_repairs_lost_fts_rows(demo_copy: Path) -> None:
    _build(demo_copy)
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        args = SearchQueryArgs(query="kind:pr logging", limit=50)
        expected = {item.doc_id for item in client.query(args).items}
    assert expected
    _drop_fts_rows(demo_copy, "pr")
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()  # what every `ade search` does first
        result = client.query(args)
        assert {item.doc_id for item in result.items} == expected
        assert any("re-index" in w for w in result.warnings)
        assert "index" in client.index_status().warnings
        assert any("row count drift" in r for r in client.service.tally.reasons("index"))


def test_recreate_damaged_keeps_a_file_another_process_already_recreated(demo_copy: Path) -> None:
    """Two processes trip over the same damage: the second must not delete the first's new
    file (it would pull it from under the first's connections)."""
    _build(demo_copy)
    index = _index(demo_copy)
    damaged = (index.stat().st_dev, index.stat().st_ino)
    late = connect(index)  # the second process still has the damaged file open (as in life:
    try:  # that also keeps its inode number from being reused for the new file)
        first = recreate_damaged(index, damaged)  # the first process
        assert first.identity != damaged
        second = recreate_damaged(index, damaged)  # the second, late, with the old identity
        assert second.identity == first.identity
        assert second.recreated_reason is None
    finally:
        late.close()


def test_daemon_periodic_reconcile_repairs_lost_fts_rows(demo_copy: Path) -> None:
    """The daemon's writer runs the count check every reconcile period (not only hourly)."""
    _build(demo_copy)
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        args = SearchQueryArgs(query="kind:pr logging", limit=50)
        expected = {item.doc_id for item in client.query(args).items}
    _drop_fts_rows(demo_copy, "pr")
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        service = client.service
        assert {item.doc_id for item in service.query(args).items} != expected  # the fault
        service.queue.add("reconcile", "periodic", delay=0.0)
        service.process_pending_now()
        assert {item.doc_id for item in service.query(args).items} == expected
