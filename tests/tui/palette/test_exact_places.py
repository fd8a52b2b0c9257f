"""Exact places in the palette: a chat whose title matched opens at a matching
message, and a hit from another registered project opens in that project.

The real app via its pilot on real demo copies; the cross-project hits come from the daemon's
real machine router, run in this process over two real embedded services and a real registry.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.links.details import chat_text, read_chat_events
from engine.rpc.paths import config_dir
from engine.rpc.registry import add_project, registry_path
from engine.rpc.router import MachineRouter
from engine.types import SearchQueryArgs, SearchQueryResult
from tui.screens.chat import ChatScreen
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, settle
from .test_pilot_links import LATE_ID, LATE_WORD, write_late_chat


async def test_a_chat_whose_title_matched_opens_at_a_matching_message(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"timeout")
        await settle(pilot)
        listing = app.screen.query_one(ResultList)
        row = listing.current_row()
        assert row is not None
        assert row.local  # the title matched: a local row
        assert row.kind == "chat"
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        assert screen.seq is not None  # not the session's last message
        event = next(e for e in read_chat_events(screen.path) if e.seq == screen.seq)
        assert "timeout" in chat_text(event).lower()


class RoutedClient:
    """The active project's embedded client, with queries answered by the machine router (what
    the daemon does): chat hits of every registered project, stamped with their project."""

    def __init__(self, active: EmbeddedClient, router: MachineRouter) -> None:
        self._active = active
        self._router = router

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        return self._router.query(self._active.project.root, args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._active, name)


@pytest.fixture
def routed(demo_project: Path, tmp_path: Path) -> Iterator[tuple[RoutedClient, Path]]:
    alpha = copy_demo(demo_project, tmp_path / "alpha").resolve()
    beta = copy_demo(demo_project, tmp_path / "beta").resolve()
    (beta / ".ade" / "project.json").write_text(json.dumps({"id": "beta-demo", "name": "beta"}))
    write_late_chat(beta)  # a chat session only beta has
    registry = registry_path(config_dir())
    add_project(registry, alpha)
    add_project(registry, beta)
    clients: dict[Path, EmbeddedClient] = {}

    def client_for(root: Path) -> EmbeddedClient:
        if root not in clients:
            clients[root] = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
            clients[root].service.catch_up()
        return clients[root]

    yield RoutedClient(client_for(alpha), MachineRouter(client_for, registry)), beta
    for opened in clients.values():
        opened.close()


async def test_a_hit_from_another_registered_project_opens_there(
    routed: tuple[RoutedClient, Path],
) -> None:
    client, beta = routed
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*LATE_WORD)
        await settle(pilot)
        row = app.screen.query_one(ResultList).current_row()
        assert row is not None
        assert row.foreign_project == "beta"
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen), "the foreign session did not open"
        assert screen.path.is_relative_to(beta)
        assert LATE_ID in screen.title_text
        assert screen.seq == 2  # the message that holds the word
