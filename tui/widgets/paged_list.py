"""The palette's result list with paging (every hit reachable): says when the cursor or the scroll nears
the last loaded row, and appends a page without rebuilding the rows already shown."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from textual.message import Message
from textual.widgets.option_list import Option

from tui.logic.paging import NEAR_END_ROWS
from tui.logic.rows import PaletteRow
from tui.widgets.result_list import ResultList, match_style, row_prompt


class PagedResultList(ResultList):
    """A ``ResultList`` that posts ``NearEnd`` when the loaded rows are about to run out."""

    class NearEnd(Message):
        """The highlighted row or the bottom of the view is within ``NEAR_END_ROWS`` of the end."""

    def show_rows(self, rows: Sequence[PaletteRow], now: datetime, *, keep: bool = True) -> None:
        """As ``ResultList.show_rows``; when ``rows`` only adds rows after the ones shown (the
        next page of a group), the new options are appended: the cursor, the scroll and the
        painted rows stay, and a 10,000-row list is not rebuilt for each page."""
        old = self.rows
        if keep and old and len(rows) > len(old) and list(rows[: len(old)]) == old:
            tail = list(rows[len(old) :])
            style = match_style(self.app.no_color)
            start = len(old)
            self.rows = [*old, *tail]
            self.add_options(
                Option(row_prompt(row, now, style), id=f"r{start + i}", disabled=not row.selectable)
                for i, row in enumerate(tail)
            )
            return
        super().show_rows(rows, now, keep=keep)

    def watch_highlighted(self, highlighted: int | None) -> None:
        super().watch_highlighted(highlighted)
        if highlighted is not None and highlighted >= len(self.rows) - NEAR_END_ROWS:
            self.post_message(self.NearEnd())

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if self.rows and new_value >= self.max_scroll_y - NEAR_END_ROWS and new_value > old_value:
            self.post_message(self.NearEnd())
