"""RELIABILITY 9 tail: an index that cannot be opened at all degrades to delegated sources.

Real unopenable paths (the suite may run as root, so a read-only folder would not stop it): a
directory where the index file should be, and a file where the cache folder should be.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.types import DELEGATED_KINDS, INDEXED_KINDS, SearchQueryArgs


def _index_is_a_directory(root: Path) -> Callable[[], None]:
    index = root / ".ade" / "cache" / "search-index.db"
    shutil.rmtree(index.parent, ignore_errors=True)
    index.mkdir(parents=True)
    return lambda: index.rmdir()


def _cache_is_a_file(root: Path) -> Callable[[], None]:
    cache = root / ".ade" / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("not a folder\n")
    return cache.unlink


@pytest.mark.parametrize("breakage", [_index_is_a_directory, _cache_is_a_file])
def test_unopenable_index_answers_from_delegates_and_recovers(
    demo_copy: Path, breakage: Callable[[Path], Callable[[], None]]
) -> None:
    repair = breakage(demo_copy)
    with EmbeddedClient.open(demo_copy, start_worker=False) as client:
        result = client.query(SearchQueryArgs(query="retry", limit=200))
        kinds = {item.kind for item in result.items}
        assert kinds, "delegated sources answered nothing"
        assert kinds <= set(DELEGATED_KINDS)
        assert any(w.startswith("search index unavailable") for w in result.warnings)
        status = client.index_status()
        assert status.state == "degraded"
        assert status.doc_count == 0
        assert any(w.startswith("search index unavailable") for w in status.warnings)

        repair()  # the cause goes away: the writer's next pass creates the index
        client.service.catch_up()
        healed = client.query(SearchQueryArgs(query="retry", limit=200))
        assert {item.kind for item in healed.items} & set(INDEXED_KINDS)
        assert not any(w.startswith("search index unavailable") for w in healed.warnings)
        assert client.index_status().state == "ready"
