"""`ade` outside a project: the palette searches every project ade knows and opens hits there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.rpc.registry import RegisteredProject, registry_path, save_registry
from tui.everywhere_client import EverywhereClient
from tui.palette_client import open_palette_client
from tui.screens.chat import ChatScreen
from tui.widgets.result_list import ResultList

from .conftest import make_app, settle


@pytest.fixture
def elsewhere(indexed_demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder (no project) on a machine where the demo is registered."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    monkeypatch.chdir(folder)
    save_registry(registry_path(), [RegisteredProject("acme-payments-demo", "payments-api",
                                                      indexed_demo)])  # fmt: skip
    return folder


async def test_the_palette_outside_a_project_searches_every_known_project(
    elsewhere: Path, indexed_demo: Path
) -> None:
    client: Any = open_palette_client(None, use_daemon=False, watch=False)
    assert isinstance(client, EverywhereClient)
    app = make_app(client)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            await pilot.press(*"backoff")
            await settle(pilot)
            hits = [r for r in app.screen.query_one(ResultList).rows if r.item is not None]
            assert hits
            assert {r.item.project_root for r in hits if r.item} == {str(indexed_demo)}
            assert all(r.foreign_project == "payments-api" for r in hits)  # the project shown
            chat = next(r for r in hits if r.kind == "chat")
            listed = app.screen.query_one(ResultList)
            listed.highlighted = list(listed.rows).index(chat)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, ChatScreen)  # opened in its own project
    finally:
        client.close()
    assert not (elsewhere / ".ade").exists()  # nothing was indexed in the folder itself
