"""A real daemon serving a project full of hostile files (docs/reliability.md): FIFOs where a
session, a PR and a transcript belong, a PR and lanes.json nested 100,000 deep.

Before the fix the query never returned (a FIFO opened for reading blocks until a writer comes)
or came back as -32603 (RecursionError), and ``ade daemon stop`` then failed. The socket's own
timeout turns a hang into a failure here.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tui.cli import main as ade_main

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture
def hostile_project(short_dir: Path, chat_project: Any) -> Path:
    root: Path = chat_project(short_dir / "alpha", "alpha", "Alpha", 3).resolve()
    ade = root / ".ade"
    os.mkfifo(ade / "sessions" / "fifo.json")
    (ade / "prs").mkdir()
    os.mkfifo(ade / "prs" / "7.json")
    (ade / "prs" / "8.json").write_text(DEEP)
    (ade / "lanes.json").write_text(DEEP)
    meta = json.loads((ade / "sessions" / "chat-alpha.json").read_text())
    meta["id"] = "chat-piped"
    (ade / "sessions" / "chat-piped.json").write_text(json.dumps(meta))
    os.mkfifo(ade / "chats" / "chat-piped.jsonl")
    return root


def test_daemon_answers_and_stops_beside_fifos_and_deep_json(
    daemon: Any,
    hostile_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    conn = daemon.connect(timeout=30)
    answer = conn.call("search.query", {"projectRoot": str(hostile_project), "query": "zebra"})
    assert "error" not in answer, answer
    assert answer["result"]["total"] == 3
    status = conn.call("search.indexStatus", {"projectRoot": str(hostile_project)})["result"]
    assert status["warnings"] == {"chat:chat-piped": 1, "lanes": 1, "prs": 2, "sessions": 1}
    conn.close()
    monkeypatch.setenv("ADE_RUNTIME_DIR", str(daemon.runtime))
    monkeypatch.setenv("ADE_CONFIG_DIR", str(daemon.config))
    monkeypatch.delenv("ADE_SESSION_ID", raising=False)
    assert ade_main(["daemon", "stop"]) == 0
    assert daemon.proc.wait(timeout=20) == 0
    capsys.readouterr()
