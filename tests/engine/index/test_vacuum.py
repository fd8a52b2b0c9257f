"""The index file gives its free pages back (``engine.index.vacuum``, index-size budget): made with
``auto_vacuum = INCREMENTAL``, emptied of free pages after a first index in short steps that
let go of the write lock, safe to kill in the middle, and an old ``NONE`` file recreated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import apsw
import pytest

import engine.index.vacuum as vacuum
from engine.index.checks import health_check
from engine.index.db import connect, immediate, meta_set, open_index, scalar
from engine.index.schema import SEARCH_INDEX_SCHEMA_VERSION
from engine.index.writer import IndexWriter
from tests.engine.index.index_helpers import doc, insert, write
from tests.engine.index.vacuum_helpers import answers, fill_and_free

WORKER = Path(__file__).with_name("vacuum_worker.py")
REPO = Path(__file__).resolve().parents[3]
DEADLINE_S = 60.0


def _free(conn: apsw.Connection) -> int:
    return scalar(conn, "PRAGMA freelist_count")


def test_a_new_file_is_made_with_incremental_vacuum(conn: apsw.Connection) -> None:
    assert scalar(conn, "PRAGMA auto_vacuum") == vacuum.AUTO_VACUUM_INCREMENTAL


def test_the_steps_give_every_free_page_back_and_the_answers_stay(conn: apsw.Connection) -> None:
    free = fill_and_free(conn)
    pages, before = scalar(conn, "PRAGMA page_count"), answers(conn)
    assert free > 100
    assert vacuum.give_back_free_pages(conn) == free
    assert _free(conn) == 0
    assert scalar(conn, "PRAGMA page_count") == pages - free
    assert answers(conn) == before
    assert health_check(conn) == []


def test_the_steps_let_go_of_the_write_lock(conn: apsw.Connection, index_path: Path) -> None:
    fill_and_free(conn)
    other = connect(index_path)
    other.set_busy_timeout(0)  # a held lock fails at once instead of being waited out
    steps = 0
    for steps, freed in enumerate(vacuum.vacuum_steps(conn, step_pages=16), start=1):
        assert 0 < freed <= 16
        with immediate(other):  # a live append between two steps
            meta_set(other, f"between-{steps}", "1")
    other.close()
    assert steps > 5
    assert _free(conn) == 0
    assert scalar(conn, "SELECT count(*) FROM meta WHERE key LIKE 'between-%'") == steps


def test_a_busy_index_keeps_its_pages_and_nothing_raises(
    conn: apsw.Connection, index_path: Path
) -> None:
    free = fill_and_free(conn)
    conn.set_busy_timeout(0)
    holder = connect(index_path)
    holder.execute("BEGIN IMMEDIATE")
    try:
        assert vacuum.give_back_free_pages(conn) == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _free(conn) == free


def test_a_file_that_cannot_give_pages_back_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "none.db"
    c = apsw.Connection(str(path))
    c.execute("CREATE TABLE t(x); INSERT INTO t VALUES (randomblob(100000)); DELETE FROM t")
    free = _free(c)
    assert free > 0
    assert not vacuum.incremental(c)
    assert list(vacuum.vacuum_steps(c)) == []
    assert _free(c) == free
    c.close()


def _old_file(index_path: Path) -> None:
    """A file as the code before ``auto_vacuum`` made it: ``NONE``, the previous version."""
    open_index(index_path, vacuum=False)
    c = connect(index_path, vacuum=False)
    insert(c, [doc("chat:old:1", "left by the old code")])
    c.pragma("user_version", SEARCH_INDEX_SCHEMA_VERSION - 1)
    assert scalar(c, "PRAGMA auto_vacuum") == 0
    c.close()


def test_an_old_file_without_incremental_vacuum_is_recreated_with_it(index_path: Path) -> None:
    _old_file(index_path)
    report = open_index(index_path)
    old = SEARCH_INDEX_SCHEMA_VERSION - 1
    assert (
        report.recreated_reason == f"schema version {old}, expected {SEARCH_INDEX_SCHEMA_VERSION}"
    )
    c = connect(index_path)
    assert scalar(c, "PRAGMA auto_vacuum") == vacuum.AUTO_VACUUM_INCREMENTAL
    assert scalar(c, "SELECT count(*) FROM docs") == 0
    assert _free(c) == 0
    c.close()


def test_a_file_left_unconverted_is_converted_by_its_first_index_only(index_path: Path) -> None:
    open_index(index_path, vacuum=False)  # as if the recreate's VACUUM had failed
    w = IndexWriter(index_path)
    c = w.connection()
    assert not vacuum.incremental(c)
    write(w, [doc("chat:x:1", "a document")])
    with w.first_index():  # not a first index: a VACUUM would copy the whole file
        write(w, [doc("chat:x:2", "another")])
    assert not vacuum.incremental(c)
    with immediate(c):
        c.execute("DELETE FROM docs")
        c.execute("INSERT INTO docs_fts(docs_fts) VALUES ('delete-all')")
        c.execute("INSERT INTO docs_recent(docs_recent) VALUES ('delete-all')")
    with w.first_index():  # a first index (a rebuild): converted while it holds nothing
        write(w, [doc("chat:x:3", "the first document")])
    assert vacuum.incremental(c)
    assert health_check(c) == []
    w.close()


def _spawn(index: Path, committed: int) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen([sys.executable, str(WORKER), str(index), str(committed)], cwd=REPO,
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_a_kill_inside_a_step_leaves_a_valid_index_that_the_next_run_finishes(
    conn: apsw.Connection, index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vacuum, "IDLE_FREE_MIN_PAGES", 16)
    free = fill_and_free(conn)
    before = answers(conn)
    conn.close()
    proc = _spawn(index_path, committed=3)
    assert proc.stdout is not None
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line.strip())
            if line.strip() in ("inside", "finished"):
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=DEADLINE_S)
    assert lines == ["step 1", "step 2", "step 3", "inside"], proc.stderr
    report = open_index(index_path)
    assert report.recreated_reason is None
    c = connect(index_path)
    try:
        assert health_check(c) == []
        assert answers(c) == before
        assert _free(c) == free - 3 * 8  # three steps kept, the one killed rolled back
        w = IndexWriter(index_path)
        with w.first_index():  # the next drain: what is left is over its share of the file
            w.connection()  # its first entry
        w.close()
        assert _free(c) == 0
        assert answers(c) == before
        assert health_check(c) == []
    finally:
        c.close()


def test_a_later_drain_gives_free_pages_back_only_past_their_share(
    conn: apsw.Connection, index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vacuum, "IDLE_FREE_MIN_PAGES", 16)
    free = fill_and_free(conn)
    share = free / scalar(conn, "PRAGMA page_count")
    monkeypatch.setattr(vacuum, "IDLE_FREE_SHARE", share)  # exactly at the share: kept
    w = IndexWriter(index_path)
    with w.first_index():  # not a first index (documents are stored)
        write(w, [doc("chat:later:1", "a live append")])
    kept = _free(conn)
    assert kept >= free - 2  # the append itself may reuse a page or two
    monkeypatch.setattr(vacuum, "IDLE_FREE_SHARE", share / 2)
    with w.first_index():
        write(w, [doc("chat:later:2", "another live append")])
    w.close()
    assert _free(conn) == 0
    assert health_check(conn) == []
