"""Damaged pages heal, through the daemon: a query that trips over damaged pages of a real index file is
answered (with a warning) and the daemon's writer re-ingests the recreated file by itself."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from cli_helpers import zero_docs_pages

from engine.embedded import EmbeddedClient

DEADLINE_S = 60.0


def test_daemon_query_over_damaged_pages_heals_the_index(daemon: Any, demo_copy: Path) -> None:
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        client.service.catch_up()
        docs = client.index_status().doc_count
    zero_docs_pages(demo_copy / ".ade" / "cache" / "search-index.db")
    conn = daemon.connect()
    answer = conn.call("search.query", {"projectRoot": str(demo_copy), "query": "kind:pr"})
    assert "result" in answer, answer
    status: dict[str, Any] = {}
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:  # the daemon's own writer thread re-ingests
        status = conn.call("search.indexStatus", {"projectRoot": str(demo_copy)})["result"]
        if status["docCount"] == docs and status["pendingSources"] == 0:
            break
        time.sleep(0.05)
    assert status["docCount"] == docs
    assert status["recreatedReason"] is not None
    again = conn.call("search.query", {"projectRoot": str(demo_copy), "query": "kind:pr"})
    assert len(again["result"]["items"]) == 5
    assert "Traceback" not in daemon.log_text()
