"""The daemon's long-lived objects are frozen out of the cyclic collector once a service opens
(``engine.rpc.services.frozen_after_open``, the start-up budget: an oldest-generation collection walking
them fell on one request in a few hundred)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.embedded import EmbeddedClient
from engine.rpc.services import ServicePool, embedded_factory, frozen_after_open
from engine.types import SearchQueryArgs


class _Cycle:
    """A container that refers to itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def thawed() -> Iterator[None]:
    """Give the test process its collector back whatever the test froze."""
    yield
    gc.unfreeze()


def test_an_opened_service_is_frozen_and_garbage_is_collected_first(
    tmp_path: Path, chat_project: Callable[..., Path], thawed: None
) -> None:
    root = chat_project(tmp_path / "proj", "p1", "alpha", 3)
    garbage = _Cycle()
    gone = weakref.ref(garbage)
    del garbage  # unreachable now, but alive until a collection finds the cycle
    assert gone() is not None
    pool = ServicePool(frozen_after_open(embedded_factory(backfill_delay=3600)))
    try:
        client = pool.client_for(root)
        assert isinstance(client, EmbeddedClient)
        # The service lives on outside every generation: no collection walks it any more.
        assert gc.get_freeze_count() > 0
        tracked = {id(obj) for obj in gc.get_objects()}
        assert id(client.service) not in tracked
        assert id(client) not in tracked
        # The garbage of before was collected, not frozen with the rest.
        assert gone() is None
        # What a request makes afterwards is collected as usual.
        assert client.query(SearchQueryArgs(query="zebra", limit=5)).items
        later = _Cycle()
        assert id(later) in {id(obj) for obj in gc.get_objects()}
    finally:
        pool.close_all()


def test_a_service_opened_without_the_wrapper_stays_in_the_collector(
    tmp_path: Path, chat_project: Callable[..., Path], thawed: None
) -> None:
    root = chat_project(tmp_path / "proj", "p1", "alpha", 3)
    gc.unfreeze()
    pool = ServicePool(embedded_factory(backfill_delay=3600))
    try:
        client = pool.client_for(root)
        assert isinstance(client, EmbeddedClient)
        assert id(client.service) in {id(obj) for obj in gc.get_objects()}
    finally:
        pool.close_all()
