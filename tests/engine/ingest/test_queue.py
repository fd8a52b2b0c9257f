"""The notify hooks and the queue: debounce per kind, lazy re-arm, thread safety, dispose."""

from __future__ import annotations

import threading

from engine.ingest.queue import DEBOUNCE_S
from engine.ingest.timers import ManualTimerFactory
from engine.service import SearchService
from engine.wiring import create_project_service


def test_debounce_per_kind(service: SearchService, writer, idx, timers: ManualTimerFactory):
    writer.session("c")
    writer.chat("c", "user_message", id="u", text="chatword", status="accepted")
    writer.session("t", kind="terminal")
    writer.terminal("t", b"termword\r\n")
    service.notify_chat_event("c")
    service.notify_terminal_data("t")
    timers.advance(DEBOUNCE_S["chat"] - 0.01)
    assert idx.indexed_ids() == set()
    timers.advance(0.01)
    assert "chat:c:u" in idx.indexed_ids()
    assert "terminal:t@0" not in idx.indexed_ids()
    timers.advance(DEBOUNCE_S["terminal"] - DEBOUNCE_S["chat"])
    assert "terminal:t@0" in idx.indexed_ids()


def test_one_entry_per_source_and_rearm_only_when_earlier(
    service: SearchService, timers: ManualTimerFactory
):
    service.notify_terminal_data("a")
    assert timers.armed == [DEBOUNCE_S["terminal"]]
    for _ in range(1000):
        service.notify_terminal_data("a")
    service.notify_terminal_data("b")
    assert timers.armed == [DEBOUNCE_S["terminal"]], "later work does not re-arm"
    service.notify_chat_event("c")
    assert timers.armed == [DEBOUNCE_S["chat"]], "earlier work re-arms (the old timer is gone)"
    assert service.queue.source_count() == 3
    timers.advance(0.1)
    service.notify_terminal_data("a")  # already queued: its earlier due time stands
    assert service.queue.pending["terminal"]["a"] == DEBOUNCE_S["terminal"]


def test_notify_from_many_threads(service: SearchService):
    sids = [f"s{i}" for i in range(50)]

    def hammer() -> None:
        for _ in range(200):
            for sid in sids:
                service.notify_terminal_data(sid)
                service.notify_chat_event(sid)

    threads = [threading.Thread(target=hammer) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(service.queue.pending["terminal"]) == set(sids)
    assert set(service.queue.pending["chat"]) == set(sids)


def test_dispose_is_idempotent_and_leaves_no_thread(project, writer):
    before = {t.ident for t in threading.enumerate()}
    svc = create_project_service(project, watch=True, backfill_delay=0.0)
    writer.session("s")
    svc.notify_session_changed("s")
    svc.dispose()
    svc.dispose()
    left = [t for t in threading.enumerate() if t.ident not in before]
    assert left == []
    svc.notify_chat_event("s")  # after dispose: a no-op, never a crash
    assert svc.index_status().state == "closed"
