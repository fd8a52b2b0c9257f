"""Faults: disk full / I/O errors roll back and retry with backoff; a lock held by another
writer; a replaced index file; another writer moving the cursor between our read and commit."""

from __future__ import annotations

import os

import apsw
import pytest

import engine.index.db as index_db
import engine.ingest.tailing as tailing
from engine.index.db import connect
from engine.index.writer import IndexWriter
from engine.ingest.drain_faults import BACKOFF_BASE_S
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service


@pytest.mark.parametrize("error", [apsw.FullError, apsw.IOError])
def test_write_error_rolls_back_keeps_cursor_and_retries(
    service: SearchService, writer, idx, timers, cursor_of, monkeypatch, error
):
    writer.session("s")
    writer.chat("s", "user_message", id="u1", text="resilient", status="accepted")
    real = IndexWriter.upsert_docs
    failures = [error("database or disk is full")]

    def flaky(self, docs):
        real(self, docs)  # half the batch is written, then the disk fills up
        if failures:
            raise failures.pop()

    monkeypatch.setattr(IndexWriter, "upsert_docs", flaky)
    service.notify_chat_event("s")
    service.process_pending_now()
    assert idx.indexed_ids() == set()
    assert cursor_of("chat:s") == 0
    assert service.queue.pending["chat"], "re-enqueued with backoff"
    service.notify_chat_event("s")  # hooks stay cheap and do not cancel the backoff
    timers.advance(BACKOFF_BASE_S)
    assert idx.doc_ids("resilient") == ["chat:s:u1"]
    assert cursor_of("chat:s") > 0


def test_lock_held_by_another_writer_is_waited_out(project, writer, timers, monkeypatch):
    monkeypatch.setattr(index_db, "BUSY_TIMEOUT_MS", 5)
    svc = create_project_service(project, timer=timers, start_worker=False)
    try:
        writer.session("s")
        writer.chat("s", "user_message", id="u1", text="patient", status="accepted")
        other = connect(project.index_path)
        other.execute("BEGIN IMMEDIATE")
        svc.notify_chat_event("s")
        svc.process_pending_now()
        assert svc.query(SearchQueryArgs(query="patient")).total == 0
        assert svc.queue.pending["chat"], "re-enqueued with backoff"
        other.execute("COMMIT")
        other.close()
        timers.advance(60)
        assert svc.query(SearchQueryArgs(query="patient")).total == 1
    finally:
        svc.dispose()


def test_replaced_index_file_is_reopened(service: SearchService, writer, project):
    writer.session("s")
    writer.chat("s", "user_message", id="u1", text="first", status="accepted")
    service.catch_up()
    for suffix in ("", "-wal", "-shm"):
        path = f"{project.index_path}{suffix}"
        if os.path.exists(path):
            os.unlink(path)
    writer.chat("s", "user_message", id="u2", text="second", status="accepted")
    service.rebuild_index()
    fresh = connect(project.index_path)
    ids = {str(r[0]) for r in fresh.execute("SELECT doc_id FROM docs")}
    fresh.close()
    assert {"chat:s:u1", "chat:s:u2"} <= ids


def test_cursor_moved_by_another_writer_redoes_the_pass(
    service: SearchService, project, writer, idx, monkeypatch
):
    writer.session("s")
    writer.chat("s", "user_message", id="u1", text="one", status="accepted")
    writer.chat("s", "user_message", id="u2", text="two", status="accepted")
    other = create_project_service(project, start_worker=False)
    real = tailing.plan_pass
    calls = []

    def racing(path, row, builder, tuning):
        plan = real(path, row, builder, tuning)
        if not calls:
            calls.append(1)
            other.catch_up()  # the other process commits this very slice first
            writer.chat("s", "user_message", id="u3", text="three", status="accepted")
        return plan

    monkeypatch.setattr(tailing, "plan_pass", racing)
    try:
        service.notify_chat_event("s")
        service.process_pending_now()
    finally:
        other.dispose()
    ids = idx.indexed_ids()
    assert {"chat:s:u1", "chat:s:u2", "chat:s:u3"} <= ids
    assert idx.doc_ids("one") == ["chat:s:u1"]
