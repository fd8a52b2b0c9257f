"""The palette screen: query input, result list, preview pane, status footer.

Local matches are computed synchronously on every keystroke; the universal search runs on the
screen's ``Searcher`` (``palette_search``), a thread worker that waits out the debounce, queries
the client and posts answers stamped with their generation. The handlers here drop any answer
whose generation is no longer current (a superseded thread cannot be cancelled, only ignored),
and a superseded query is interrupted on the client so its thread ends quickly. What the screen
does with a row is its ``RowActions`` (``palette_rows``), further pages its ``Pager``
(``palette_paging``): collaborators it builds and hands what they need; its key actions delegate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Input, OptionList, Static

from engine.basics.text import is_blank_query
from engine.types import SearchQueryArgs, SearchQueryResult
from tui.logic.fuzzy import LocalItem, items_of, list_sessions, match_local
from tui.logic.generation import Generation
from tui.logic.keys import PALETTE_KEYS
from tui.logic.kinds import (
    KindsInForce,
    count_line,
    cycle,
    in_force,
    lists_sessions,
    other_kinds,
    query_for,
    typed_tools,
    without_listing_filters,
)
from tui.logic.lane_context import LANE_KEY, toggle_lane_filter
from tui.logic.merge import merge
from tui.logic.paging import Groups, KindAsk, kind_asks, nothing_row
from tui.logic.rows import PaletteRow
from tui.screens.palette_paging import PageLoaded, Pager
from tui.screens.palette_rows import RowActions
from tui.screens.palette_search import KindAnswered, OtherKindsFound, SearchDone, Searcher
from tui.widgets.paged_list import PagedResultList
from tui.widgets.preview_pane import PreviewPane
from tui.widgets.query_input import QueryInput
from tui.widgets.result_list import ResultList
from tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from tui.palette_host import PaletteHost

STATUS_SECONDS = 2.0
"""How often the footer asks for the index status (docs, pending, indexing, watcher)."""

SEARCH_LIMIT = 60
"""Hits asked for the hint of the kinds a narrowed stop hides (each kind's own query pages:
``tui.logic.paging``)."""

COMMAND_KINDS = ("command", "project")
"""Local items offered in the everything and sessions stops only."""

OPENING = "opening…"
"""Footer note while the project's client is being opened (after the first paint)."""


class PaletteScreen(Screen[None]):
    """The full-screen palette: the query, the search and the footer here; what it does with a
    row is its ``RowActions``, further pages its ``Pager``."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(k.key, k.action, k.label, show=k.show, priority=True) for k in PALETTE_KEYS),
        Binding(LANE_KEY, "toggle_lane", "this lane", show=False, priority=True),
    ]
    """Priority bindings, so Enter, arrows and Tab reach the palette before the query input.
    The lane key is named by the footer's lane badge, shown only inside a lane."""

    def __init__(self, host: PaletteHost, initial_query: str = "") -> None:
        super().__init__()
        self.host = host
        self.initial_query = initial_query
        self.generation = Generation()
        self.kind_mode = 0
        self.local_rows: list[PaletteRow] = []
        self.groups: Groups | None = None
        """The search's answers per kind (``tui.logic.paging``), None before any answered."""
        self._groups_stamp = 0
        self.search_answered = False
        """Every kind of the current search answered: an empty list now means nothing to show."""
        self.other_hits: dict[str, int] | None = None
        """Rows per kind the stop hides (``also 40 commit (tab)``), for the current query."""
        self._items_for: tuple[tuple[object, ...], list[LocalItem]] | None = None
        self._status_shown: tuple[object, str, str | None, str | None] | None = None
        self._doc_count: int | None = None
        self.error: str | None = None
        self.suggestion: str | None = None
        """The engine's "did you mean …?" for the query on screen, when it found nothing."""
        self.cursor_moved = False
        """Whether the user moved the cursor since the query changed: only then does a late
        merge (search hits, local items of a project that just opened) keep its row; otherwise
        the cursor stays on the first row, where the user expects the best match."""
        self.searcher = Searcher(self, host, self.generation)
        self.rows = RowActions(self, host, lambda: self.query_text)
        self.pager = Pager(self, host, self.generation, lambda: self.groups,
                           repaint=lambda: self._paint(keep=True, appended=True))  # fmt: skip

    @property
    def palette_app(self) -> PaletteHost:
        """The application state this screen was given (see ``tui.palette_host``)."""
        return self.host

    def compose(self) -> ComposeResult:
        yield QueryInput(
            value=self.initial_query,
            placeholder="Search chats, terminals, PRs, commits, files…   (f1 help)",
            id="query",
        )
        yield Static("", id="inline-error")
        with Horizontal(id="body"):
            yield PagedResultList(id="results")
            yield PreviewPane(id="preview")
        yield StatusBar(id="status-bar")

    def on_mount(self) -> None:
        app = self.palette_app
        self.query_one("#inline-error", Static).display = False
        self.query_one(PreviewPane).display = app.preview_enabled
        box = self.query_one("#query", Input)
        box.cursor_blink = app.cursor_blink
        box.focus()
        self._update_kind_label()
        self.refresh_local(keep=False)
        self._start_search()
        if app.clients.current() is None:  # in the first frame already, not one poll later
            self._show_status(None, OPENING)
        self.refresh_status()
        self.set_interval(STATUS_SECONDS, self.refresh_status)
        self.call_after_refresh(app.open_first_project)  # after this screen's first frame

    # --- typing -------------------------------------------------------------------------------

    @property
    def query_text(self) -> str:
        return self.query_one("#query", Input).value

    @property
    def hits(self) -> SearchQueryResult | None:
        """The search's answer as one result (every loaded hit, the kinds' totals summed)."""
        return self.groups.combined() if self.groups is not None and self.groups.pages else None

    def _forget_hits(self) -> None:
        self.groups = None
        self.search_answered = False

    @on(Input.Changed, "#query")
    def _query_changed(self) -> None:
        self.cursor_moved = False
        self._forget_hits()
        self.other_hits = None
        self.error = None
        self.suggestion = None
        self._update_kind_label()
        self.refresh_local(keep=False)
        self._start_search()

    def reset_query(self) -> None:
        """Start over with an empty query (another project was opened)."""
        self._forget_hits()
        self.error, self._doc_count = None, None
        box = self.query_one("#query", Input)
        if box.value:
            box.value = ""  # Input.Changed repaints and cancels the search
        else:
            self.refresh_local(keep=False)
        self.refresh_status()

    def refresh_local(self, *, keep: bool) -> None:
        """Recompute local matches and repaint (synchronous: this is the per-keystroke path)."""
        query = self.query_text.strip()
        query = "" if is_blank_query(query) else query  # `"`, a BOM, U+202E: the empty query
        force = self.kinds_in_force()
        tools = typed_tools(query) or ((force.tool,) if force.tool else ())
        items = self._local_items(force, tools)
        if lists_sessions(query, force):
            self.local_rows = list_sessions(items, force.kinds, tools)
        else:
            self.local_rows = match_local(without_listing_filters(query), items)
        self._paint(keep=keep)

    def kinds_in_force(self) -> KindsInForce:
        """What the query shows in the current stop: a typed ``kind:`` replaces the stop."""
        return in_force(self.query_text.strip(), self.kind_mode)

    def _local_items(self, force: KindsInForce, tools: tuple[str, ...]) -> list[LocalItem]:
        """The local items of the kinds in force (cached: the matcher caches by list identity,
        and this runs on every keystroke)."""
        source = self.palette_app.local_items
        key = (id(source), len(source), force.kinds, force.commands, tools)
        if self._items_for is not None and self._items_for[0] == key:
            return self._items_for[1]
        items = items_of(source, (*force.kinds, *(COMMAND_KINDS if force.commands else ())), tools)
        self._items_for = (key, items)
        return items

    def _paint(self, *, keep: bool, appended: bool = False) -> None:
        groups = self.groups
        hits = groups.items() if groups is not None else ()
        rows = merge(self.local_rows, hits, active_project_id=self.palette_app.project_id,
                     group=groups.group if groups is not None else None)  # fmt: skip
        if not rows and self._nothing_to_show():
            warnings = groups.combined().warnings if groups is not None else ()
            rows = [nothing_row(self.kinds_in_force().label, warnings)]
        keep = appended or (keep and self.cursor_moved)  # a page appended never moves the cursor
        self.query_one(ResultList).show_rows(rows, self.palette_app.now(), keep=keep)
        box = self.query_one("#inline-error", Static)
        note = None if self.error else query_note(self.hits)
        box.display = self.error is not None or note is not None
        box.set_class(note is not None, "-note")
        box.update(f"⚠ {self.error}" if self.error else Content(f"note: {note}" if note else ""))
        self._update_count_line()
        self.rows.schedule_preview()

    def _update_count_line(self) -> None:
        """``12 of 340 · also 40 commit (tab)`` under the query, once a search answered."""
        line = ""
        hits = self.hits
        if hits is not None:
            line = count_line(hits.total, hits.results_truncated, self._doc_count,
                              self.other_hits)  # fmt: skip
        elif self.local_rows and lists_sessions(self.query_text.strip(), self.kinds_in_force()):
            line = f"{len(self.local_rows):,} sessions"
        self.query_one("#query", Input).border_subtitle = line

    def _nothing_to_show(self) -> bool:
        """Whether an empty list is final for a browse (an empty query, or only ``kind:``/``tool:``
        filters): the listing came up empty, or every kind answered with nothing."""
        query = self.query_text.strip()
        if self.error is not None or without_listing_filters(query):
            return False
        if self.palette_app.clients.current() is None:
            return False  # still opening: the listing has not been read yet
        return self.search_answered or lists_sessions(query, self.kinds_in_force())

    # --- searching ----------------------------------------------------------------------------

    def _start_search(self) -> None:
        stamp = self.generation.advance()
        query = self.query_text.strip()
        query = "" if is_blank_query(query) else query  # `"`, a BOM, U+202E: the empty query
        force = self.kinds_in_force()
        self.palette_app.debounce_gate.clear()
        self.palette_app.clients.interrupt()
        self.pager.cancel()
        if (not query and force.commands) or lists_sessions(query, force):
            # The everything and sessions stops list commands, lanes and sessions for an empty
            # query; a sessions-only stop lists its sessions. Every other stop browses.
            self.searcher.cancel()
            return
        text = query_for(query, self.kind_mode)
        asks = kind_asks(text, force) or (
            KindAsk("", SearchQueryArgs(query=text, kinds=force.engine_kinds, limit=SEARCH_LIMIT)),
        )  # a typed `kind:` naming no valid kind: the engine says what is valid
        others = other_kinds(force) if query else ()
        also = SearchQueryArgs(query=query, kinds=others, limit=SEARCH_LIMIT) if others else None
        self.searcher.start(stamp, asks, len(force.kinds) == 1, also)

    def on_other_kinds_found(self, message: OtherKindsFound) -> None:
        if self.generation.is_current(message.generation):
            self.other_hits = message.counts
            self._update_count_line()

    def on_kind_answered(self, message: KindAnswered) -> None:
        if not self.generation.is_current(message.generation):
            return  # a late answer to an older query: never overwrite newer results
        if self.groups is None or self._groups_stamp != message.generation:
            self.groups = Groups(paged=message.paged)  # the first kind of a new answer
            self._groups_stamp = message.generation
        self.groups.add(message.page)
        self.error = None
        self._paint(keep=True)

    def on_search_done(self, message: SearchDone) -> None:
        if not self.generation.is_current(message.generation):
            return
        if self._groups_stamp != message.generation:
            self.groups = None  # failed before any kind answered: the old answer is stale
        self.search_answered = True
        self.error = message.error
        self.suggestion = did_you_mean(self.hits)
        self._paint(keep=True)
        self.refresh_status()

    # --- status -------------------------------------------------------------------------------

    def refresh_status(self) -> None:
        """Ask the client for the index status off the UI thread."""
        self._status()

    @work(thread=True, exclusive=True, group="status", exit_on_error=False)
    def _status(self) -> None:
        clients = self.palette_app.clients
        client = clients.current()
        if client is None:  # still opening, or the opening failed: say which, never wait
            self.app.call_from_thread(self._show_status, None, OPENING, clients.error)
            return
        try:
            status = client.index_status()
        except Exception:
            status = None
        self.app.call_from_thread(self._show_status, status)

    def _show_status(
        self, status: object, note: str | None = None, error: str | None = None
    ) -> None:
        from engine.types import IndexStatus

        known = status if isinstance(status, IndexStatus) else None
        label = self.kinds_in_force().label
        self._status_shown = (known, label, error, note)
        lane = self.palette_app.current_lane
        self.query_one(StatusBar).show_status(
            known, label, error, note=note, lane=lane.id if lane is not None else None,
            suggestion=self.suggestion,
        )  # fmt: skip
        if known is None:
            return
        grew = self._doc_count is not None and known.doc_count != self._doc_count
        first = self._doc_count is None
        self._doc_count = known.doc_count
        if first:
            self._update_count_line()
        paged_on = self.groups is not None and self.groups.extended
        if grew and self.query_text.strip() and self.app.screen is self and not paged_on:
            # (Not once the user loaded further pages: the list would shrink under them.)
            # The in-process watcher indexed something new: ask again, keeping the cursor.
            self._start_search()

    def _update_kind_label(self) -> None:
        label = self.kinds_in_force().label
        self.query_one("#query", Input).border_title = f"kind: {label}"
        shown = self._status_shown
        if shown is not None and shown[1] != label:  # a typed kind: changed the badge
            self._show_status(shown[0], shown[3], shown[2])

    # --- rows and pages (``RowActions``, ``Pager``) --------------------------------------------

    @on(OptionList.OptionSelected, "#results")
    async def _clicked(self) -> None:
        await self.rows.activate()

    async def action_activate(self) -> None:
        await self.rows.activate()

    @on(OptionList.OptionHighlighted, "#results")
    def _highlighted(self) -> None:
        self.rows.highlighted(cursor_moved=self.cursor_moved)

    def action_copy_link(self) -> None:
        self.rows.copy_link()

    def action_resume(self) -> None:
        self.rows.resume()

    @on(PagedResultList.NearEnd)
    def _near_end(self) -> None:
        self.pager.near_end()

    def on_page_loaded(self, message: PageLoaded) -> None:
        self.pager.loaded(message)

    def action_last(self) -> None:
        """End: the last hit, loading every page still left first. In the query line with the
        caret before the end of the text, End moves the caret there first (the input's own End)."""
        box = self.query_one("#query", Input)
        if box.cursor_position < len(box.value):
            box.action_end()
            return
        self.cursor_moved = True
        self.pager.to_end()

    # --- keys ---------------------------------------------------------------------------------

    def action_cursor_down(self) -> None:
        self.cursor_moved = True
        self.query_one(ResultList).action_cursor_down()

    def action_cursor_up(self) -> None:
        self.cursor_moved = True
        self.query_one(ResultList).action_cursor_up()

    def action_page_down(self) -> None:
        self.cursor_moved = True
        self.query_one(ResultList).action_page_down()  # type: ignore[no-untyped-call]

    def action_page_up(self) -> None:
        self.cursor_moved = True
        self.query_one(ResultList).action_page_up()  # type: ignore[no-untyped-call]

    def action_next_kind(self) -> None:
        self._switch_kind(1)

    def action_previous_kind(self) -> None:
        self._switch_kind(-1)

    def _switch_kind(self, step: int) -> None:
        self.kind_mode = cycle(self.kind_mode, step)
        self.cursor_moved = False
        self._update_kind_label()
        self._forget_hits()
        self.other_hits = None
        self.refresh_local(keep=False)
        self._start_search()
        self.refresh_status()

    def action_toggle_lane(self) -> None:
        """Add ``lane:<the lane the palette was started in>`` to the query, or take it out."""
        lane = self.palette_app.current_lane
        if lane is None:
            self.notify("the palette was not started inside a lane", severity="warning")
            return
        box = self.query_one("#query", Input)
        box.value = toggle_lane_filter(box.value, lane.id)
        box.cursor_position = len(box.value)

    def action_toggle_preview(self) -> None:
        app = self.palette_app
        app.preview_enabled = not app.preview_enabled
        self.query_one(PreviewPane).display = app.preview_enabled
        self.rows.schedule_preview()

    def action_help(self) -> None:
        from tui.screens.help import HelpScreen

        self.app.push_screen(HelpScreen())

    def action_cancel(self) -> None:
        self.palette_app.finish(None)

    def action_quit(self) -> None:
        self.palette_app.finish(None)


RELAXED_NOTES = ("no exact match", "other word forms matched", "no match for every word")
"""How the engine's notes of a relaxed answer begin (``engine.query.relax``)."""


def did_you_mean(result: SearchQueryResult | None) -> str | None:
    """The engine's suggestion for a query that found nothing (did you mean), or the note of the
    relaxed step that answered it instead (docs/search.md), else None."""
    if result is not None and result.relaxed is not None:
        notes = [w for w in result.warnings if w.startswith(RELAXED_NOTES)]
        return f"≈ {notes[-1]}" if notes else f"≈ relaxed: {result.relaxed}"
    if result is None or result.items:
        return None
    return next((w for w in result.warnings if w.startswith("did you mean ")), None)


QUERY_NOTES = ("query has ", "query cut to ", "ignored '")
"""The starts of the engine's notes on the query as typed (terms past the limit, a cut paste, a
word of no letters): the CLI prints them on stderr, the palette under the query."""


def query_note(result: SearchQueryResult | None) -> str | None:
    """The engine's first note on how it read the query, else None."""
    if result is None:
        return None
    return next((w for w in result.warnings if w.startswith(QUERY_NOTES)), None)
