"""``session:<id>`` freshness: the not-yet-indexed tail is matched live, once."""

from __future__ import annotations

from engine.service import SearchService
from engine.types import SearchQueryArgs


def test_just_accepted_message_appears_once_before_the_debounce(
    service: SearchService, writer, timers
):
    writer.session("s", title="Fresh")
    writer.chat("s", "user_message", id="u1", text="older kiwi note", status="accepted")
    service.catch_up()
    writer.chat("s", "user_message", id="u2", text="brand new kiwi", status="accepted")
    service.notify_chat_event("s")  # queued, debounce not run: the index does not have u2
    res = service.query(SearchQueryArgs(query="session:s kiwi"))
    assert sorted(i.doc_id for i in res.items) == ["chat:s:u1", "chat:s:u2"]
    assert res.total == 2
    plain = service.query(SearchQueryArgs(query="kiwi"))
    assert [i.doc_id for i in plain.items] == ["chat:s:u1"]
    timers.advance(0.3)  # the debounce runs: the indexed row replaces the live one, still once
    after = service.query(SearchQueryArgs(query="session:s kiwi"))
    assert sorted(i.doc_id for i in after.items) == ["chat:s:u1", "chat:s:u2"]
    assert after.total == 2


def test_live_title_replaces_stale_indexed_session_doc(service: SearchService, writer):
    writer.session("s", title="Stale title")
    writer.chat("s", "user_message", id="u1", text="hello", status="accepted")
    service.catch_up()
    writer.chat("s", "session_title", title="Renamed live")
    res = service.query(SearchQueryArgs(query="session:s", kinds=("chat",)))
    titles = {i.doc_id: i.title for i in res.items}
    assert titles["chat:s"] == "Renamed live"
    assert res.total == len(res.items) == 2


def test_filter_only_session_query_lists_live_terminal_chunks(service: SearchService, writer):
    writer.session("t", kind="terminal", title="Shell")
    writer.terminal("t", b"first line\r\n")
    service.catch_up()
    writer.terminal("t", b"second line\r\n")
    res = service.query(SearchQueryArgs(query="session:t second"))
    assert [i.doc_id for i in res.items] == ["terminal:t@12"]
