"""Dual host: a palette-like in-process host and a daemon on one index file.

Both watch and ingest the same demo copy while a writer appends chat events and terminal output;
afterwards both answer alike and the index holds exactly what a one-shot ingestion of the final
files produces (deterministic ids, upserts, cursors in ``sources``, WAL + busy timeout). A busy
retry is a debug line, never a warning a user sees.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.index.db import connect
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.query.source_text import document_texts
from engine.types import SearchQueryArgs, to_json
from engine.wiring import create_project_service

CHAT = "chat-connect-timeout"
TERMINAL = "term-dev-server"
ROUNDS = 6
DEADLINE_S = 30.0
IDENTITY = ("projectId", "projectName", "projectRoot")


def _append(root: Path, round_no: int) -> None:
    chat = root / ".ade" / "chats" / f"{CHAT}.jsonl"
    events = [
        {"seq": 100 + round_no * 10 + i, "ts": f"2026-06-14T09:{round_no:02d}:{i:02d}.000Z",
         "type": "user_message", "id": f"dual_{round_no}_{i}", "status": "accepted",
         "text": f"dualhost round{round_no} message{i} about quokka{round_no}"}
        for i in range(3)
    ]  # fmt: skip
    with chat.open("a", encoding="utf-8") as out:
        out.writelines(json.dumps(e) + "\n" for e in events)
    log = root / ".ade" / "terminals" / f"{TERMINAL}.log"
    with log.open("ab") as out:
        lines = [f"INFO: dualhost round{round_no} line{i} wombat{round_no}\r\n" for i in range(40)]
        out.write("".join(lines).encode())


def _docs(index: Path) -> tuple[dict[str, bytes], dict[str, Counter[str]]]:
    """Every non-terminal doc id with its content digest, and each terminal's lines.

    Terminal chunks start where a pass found the cursor, so their ids depend on when passes ran
    (a single host ingesting as output arrives differs from a one-shot pass the same way); what
    must match is their text: every line once, none missing.
    """
    conn = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        rows = conn.execute("SELECT doc_id, digest, kind, session_id FROM docs").fetchall()
        texts = document_texts(conn, open_project(index.parents[2]), [r[0] for r in rows])
    finally:
        conn.close()
    digests: dict[str, bytes] = {}
    lines: dict[str, Counter[str]] = {}
    for doc_id, digest, kind, session_id in rows:
        if kind != "terminal":
            digests[str(doc_id)] = bytes(digest)
            continue
        text = texts[str(doc_id)]
        lines.setdefault(str(session_id), Counter()).update(
            line for line in text.splitlines() if line.strip()
        )
    return digests, lines


def _plain(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in item.items() if k not in IDENTITY} for item in items]


def _local(client: EmbeddedClient, query: str) -> dict[str, Any]:
    wire = json.loads(to_json(client.query(SearchQueryArgs(query=query, limit=200))))
    return {"total": wire["total"], "items": _plain(wire["items"])}


def _remote(conn: Any, root: Path, query: str) -> dict[str, Any]:
    params = {"projectRoot": str(root), "query": query, "limit": 200}
    result = conn.call("search.query", params)["result"]
    return {"total": result["total"], "items": _plain(result["items"])}


def _until(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {DEADLINE_S}s")
        time.sleep(0.05)  # the daemon is another process: nothing in this one to drive


@pytest.fixture
def shared(demo_project: Path, short_dir: Path) -> Path:
    return copy_demo(demo_project, short_dir / "demo").resolve()


def test_palette_and_daemon_converge_on_one_index(
    make_daemon: Any,
    shared: Path,
    short_dir: Path,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="engine")
    daemon = make_daemon()
    monkeypatch.setenv("ADE_NOW", daemon.env["ADE_NOW"])  # one clock for both hosts
    rpc = daemon.connect()
    rpc.call("search.indexStatus", {"projectRoot": str(shared)})  # the daemon opens its host
    palette = EmbeddedClient.open(shared, watch=True, backfill_delay=0)
    try:
        for round_no in range(ROUNDS):
            _append(shared, round_no)
            term = f"quokka{round_no}"
            if round_no % 2:  # the palette's host ingests this round itself…
                palette.service.catch_up()
                assert len(_remote(rpc, shared, term)["items"]) == 3  # …the daemon reads it
            else:  # …the daemon's watcher ingests this one, the palette reads it
                _until(lambda t=term: len(_remote(rpc, shared, t)["items"]) == 3, "daemon")
                assert len(_local(palette, term)["items"]) == 3
        palette.service.catch_up()
        _until(
            lambda: (
                rpc.call("search.indexStatus", {"projectRoot": str(shared)})["result"][
                    "pendingSources"
                ]
                == 0
            ),
            "daemon idle",
        )
        for query in ["dualhost", "quokka3", "wombat4", "kind:terminal wombat0", "retry"]:
            local, remote = _local(palette, query), _remote(rpc, shared, query)
            assert local == remote, query
            assert local["items"], query  # the comparison is not vacuous
        converged = _docs(shared / ".ade" / "cache" / "search-index.db")
    finally:
        palette.close()
    daemon.stop()

    one_shot = copy_demo(demo_project, short_dir / "once")
    for round_no in range(ROUNDS):
        _append(one_shot, round_no)
    with EmbeddedClient.open(one_shot, start_worker=False) as fresh:
        fresh.service.catch_up()
    expected = _docs(one_shot / ".ade" / "cache" / "search-index.db")
    assert sorted(converged[0]) == sorted(expected[0])  # no duplicate, no gap
    assert converged[0] == expected[0]  # and every document has the same content
    assert converged[1] == expected[1]  # every terminal line once, none missing
    assert converged[1][TERMINAL][f"INFO: dualhost round{ROUNDS - 1} line39 wombat5"] == 1

    out, err = capfd.readouterr()
    shown = out + err + daemon.stderr.read_text() + daemon.log_text()
    shown += "".join(r.getMessage() for r in caplog.records if r.levelno >= logging.INFO)
    assert "busy" not in shown.lower()
    assert "locked" not in shown.lower()


def test_busy_retry_is_debug_only_and_never_a_user_warning(
    shared: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="engine")
    timers = ManualTimerFactory()
    service = create_project_service(open_project(shared), timer=timers, start_worker=False)
    try:
        service.drainer.connection().setbusytimeout(10)  # give up fast: the lock stays taken
        other_host = connect(service.project.index_path)
        other_host.execute("BEGIN IMMEDIATE")  # another host holds the write lock
        _append(shared, 0)
        service.notify_chat_event(CHAT)
        service.process_pending_now()
        assert any("busy" in r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG)
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert service.index_status().warnings == {}
        assert service.queue.source_count() >= 1  # still queued: it is retried, not dropped
        other_host.execute("ROLLBACK")
        other_host.close()
        service.catch_up()
        result = service.query(SearchQueryArgs(query="quokka0"))
        assert len(result.items) == 3
        assert not result.warnings
    finally:
        service.dispose()
