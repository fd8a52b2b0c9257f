"""When no document holds every word (docs/search.md, "When nothing matches exactly"): among
documents holding as many of the query's words, one holding them as typed comes before one
holding them only as the start of longer words or in other forms, as the strict ranking puts a
whole word before an identifier's part. On main BM25 decided among them, and a short note
repeating ``gateways`` and ``budgets`` came before the message that says ``gateway budget``.
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
    "forms": "gateways gateways budgets budgets",
    "typed": "after a long review of the settlement jobs, the nightly exports and the ledger"
    " snapshot we raised the gateway budget for the quarter",
    "other": "the walrus sleeps",
}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    opened = open_chat_project(tmp_path_factory.mktemp("typed") / "project", CHATS, lambda: NOW)
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
