"""Selecting text in the scrollback and copying it: the real app, a terminal hit of
the demo opened from the palette, the mouse dragged over two lines, then the copy key.

Textual reads a selection through ``Widget.get_selection`` and maps the mouse to text through the
``offset`` each rendered segment carries; the scrollback's own line cache once shadowed
Textual's ``_render``, so copying raised ``TypeError``.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from engine.embedded import EmbeddedClient
from engine.links.details import final_frame
from tui.logic.rows import PaletteRow
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList
from tui.widgets.scrollback_view import GUTTER, ScrollbackView

from .conftest import make_app, settle


async def open_terminal_hit(pilot: Any, query: str) -> ScrollbackView:
    """Type ``query``, highlight its first terminal hit, open it: the scrollback screen."""
    app = pilot.app
    await pilot.press(*query)
    await settle(pilot)

    def terminal_rows() -> list[PaletteRow]:
        return [r for r in app.screen.query_one(ResultList).rows if r.kind == "terminal"]

    while not terminal_rows():
        await pilot.press("tab")
        await settle(pilot)
    listing = app.screen.query_one(ResultList)
    listing.highlighted = listing.rows.index(terminal_rows()[0])
    await pilot.press("enter")
    await settle(pilot)
    assert isinstance(app.screen, ScrollbackScreen)
    return app.screen.query_one(ScrollbackView)


def plain_line(view: ScrollbackView, index: int) -> str:
    """Line ``index`` of the window as a reader sees it: final frame, escapes gone."""
    assert view.window is not None
    raw = final_frame(view.window.line_bytes(index)).decode("utf-8", errors="replace")
    return Text.from_ansi(raw, no_wrap=True, tab_size=4).plain


async def test_dragging_over_two_lines_and_copying_puts_that_text_on_the_clipboard(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_terminal_hit(pilot, "timeout")
        top = view.scroll_offset.y
        row = next(
            y for y in range(view.size.height - 1) if len(plain_line(view, top + y)) > 12
        )  # a line long enough to start the drag a few characters in
        start, end = 4, 7
        await pilot.mouse_down(view, offset=(GUTTER + start, row))
        await pilot.hover(view, offset=(GUTTER + end, row + 1))
        await pilot.mouse_up(view, offset=(GUTTER + end, row + 1))
        await pilot.pause()
        first, second = plain_line(view, top + row), plain_line(view, top + row + 1)
        # Textual selects through the character under the pointer: the end column is included.
        expected = f"{first[start:]}\n{second[: end + 1]}"
        assert expected.strip()
        assert app.screen.get_selected_text() == expected
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == expected


async def test_double_click_selects_the_loaded_lines_and_copies_them(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        view = await open_terminal_hit(pilot, "timeout")
        await pilot.double_click(view, offset=(GUTTER + 1, 1))
        await pilot.pause()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert view.window is not None
        lines = [plain_line(view, i) for i in range(view.window.line_count)]
        assert app.clipboard == "\n".join(lines).rstrip("\n")
        assert "timeout" in app.clipboard.lower()
