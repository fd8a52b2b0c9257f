"""Issue 15, palette points 1–5: what a new user meets in the first minutes, on the real demo
through a real EmbeddedClient (and on a fresh git repository without ``.ade/`` sessions)."""

from __future__ import annotations

from typing import Any

from engine.embedded import EmbeddedClient
from tui.logic.rows import PaletteRow
from tui.widgets.result_list import ResultList

from .conftest import make_app, settle


def rows(app: Any) -> list[PaletteRow]:
    return list(app.screen.query_one(ResultList).rows)


async def test_ctrl_c_cancels_at_once_even_with_the_initial_query_selected(
    client: EmbeddedClient,
) -> None:
    app = make_app(client, initial_query="retry", print_mode=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.interrupted  # `ade palette --print` turns this into exit 130
    assert app.return_value is None
