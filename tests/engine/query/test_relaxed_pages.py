"""A relaxed answer pages (docs/search.md, "When nothing matches exactly"): its ``r1:`` cursor
runs the same steps again one page deeper, so page 2 continues the relaxed answer, each hit
once. On main a relaxed answer was one page (``nextCursor`` null), whatever it had left.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from engine.embedded import EmbeddedClient
from engine.errors import CursorError
from engine.query.cursor import cursor_seen
from engine.types import SearchQueryArgs, SearchQueryResult
from tests.engine.query.test_relax import build_project

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
KINDS = ("chat", "terminal", "pr", "commit")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedClient]:
    root = tmp_path_factory.mktemp("relaxed-pages") / "project"
    build_project(root)
    opened = EmbeddedClient.open(root, clock=lambda: NOW, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


def ask(client: EmbeddedClient, query: str, **more: object) -> SearchQueryResult:
    return client.query(SearchQueryArgs(query=query, kinds=KINDS, **more))  # type: ignore[arg-type]


def walk(client: EmbeddedClient, query: str, limit: int) -> list[SearchQueryResult]:
    pages = [ask(client, query, limit=limit)]
    while pages[-1].next_cursor is not None:
        pages.append(ask(client, query, limit=limit, cursor=pages[-1].next_cursor))
        assert len(pages) < 20
    return pages


@pytest.mark.parametrize(
    ("query", "step"),
    [
        ("the seeding rng zeppelin webhook", "any_word"),  # no document holds every word
        ("persisted", "inflection"),  # word forms only: persist, persisting
        ("settlemnt", "spelling"),  # one edit from "settlement"
    ],
)
def test_page_two_continues_the_relaxed_answer(
    client: EmbeddedClient, query: str, step: str
) -> None:
    whole = ask(client, query, limit=50)
    assert whole.relaxed == step
    assert len(whole.items) >= 2
    pages = walk(client, query, limit=1)
    assert pages[0].next_cursor is not None
    assert pages[0].next_cursor.startswith("r1:")
    assert all(page.relaxed == step for page in pages)
    walked = [item.doc_id for page in pages for item in page.items]
    assert walked == [item.doc_id for item in whole.items]  # same order, each hit once
    assert pages[-1].next_cursor is None
    assert cursor_seen(pages[1].next_cursor or pages[0].next_cursor) >= 1  # "2–2 of …"


def test_a_relaxed_answer_that_fits_its_page_has_no_cursor(client: EmbeddedClient) -> None:
    found = ask(client, "the seeding rng zeppelin webhook", limit=50)
    assert found.relaxed == "any_word"
    assert found.next_cursor is None


def test_a_relaxed_cursor_of_another_query_is_refused(client: EmbeddedClient) -> None:
    cursor = ask(client, "the seeding rng zeppelin webhook", limit=1).next_cursor
    assert cursor is not None
    with pytest.raises(CursorError, match="different query"):
        ask(client, "settlemnt", limit=1, cursor=cursor)
    with pytest.raises(CursorError, match="not a cursor"):
        ask(client, "settlemnt", limit=1, cursor="r1:bm90IGpzb24")


def test_exact_keeps_the_strict_answer_and_its_paging(client: EmbeddedClient) -> None:
    found = ask(client, "settlemnt", limit=1, exact=True)
    assert found.items == ()
    assert found.next_cursor is None
