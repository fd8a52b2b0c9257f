"""Terminal scrollback rendered line by line from a ``LineWindow`` (Toolong's model).

Only visible lines are rendered (``render_line``), each through an LRU cache of rich ``Text``
built with ``Text.from_ansi`` so colours survive; ``\\r`` progress frames collapse to their final
state. The window is loaded on a worker thread; scrolling to either edge grows it.

Text selection is Textual's own: each rendered segment carries its ``offset`` (column, window
line) so the screen can map the mouse to text, and ``get_selection`` hands back the window's
plain lines. The line cache must not be called ``_render``: that name is Textual's, read by the
default ``get_selection``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from engine.links.details import final_frame
from tui.logic.line_window import LineWindow
from tui.printable import printable_colour

GUTTER = 2
"""Columns left of each line: a ``▶`` marks the line the link points at."""

LINE_CACHE = 2048
"""Rendered lines kept: a few screens of a 200-row terminal, cheap to rebuild beyond that."""

EDGE_LINES = 50
"""Distance from the window's edge at which the next slice of the file is loaded."""


_PLAIN = Style()
"""The style of unstyled text (a null style rather than ``None``)."""


def line_text(raw: bytes) -> Text:
    """One transcript line as shown: its final ``\\r`` frame, colours kept, other escapes gone."""
    decoded = final_frame(raw).decode("utf-8", errors="replace")
    # Only colours reach rich's decoder: it would turn an OSC 8 into a live link (tui.printable)
    return Text.from_ansi(printable_colour(decoded), no_wrap=True, tab_size=4)


class ScrollbackView(ScrollView, can_focus=True):
    """Scrollback of one terminal session."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "scrollback--match",
        "scrollback--focus",
        "scrollback--gutter",
    }

    DEFAULT_CSS = """
    ScrollbackView { height: 1fr; }
    """

    class Ready(Message):
        """The window is loaded and the view scrolled to the focus line."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.window: LineWindow | None = None
        self.focus_line: int | None = None
        self.pattern: re.Pattern[str] | None = None
        self._width = 0
        self._known_size = 0
        self._settled = False
        """False until the view has scrolled to its focus line (no edge loading before)."""
        self._grow_pending = False
        self._line_text = lru_cache(maxsize=LINE_CACHE)(self._styled_line)

    def attach(self, window: LineWindow, focus_line: int | None) -> None:
        """Show ``window`` (loaded by a worker) with ``focus_line`` centred and marked."""
        self.window = window
        self.focus_line = focus_line
        self._known_size = window.size()
        self._line_text.cache_clear()
        self._update_size()
        self._settled = False
        # The new virtual size applies on the next layout; scrolling before it would clamp to
        # the old (empty) size and leave the view at the window's top edge.
        self.call_after_refresh(self._scroll_to_focus)

    def _scroll_to_focus(self) -> None:
        if self.focus_line is not None:
            self.scroll_to(y=max(0, self.focus_line - self.size.height // 3), animate=False)
        self._settled = True
        self.refresh()
        self.post_message(self.Ready())

    def set_pattern(self, pattern: re.Pattern[str] | None) -> None:
        """Highlight matches of ``pattern`` in every line."""
        self.pattern = pattern
        self._line_text.cache_clear()
        self.refresh()

    def set_focus_line(self, index: int | None) -> None:
        """Move the ``▶`` marker and scroll it into view."""
        self.focus_line = index
        self._line_text.cache_clear()
        if index is not None:
            top, height = self.scroll_offset.y, self.size.height
            if not top <= index < top + height:
                self.scroll_to(y=max(0, index - height // 3), animate=False)
        self.refresh()

    def _update_size(self) -> None:
        window = self.window
        count = window.line_count if window else 0
        self.virtual_size = Size(max(self._width, self.size.width), count)

    def _styled_line(self, index: int) -> Text:
        assert self.window is not None
        text = line_text(self.window.line_bytes(index))
        if self.pattern is not None:
            match_style = self.get_component_rich_style("scrollback--match")
            for match in self.pattern.finditer(text.plain):
                text.stylize(match_style, match.start(), match.end())
        if index == self.focus_line:
            text.stylize(self.get_component_rich_style("scrollback--focus"))
        width = text.cell_len + GUTTER
        if width > self._width:
            self._width = width
            self.call_later(self._update_size)
        return text

    def render_line(self, y: int) -> Strip:
        """One visible line: gutter marker plus the rendered transcript line, cropped."""
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self.rich_style
        window = self.window
        if window is None or index >= window.line_count:
            return Strip.blank(width, base)
        near_edge = index < EDGE_LINES or index > window.line_count - EDGE_LINES
        if near_edge and self._settled and not self._grow_pending:
            self._grow_pending = True
            self.call_later(self._grow, index)
        text = self._line_text(index)
        selection = self.text_selection
        span = selection.get_span(index) if selection is not None else None
        if span is not None:
            start, end = span
            text = text.copy()  # the cached line stays unselected
            text.stylize(
                self.screen.get_component_rich_style("screen--selection"),
                start,
                len(text) if end == -1 else end,
            )
        marker = "▶ " if index == self.focus_line else "  "
        gutter = Segment(marker, self.get_component_rich_style("scrollback--gutter"))
        body = Strip(list(text.render(self.app.console)), text.cell_len)
        body = body.crop_extend(scroll_x, scroll_x + width - GUTTER, base)
        # Every segment needs a style object: plain text from ``Text.render`` has ``None``,
        # which Textual's NO_COLOR (monochrome) filter cannot handle.
        body = Strip([Segment(t, s if s is not None else _PLAIN, c) for t, s, c in body])
        # Offsets last (they differ per segment, so nothing would merge after them): where the
        # mouse is, in the text. The gutter has none, so it is never part of a selection.
        body = body.simplify().apply_offsets(scroll_x, index)
        return Strip([gutter, *body], width)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text of the loaded window (Textual's copy reads this)."""
        window = self.window
        if window is None:
            return None
        lines = (line_text(window.line_bytes(i)).plain for i in range(window.line_count))
        return selection.extract("\n".join(lines)), "\n"

    def _grow(self, index: int) -> None:
        """Load more of the file when the reader nears an edge of the window."""
        self._grow_pending = False
        window = self.window
        if window is None:
            return
        if index < EDGE_LINES and window.start > 0:
            added = window.extend_up()
            if added:
                self._shift(added)
        elif index > window.line_count - EDGE_LINES and window.end < window.size():
            dropped = window.extend_down()
            if dropped:
                self._shift(-dropped)
            self._line_text.cache_clear()
            self._update_size()
            self.refresh()

    def _shift(self, lines: int) -> None:
        """Lines were added (positive) or dropped (negative) at the top: keep the view still."""
        if self.text_selection is not None:
            self.screen.clear_selection()  # its line numbers now point at other lines
        if self.focus_line is not None:
            self.focus_line += lines
            if self.window is None or not 0 <= self.focus_line < self.window.line_count:
                self.focus_line = None
        self._line_text.cache_clear()
        self._update_size()
        self.scroll_to(y=max(0, self.scroll_offset.y + lines), animate=False)
        self.refresh()

    def follow(self) -> bool:
        """Pick up lines appended since the last look; stays at the bottom if it was there.

        Returns True when new lines arrived.
        """
        window = self.window
        if window is None:
            return False
        size = window.size()
        if window.end < self._known_size or size <= self._known_size:
            self._known_size = max(self._known_size, size)
            return False  # not showing the end, or nothing new: nothing to follow
        self._known_size = size
        at_bottom = self.scroll_offset.y >= self.max_scroll_y - 1
        self._grow(window.line_count)
        if at_bottom:
            self.scroll_end(animate=False)
        return True
