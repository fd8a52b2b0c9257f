"""Chat lifecycle and replay, session metadata changes, deleted sessions, terminals, secrets."""

from __future__ import annotations

from engine.service import SearchService
from engine.types import SearchQueryArgs


def test_accepted_owns_the_body_and_snapshots_and_replays_change_nothing(
    service: SearchService, writer, idx
):
    writer.session("s", title="Lifecycle")
    writer.chat("s", "user_message", id="u1", text="deploy the canary", status="accepted")
    writer.chat("s", "user_message", id="u1", text="deploy the canary", status="processed")
    writer.chat("s", "user_message", id="u2", text="never accepted here", status="unprocessed")
    service.catch_up()
    assert idx.doc_ids("canary") == ["chat:s:u1"]
    assert idx.doc_ids("accepted") == []
    before = (
        service.readers.reader().execute("SELECT id FROM docs WHERE doc_id='chat:s:u1'").fetchone()
    )
    # Reconnect replay: the same accepted event again, with edited text and a later timestamp.
    writer.chat("s", "user_message", id="u1", text="deploy the REPLAYED canary", status="accepted")
    service.notify_chat_event("s")
    service.process_pending_now()
    assert idx.doc_ids("canary") == ["chat:s:u1"]
    assert idx.doc_ids("REPLAYED") == []
    after = (
        service.readers.reader().execute("SELECT id FROM docs WHERE doc_id='chat:s:u1'").fetchone()
    )
    assert before == after


def test_session_title_event_retitles_session_and_messages(service: SearchService, writer, idx):
    writer.session("s", title="Old name")
    writer.chat("s", "user_message", id="u1", text="hello there", status="accepted")
    service.catch_up()
    writer.chat("s", "session_title", title="Shiny new name")
    service.notify_chat_event("s")
    service.process_pending_now()
    res = service.query(SearchQueryArgs(query="shiny"))
    assert [i.doc_id for i in res.items] == ["chat:s"]
    msg = service.query(SearchQueryArgs(query="hello"))
    assert msg.items[0].title == "Shiny new name"


def test_metadata_change_moves_lane_and_title(service: SearchService, writer, idx):
    writer.session("s", title="First", laneId="primary")
    writer.chat("s", "assistant_message", id="a1", text="lane moving text")
    service.catch_up()
    writer.session("s", title="Second", laneId="feature-x", archived=True)
    service.notify_session_changed("s")
    service.process_pending_now()
    item = service.query(SearchQueryArgs(query="moving")).items[0]
    assert (item.title, item.lane_id) == ("Second", "feature-x")
    assert idx.doc_ids("Second") == ["chat:s"]


def test_deleted_session_is_removed_by_reconcile(service: SearchService, writer, idx):
    writer.session("gone")
    writer.chat("gone", "user_message", id="u1", text="ephemeral words", status="accepted")
    writer.session("kept")
    writer.chat("kept", "user_message", id="u1", text="durable words", status="accepted")
    service.catch_up()
    (writer.ade / "sessions" / "gone.json").unlink()
    writer.chat_path("gone").unlink()
    service.catch_up()
    assert idx.doc_ids("words") == ["chat:kept:u1"]
    assert not any("gone" in k for k in _source_keys(service))


def _source_keys(service: SearchService) -> list[str]:
    return [str(r[0]) for r in service.readers.reader().execute("SELECT key FROM sources")]


def test_ended_session_forces_the_terminal_tail(service: SearchService, writer, idx):
    writer.session("t", kind="terminal")
    writer.terminal("t", b"$ make\r\nbuilding\r\nlast words without newline")
    service.catch_up()
    assert idx.doc_ids("without") == []
    writer.session("t", kind="terminal", endedAt="2026-06-01T10:00:00+00:00")
    service.notify_session_changed("t")
    service.process_pending_now()
    assert len(idx.doc_ids("without")) == 1


def test_carriage_return_frames_and_alternate_screen(service: SearchService, writer, idx):
    writer.session("t", kind="terminal")
    frames = b"".join(b"\rprogress %d%%" % p for p in range(0, 101, 10))
    vim = b"\x1b[?1049hVIMSCREENTEXT editing\x1b[?1049l"
    writer.terminal("t", b"start\r\n" + frames + b"\r\n" + vim + b"after vim\r\n")
    service.catch_up()
    assert idx.doc_ids("100") != []
    assert idx.doc_ids("10progress") == []
    assert idx.doc_ids("VIMSCREENTEXT") == []
    assert idx.doc_ids("after vim") != []


def test_split_utf8_and_escape_across_passes(service: SearchService, writer, idx):
    writer.session("t", kind="terminal")
    text = "café \x1b[31mcrimson\x1b[0m naïve\r\n".encode()
    pieces = [text[:4], text[4:8], text[8:13], text[13:]]  # mid-é, mid-escape, mid-"crimson"
    for piece in pieces:
        writer.terminal("t", piece)
        service.notify_terminal_data("t")
        service.process_pending_now()
    writer.session("t", kind="terminal", endedAt="2026-06-01T10:00:00+00:00")
    service.notify_session_changed("t")
    service.process_pending_now()
    assert idx.doc_ids("crimson") == ["terminal:t@0"]
    assert idx.doc_ids("31mcrimson") == []
    assert idx.doc_ids("café") == ["terminal:t@0"]
    body = service.query(SearchQueryArgs(query="naïve")).items[0].snippet
    assert "\ufffd" not in body


def test_secrets_are_redacted_before_indexing(service: SearchService, writer, idx):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    writer.session("s")
    writer.chat("s", "user_message", id="u1", text=f"use token {token} please", status="accepted")
    writer.session("t", kind="terminal")
    writer.terminal("t", f"export GITHUB_TOKEN={token}\r\n".encode())
    service.catch_up()
    assert idx.doc_ids(token) == []
    assert idx.doc_ids("please") == ["chat:s:u1"]
    snippets = [i.snippet for i in service.query(SearchQueryArgs(query="token")).items]
    assert snippets
    assert all(token not in s for s in snippets)
    assert token in writer.chat_path("s").read_text()
