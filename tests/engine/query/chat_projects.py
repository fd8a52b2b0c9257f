"""A git project whose ``.ade`` holds one chat per text (one user message each, a day apart),
indexed by an embedded client: the ranking tests' corpus."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from engine.embedded import EmbeddedClient


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def open_chat_project(
    root: Path,
    chats: Mapping[str, str],
    clock: Callable[[], datetime],
    titles: Mapping[str, str] | None = None,
) -> EmbeddedClient:
    """``root`` made a project of ``chats`` (session id → its one message), caught up; each
    session titled ``session <day>`` unless ``titles`` names it."""
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q", "-b", "main"], check=True)
    ade = root / ".ade"
    for day, (sid, text) in enumerate(chats.items(), 1):
        stamp = f"2026-06-{day:02d}T09:00:00+00:00"
        title = (titles or {}).get(sid, f"session {day}")
        meta = {"id": sid, "kind": "chat", "title": title, "laneId": "primary",
                "createdAt": stamp, "updatedAt": stamp, "endedAt": stamp}  # fmt: skip
        _write(ade / "sessions" / f"{sid}.json", json.dumps(meta))
        event = {"seq": 1, "ts": stamp, "type": "user_message", "id": "m1", "text": text,
                 "status": "accepted"}  # fmt: skip
        _write(ade / "chats" / f"{sid}.jsonl", json.dumps(event) + "\n")
    opened = EmbeddedClient.open(root, clock=clock, start_worker=False)
    opened.service.catch_up()
    return opened
