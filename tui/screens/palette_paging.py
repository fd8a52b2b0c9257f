"""Loading further pages of a one-kind stop (every hit reachable): near the end of the list, and End.

``Pager`` is a collaborator the palette screen builds and hands what it needs (the screen its
workers and messages run on, the application state, the query's generation, the current
answer, how to repaint); the screen's scroll and End handlers delegate to it. A page is asked on
a thread worker with the engine's own cursor; its answer is applied only while the query is the
same (generation) and the group still ends at that cursor, so a page asked twice or for an
older query changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from engine.types import SearchQueryResult, SearchResultItem
from tui.logic.generation import Generation
from tui.logic.paging import END_PAGE, NEXT_PAGE, Groups, KindPage
from tui.widgets.result_list import ResultList

if TYPE_CHECKING:
    from tui.palette_host import PaletteHost

PAGE_GROUP = "page"
"""The worker group of page loads (a new query cancels it)."""


@dataclass
class PageLoaded(Message):
    """Hits after cursor ``after`` of ``kind`` (several pages for End), or a one-line error."""

    generation: int
    kind: str
    after: str
    result: SearchQueryResult | None
    error: str | None
    to_end: bool


class Pager:
    """Next page on scroll, every page on End.

    Args:
        screen: the palette screen: its result list, the workers run on it, the ``PageLoaded``
            messages posted to it (which it hands back to :meth:`loaded`).
        host: the application state (the client pages are asked of).
        generation: the query's generation: a page of an older query is dropped.
        groups: the current answer per kind (None before any answered).
        repaint: repaint the list after a page was appended (the cursor stays).
    """

    def __init__(
        self,
        screen: Screen[None],
        host: PaletteHost,
        generation: Generation,
        groups: Callable[[], Groups | None],
        repaint: Callable[[], None],
    ) -> None:
        self._screen = screen
        self._host = host
        self._generation = generation
        self._groups = groups
        self._repaint = repaint
        self._loading: tuple[str, bool] | None = None
        """The cursor a page is being loaded after, and whether for End."""

    def near_end(self) -> None:
        """The scroll neared the last loaded row: ask for the next page."""
        self.load_more(to_end=False)

    def to_end(self) -> None:
        """End: the last hit, loading every page still left first."""
        if not self.load_more(to_end=True):
            self._to_last_row()

    def cancel(self) -> None:
        """Stop every page load (a new query)."""
        self._screen.workers.cancel_group(self._screen, PAGE_GROUP)

    def load_more(self, *, to_end: bool) -> bool:
        """Ask for the next page (every page left, ``to_end``) of the group that pages; False
        when there is none to ask for."""
        groups = self._groups()
        page = groups.pageable() if groups is not None else None
        if page is None or page.next_cursor is None:
            return False
        loading = self._loading
        if loading is not None and loading[0] == page.next_cursor and (loading[1] or not to_end):
            return True  # already under way (an End load covers a scroll's page too)
        self._loading = (page.next_cursor, to_end)
        job = partial(self._fetch_pages, self._generation.current, page, to_end)
        self._screen.run_worker(job, name="fetch_pages", group=PAGE_GROUP, exclusive=True,
                                thread=True, exit_on_error=False)  # fmt: skip
        return True

    def _fetch_pages(self, stamp: int, page: KindPage, to_end: bool) -> None:
        worker = get_current_worker()
        after = page.next_cursor
        assert after is not None
        items: list[SearchResultItem] = []
        result: SearchQueryResult | None = None
        cursor: str | None = after
        post = self._screen.post_message
        try:
            client = self._host.clients.wait()
            while cursor is not None:
                if worker.is_cancelled or not self._generation.is_current(stamp):
                    return
                answer = client.query(page.args_after(cursor, END_PAGE if to_end else NEXT_PAGE))
                items.extend(answer.items)
                result = answer
                cursor = answer.next_cursor if to_end else None
        except Exception as err:  # a failing page is one line, never a dead palette
            post(PageLoaded(stamp, page.kind, after, None, str(err), to_end))
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
        post(PageLoaded(stamp, page.kind, after, whole, None, to_end))

    def loaded(self, message: PageLoaded) -> None:
        """A page arrived: append it (when it still belongs to the answer on screen)."""
        if self._loading is not None and self._loading[0] == message.after:
            self._loading = None
        groups = self._groups()
        if not self._generation.is_current(message.generation) or groups is None:
            return
        if message.error is not None:
            self._screen.notify(f"could not load more hits: {message.error}", severity="warning")
            return
        assert message.result is not None
        if not groups.extend(message.kind, message.after, message.result):
            if message.to_end and not self.load_more(to_end=True):
                self._to_last_row()  # another load got there first: End still ends at the end
            return
        self._repaint()
        if message.to_end:
            self._to_last_row()

    def _to_last_row(self) -> None:
        listing = self._screen.query_one(ResultList)
        last = next((i for i in reversed(range(len(listing.rows))) if listing.rows[i].selectable),
                    None)  # fmt: skip
        if last is not None:
            listing.highlighted = last
