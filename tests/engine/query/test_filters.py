"""Every filter narrows every kind it applies to, delegated ones included.

One table per filter: for each source of ``conftest.World``, which of the records A and B a
``flamingo`` query (both records match the text) keeps under that filter.
"""

from __future__ import annotations

import pytest

from engine.errors import UsageError
from engine.types import SearchQueryArgs
from tests.engine.query.conftest import World
from tests.engine.query.test_same_reading import SOURCES, reading

BOTH = {"A", "B"}


def everywhere(*labels: str) -> dict[str, frozenset[str]]:
    return {source: frozenset(labels) for source in SOURCES}


FILTERED = [
    # session: keeps what belongs to the session (its messages, its artifacts); lanes and files
    # belong to no session. The `live` source adds session:live, and two sessions mean either.
    ("session:s1", {"index": {"A"}, "live": BOTH, "lane": set(), "artifact": {"A"}, "file": set()}),
    ("session:s2", {"index": {"B"}, "live": BOTH, "lane": set(), "artifact": {"B"}, "file": set()}),
    # since:/until: lanes by HEAD commit time, artifacts by creation, files by mtime, chats by
    # message time. A is from 2026-06-01, B from 2026-06-10.
    ("since:2026-06-05", everywhere("B")),
    ("until:2026-06-05", everywhere("A")),
    ("until:2026-06-01", everywhere("A")),  # until:<date> includes that day
    ("until:2026-05-31", everywhere()),
    ("since:2026-06-01 until:2026-06-09", everywhere("A")),
    ("since:2026-06-01 until:2026-06-10", everywhere("A", "B")),
    ("since:2026-06-01T12:00 until:2026-06-10T09:00", everywhere()),
    ("until:10d", everywhere("A")),  # NOW is 2026-06-15: 10d back is 06-05
    # lane: records of that lane; files are the primary lane's; `live` is a primary-lane session.
    # tool: only chats have an agent; this project's chats are ade's own (no agent tool).
    ("tool:claude", everywhere()),
    (
        "lane:alpha",
        {"index": {"A"}, "live": set(), "lane": {"A"}, "artifact": {"A"}, "file": set()},
    ),
    ("lane:main", {"index": set(), "live": BOTH, "lane": set(), "artifact": set(), "file": BOTH}),
    (
        "lane:primary",
        {"index": set(), "live": BOTH, "lane": set(), "artifact": set(), "file": BOTH},
    ),
]


@pytest.mark.parametrize(("filters", "expected"), FILTERED, ids=[f for f, _ in FILTERED])
def test_a_filter_narrows_every_source(
    world: World, filters: str, expected: dict[str, frozenset[str]] | dict[str, set[str]]
) -> None:
    found = {source: reading(world, source, f"{filters} flamingo") for source in SOURCES}
    assert found == expected


def test_the_branch_names_its_lane(world: World) -> None:
    branch = "zebra-reindex-flamingo-naive"
    assert reading(world, "lane", f"lane:{branch} flamingo") == {"B"}
    assert reading(world, "artifact", f"lane:{branch} flamingo") == {"B"}


def test_an_unknown_lane_lists_every_lane_and_its_names(world: World) -> None:
    with pytest.raises(UsageError) as info:
        world.service.query(SearchQueryArgs(query="lane:gamma flamingo"))
    message = str(info.value)
    assert message.startswith("unknown lane 'gamma'; lanes: primary, alpha, beta")
    assert "zebra-reindex-flamingo-naive" in message
    assert "main" in message


def test_until_not_after_since_is_a_usage_error(world: World) -> None:
    with pytest.raises(UsageError, match="until: is not after since:"):
        world.service.query(SearchQueryArgs(query="since:2026-06-10 until:2026-06-01 flamingo"))
