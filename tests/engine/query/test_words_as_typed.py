"""When no document holds every word (docs/search.md, "When nothing matches exactly"): among
documents holding as many of the query's words, one holding them as typed comes before one
holding them only as the start of longer words or in other forms, as the strict ranking puts a
whole word before an identifier's part. On main BM25 decided among them, and a short note
repeating ``gateways`` and ``budgets`` came before the message that says ``gateway budget``.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

CHATS = {
    "forms": "gateways gateways budgets budgets",
    "typed": "after a long review of the settlement jobs, the nightly exports and the ledger"
    " snapshot we raised the gateway budget for the quarter",
    "other": "the walrus sleeps",
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("typed") / "project"
    root.mkdir()
    subprocess.run(["git", "-C", str(root), "init", "-q", "-b", "main"], check=True)
    ade = root / ".ade"
    for day, (sid, text) in enumerate(CHATS.items(), 1):
        stamp = f"2026-06-{day:02d}T09:00:00+00:00"
        meta = {"id": sid, "kind": "chat", "title": f"session {day}", "laneId": "primary",
                "createdAt": stamp, "updatedAt": stamp, "endedAt": stamp}  # fmt: skip
        _write(ade / "sessions" / f"{sid}.json", json.dumps(meta))
        event = {"seq": 1, "ts": stamp, "type": "user_message", "id": "m1", "text": text,
                 "status": "accepted"}  # fmt: skip
        _write(ade / "chats" / f"{sid}.jsonl", json.dumps(event) + "\n")
    opened = EmbeddedClient.open(root, clock=lambda: NOW, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


def test_the_words_as_typed_come_before_their_other_forms(client: EmbeddedClient) -> None:
    found = client.query(SearchQueryArgs(query="gateway budget zeppelin", kinds=("chat",)))
    ids = [item.doc_id for item in found.items]
    assert ids == ["chat:typed:m1", "chat:forms:m1"]  # both hold 2 of the 3 words
    assert found.relaxed == "most_words"


def test_more_of_the_words_still_comes_first(client: EmbeddedClient) -> None:
    """Holding a word as typed orders documents holding as many words; it never lifts one
    holding fewer (``walrus`` as typed, one word) above one holding more in other forms."""
    found = client.query(SearchQueryArgs(query="gateway budget walrus", kinds=("chat",)))
    ids = [item.doc_id for item in found.items]
    assert ids.index("chat:forms:m1") < ids.index("chat:other:m1")
    assert found.relaxed == "any_word"
