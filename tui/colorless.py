"""``NO_COLOR`` without a single colour code (docs/palette.md).

Textual honours ``NO_COLOR`` by turning every colour into a grey (its ``Monochrome`` filter), so
a terminal still receives ``38;5;253`` / ``48;5;233``. ``Colorless`` drops colours altogether and
keeps the attributes — the cursor row stays visible by reverse video and matches by underline
(``tui.widgets.result_list``), the terminal draws everything else in its own colours.
"""

from __future__ import annotations

from typing import Any

from rich.segment import Segment
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor


class Colorless(LineFilter):
    """Remove every foreground and background colour from the segments."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:  # noqa: ARG002
        return [
            Segment(text, None if style is None else style.without_color, control)
            for text, style, control in segments
        ]


def use_colorless(app: App[Any]) -> None:
    """Swap Textual's grey-making ``NO_COLOR`` filter for ``Colorless`` (no-op with colour)."""
    if not app.no_color:
        return
    app._filters = [Colorless() if isinstance(f, Monochrome | NoColor) else f for f in app._filters]
