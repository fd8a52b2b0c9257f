"""Issue 29.9, the palette's smaller ones, each on the real demo through a real client: the
footer at 80 columns, the chat viewer's place, message numbers, notes, typed commands."""

from __future__ import annotations

from typing import Any

from engine.embedded import EmbeddedClient

from .conftest import make_app, settle


def screen_lines(app: Any) -> list[str]:
    """The composited screen, row by row: what the terminal is sent."""
    return [
        "".join(segment.text for segment in strip).rstrip()
        for strip in app.screen._compositor.render_strips()
    ]


async def test_at_80_columns_the_footer_shows_whole_hints_and_the_whole_status(
    client: EmbeddedClient,
) -> None:
    """The hints were cut mid-word (``^y copy link  f…``): now the ones that fit, help last."""
    app = make_app(client, initial_query="timeout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = screen_lines(app)[-1]
    assert "…" not in footer
    assert footer.startswith("⏎ open  esc close")
    assert "f1 help" in footer
    assert footer.endswith(" docs")
