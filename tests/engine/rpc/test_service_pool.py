"""The daemon's service pool resolves a project root again at every request: what one request
keeps (``ServicePool.one_request``: the router asks for the root the host asked for) ends
with it, so a project folder moved away or the daemon shutting down is answered as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine.errors import ProjectError
from engine.rpc.services import ServicePool, embedded_factory


def test_a_request_keeps_its_client_and_the_next_resolves_the_root_again(
    tmp_path: Path, chat_project: Callable[..., Path]
) -> None:
    root = chat_project(tmp_path / "proj", "p1", "alpha", 3)
    pool = ServicePool(embedded_factory(backfill_delay=3600))
    try:
        with pool.one_request():
            client = pool.client_for(root)
            with pool.one_request():  # nested: the outer request's
                assert pool.client_for(root) is client
            assert pool.client_for(root) is client
        assert pool.client_for(root) is client  # resolved again: the same service
        root.rename(tmp_path / "moved")
        with pytest.raises(ProjectError, match="project folder not found"):
            pool.client_for(root)
        with pool.one_request(), pytest.raises(ProjectError, match="not found"):
            pool.client_for(root)
        (tmp_path / "moved").rename(root)
        with pool.one_request():
            assert pool.client_for(root) is client
            pool.close_all()
            with pytest.raises(ProjectError, match="shutting down"):
                pool.client_for(root)
    finally:
        pool.close_all()
