"""The scrollback screen: a terminal session's transcript at a byte offset, the match marked."""

from __future__ import annotations

import re
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, Static

from tui.logic.line_window import LineWindow
from tui.logic.terms import highlight_terms, terms_pattern
from tui.printable import printable
from tui.widgets.scrollback_view import ScrollbackView

FOLLOW_SECONDS = 1.0
"""How often a running session's transcript is checked for new lines."""


class ScrollbackScreen(Screen[None]):
    """Scrollback of ``path`` opened at byte ``offset``; ``n``/``N`` step matches, ``/`` searches."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back"),
        Binding("n", "next_match", "next match"),
        Binding("N", "previous_match", "previous match"),
        Binding("slash", "search", "search"),
        Binding("g", "top", "top", show=False),
        Binding("G", "bottom", "bottom", show=False),
    ]

    def __init__(self, path: Path, offset: int, query: str, title: str) -> None:
        super().__init__()
        self.path = path
        self.byte_offset = offset
        self.query_text = query
        self.title_text = printable(title)
        self.window: LineWindow | None = None
        self.note: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(Content(self.title_text), id="scrollback-title")  # text, never markup
        yield ScrollbackView(id="scrollback")
        yield Input(placeholder="search this scrollback", id="scrollback-search")
        yield Static("loading…", id="scrollback-status")

    def on_mount(self) -> None:
        self.query_one("#scrollback-search", Input).display = False
        self.query_one(ScrollbackView).focus()
        self._load()
        self.set_interval(FOLLOW_SECONDS, self._follow)

    @work(thread=True, exclusive=True, group="scrollback-load")
    def _load(self) -> None:
        """Index the window around the offset off the UI thread, then hand it to the view."""
        try:
            window = LineWindow(self.path)
            size = window.size()
            line = window.load_around(self.byte_offset)
        except OSError as err:
            self.app.call_from_thread(self._failed, str(err))
            return
        note = None
        if self.byte_offset >= size > 0:
            note = f"offset {self.byte_offset} is past the end ({size} bytes): showing the end"
        # The offset is the matching line already: the engine puts it in the hit's link.
        pattern = terms_pattern(highlight_terms(self.query_text))
        self.app.call_from_thread(self._loaded, window, line, pattern, note)

    def _loaded(
        self, window: LineWindow, line: int, pattern: re.Pattern[str] | None, note: str | None
    ) -> None:
        self.window = window
        self.note = note
        view = self.query_one(ScrollbackView)
        view.set_pattern(pattern)
        view.attach(window, line)
        self._show_status()

    def _failed(self, message: str) -> None:
        self.query_one("#scrollback-status", Static).update(
            Content(f"⚠ cannot open: {printable(message)}")
        )

    def _show_status(self, extra: str = "") -> None:
        view = self.query_one(ScrollbackView)
        window = self.window
        where = ""
        focus = view.focus_line
        if window is not None and focus is not None and 0 <= focus < window.line_count:
            where = f"byte {window.starts[focus]} of {window.size()}"
        parts = [p for p in (self.note, extra, where, "n/N matches  / search  esc back") if p]
        self.query_one("#scrollback-status", Static).update("  ·  ".join(parts))

    def _follow(self) -> None:
        if self.query_one(ScrollbackView).follow():
            self._show_status()

    def _step(self, step: int) -> None:
        view = self.query_one(ScrollbackView)
        window = self.window
        if window is None or view.pattern is None:
            self._show_status("no search terms")
            return
        raw = re.compile(view.pattern.pattern.encode(), re.IGNORECASE)
        start = view.focus_line if view.focus_line is not None else view.scroll_offset.y
        found = window.find(raw, start, step)
        if found is None:
            self._show_status("no more matches")
            return
        view.set_focus_line(found)
        self._show_status()

    def action_next_match(self) -> None:
        self._step(1)

    def action_previous_match(self) -> None:
        self._step(-1)

    def action_search(self) -> None:
        box = self.query_one("#scrollback-search", Input)
        box.display = True
        box.focus()

    @on(Input.Submitted, "#scrollback-search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        box = event.input
        box.display = False
        view = self.query_one(ScrollbackView)
        view.focus()
        pattern = terms_pattern(highlight_terms(event.value))
        view.set_pattern(pattern)
        window = self.window
        if pattern is not None and window is not None:
            raw = re.compile(pattern.pattern.encode(), re.IGNORECASE)
            if window.find(raw, -1, 1) is None:  # nowhere in the loaded scrollback
                self._show_status(f"not found: {event.value.strip()}")
                return
        self._step(1)

    def action_top(self) -> None:
        self.query_one(ScrollbackView).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(ScrollbackView).scroll_end(animate=False)

    def action_back(self) -> None:
        box = self.query_one("#scrollback-search", Input)
        if box.display:
            box.display = False
            self.query_one(ScrollbackView).focus()
            return
        self.dismiss(None)

    def on_unmount(self) -> None:
        if self.window is not None:
            self.window.close()
