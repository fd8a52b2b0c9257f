"""Other word forms count once (docs/search.md, "When nothing matches exactly"): the inflection
step adds only the forms a typed word does not already find. A typed word is a prefix, so
``test`` finds ``tests`` as typed; on main ``tests`` was OR-ed in again, and BM25 scored a
document holding both ``test`` and ``tests`` once per form, as if it held one more of the
query's words, above a shorter document holding the same words (the known-item benchmark's
second filtered set: ``lane:abc-123-retry test backoff doubling capped`` put a pytest log above
the commit "test that backoff doubles and caps").
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
    "plural": "test doubles tests shown",  # test, tests: one word of the query in two forms
    "short": "test doubles test",  # the same two words, in fewer words
}

ARGS = SearchQueryArgs(query="test doubling", kinds=("chat",))
"""No document starts a word with ``doubling``: only the inflection step answers."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("forms") / "project"
    opened = open_chat_project(root, CHATS, lambda: NOW)
    yield opened
    opened.close()


def test_a_form_the_typed_word_finds_counts_once(client: EmbeddedClient) -> None:
    found = client.query(ARGS)
    assert found.relaxed == "inflection"
    assert [item.doc_id for item in found.items] == ["chat:short:m1", "chat:plural:m1"]


def test_the_note_names_only_the_forms_added(client: EmbeddedClient) -> None:
    found = client.query(ARGS)
    assert "other word forms matched too: doubling (doubles)" in found.warnings
