"""The exact-phrase boost and the total order of the ranking (docs/search.md).

A real project (git repository and chats) indexed once per module. ``apart`` holds both words
more often and is newer, so BM25 and recency alone rank it first (they did on main); ``phrase``
holds them as typed, next to each other, and must rank above it.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.query.ranking import Candidate, rank
from engine.types import SearchQueryArgs

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
FILLER = " ".join(f"word{i}" for i in range(40))
CHATS = {
    "phrase": f"{FILLER} the gateway saw a socket timeout once {FILLER}",  # oldest
    "apart": "socket closed, then timeout; socket reopened, timeout again",
}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("phrase") / "project"
    root.mkdir(parents=True)
    subprocess.run(["git", "-C", str(root), "init", "-q", "-b", "main"], check=True)
    _write(root / ".gitignore", ".ade/\n")
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


def _order(client: EmbeddedClient, query: str) -> list[str]:
    result = client.query(SearchQueryArgs(query=query, kinds=("chat",)))
    return [item.doc_id for item in result.items if item.session_id in CHATS]


def test_the_words_as_one_phrase_rank_above_the_words_apart(client: EmbeddedClient) -> None:
    order = _order(client, "socket timeout")
    assert order == ["chat:phrase:m1", "chat:apart:m1"]


def test_without_a_phrase_bm25_orders_them(client: EmbeddedClient) -> None:
    # One word: no phrase to hold, so the denser, newer ``apart`` comes first.
    assert _order(client, "socket") == ["chat:apart:m1", "chat:phrase:m1"]


def test_the_order_is_total_and_repeatable(client: EmbeddedClient) -> None:
    assert _order(client, "socket timeout") == _order(client, "socket timeout")
    twins = [Candidate(doc_id=d, kind="chat", title="", rank_title="", snippet_marked="",
                       updated_at=5, bm25=-1.0, bm25_split=0.0) for d in ("b", "c", "a")]  # fmt: skip
    for shuffled in (twins, twins[::-1]):
        assert [c.doc_id for c, _ in rank(shuffled, "x")] == ["a", "b", "c"]
