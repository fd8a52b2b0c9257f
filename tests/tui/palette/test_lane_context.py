"""The lane the palette was started in is shown and one key away, never applied."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, Static

from engine.embedded import EmbeddedClient
from tui.logic.lane_context import toggle_lane_filter

from .conftest import make_app, settle


def test_toggle_adds_replaces_and_removes_the_lane_filter() -> None:
    assert toggle_lane_filter("retry", "webhooks") == "retry lane:webhooks "
    assert toggle_lane_filter("retry lane:primary", "webhooks") == "retry lane:webhooks "
    assert toggle_lane_filter("retry lane:webhooks ", "webhooks") == "retry"
    assert toggle_lane_filter("", "webhooks") == "lane:webhooks "


async def test_started_in_a_lane_subfolder_the_badge_names_it_and_ctrl_l_filters(
    client: EmbeddedClient, indexed_demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(indexed_demo / ".worktrees" / "webhooks" / "payments_api")  # a subfolder
    app = make_app(client)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.current_lane is not None
        assert app.current_lane.id == "webhooks"
        status = str(app.screen.query_one("#status", Static).render())
        assert "^l lane:webhooks" in status
        box = app.screen.query_one("#query", Input)
        assert box.value == ""  # shown, not applied
        await pilot.press(*"retry")
        await pilot.press("ctrl+l")
        assert box.value == "retry lane:webhooks "
        await pilot.press("ctrl+l")
        assert box.value == "retry"


async def test_outside_every_lane_there_is_no_badge(
    client: EmbeddedClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app = make_app(client)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.current_lane is None
        assert "lane:" not in str(app.screen.query_one("#status", Static).render())
        await pilot.press("ctrl+l")
        assert app.screen.query_one("#query", Input).value == ""
