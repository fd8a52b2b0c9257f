"""The same query gives the same reading in every source.

Each query runs through the real service on one small real project (``conftest.World``) once
per source: the index (chat messages), the live tail of ``session:live`` (freshness), and the
lane, artifact and file delegates. Every source holds records A and B with the same text, so
each must find exactly the labels the index finds.
"""

from __future__ import annotations

import pytest

from engine.types import SearchQueryArgs
from tests.engine.query.conftest import World

SOURCES = ("index", "live", "lane", "artifact", "file")

READINGS = [
    ("flamingo", {"A", "B"}),
    ("index*", {"A"}),  # `*` is a separator, as in FTS; `reindex` is not a prefix match
    ("^flamingo", {"A", "B"}),
    ("(flamingo)", {"A", "B"}),
    ("flamingo index", {"A"}),
    ("naive cafe", {"A"}),  # diacritics folded: finds `naïve café`
    ('"naïve café"', {"A"}),
    ("NAÏVE", {"A", "B"}),
    ("timeout", {"A"}),  # an identifier part: connectTimeout
    ("connect", {"A"}),
    ("flamingo -zebra", {"A"}),
    ("zebra|cafe", {"A", "B"}),
    ('"flamingo naive"', {"B"}),
    ('"flamingo indexer"', {"A"}),
    ("flam", {"A", "B"}),
    ("lamingo", set()),  # no token starts with it: a substring is not a match
]


def reading(world: World, source: str, query: str) -> set[str]:
    """The record labels ``source`` finds for ``query`` through the service."""
    kind = "chat" if source in ("index", "live") else source
    text = f"session:live {query}" if source == "live" else query
    # --exact: the strict reading (a relaxed step would add B's near misses).
    args = SearchQueryArgs(query=text, kinds=(kind,), limit=500, exact=True)  # type: ignore[arg-type]
    labels = world.labels[source]
    return {labels[i.doc_id] for i in world.service.query(args).items if i.doc_id in labels}


@pytest.mark.parametrize(("query", "expected"), READINGS, ids=[q for q, _ in READINGS])
def test_the_same_query_reads_the_same_in_every_source(
    world: World, query: str, expected: set[str]
) -> None:
    found = {source: reading(world, source, query) for source in SOURCES}
    assert found == dict.fromkeys(SOURCES, expected)
