"""When no document holds every word (docs/search.md, "When nothing matches exactly"): among
documents holding the same words as rarely (equal counts, equal rarity), the one whose title
holds more of them comes first, as the strict ranking puts a title match before a body match;
``--explain`` prints how many each holds in its title. On main BM25 decided among them, and a
short message repeating the words came before the session titled with them.
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
    "titled": "we looked at it again this morning and it held",
    "repeats": "ledger snapshot ledger snapshot ledger snapshot",
    "other": "the walrus sleeps",
}
TITLES = {
    "titled": "Ledger snapshot drift after the nightly export moved to the settlement cluster"
}

ARGS = SearchQueryArgs(query="ledger snapshot walrus", kinds=("chat",))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("titled") / "project"
    opened = open_chat_project(root, CHATS, lambda: NOW, titles=TITLES)
    yield opened
    opened.close()


def test_among_the_same_words_the_title_holding_them_comes_first(
    client: EmbeddedClient,
) -> None:
    found = client.query(ARGS)  # none holds all three words
    ids = [item.doc_id for item in found.items]
    assert found.relaxed == "any_word"  # most_words, then the walrus filling the page
    assert ids[:2] == ["chat:titled", "chat:repeats:m1"]  # both: ledger, snapshot
    assert client.query(ARGS) == found  # deterministic


def test_more_of_the_words_still_comes_first(client: EmbeddedClient) -> None:
    """The title orders documents holding the same words; it never lifts one holding fewer."""
    found = client.query(SearchQueryArgs(query="ledger walrus sleeps", kinds=("chat",)))
    assert found.items[0].doc_id == "chat:other:m1"  # walrus and sleeps: two of the words


def test_explain_prints_the_words_held_in_the_title(client: EmbeddedClient) -> None:
    found = client.query(ARGS)
    explained = {e.doc_id: e for e in client.explain(ARGS, found.items, now=NOW)}
    titled, repeats = explained["chat:titled"], explained["chat:repeats:m1"]
    assert titled.words_held == repeats.words_held == (2, 2, 2, 3)
    assert titled.rarity == repeats.rarity
    assert (titled.titled, repeats.titled) == (2, 0)
    assert titled.bm25 is not None
    assert repeats.bm25 is not None
    assert repeats.bm25 < titled.bm25  # BM25 alone would put the repeating message first
