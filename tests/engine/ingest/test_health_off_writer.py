"""The index health check runs on a read connection and a thread of its own, so live
appends are indexed while it reads the whole index; the writer acts only on what it reports.

Real projects, real index files; the check is held at a point of its choosing by a hook called
from its SQLite progress handler (no sleeps: events), and released by the test.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.ingest.queue import DEBOUNCE_S, IngestQueue
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.project.model import Project
from engine.service import SearchService
from engine.wiring import create_project_service
from tests.engine.index.test_index_damage import _damaged, damaged_demo
from tests.engine.ingest.conftest import NOW, Index, ProjectWriter

__all__ = ["damaged_demo"]  # the damage tests' fixture: real zeroed pages

HOLD_S = 20.0
"""How long a held check waits for its release: only reached when the code under test is wrong
(the test then fails on its assertions instead of hanging)."""


class Hold:
    """Blocks a running health check at its first progress callback until released (later
    callbacks pass: the check then runs to its end)."""

    def __init__(self, service: SearchService) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.health = service.drainer.health
        self.health.on_progress = self._hold

    def _hold(self) -> None:
        if not self.entered.is_set():
            self.entered.set()
            self.release.wait(HOLD_S)


@pytest.fixture
def live_service(project: Project, timers: ManualTimerFactory) -> Iterator[SearchService]:
    """A service with its writer thread (as the daemon runs it); time moves only on advance."""
    svc = create_project_service(project, clock=lambda: NOW, timer=timers, start_worker=True)
    yield svc
    svc.dispose()


def test_a_live_chat_line_is_indexed_while_the_health_check_runs(
    live_service: SearchService, writer: ProjectWriter, timers: ManualTimerFactory
) -> None:
    service = live_service
    idx = Index(service)
    writer.session("c1", title="Live chat")
    writer.chat("c1", "user_message", id="m1", text="before the check", status="accepted")
    service.catch_up()
    hold = Hold(service)
    service.start_backfill(0.0)
    timers.advance(0.0)  # the writer thread runs the backfill: it starts the check
    assert hold.entered.wait(HOLD_S), "the backfill did not start a health check"
    writer.chat("c1", "user_message", id="m2", text="appended mid check", status="accepted")
    service.notify_chat_event("c1")
    timers.advance(DEBOUNCE_S["chat"])
    # Whichever drains the chat entry (the writer, or this thread once it has the drain lock),
    # it must not wait for the check: with the check on the writer, this would block.
    service.process_pending_now()
    assert idx.doc_ids("appended mid check") == ["chat:c1:m2"]
    assert service.drainer.health.running
    hold.release.set()
    service.drainer.health.wait()
    assert service.drainer.health.outcome == "healthy"
    assert "verdict" not in service.queue.pending["health"]  # a healthy check queues nothing
    assert service.drainer.recreated_reason is None


def _drift(service: SearchService, doc_id: str) -> None:
    """Delete a document's FTS row: silent drift only the health check (or counts) see."""
    conn = service.readers.reader()
    rowid = conn.execute("SELECT id FROM docs WHERE doc_id = ?", (doc_id,)).fetchone()[0]
    conn.execute("DELETE FROM docs_fts WHERE rowid = ?", (rowid,))


def test_drift_found_off_the_writer_leads_to_the_rebuild(
    live_service: SearchService, writer: ProjectWriter, timers: ManualTimerFactory
) -> None:
    service = live_service
    idx = Index(service)
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="healthy words", status="accepted")
    service.catch_up()
    _drift(service, "chat:c1:m1")
    assert idx.doc_ids("healthy") == []
    hold = Hold(service)
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert hold.entered.wait(HOLD_S)
    service.process_pending_now()  # the backfill's reconcile went on without the verdict
    assert idx.doc_ids("healthy") == []
    hold.release.set()
    service.drainer.health.wait()
    assert service.drainer.health.outcome == "unhealthy"
    assert "verdict" in service.queue.pending["health"]  # for the writer: it acts on it
    service.process_pending_now()
    assert idx.doc_ids("healthy") == ["chat:c1:m1"]
    assert service.index_status().warnings.get("index", 0) == 1


def test_a_verdict_about_rows_cleared_since_is_dropped(
    live_service: SearchService, writer: ProjectWriter, timers: ManualTimerFactory
) -> None:
    """A rebuild while the check reads: its complaint is about rows that are gone."""
    service = live_service
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="words", status="accepted")
    service.catch_up()
    _drift(service, "chat:c1:m1")
    hold = Hold(service)
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert hold.entered.wait(HOLD_S)
    service.rebuild_index()
    hold.release.set()
    service.drainer.health.wait()
    assert "verdict" not in service.queue.pending["health"]
    assert service.index_status().warnings.get("index", 0) == 0  # no second rebuild


def test_dispose_during_a_health_check_returns(
    live_service: SearchService, writer: ProjectWriter, timers: ManualTimerFactory
) -> None:
    service = live_service
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="words", status="accepted")
    service.catch_up()
    health = service.drainer.health
    entered = threading.Event()

    def busy_check() -> None:
        """A check that would run on until stopped (the 330 MB index takes ~5 s)."""
        entered.set()
        health.stopping.wait(HOLD_S)

    health.on_progress = busy_check
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert entered.wait(HOLD_S)
    service.dispose()
    assert not health.running
    assert health.outcome == "interrupted"  # stopped, not waited out


def test_without_a_writer_thread_the_check_runs_inline(
    service: SearchService, writer: ProjectWriter, idx: Index, timers: ManualTimerFactory
) -> None:
    """The CLI and tests drain on their own thread: the drain has acted when it returns."""
    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="inline words", status="accepted")
    service.catch_up()
    _drift(service, "chat:c1:m1")
    threads: list[str] = []
    service.drainer.health.on_progress = lambda: threads.append(threading.current_thread().name)
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert idx.doc_ids("inline") == ["chat:c1:m1"]
    assert set(threads) == {threading.current_thread().name}


def test_status_counts_the_entry_being_run(
    service: SearchService, writer: ProjectWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``pop_next`` takes the entry off the queue before it runs: the status still counts it."""
    import engine.ingest.transcripts as transcripts

    writer.session("c1")
    writer.chat("c1", "user_message", id="m1", text="words", status="accepted")
    seen: list[tuple[str, int]] = []
    real = transcripts.process_session

    def observed(*args: Any, **kwargs: Any) -> Any:
        status = service.index_status()
        seen.append((status.state, status.pending_sources))
        return real(*args, **kwargs)

    monkeypatch.setattr(transcripts, "process_session", observed)
    service.queue.add("chat", "c1", delay=0.0)
    service.process_pending_now()
    assert seen == [("indexing", 1)]
    status = service.index_status()
    assert (status.state, status.pending_sources) == ("ready", 0)


def test_page_damage_found_off_the_writer_recreates_the_file(
    damaged_demo: tuple[Path, int],
) -> None:
    """Zeroed ``docs`` pages (as the damage tests make them): the off-thread check reports
    them, and the writer, acting on the verdict, recreates the file and re-ingests it all."""
    root, docs = damaged_demo
    service = create_project_service(
        open_project(root), timer=ManualTimerFactory(), start_worker=True
    )
    try:
        with service.drainer.lock:  # as the writer's backfill or hourly entry does
            assert service.drainer.check_health(service.drainer.connection())
        service.drainer.health.wait()
        assert service.drainer.health.outcome == "unhealthy"
        assert service.drainer.recreated_reason is None  # nothing acted yet: the writer will
        service.process_pending_now()
        assert service.drainer.recreated_reason is not None
        assert service.index_status().doc_count == docs
    finally:
        service.dispose()
    assert not _damaged(root)


def test_a_running_entry_queued_again_is_counted_once(timers: ManualTimerFactory) -> None:
    queue = IngestQueue(timers, lambda: None)
    queue.add("chat", "c1", delay=0.0)
    queue.add("reconcile", "periodic", delay=0.0, retry=True)
    assert queue.pop_next() == ("chat", "c1")
    assert (queue.source_count(), queue.pending_sources()) == (0, 1)
    queue.add("chat", "c1")  # a notify while it runs: one source, not two
    assert queue.pending_sources() == 1
    assert queue.pop_next() == ("reconcile", "periodic")  # the chat entry's debounce is not due
    assert queue.pending_sources() == 1  # the queued chat entry; the reconcile is no source
    timers.advance(DEBOUNCE_S["chat"])
    assert queue.pop_next() == ("chat", "c1")
    assert queue.pop_next() is None  # the drain found nothing more: no entry runs
    assert queue.pending_sources() == 0


def test_the_status_says_while_a_health_check_runs(
    live_service: SearchService, writer: ProjectWriter, timers: ManualTimerFactory
) -> None:
    """The status (JSON and text) names a check under way and stops naming it once it ends."""
    from tui.search_format import format_status_text

    service = live_service
    writer.session("c1", title="Live chat")
    writer.chat("c1", "user_message", id="m1", text="words", status="accepted")
    service.catch_up()
    assert service.index_status().health_check_since is None
    hold = Hold(service)
    service.start_backfill(0.0)
    timers.advance(0.0)
    assert hold.entered.wait(HOLD_S), "the backfill did not start a health check"
    during = service.index_status()
    assert during.health_check_since is not None
    assert "health check: running since " in format_status_text(during)
    hold.release.set()
    service.drainer.health.wait()
    after = service.index_status()
    assert after.health_check_since is None
    assert "health check" not in format_status_text(after)
