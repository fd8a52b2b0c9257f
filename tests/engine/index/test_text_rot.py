"""Cutting rotten rows out of the index never loses them: the delete and the mark that brings
them back from their source are one transaction (``engine.index.text_rot``)."""

from __future__ import annotations

from pathlib import Path

from engine.embedded import EmbeddedClient
from engine.index.db import connect
from engine.index.text_rot import heal_rotten_rows
from engine.types import SearchQueryArgs


def _index(root: Path) -> Path:
    return root / ".ade" / "cache" / "search-index.db"


def _doc_ids(root: Path) -> set[str]:
    conn = connect(_index(root))
    try:
        return {f"{r[0]} {r[1]}" for r in conn.execute("SELECT doc_id, title FROM docs")}
    finally:
        conn.close()


def _catch_up(root: Path) -> None:
    with EmbeddedClient.open(root, start_worker=False) as client:
        client.service.catch_up()


def test_rotten_rows_are_deleted_and_their_sources_marked_in_one_commit(demo_copy: Path) -> None:
    _catch_up(demo_copy)
    before = _doc_ids(demo_copy)
    conn = connect(_index(demo_copy))
    try:
        conn.execute(
            "UPDATE docs SET title = CAST(x'66ff80fe' AS TEXT) WHERE id IN"
            " (SELECT id FROM docs WHERE kind = 'chat' ORDER BY updated_at DESC LIMIT 3)"
        )
        keys = {r[0] for r in conn.execute("SELECT DISTINCT source_key FROM docs WHERE id IN"
                " (SELECT id FROM docs WHERE kind = 'chat' ORDER BY updated_at DESC LIMIT 3)")}  # fmt: skip
        commits: list[int] = []

        def count_commit() -> bool:
            commits.append(1)
            return False  # let it commit

        conn.set_commit_hook(count_commit)
        assert heal_rotten_rows(conn) == 3
        conn.set_commit_hook(None)
        # A second commit would be a window where the daemon's writer takes the lock between the
        # delete and the mark: the rows gone, nothing to bring them back.
        assert len(commits) == 1
        marked = {
            r[0]
            for r in conn.execute("SELECT key FROM sources WHERE identity = '{}'")
            if r[0] in keys
        }
        assert marked == keys
    finally:
        conn.close()
    _catch_up(demo_copy)
    assert _doc_ids(demo_copy) == before


def test_a_pass_that_reads_a_rotten_row_heals_it_instead_of_failing(demo_copy: Path) -> None:
    """The writer meets the rot first (a transcript grew under a rotten title): the catch-up
    cuts the rows out, marks the source and ingests it again, whole, on the same drain."""
    _catch_up(demo_copy)
    conn = connect(_index(demo_copy))
    try:
        conn.execute(
            "UPDATE docs SET title = CAST(x'66ff80fe' AS TEXT)"
            " WHERE doc_id = 'chat:chat-pr41-review'"
        )
    finally:
        conn.close()
    transcript = demo_copy / ".ade" / "chats" / "chat-pr41-review.jsonl"
    with transcript.open("a", encoding="utf-8") as out:
        out.write('{"seq":8,"ts":"2026-06-15T11:39:00.000Z","type":"assistant_message",'
                  '"id":"msg_0009","text":"Pushed the rotation fix"}\n')  # fmt: skip
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()  # raised UnicodeDecodeError out of the pass before the heal
        warnings = client.query(SearchQueryArgs(query="rotation")).warnings
    assert any("invalid UTF-8" in w for w in warnings), warnings  # said once, by the answer
    ids = _doc_ids(demo_copy)  # every title decodes again
    assert "chat:chat-pr41-review:msg_0009 Address review comments on PR #41" in ids
    assert "chat:chat-pr41-review Address review comments on PR #41" in ids
