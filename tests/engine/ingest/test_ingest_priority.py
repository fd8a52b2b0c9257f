"""Ingestion before queries in the daemon (ingestion first): a due drain holds new queries, boundedly.

Real parts throughout: a real project, the real ``SearchService`` with its real writer thread,
the daemon's real ``ServicePool`` and ``DaemonHost`` (what every ``search.query`` goes through),
and real query threads. Time is the manual timer factory, so "the drain is due" and "the hold
has passed" are events the test causes; the writer is kept from draining by holding the
drainer's lock, never by sleeping.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import apsw
import pytest

from engine.embedded import EmbeddedClient
from engine.ingest.queue import QUERY_HOLD_S
from engine.ingest.timers import ManualTimerFactory
from engine.project.model import Project
from engine.rpc.services import DaemonHost, ServicePool
from engine.service import SearchService
from engine.types import SearchQueryArgs, SearchQueryResult
from engine.wiring import create_project_service

from .conftest import NOW, ProjectWriter

WAIT_S = 20.0
"""Upper bound for a thread handoff to happen at all (a failure, not a timing assertion)."""

CHAT_DEBOUNCE_S = 0.3


@pytest.fixture
def live(project: Project, timers: ManualTimerFactory) -> Iterator[SearchService]:
    svc = create_project_service(project, clock=lambda: NOW, timer=timers, start_worker=True)
    svc.ingest_gate.enabled = True  # as the daemon's factory does (engine.rpc.services)
    yield svc
    svc.dispose()


@pytest.fixture
def host(live: SearchService) -> DaemonHost:
    pool = ServicePool(lambda _root: EmbeddedClient(live, lambda: NOW))
    return DaemonHost(pool, lambda root, args: pool.client_for(root).query(args))


def _seed(writer: ProjectWriter, live: SearchService) -> None:
    writer.session("s1")
    writer.chat("s1", "user_message", id="m1", status="accepted", text="alpha first")
    live.catch_up()


def _ask(host: DaemonHost, root: Path, text: str) -> SearchQueryResult:
    # The gate alone: no catch-up first (``fresh=False``, a palette typing), which would ingest
    # on the asking thread what these tests leave to the writer (tests/tui/cli/test_fresh_answers).
    return host.query(root, SearchQueryArgs(query=text, kinds=("chat",)), fresh=False)


def _doc_ids(result: SearchQueryResult) -> list[str]:
    return [item.doc_id for item in result.items]


def test_a_due_drain_runs_before_a_query_that_arrives_meanwhile(
    writer: ProjectWriter, live: SearchService, host: DaemonHost, timers: ManualTimerFactory
) -> None:
    _seed(writer, live)
    writer.chat("s1", "user_message", id="m2", status="accepted", text="zebra arrives")
    live.notify_chat_event("s1")
    answers: list[SearchQueryResult] = []
    asking = threading.Thread(target=lambda: answers.append(_ask(host, writer.root, "zebra")))
    with live.drainer.lock:  # the writer wakes but cannot drain yet
        timers.advance(CHAT_DEBOUNCE_S)  # due: the gate closes, the writer is woken
        asking.start()
        assert live.ingest_gate.wait_for_waiters(1, WAIT_S), "the query did not wait"
        assert not answers
    asking.join(WAIT_S)
    assert _doc_ids(answers[0]) == ["chat:s1:m2"]  # answered after the drain, so it sees m2


def test_a_query_flood_cannot_postpone_a_due_drain(
    writer: ProjectWriter, live: SearchService, host: DaemonHost, timers: ManualTimerFactory
) -> None:
    _seed(writer, live)
    flood = 6
    due, stop = threading.Event(), threading.Event()
    after_due: list[list[str]] = [[] for _ in range(flood)]
    answered = [threading.Event() for _ in range(flood)]

    def query_flat_out(n: int) -> None:
        while not stop.is_set():
            started_after_due = due.is_set()
            ids = _doc_ids(_ask(host, writer.root, "zebra"))
            if started_after_due:
                after_due[n].append(",".join(ids))
                answered[n].set()

    threads = [threading.Thread(target=query_flat_out, args=(n,)) for n in range(flood)]
    for thread in threads:
        thread.start()
    writer.chat("s1", "user_message", id="m2", status="accepted", text="zebra arrives")
    live.notify_chat_event("s1")
    try:
        with live.drainer.lock:
            timers.advance(CHAT_DEBOUNCE_S)
            due.set()  # every query started from here on started with the drain due
            # The whole flood stands still behind the due drain: none keeps it waiting.
            assert live.ingest_gate.wait_for_waiters(flood, WAIT_S), "queries kept running"
            assert not any(after_due)
        for event in answered:
            assert event.wait(WAIT_S)
    finally:
        stop.set()
        for thread in threads:
            thread.join(WAIT_S)
    assert all(seen and set(seen) == {"chat:s1:m2"} for seen in after_due), after_due


def test_a_long_drain_holds_queries_once_and_no_longer_than_the_hold(
    writer: ProjectWriter, live: SearchService, host: DaemonHost, timers: ManualTimerFactory
) -> None:
    _seed(writer, live)
    writer.chat("s1", "user_message", id="m2", status="accepted", text="zebra arrives")
    live.notify_chat_event("s1")
    answers: list[SearchQueryResult] = []
    asking = threading.Thread(target=lambda: answers.append(_ask(host, writer.root, "zebra")))
    with live.drainer.lock:  # a drain that is taking long (a backfill)
        timers.advance(CHAT_DEBOUNCE_S)
        asking.start()
        assert live.ingest_gate.wait_for_waiters(1, WAIT_S)
        timers.advance(QUERY_HOLD_S)  # the hold is over: the query goes, the drain still waits
        asking.join(WAIT_S)
        assert not asking.is_alive()
        assert _doc_ids(answers[0]) == []  # answered from the index as it is
        # More work falls due while the same drain runs: queries are not held a second time.
        writer.session("s2")
        writer.chat("s2", "user_message", id="m1", status="accepted", text="zebra again")
        live.notify_chat_event("s2")
        timers.advance(CHAT_DEBOUNCE_S)
        assert _doc_ids(_ask(host, writer.root, "zebra")) == []
        assert live.ingest_gate.state == "spent"


def test_a_query_already_running_steps_aside_for_a_due_drain(
    writer: ProjectWriter, live: SearchService, timers: ManualTimerFactory
) -> None:
    _seed(writer, live)
    errors: list[BaseException] = []
    started = threading.Event()
    running: list[apsw.Connection] = []

    def long_statement() -> None:
        conn = live.readers.reader()  # the query thread's own read connection, as a query gets it
        running.append(conn)
        started.set()
        try:  # a statement that runs until interrupted
            conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                "SELECT count(*) FROM n"
            ).fetchall()
        except apsw.InterruptError as err:
            errors.append(err)

    thread = threading.Thread(target=long_statement)
    writer.chat("s1", "user_message", id="m2", status="accepted", text="zebra arrives")
    live.notify_chat_event("s1")
    try:
        with live.drainer.lock:
            thread.start()
            assert started.wait(WAIT_S)
            assert live.ingest_gate.waiting == 0  # running, not waiting: no drain is due
            timers.advance(CHAT_DEBOUNCE_S)
            assert live.ingest_gate.wait_for_waiters(1, WAIT_S), "the statement ran on"
    finally:
        running[0].interrupt()
        thread.join(WAIT_S)
    assert errors  # it went on once the drain was done, until interrupted


def test_the_palette_and_cli_never_wait(
    writer: ProjectWriter, live: SearchService, host: DaemonHost, timers: ManualTimerFactory
) -> None:
    live.ingest_gate.enabled = False  # an in-process service: nobody floods it
    _seed(writer, live)
    writer.chat("s1", "user_message", id="m2", status="accepted", text="zebra arrives")
    live.notify_chat_event("s1")
    with live.drainer.lock:
        timers.advance(CHAT_DEBOUNCE_S)
        assert _doc_ids(_ask(host, writer.root, "zebra")) == []  # answered at once, as it is
