"""Every read connection of the service keeps ``QUERY_CACHE_KIB`` of index pages (start-up budget):
a long-running reader re-read the same interior, docsize and doclist pages from the OS on every
query with SQLite's 2 MiB default."""

from __future__ import annotations

import threading
from pathlib import Path

from engine.embedded import EmbeddedClient
from engine.index.sql import QUERY_CACHE_KIB
from engine.types import SearchQueryArgs


def test_each_threads_reader_has_the_query_page_cache(tmp_path: Path) -> None:
    (tmp_path / ".ade").mkdir()
    with EmbeddedClient.open(tmp_path, start_worker=False) as client:
        service = client.service
        client.query(SearchQueryArgs(query="anything"))
        assert service.readers.reader().pragma("cache_size") == -QUERY_CACHE_KIB
        sizes: list[object] = []

        def other_thread() -> None:
            client.query(SearchQueryArgs(query="anything"))
            sizes.append(service.readers.reader().pragma("cache_size"))

        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        assert sizes == [-QUERY_CACHE_KIB]
