"""Loading further pages of a one-kind stop (every hit reachable): near the end of the list, and End.

The base of ``PaletteScreen`` (on top of ``RowActions``), kept apart so the screen module holds
the query, the search and the footer. A page is asked on a thread worker with the engine's own
cursor; its answer is applied only while the query is the same (generation) and the group still
ends at that cursor, so a page asked twice or for an older query changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on, work
from textual.message import Message
from textual.widgets import Input
from textual.worker import get_current_worker

from engine.types import SearchQueryResult, SearchResultItem
from tui.logic.generation import Generation
from tui.logic.paging import END_PAGE, NEXT_PAGE, Groups, KindPage
from tui.screens.palette_rows import RowActions
from tui.widgets.paged_list import PagedResultList
from tui.widgets.result_list import ResultList


@dataclass
class PageLoaded(Message):
    """Hits after cursor ``after`` of ``kind`` (several pages for End), or a one-line error."""

    generation: int
    kind: str
    after: str
    result: SearchQueryResult | None
    error: str | None
    to_end: bool


class PagingActions(RowActions):
    """Next page on scroll, every page on End."""

    generation: Generation
    groups: Groups | None
    _loading: tuple[str, bool] | None = None
    """The cursor a page is being loaded after, and whether for End."""

    def _paint(self, *, keep: bool, appended: bool = False) -> None:
        raise NotImplementedError

    @on(PagedResultList.NearEnd)
    def _near_end(self) -> None:
        self._load_more(to_end=False)

    def action_last(self) -> None:
        """End: the last hit, loading every page still left first. In the query line with the
        caret before the end of the text, End moves the caret there first (the input's own End)."""
        box = self.query_one("#query", Input)
        if box.cursor_position < len(box.value):
            box.action_end()
            return
        self.cursor_moved = True
        if not self._load_more(to_end=True):
            self._to_last_row()

    def _load_more(self, *, to_end: bool) -> bool:
        """Ask for the next page (every page left, ``to_end``) of the group that pages; False
        when there is none to ask for."""
        page = self.groups.pageable() if self.groups is not None else None
        if page is None or page.next_cursor is None:
            return False
        loading = self._loading
        if loading is not None and loading[0] == page.next_cursor and (loading[1] or not to_end):
            return True  # already under way (an End load covers a scroll's page too)
        self._loading = (page.next_cursor, to_end)
        self._fetch_pages(self.generation.current, page, to_end)
        return True

    @work(thread=True, exclusive=True, group="page", exit_on_error=False)
    def _fetch_pages(self, stamp: int, page: KindPage, to_end: bool) -> None:
        worker = get_current_worker()
        after = page.next_cursor
        assert after is not None
        items: list[SearchResultItem] = []
        result: SearchQueryResult | None = None
        cursor: str | None = after
        try:
            client = self.palette_app.clients.wait()
            while cursor is not None:
                if worker.is_cancelled or not self.generation.is_current(stamp):
                    return
                answer = client.query(page.args_after(cursor, END_PAGE if to_end else NEXT_PAGE))
                items.extend(answer.items)
                result = answer
                cursor = answer.next_cursor if to_end else None
        except Exception as err:  # a failing page is one line, never a dead palette
            self.post_message(PageLoaded(stamp, page.kind, after, None, str(err), to_end))
            return
        if result is None or worker.is_cancelled:
            return  # superseded by End's load, which starts at the same cursor
        whole = SearchQueryResult(
            items=tuple(items),
            next_cursor=result.next_cursor,
            total=result.total,
            results_truncated=result.results_truncated,
            warnings=result.warnings,
        )
        self.post_message(PageLoaded(stamp, page.kind, after, whole, None, to_end))

    def on_page_loaded(self, message: PageLoaded) -> None:
        if self._loading is not None and self._loading[0] == message.after:
            self._loading = None
        if not self.generation.is_current(message.generation) or self.groups is None:
            return
        if message.error is not None:
            self.notify(f"could not load more hits: {message.error}", severity="warning")
            return
        assert message.result is not None
        if not self.groups.extend(message.kind, message.after, message.result):
            if message.to_end and not self._load_more(to_end=True):
                self._to_last_row()  # another load got there first: End still ends at the end
            return
        self._paint(keep=True, appended=True)
        if message.to_end:
            self._to_last_row()

    def _to_last_row(self) -> None:
        listing = self.query_one(ResultList)
        last = next((i for i in reversed(range(len(listing.rows))) if listing.rows[i].selectable),
                    None)  # fmt: skip
        if last is not None:
            listing.highlighted = last
