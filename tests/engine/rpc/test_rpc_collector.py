"""The daemon's long-lived objects are frozen out of the cyclic collector once a service opens
(``engine.rpc.services.frozen_after_open``, the start-up budget: an oldest-generation collection walking
them fell on one request in a few hundred).

Frozen-ness is seen through weak references to cycles, not ``gc.get_objects()``: listing every
object took a reference to a tuple the service's watcher thread was still building with
``tuple(generator)``, and CPython 3.11's resize of it then raised ``SystemError:
Objects/tupleobject.c:927`` in that thread."""

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
    held = _Cycle()  # alive when the service opens, like the service itself
    held_ref = weakref.ref(held)
    pool = ServicePool(frozen_after_open(embedded_factory(backfill_delay=3600)))
    try:
        client = pool.client_for(root)
        assert isinstance(client, EmbeddedClient)
        # What lived at the opening (the service with it) is outside every generation now: a
        # cycle of then, dropped, is never walked, so no collection frees it.
        assert gc.get_freeze_count() > 0
        del held
        gc.collect()
        assert held_ref() is not None
        # The garbage of before was collected, not frozen with the rest.
        assert gone() is None
        # What a request makes afterwards is collected as usual.
        assert client.query(SearchQueryArgs(query="zebra", limit=5)).items
        later = _Cycle()
        later_ref = weakref.ref(later)
        del later
        gc.collect()
        assert later_ref() is None
    finally:
        pool.close_all()


def test_a_service_opened_without_the_wrapper_stays_in_the_collector(
    tmp_path: Path, chat_project: Callable[..., Path], thawed: None
) -> None:
    root = chat_project(tmp_path / "proj", "p1", "alpha", 3)
    gc.unfreeze()
    held = _Cycle()
    held_ref = weakref.ref(held)
    pool = ServicePool(embedded_factory(backfill_delay=3600))
    try:
        client = pool.client_for(root)
        assert isinstance(client, EmbeddedClient)
        assert gc.get_freeze_count() == 0
        del held
        gc.collect()
        assert held_ref() is None
    finally:
        pool.close_all()
