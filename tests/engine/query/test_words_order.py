"""When no document holds every word (docs/search.md, "When nothing matches exactly"): the
relaxed answer ranks a document by how many of the query's words it holds before BM25, and a
two-letter word that is no stop word (``CI``) counts as a whole word. On main the any-word step
kept BM25's order (a short note repeating one word came first) and dropped ``CI`` as too short.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs, SearchQueryResult
from tests.engine.query.chat_projects import open_chat_project

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

CHATS = {
    "echo": "walrus walrus walrus",
    "budget": "we raised the gateway retry budget after a long review of the settlement jobs,"
    " the nightly exports, the ledger snapshot and the dashboards that nobody reads",
    "ci": "the CI run failed twice this morning on the gateway",
    "circuit": "the circuit opened twice this morning during a retry",
    "spend": "the budget for the quarter",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    opened = open_chat_project(tmp_path_factory.mktemp("words") / "project", CHATS, lambda: NOW)
    yield opened
    opened.close()


def ask(client: EmbeddedClient, query: str) -> SearchQueryResult:
    return client.query(SearchQueryArgs(query=query, kinds=("chat",)))


def test_the_document_holding_more_of_the_words_comes_first(client: EmbeddedClient) -> None:
    found = ask(client, "gateway retry budget zeppelin walrus")  # none holds all, nor 4 of 5
    ids = [item.doc_id for item in found.items]
    assert ids[0] == "chat:budget:m1"  # 3 of the words before a short note repeating one
    assert set(ids[1:]) == {"chat:echo:m1", "chat:ci:m1", "chat:circuit:m1", "chat:spend:m1"}
    assert found.relaxed == "any_word"


def test_a_two_letter_word_is_a_whole_word_and_counts(client: EmbeddedClient) -> None:
    found = ask(client, "CI zeppelin")
    assert [item.doc_id for item in found.items] == ["chat:ci:m1"]  # not circuit
    assert found.relaxed == "any_word"


def test_most_of_the_words_then_the_rest_fill_the_page(client: EmbeddedClient) -> None:
    found = ask(client, "CI run twice zeppelin")  # ci holds 3 of 4, circuit 1
    ids = [item.doc_id for item in found.items]
    assert ids[0] == "chat:ci:m1"
    assert "chat:circuit:m1" in ids
    assert found.relaxed == "any_word"
    assert any("3 of the 4" in w for w in found.warnings)
