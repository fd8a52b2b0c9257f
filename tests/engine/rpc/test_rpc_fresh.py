"""Freshness on the wire (docs/freshness.md): ``search.query``'s ``fresh`` parameter, an index file deleted
under the running daemon, and a damaged index that heals in the answer that found it — with
``fresh: false`` (the palette while its user types), so no catch-up ran before the query."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

from cli_helpers import zero_docs_pages

from engine.embedded import EmbeddedClient
from engine.service.fresh import SharedCatchUp


def _query(conn: Any, root: Path, query: str, **extra: Any) -> dict[str, Any]:
    answer: dict[str, Any] = conn.call("search.query", {"projectRoot": str(root), "query": query,
                                                         **extra})  # fmt: skip
    return answer


def test_fresh_must_be_a_boolean(daemon: Any, demo_copy: Path) -> None:
    answer = _query(daemon.connect(), demo_copy, "retry", fresh="yes")
    assert answer["error"]["code"] == -32602
    assert "fresh must be true or false" in answer["error"]["message"]


def test_a_damaged_index_heals_within_the_answer_that_found_it(
    daemon: Any, demo_copy: Path
) -> None:
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
    zero_docs_pages(demo_copy / ".ade" / "cache" / "search-index.db")
    answer = _query(daemon.connect(), demo_copy, "kind:pr", fresh=False)
    result = answer["result"]
    assert len(result["items"]) == 5, result  # not an empty answer while the writer re-ingests
    assert any("damaged" in w and "recreated" in w for w in result["warnings"]), result
    assert "Traceback" not in daemon.log_text()


def test_a_deleted_index_is_never_an_empty_ready_index(daemon: Any, demo_copy: Path) -> None:
    conn = daemon.connect()
    assert _query(conn, demo_copy, "kind:pr")["result"]["items"]  # the daemon holds the file
    shutil.rmtree(demo_copy / ".ade" / "cache")
    status = conn.call("search.indexStatus", {"projectRoot": str(demo_copy)})["result"]
    assert status["recreatedReason"] == "index file was deleted"
    assert status["state"] in ("indexing", "recreated"), status
    assert status["state"] == "recreated" or status["pendingSources"] > 0
    answer = _query(conn, demo_copy, "kind:pr", fresh=False)["result"]
    assert any("index file was deleted" in w for w in answer["warnings"]), answer
    fresh = _query(conn, demo_copy, "kind:pr")["result"]
    assert len(fresh["items"]) == 5  # the fresh answer waited for the re-ingest


def test_concurrent_answers_share_one_catch_up_started_after_them() -> None:
    shared = SharedCatchUp()
    inside, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow(deadline: float) -> bool:
        calls.append("slow")
        inside.set()
        release.wait()
        return True

    first = threading.Thread(target=shared.run, args=(slow, 30.0))
    first.start()
    inside.wait()
    # One already running may have stat'ed before this caller's write: not good enough, and
    # a zero bound answers at once, saying it could not wait.
    assert shared.run(lambda deadline: calls.append("never") or True, 0.0) is False
    release.set()
    first.join()
    assert shared.run(lambda deadline: calls.append("next") is None, 30.0) is True
    assert calls == ["slow", "next"]


def test_a_freshly_opened_palette_sees_what_was_written_then_types_without_catching_up(
    daemon: Any, demo_copy: Path, monkeypatch: Any
) -> None:
    from engine.rpc.client import DaemonClient
    from engine.types import SearchQueryArgs
    from tui.palette_client import open_palette_client

    conn = daemon.connect()
    assert _query(conn, demo_copy, "kind:pr")["result"]["items"]  # open and watched
    with (demo_copy / ".ade" / "chats" / "chat-release-notes.jsonl").open("a") as f:
        f.write('{"seq":90,"ts":"2026-06-09T18:20:00.000Z","type":"assistant_message",'
                '"id":"msg_pal","text":"dugongpaletteword"}\n')  # fmt: skip
    for name in ("ADE_RUNTIME_DIR", "ADE_CONFIG_DIR", "ADE_NOW"):
        monkeypatch.setenv(name, daemon.env[name])
    monkeypatch.delenv("ADE_DAEMON", raising=False)
    client = open_palette_client(demo_copy, use_daemon=True, watch=False)
    try:
        assert isinstance(client, DaemonClient)
        first = client.query(SearchQueryArgs(query="dugongpaletteword"))
        assert [i.doc_id for i in first.items] == ["chat:chat-release-notes:msg_pal"]
        sent: list[dict[str, Any]] = []
        call = client.connection.call

        def spy(method: str, params: dict[str, Any], timeout: float | None) -> Any:
            sent.append(params)
            return call(method, params, timeout)

        monkeypatch.setattr(client.connection, "call", spy)
        client.query(SearchQueryArgs(query="dugong"))
        assert sent[0]["fresh"] is False  # typing: the watcher's pace, no catch-up per key
    finally:
        client.close()
