"""Did you mean…? (docs/search.md): a text query that finds nothing gets the nearest indexed words
as a warning, read from the index's own vocabulary; anything that found something gets none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.demo import DEMO_NOW
from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.types import SearchQueryArgs


@pytest.fixture(scope="module")
def client(
    demo_project: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[EmbeddedClient]:
    root = copy_demo(demo_project, tmp_path_factory.mktemp("suggest") / "demo")
    opened = EmbeddedClient.open(root, clock=lambda: DEMO_NOW, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


def suggestions(client: EmbeddedClient, query: str) -> list[str]:
    result = client.query(SearchQueryArgs(query=query, exact=True))
    return [w for w in result.warnings if w.startswith("did you mean")]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("timeuot", "did you mean timeout?"),  # two letters swapped
        ("backofff", "did you mean backoff?"),  # one letter too many
        ("retyr backoff", "did you mean retry backoff?"),  # known words are kept as typed
        ("timeuot kind:terminal", "did you mean timeout?"),  # filters stay out of it
        # Two neighbours swapped are one edit: "secure", not "secret" (more documents, and a
        # similarity ratio as high).
        ("secrue", "did you mean secure?"),
    ],
)
def test_a_typo_gets_the_nearest_indexed_word(
    client: EmbeddedClient, query: str, expected: str
) -> None:
    result = client.query(SearchQueryArgs(query=query, exact=True))
    assert result.items == ()
    assert suggestions(client, query) == [expected]


@pytest.mark.parametrize(
    "query",
    [
        "timeout",  # found: no suggestion
        "zzqqxxnothing",  # nothing near it
        '"timeuot retry"',  # phrases are not corrected
        "xtimeout",  # another first letter: outside the bounded candidates (by design)
        "kind:pr",  # no words at all
    ],
)
def test_no_suggestion_without_a_near_unknown_word(client: EmbeddedClient, query: str) -> None:
    assert suggestions(client, query) == []


def test_the_index_file_is_not_written(client: EmbeddedClient) -> None:
    """The vocabulary table lives in ``temp``: the index's schema is unchanged."""
    path = client.service.project.index_path
    before = path.stat().st_mtime_ns
    assert suggestions(client, "timeuot")
    import apsw

    conn = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema")}
    conn.close()
    assert not any("vocab" in name for name in names)
    assert path.stat().st_mtime_ns == before


def test_a_swapped_pair_is_one_edit_even_beside_a_longer_common_word() -> None:
    """On fzf, ``previwe`` proposed ``previewer`` (a ratio counts the swap as two edits and
    ``previewer`` holds all the typed letters in order); it is one swap from ``preview``, even
    when ``previewer`` is in more documents."""
    import apsw

    from engine.query.plan import build_plan
    from engine.query.suggest import suggest_query

    conn = apsw.Connection(":memory:")
    conn.execute("CREATE VIRTUAL TABLE docs_fts USING fts5(body)")
    bodies = ["the preview window"] + ["the previewer command"] * 5 + ["previous page"]
    conn.executemany("INSERT INTO docs_fts(body) VALUES (?)", [(b,) for b in bodies])
    plan = build_plan(SearchQueryArgs(query="previwe"), now=DEMO_NOW, lanes=())
    assert suggest_query(conn, plan) == "preview"
