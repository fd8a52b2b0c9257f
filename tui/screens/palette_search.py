"""The palette's search thread: after the debounce, one query per kind, each answer posted as
it comes, then the hint of the kinds the stop hides.

``Searcher`` is a collaborator the palette screen builds and hands what it needs (the screen its
worker and messages run on, the application state, the query's generation). The screen decides
what to ask and applies the answers: ``KindAnswered``, ``SearchDone`` and ``OtherKindsFound``
carry the generation they were asked for, and the screen drops any that is no longer current (a
superseded thread cannot be cancelled, only ignored).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from textual.message import Message
from textual.screen import Screen
from textual.worker import get_current_worker

from engine.errors import AdeError
from engine.types import SearchQueryArgs
from tui.logic.generation import Generation
from tui.logic.paging import FIRST_PAGE, KindAsk, KindPage
from tui.logic.rows import KIND_ORDER

if TYPE_CHECKING:
    from tui.palette_host import PaletteHost

SEARCH_GROUP = "search"
"""The worker group of the search thread (a newer search replaces it)."""


@dataclass
class KindAnswered(Message):
    """One kind of a search answered (its first page), for ``generation``."""

    generation: int
    paged: bool
    page: KindPage


@dataclass
class SearchDone(Message):
    """A search thread finished every kind, or failed with a one-line ``error``."""

    generation: int
    query: str
    error: str | None


@dataclass
class OtherKindsFound(Message):
    """Hits per kind the current switcher stop hides, for the count line."""

    generation: int
    counts: dict[str, int]


class Searcher:
    """Runs one search at a time on a thread worker of ``screen``, posting its answers there.

    Args:
        screen: the palette screen: the worker runs on it, the messages are posted to it.
        host: the application state (the client, the debounce).
        generation: the query's generation: a thread of an older query stops asking.
    """

    def __init__(self, screen: Screen[None], host: PaletteHost, generation: Generation) -> None:
        self._screen = screen
        self._host = host
        self._generation = generation

    def start(
        self, stamp: int, asks: tuple[KindAsk, ...], paged: bool, also: SearchQueryArgs | None
    ) -> None:
        """Ask ``asks`` (and the hidden kinds' counts, ``also``) for generation ``stamp``,
        replacing the search still running."""
        job = partial(self._search, stamp, asks, paged, also)
        self._screen.run_worker(job, name="search", group=SEARCH_GROUP, exclusive=True,
                                thread=True, exit_on_error=False)  # fmt: skip

    def cancel(self) -> None:
        """Stop the search still running (a stop that lists instead of searching)."""
        self._screen.workers.cancel_group(self._screen, SEARCH_GROUP)

    def _search(
        self, stamp: int, asks: tuple[KindAsk, ...], paged: bool, also: SearchQueryArgs | None
    ) -> None:
        """Debounce, then query each kind in turn, posting each answer as it comes (the handler
        decides if it is stale); ends with ``SearchDone``."""
        host, post = self._host, self._screen.post_message
        worker = get_current_worker()
        if host.debounce_seconds > 0:
            host.debounce_gate.wait(host.debounce_seconds)

        def superseded() -> bool:
            return worker.is_cancelled or not self._generation.is_current(stamp)

        if superseded():
            return
        query = asks[0].args.query
        try:
            client = host.clients.wait(superseded)  # typed before the project opened: wait
            for ask in asks:
                if superseded():
                    return
                result = client.query(ask.args)
                post(KindAnswered(stamp, paged, KindPage.first(ask, result)))
        except AdeError as err:
            post(SearchDone(stamp, query, str(err)))
            return
        except Exception as err:  # an interrupted or failing query must not kill the palette
            post(SearchDone(stamp, query, f"search failed: {err}"))
            return
        post(SearchDone(stamp, query, None))
        if also is None or superseded():
            return
        # After the answer is painted: how many hits each kind this stop hides has,
        # each kind's true total, as its own stop's header will say: the same query as
        # that stop's first page (a relaxed step pads a short page, so the page size matters);
        # one page of every hidden kind together counted only what fitted in it.
        counts: dict[str, int] = {}
        for kind in sorted(also.kinds or (), key=lambda k: KIND_ORDER.get(k, len(KIND_ORDER))):
            if superseded():
                return
            try:
                hidden = client.query(
                    SearchQueryArgs(query=also.query, kinds=(kind,), limit=FIRST_PAGE)
                )
            except Exception:  # only a hint: a failure here shows no hint, never an error
                return
            if hidden.total:
                counts[kind] = hidden.total
        post(OtherKindsFound(stamp, counts))
