"""The palette's result list: an OptionList painted from ``PaletteRow`` records."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from rich.style import Style
from textual.content import Content
from textual.strip import Strip
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from tui.logic.ages import relative_time
from tui.logic.merge import stable_index
from tui.logic.rows import KIND_ICON, PaletteRow, Spans
from tui.printable import printable, printable_spans

SNIPPET_CHARS = 240
"""Snippet text kept per row: wider than any terminal line; the rest is cut by CSS ellipsis."""

MATCH_STYLE = "bold $text-accent"
"""Matched characters: the theme's accent text colour, so it follows themes."""

NO_COLOR_MATCH_STYLE = "bold underline"
"""Matched characters under ``NO_COLOR``: colour is gone and hit titles are bold already, so
the underline is what sets a match apart."""


NO_COLOR_CURSOR = Style(reverse=True)
"""The cursor row under ``NO_COLOR``: its background is a grey at best (Textual's monochrome
filter) or nothing (ANSI themes); reverse video shows on every terminal. Applied per line because
CSS ``text-style: reverse`` does not reach option prompts (Textual's visual styles drop it)."""


def match_style(no_color: bool) -> str:
    """The style of matched characters for an app with or without colour."""
    return NO_COLOR_MATCH_STYLE if no_color else MATCH_STYLE


def highlighted(text: str, spans: Spans, base: str = "", style: str = MATCH_STYLE) -> Content:
    """``text`` with ``spans`` in the match ``style`` over an optional ``base`` style."""
    content = Content(text)
    if base:
        content = content.stylize(base)
    for start, end in spans:
        content = content.stylize(style, start, end)
    return content


def _one_line(text: str, spans: Spans) -> tuple[str, Spans]:
    # Made printable first (the row is other people's text), spans moved to fit; then flat.
    text, moved = printable_spans(text, spans)
    spans = tuple(moved)
    flat = text.replace("\n", " ").replace("\t", " ")
    if len(flat) <= SNIPPET_CHARS:
        return flat, spans
    kept = tuple((s, min(e, SNIPPET_CHARS)) for s, e in spans if s < SNIPPET_CHARS)
    return flat[:SNIPPET_CHARS] + "…", kept


def row_prompt(row: PaletteRow, now: datetime, style: str = MATCH_STYLE) -> Content:
    """Two lines for a hit (title line, snippet line), one for a command or a header; matches
    in ``style``."""
    if row.kind == "header":
        return Content(printable(row.title)).stylize("bold $text-muted")
    icon = KIND_ICON.get(row.kind, " ")
    title, title_spans = _one_line(row.title, row.title_spans)
    parts: list[Content | tuple[str, str] | str] = [
        (f"{icon} ", "$text-muted"),
        highlighted(title, title_spans, "bold" if not row.local else "", style),
    ]
    if row.more:
        parts.append((f"  +{row.more} more", "$text-muted"))
    tool = row.item.tool if row.item is not None else None  # the agent of a chat hit
    meta = printable(
        " · ".join(x for x in (tool, row.lane, relative_time(row.updated_at_ms, now)) if x)
    )
    if meta:
        parts.append((f"  {meta}", "$text-muted"))
    if row.foreign_project:
        parts.append((f"  [{printable(row.foreign_project)}]", "bold $text-warning"))
    first = Content.assemble(*parts)
    if not row.snippet or row.kind == "command":
        return first
    snippet, spans = _one_line(row.snippet, row.snippet_spans)
    return Content.assemble(first, "\n  ", highlighted(snippet, spans, "$text-muted", style))


class ResultList(OptionList):
    """Rows of the palette; keeps the highlighted row in place when the list is replaced."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[PaletteRow] = []

    def show_rows(self, rows: Sequence[PaletteRow], now: datetime, *, keep: bool = True) -> None:
        """Replace the list with ``rows``.

        Args:
            rows: What to paint, in order.
            now: The injected clock's reading, for relative times.
            keep: Keep the highlighted row where it is (late search results merging in); when
                False the cursor goes to the first row (the query changed).
        """
        previous = self.current_row() if keep else None
        previous_index = self.highlighted if keep else None
        self.rows = list(rows)
        style = match_style(self.app.no_color)
        options = [
            Option(row_prompt(row, now, style), id=f"r{i}", disabled=not row.selectable)
            for i, row in enumerate(self.rows)
        ]
        self.set_options(options)
        index = stable_index(self.rows, previous.key if previous else None, previous_index)
        self.highlighted = index

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        if self.app.no_color and self._line_is_highlighted(y):
            strip = strip.apply_style(NO_COLOR_CURSOR)
        return strip

    def _line_is_highlighted(self, y: int) -> bool:
        # ``_lines`` maps rendered lines to options (OptionList's own bookkeeping, read only).
        try:
            option_index, _ = self._lines[self.scroll_offset.y + y]
        except IndexError:
            return False
        return option_index == self.highlighted

    def current_row(self) -> PaletteRow | None:
        """The highlighted row, or None for an empty list."""
        index = self.highlighted
        if index is None or not 0 <= index < len(self.rows):
            return None
        return self.rows[index]
