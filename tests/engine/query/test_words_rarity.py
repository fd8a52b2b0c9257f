"""When no document holds every word (docs/search.md, "When nothing matches exactly"): among
documents holding as many of the query's words (distinctive, as typed, in all), the one holding
the rarer words comes first (their summed IDF), before BM25's term frequency and length decide;
``--explain`` prints those keys per row. On main BM25 decided among them, and a short note
repeating a word half the chats hold came before the message holding the one rare word.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs
from tests.engine.query.chat_projects import open_chat_project

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

CHATS = {
    "rare": "after a long review of the settlement jobs, the nightly exports, the ledger snapshot,"
    " the dashboards nobody reads and the quarterly audit we finally moved off zeppelin",
    "common": "gateway gateway gateway",
    **{f"filler{i}": f"the gateway answered slowly on day {i} of the rollout" for i in range(4)},
    "other": "the walrus sleeps",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    opened = open_chat_project(tmp_path_factory.mktemp("rarity") / "project", CHATS, lambda: NOW)
    yield opened
    opened.close()


ARGS = SearchQueryArgs(query="zeppelin gateway kestrel", kinds=("chat",))


def test_among_equal_counts_the_rarer_word_comes_first(client: EmbeddedClient) -> None:
    found = client.query(ARGS)  # none holds two of the words: every hit holds one
    ids = [item.doc_id for item in found.items]
    assert found.relaxed == "any_word"
    assert ids[0] == "chat:rare:m1"  # zeppelin: one chat of seven; gateway: five
    assert ids[1] == "chat:common:m1"  # BM25 (three times in three words) orders the rest
    assert client.query(ARGS) == found  # deterministic


def test_more_of_the_words_still_comes_first(client: EmbeddedClient) -> None:
    """Rarity orders documents holding as many words; it never lifts one holding fewer."""
    found = client.query(SearchQueryArgs(query="zeppelin gateway walrus sleeps", kinds=("chat",)))
    assert found.items[0].doc_id == "chat:other:m1"  # walrus and sleeps: two of the words


def test_explain_prints_the_words_held_and_their_rarity(client: EmbeddedClient) -> None:
    found = client.query(ARGS)
    explained = {e.doc_id: e for e in client.explain(ARGS, found.items, now=NOW)}
    rare, common = explained["chat:rare:m1"], explained["chat:common:m1"]
    assert rare.words_held == common.words_held == (1, 1, 1, 3)
    assert rare.rarity is not None
    assert common.rarity is not None
    assert rare.rarity > common.rarity
    assert common.bm25 is not None
    assert rare.bm25 is not None
    assert common.bm25 < rare.bm25  # BM25 alone would put the common word's note first
