"""Every hit reachable in the palette: one query per kind, pages, true counts.

A stop asks the engine once per kind it shows, so each group's header can carry that kind's true
total. A stop of one kind (``commit``, ``kind:file``, ``chat: claude``) pages: the first page is
``FIRST_PAGE`` hits, scrolling near the last loaded row asks for the next ``NEXT_PAGE`` with the
engine's own cursor (the CLI's order and paging, ``--cursor``), and End asks for ``END_PAGE``-hit
pages until none is left. A stop of several kinds (everything, sessions, ``kind:a,b``) shows each
matching kind's best ``BEST_ROWS`` rows under a header naming the total and the Tab stop that
lists all of them. An empty query browses (the engine's newest first); a stop with nothing to
show says so in the list. Pure: no Textual, no client.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import msgspec

from engine.types import MAX_LIMIT, SearchQueryArgs, SearchQueryResult, SearchResultItem
from tui.logic.kinds import SESSION_KINDS, KindsInForce
from tui.logic.rows import KIND_ICON, KIND_LABEL, KIND_ORDER, PaletteRow

FIRST_PAGE = 60
"""Hits of a one-kind stop's first page: a screenful or two after folding by session."""

NEXT_PAGE = 200
"""Hits asked for each time the cursor or the scroll nears the last loaded row."""

END_PAGE = MAX_LIMIT
"""Page size while End loads every remaining hit (the engine's largest page)."""

BEST_ROWS = 5
"""Rows of each kind in a stop of several kinds; the header says how to see them all."""

SESSION_BEST_HITS = 40
"""Hits asked per chat or terminal kind in a stop of several kinds: hits fold into one row per
session, so more are needed to fill ``BEST_ROWS`` sessions."""

NEAR_END_ROWS = 10
"""How close (in rows) to the last loaded row the next page is asked for."""


@dataclass(frozen=True, slots=True)
class KindAsk:
    """One query of a stop: a kind and the arguments of its first page."""

    kind: str
    args: SearchQueryArgs


def kind_asks(query: str, force: KindsInForce) -> tuple[KindAsk, ...]:
    """The per-kind queries for ``query`` (already carrying a tool stop's ``tool:``) in the kinds
    ``force`` shows, in the fixed kind order. A typed ``kind:`` stays in the text and the engine
    intersects it with each kind asked."""
    paged = len(force.kinds) == 1
    asks = []
    for kind in sorted(force.kinds, key=lambda k: KIND_ORDER.get(k, len(KIND_ORDER))):
        best = SESSION_BEST_HITS if kind in SESSION_KINDS else BEST_ROWS
        limit = FIRST_PAGE if paged else best
        asks.append(KindAsk(kind, SearchQueryArgs(query=query, kinds=(kind,), limit=limit)))
    return tuple(asks)


@dataclass(frozen=True, slots=True)
class KindPage:
    """The hits of one kind loaded so far, and where its next page starts."""

    kind: str
    args: SearchQueryArgs
    items: tuple[SearchResultItem, ...]
    total: int
    truncated: bool
    next_cursor: str | None
    warnings: tuple[str, ...] = ()
    relaxed: str | None = None
    """The relaxed step that answered this kind's query (``engine.query.relax``), if any."""

    @classmethod
    def first(cls, ask: KindAsk, result: SearchQueryResult) -> KindPage:
        return cls(ask.kind, ask.args, result.items, result.total, result.results_truncated,
                   result.next_cursor, result.warnings, result.relaxed)  # fmt: skip

    @property
    def more(self) -> bool:
        """Whether the engine has hits past the loaded ones."""
        return self.next_cursor is not None

    def args_after(self, cursor: str, limit: int) -> SearchQueryArgs:
        """The arguments of the page after ``cursor`` (the first page's query and kinds)."""
        return msgspec.structs.replace(self.args, cursor=cursor, limit=limit)

    def extended(self, result: SearchQueryResult) -> KindPage:
        """This page with the next one appended. The total stays the engine's, except when the
        last page brought more hits than a capped count said (``2,000+`` of a listing): then
        the list itself is the count, so the header and the list end up agreeing."""
        items = (*self.items, *result.items)
        total, truncated = self.total, self.truncated
        if result.next_cursor is None and len(items) >= total:
            total, truncated = len(items), False
        return replace(self, items=items, total=total, truncated=truncated,
                       next_cursor=result.next_cursor)  # fmt: skip


@dataclass
class Groups:
    """The answers of one query, per kind, as they arrive."""

    paged: bool
    """A one-kind stop: its group pages; otherwise each group shows its best rows."""
    pages: dict[str, KindPage] = field(default_factory=dict)
    extended: bool = False
    """A further page was loaded (the user scrolled): a re-search would shrink the list."""

    def add(self, page: KindPage) -> None:
        self.pages[page.kind] = page

    def extend(self, kind: str, after: str | None, result: SearchQueryResult) -> bool:
        """Append ``result``, the page that starts at cursor ``after``, to ``kind``'s hits;
        False (nothing changed) when ``kind`` no longer continues there (a page asked twice,
        or asked before the query changed)."""
        page = self.pages.get(kind)
        if page is None or after is None or page.next_cursor != after:
            return False
        self.pages[kind] = page.extended(result)
        self.extended = True
        return True

    def items(self) -> list[SearchResultItem]:
        """Every loaded hit, kind by kind in the fixed order, rank order within a kind."""
        order = sorted(self.pages, key=lambda k: KIND_ORDER.get(k, len(KIND_ORDER)))
        return [item for kind in order for item in self.pages[kind].items]

    def combined(self) -> SearchQueryResult:
        """The answer as one result: every loaded hit, the totals summed, warnings once each."""
        warnings = dict.fromkeys(w for page in self.pages.values() for w in page.warnings)
        relaxed = next((page.relaxed for page in self.pages.values() if page.relaxed), None)
        return SearchQueryResult(
            items=tuple(self.items()),
            next_cursor=None,
            total=sum(page.total for page in self.pages.values()),
            results_truncated=any(page.truncated for page in self.pages.values()),
            warnings=tuple(warnings),
            relaxed=relaxed,
        )

    def pageable(self) -> KindPage | None:
        """The group that loads more as the list scrolls: a paged stop's one kind with more."""
        if not self.paged:
            return None
        return next((page for page in self.pages.values() if page.more), None)

    def group(self, kind: str, rows: Sequence[PaletteRow]) -> list[PaletteRow]:
        """``kind``'s header and rows: all rows in a paged stop, the best few otherwise."""
        page = self.pages.get(kind)
        if page is None:
            return [_header(kind, f"{len(rows)}"), *rows]
        shown = list(rows) if self.paged else list(rows[:BEST_ROWS])
        count = f"{page.total:,}{'+' if page.truncated else ''}"
        if kind in SESSION_KINDS:
            count += " hit" if page.total == 1 else " hits"
        hint = ""
        if not self.paged and (page.more or len(rows) > len(shown)):  # some hit is not shown
            hint = f" · best {len(shown)} · Tab to {kind} for all"
        return [_header(kind, count, hint), *shown]


def _header(kind: str, count: str, hint: str = "") -> PaletteRow:
    return PaletteRow(
        key=f"header:{kind}",
        kind="header",
        title=f"{KIND_ICON.get(kind, ' ')} {KIND_LABEL.get(kind, kind)} ({count}){hint}",
    )


NOTHING_KEY = "header:nothing"


def nothing_row(label: str, warnings: Iterable[str] = ()) -> PaletteRow:
    """The line a stop with nothing to show paints instead of a blank list, with the engine's
    reason when it gave one (``linear: not configured …``)."""
    reason = next((w for w in warnings if not w.startswith("did you mean")), None)
    title = f"Nothing to show in {label}" + (f" — {reason}" if reason else "")
    return PaletteRow(key=NOTHING_KEY, kind="header", title=title)
