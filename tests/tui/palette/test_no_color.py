"""``NO_COLOR``: the palette stays readable without colour. Textual greys every colour out (or
drops it), so the cursor row and the matched characters must be marked by text attributes:
reverse video for the cursor, underline for matches (hit titles are bold already), reverse for
the match in the scrollback. Checked on the real rendered cells, ignoring their colours.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from rich.color import ColorSystem
from rich.segment import Segment

from engine.demo import DEMO_NOW
from engine.embedded import EmbeddedClient
from tui.logic.rows import PaletteRow
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList, match_style, row_prompt

from .conftest import make_app, settle

QUERY = "timeout"


def screen_lines(app: Any) -> list[list[Segment]]:
    """The composited screen, one list of segments per line (what the terminal receives)."""
    return [list(strip) for strip in app.screen._compositor.render_strips()]


def text_of(line: list[Segment]) -> str:
    return "".join(segment.text for segment in line)


def list_lines(app: Any) -> list[list[Segment]]:
    """The result list's lines without its scrollbar (drawn in reverse video by Textual)."""
    listing = app.screen.query_one(ResultList)
    region = listing.scrollable_content_region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return [list(strip.crop(region.x, region.right)) for strip in strips]


async def type_query(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press(*QUERY)
    await settle(pilot)


async def test_cursor_row_is_reversed_and_matches_underlined(
    client: EmbeddedClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        assert app.no_color
        await type_query(pilot)
        listing = app.screen.query_one(ResultList)
        current = listing.current_row()
        assert current is not None
        lines = list_lines(app)
        reversed_lines = [
            text_of(line) for line in lines if any(s.style and s.style.reverse for s in line)
        ]
        assert reversed_lines  # the cursor is visible without colour…
        assert current.title[:20] in reversed_lines[0]  # …on the highlighted row only
        assert len(reversed_lines) <= 2  # a row is one or two lines
        # Matches: underlined, while the rest of the line is not.
        with_matches = [line for line in lines if any(s.text.lower() == QUERY for s in line)]
        assert with_matches
        for line in with_matches:
            for segment in line:
                if segment.text.lower() == QUERY:
                    assert segment.style is not None
                    assert segment.style.underline
                elif QUERY.startswith(segment.text.lower().rstrip("…")):
                    continue  # a match the row's width cut short ("timeo…") is still one
                elif segment.text.strip() and segment.style is not None:
                    assert not segment.style.underline


def test_a_match_in_a_bold_hit_title_is_underlined() -> None:
    """Hit titles are bold, so bold alone cannot mark a match in them without colour."""
    row = PaletteRow(key="k", kind="chat", title="gateway timeout", title_spans=((8, 15),))
    prompt = row_prompt(row, DEMO_NOW, match_style(no_color=True))
    styled = [(prompt.plain[span.start : span.end], str(span.style)) for span in prompt.spans]
    assert ("gateway timeout", "bold") in styled  # the hit title…
    assert ("timeout", "bold underline") in styled  # …and its match, set apart by underline


async def test_with_colour_nothing_changes(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        assert not app.no_color
        await type_query(pilot)
        for line in list_lines(app):
            assert not any(s.style and (s.style.reverse or s.style.underline) for s in line)


async def test_scrollback_match_is_reversed(
    client: EmbeddedClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    path = client.transcript_path("term-pytest-retry")
    assert path is not None
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await app.push_screen(ScrollbackScreen(path, 0, "retry", "t"))
        await settle(pilot)
        marked = [
            segment.text
            for line in screen_lines(app)
            for segment in line
            if segment.style is not None and segment.style.reverse
        ]
        assert any("retry" in text.lower() for text in marked)


def colour_codes(app: Any) -> list[str]:
    """Every SGR sequence with a colour in it that the screen would send (256-colour terminal)."""
    found = []
    for line in screen_lines(app):
        for segment in line:
            if segment.style is None:
                continue
            sgr = segment.style.render("x", color_system=ColorSystem.EIGHT_BIT)
            found.extend(code for code in re.findall(r"\x1b\[([0-9;]*)m", sgr) if _coloured(code))
    return found


def _coloured(code: str) -> bool:
    parts = code.split(";")
    return any(p in {"38", "48"} or (len(p) == 2 and p[0] in "3489" and p[1] != "9") for p in parts)


async def test_no_colour_code_reaches_the_terminal(
    client: EmbeddedClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not even greys (Textual's own NO_COLOR greys every colour: ``38;5;253``, ``48;5;233``)."""
    monkeypatch.setenv("NO_COLOR", "1")
    path = client.transcript_path("term-pytest-retry")
    assert path is not None
    app = make_app(client, preview=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_query(pilot)
        assert colour_codes(app) == []
        reversed_cells = [
            s.text for line in list_lines(app) for s in line if s.style and s.style.reverse
        ]
        assert "".join(reversed_cells).strip()  # the cursor row still shows
        await app.push_screen(ScrollbackScreen(path, 0, "retry", "t"))
        await settle(pilot)
        assert colour_codes(app) == []


async def test_with_colour_the_codes_are_there(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 36)) as pilot:
        await type_query(pilot)
        assert colour_codes(app)  # the check above would see them
