"""Snippets of chat messages and terminal chunks are cut from the transcript itself (index-size budget).

The index keeps no body for them, only where the text came from and its fingerprint: a snippet
re-read from a rewritten, missing or compressed transcript is never shown wrong — the hit keeps
its title, the snippet is empty and the source is re-ingested by the next catch-up.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import pytest

from engine.index.db import connect, get_source, immediate
from engine.query import source_text
from engine.query.source_text import document_texts
from engine.service import SearchService
from engine.types import SearchQueryArgs

from .conftest import ProjectWriter

GHP = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def _hit(service: SearchService, query: str, kind: str) -> tuple[str, str]:
    items = service.query(SearchQueryArgs(query=query, kinds=(kind,), limit=50)).items
    assert items, query
    return items[0].doc_id, items[0].snippet


@pytest.fixture
def ingested(service: SearchService, writer: ProjectWriter) -> SearchService:
    writer.session("c1", title="a chat")
    writer.chat("c1", "user_message", id="m1", text="the zorblax flux capacitor hums")
    writer.chat("c1", "assistant_message", id="m2", text=f"rotate the token {GHP} quokka today")
    writer.session("t1", kind="terminal", title="a shell")
    writer.terminal("t1", b"$ make\r\n\x1b[31mwombat failure\x1b[0m in stage 3\r\n")
    service.catch_up()
    return service


def test_big_kinds_store_no_body_and_snippets_are_rederived(ingested: SearchService) -> None:
    rows = (
        ingested.readers.reader()
        .execute(
            "SELECT kind, length(body), src_offset IS NOT NULL FROM docs WHERE doc_id LIKE '%:%:%'"
            " OR doc_id LIKE 'terminal:%@%'"
        )
        .fetchall()
    )
    assert rows
    assert all(length == 0 and sourced for _, length, sourced in rows)
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "the zorblax flux capacitor hums")
    doc_id, snippet = _hit(ingested, "wombat", "terminal")
    assert doc_id == "terminal:t1@0"
    assert "wombat failure in stage 3" in snippet


def test_a_rederived_snippet_is_redacted_again(ingested: SearchService) -> None:
    _, snippet = _hit(ingested, "quokka", "chat")
    assert "[REDACTED:" in snippet
    assert GHP not in snippet


def _marked(service: SearchService, key: str) -> bool:
    row = get_source(service.readers.reader(), key)
    return (
        row is not None
        and row.identity == "{}"
        and get_source(service.readers.reader(), f"stat:{key}") is None
    )


def test_a_rewritten_transcript_gives_no_wrong_snippet_and_is_reingested(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    path = writer.chat_path("c1")
    path.write_bytes(path.read_bytes().replace(b"zorblax flux", b"zorblax FLUX"))  # same length
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "")
    assert _marked(ingested, "chat:c1")
    ingested.catch_up()
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "the zorblax FLUX capacitor hums")


def test_a_page_shown_again_reuses_its_derived_texts(ingested: SearchService) -> None:
    """The text derived for a page is kept with the bytes it came from: the same page again
    reads the bytes and reuses the very text (no parsing, chunking or sanitizing again)."""
    conn, project = ingested.readers.reader(), ingested.project
    ids = ["chat:c1:m1", "chat:c1:m2", "terminal:t1@0"]
    first = document_texts(conn, project, ids)
    again = document_texts(conn, project, ids)
    assert first == again
    assert "wombat failure" in first["terminal:t1@0"]
    assert all(again[doc_id] is first[doc_id] for doc_id in ids)
    source_text.forget_derived_texts()
    fresh = document_texts(conn, project, ids)
    assert fresh == first
    assert fresh["chat:c1:m1"] is not first["chat:c1:m1"]


@pytest.mark.parametrize("kind", ["chat", "terminal"])
def test_a_transcript_rewritten_after_its_page_was_shown_gives_no_stale_snippet(
    ingested: SearchService, writer: ProjectWriter, kind: str
) -> None:
    """A kept text is reused only for the bytes it came from: rewritten in place (same length,
    same offsets), the transcript gives no snippet and is marked, as on a first read."""
    query, path, old, new = (
        ("zorblax", writer.chat_path("c1"), b"zorblax flux", b"zorblax FLUX")
        if kind == "chat"
        else ("wombat", writer.terminal_path("t1"), b"stage 3", b"stage 4")
    )
    assert _hit(ingested, query, kind)[1]  # shown once: its text is kept
    path.write_bytes(path.read_bytes().replace(old, new))
    assert _hit(ingested, query, kind)[1] == ""
    assert _marked(ingested, f"{kind}:{'c1' if kind == 'chat' else 't1'}")


def test_a_mismatch_alone_makes_the_next_catch_up_reingest(ingested: SearchService) -> None:
    # The file is untouched (its change check would see nothing): only the mark brings it back.
    with immediate(connect(ingested.project.index_path)) as conn:
        conn.execute("UPDATE docs SET digest = zeroblob(16) WHERE doc_id = 'chat:c1:m1'")
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "")
    assert _marked(ingested, "chat:c1")
    ingested.catch_up()
    assert _hit(ingested, "zorblax", "chat")[1] == "the zorblax flux capacitor hums"
    assert not _marked(ingested, "chat:c1")


def test_a_rewritten_terminal_log_gives_no_wrong_snippet(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    path = writer.terminal_path("t1")
    path.write_bytes(path.read_bytes().replace(b"stage 3", b"stage 4"))
    assert _hit(ingested, "wombat", "terminal") == ("terminal:t1@0", "")
    assert _marked(ingested, "terminal:t1")
    ingested.catch_up()
    assert "stage 4" in _hit(ingested, "wombat", "terminal")[1]


def test_a_missing_transcript_gives_an_empty_snippet(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    writer.chat_path("c1").unlink()
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "")
    assert _marked(ingested, "chat:c1")


def test_a_compressed_transcript_is_reingested_with_stored_bodies(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    plain = writer.chat_path("c1")
    plain.with_name(plain.name + ".gz").write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    assert _hit(ingested, "zorblax", "chat") == ("chat:c1:m1", "")
    ingested.catch_up()
    assert _hit(ingested, "zorblax", "chat")[1] == "the zorblax flux capacitor hums"
    stored = (
        ingested.readers.reader()
        .execute(
            "SELECT count(*) FROM docs WHERE source_key = 'chat:c1' AND src_offset IS NOT NULL"
        )
        .fetchone()
    )
    assert stored == (0,)  # offsets index a plain file: a .gz pass keeps its bodies


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_transcript_gives_an_empty_snippet(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    path: Path = writer.terminal_path("t1")
    path.chmod(0)
    try:
        assert _hit(ingested, "wombat", "terminal") == ("terminal:t1@0", "")
    finally:
        path.chmod(0o644)


def test_every_sourced_doc_rederives_its_indexed_text(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    # A longer log over several passes: chunk boundaries fall where slices ended, escapes, \r
    # progress frames and an alternate-screen region included.
    for n in range(300):
        writer.terminal(
            "t1", f"step {n} \x1b[32mok\x1b[0m\r\nprogress 10%\rprogress 100%\r\n".encode()
        )
        if n == 150:
            writer.terminal("t1", b"\x1b[?1049hhidden vim screen\r\n\x1b[?1049lback\r\n")
            ingested.catch_up()
    ingested.catch_up()
    conn = ingested.readers.reader()
    ids = [r[0] for r in conn.execute("SELECT doc_id FROM docs WHERE src_offset IS NOT NULL")]
    texts = document_texts(conn, ingested.project, ids)
    assert len(ids) > 3
    assert all(texts[i] for i in ids)
    assert get_source(conn, "terminal:t1") is not None
    assert not _marked(ingested, "terminal:t1")
    assert not _marked(ingested, "chat:c1")


def test_the_chat_sanitizer_is_the_indexing_one() -> None:
    from engine.query.source_text import _sanitized
    from engine.terminal.sanitize import sanitize_indexed_text

    for text in (
        "a\r\nb\rc",
        "\x1b[31merror\x1b[0m \x07bell\ttab",
        "x\x00y\x1b]0;title\x07z",
        "é\r",
    ):
        assert _sanitized(text) == (sanitize_indexed_text(text), False), repr(text)


def test_a_retitled_session_keeps_its_rederived_snippets(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    # A retitle rewrites the children's stored title in place (not their digest): the body's own
    # fingerprint still matches.
    writer.chat("c1", "session_title", title="a brand new name")
    ingested.catch_up()
    items = ingested.query(SearchQueryArgs(query="zorblax", kinds=("chat",), limit=50)).items
    assert [(i.title, i.snippet) for i in items] == [
        ("a brand new name", "the zorblax flux capacitor hums")
    ]


def test_a_rederived_terminal_chunk_is_redacted_again(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    # The unredacted chunk does not have the indexed fingerprint: only the redacted one is shown.
    writer.terminal("t1", f"$ export GITHUB_TOKEN={GHP}\r\nnarwhal deployed\r\n".encode())
    ingested.catch_up()
    _, snippet = _hit(ingested, "narwhal", "terminal")
    assert "[REDACTED:" in snippet
    assert GHP not in snippet


def test_many_spans_of_one_transcript_near_and_far_all_rederive(
    ingested: SearchService, writer: ProjectWriter
) -> None:
    # Near spans share one read, spans far apart (past COALESCE_GAP_BYTES) are read apart.
    for n in range(40):
        writer.chat("c1", "user_message", id=f"near{n}", text=f"marmot {n} near")
    writer.chat("c1", "tool_result", id="bulk", output="filler line\n" * 12_000)
    writer.chat("c1", "user_message", id="far", text=f"marmot far with {GHP}")
    ingested.catch_up()
    items = ingested.query(SearchQueryArgs(query="marmot", kinds=("chat",), limit=50)).items
    snippets = {i.doc_id: i.snippet for i in items}
    assert len(snippets) == 41
    assert all(f"marmot {n} near" in snippets[f"chat:c1:near{n}"] for n in range(40))
    assert "[REDACTED:" in snippets["chat:c1:far"]
    assert GHP not in snippets["chat:c1:far"]
