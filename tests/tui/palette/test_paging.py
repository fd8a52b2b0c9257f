"""Every hit reachable, every stop browsable (docs/palette.md), on the real
palette through pilot.

``paging_client`` is a git.git look-alike (``paging_repo``): 130 commits, 80 naming
``strbuf_addf``, and ``strbuf.c`` defining it. On main a group's header counted the 60 hits the
palette asked for, nothing past them was reachable, "everything" showed 60 commits and never the
definition, and Tab to a kind's stop with an empty query gave a blank list.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from engine.embedded import EmbeddedClient
from tui.logic.kinds import KIND_MODES
from tui.logic.rows import PaletteRow
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, opened, settle
from .paging_repo import COMMITS, NAMING, build_paging_repo

FIRST_PAGE = 60
"""The palette's first page of a one-kind stop (``tui.logic.paging.FIRST_PAGE``)."""


@pytest.fixture(scope="module")
def paging_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_paging_repo(tmp_path_factory.mktemp("paging") / "gitlike")
    client = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
    try:
        client.service.catch_up()
    finally:
        client.close()
    return root


@pytest.fixture
def paging_client(paging_root: Path) -> Iterator[EmbeddedClient]:
    opened_client = EmbeddedClient.open(paging_root, clock=fixed_clock, start_worker=False)
    yield opened_client
    opened_client.close()


def rows(app: Any) -> list[PaletteRow]:
    return app.screen.query_one(ResultList).rows


def headers(app: Any) -> list[str]:
    return [row.title for row in rows(app) if row.kind == "header"]


def of_kind(app: Any, kind: str) -> list[PaletteRow]:
    return [row for row in rows(app) if row.kind == kind and not row.local]


async def type_query(pilot: Any, text: str) -> None:
    """The query as if pasted: one change, one search (each keystroke would search again)."""
    box = pilot.app.screen.query_one("#query", Input)
    box.value = text
    box.cursor_position = len(text)
    await settle(pilot)


async def to_stop(pilot: Any, label: str) -> None:
    """Tab to the switcher stop named ``label``."""
    index = next(i for i, mode in enumerate(KIND_MODES) if mode.label == label)
    for _ in range(index):
        await pilot.press("tab")
    await settle(pilot)


async def test_a_header_shows_the_true_count_and_the_cursor_loads_the_next_page(
    paging_client: EmbeddedClient,
) -> None:
    app = make_app(paging_client)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await type_query(pilot, "kind:commit strbuf_addf")
        assert headers(app) == [f"● Commits ({NAMING})"]
        assert len(of_kind(app, "commit")) == FIRST_PAGE  # the first page only, so far
        await pilot.press("home", "end")  # mid-text, End is the caret's: nothing is loaded
        await settle(pilot)
        assert app.screen.query_one("#query", Input).cursor_position == len(app.screen.query_text)
        assert len(of_kind(app, "commit")) == FIRST_PAGE
        listing = app.screen.query_one(ResultList)
        listing.highlighted = len(listing.rows) - 1  # the last loaded row
        await settle(pilot)
        commits = of_kind(app, "commit")
        assert len(commits) == NAMING  # the count and the list agree
        assert len({row.key for row in commits}) == NAMING  # each hit once
        assert listing.current_row() == commits[FIRST_PAGE - 1]  # the cursor stayed put
        assert headers(app) == [f"● Commits ({NAMING})"]


async def test_scrolling_the_list_loads_the_next_page(paging_client: EmbeddedClient) -> None:
    app = make_app(paging_client)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await to_stop(pilot, "commit")
        assert len(of_kind(app, "commit")) == FIRST_PAGE
        listing = app.screen.query_one(ResultList)
        listing.scroll_end(animate=False, immediate=True)  # the mouse wheel, without the cursor
        await settle(pilot)
        assert len(of_kind(app, "commit")) == COMMITS


async def test_end_goes_to_the_last_hit(paging_client: EmbeddedClient) -> None:
    app = make_app(paging_client)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await to_stop(pilot, "commit")  # the browse: every commit, newest first
        assert headers(app) == [f"● Commits ({COMMITS})"]
        await pilot.press("end")
        await settle(pilot)
        commits = of_kind(app, "commit")
        assert len(commits) == COMMITS
        current = app.screen.query_one(ResultList).current_row()
        assert current is not None
        assert current.title == "strbuf: use strbuf_addf in caller 0"


async def test_everything_shows_each_kinds_best_with_the_tab_hint(
    paging_client: EmbeddedClient,
) -> None:
    app = make_app(paging_client)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await type_query(pilot, "strbuf_addf")
        assert "strbuf.c:4" in [row.title for row in of_kind(app, "file")]  # the definition
        assert len(of_kind(app, "commit")) == 5
        assert f"● Commits ({NAMING}) · best 5 · Tab to commit for all" in headers(app)


# --- browsing the demo's stops --------------------------------------------------------------

BROWSED = {"pr": "pr", "commit": "commit", "branch": "branch", "lane": "lane", "file": "file",
           "artifact": "artifact"}  # fmt: skip
"""Stops whose empty query lists that kind's most recent (the demo has some of each)."""

EMPTY = {
    "linear": "Nothing to show in linear — linear: not configured (set LINEAR_API_KEY",
    "chat: gemini": "Nothing to show in chat: gemini",
}
"""Stops with nothing to show on the demo, and what they say instead of a blank list."""


async def test_an_empty_query_browses_every_stop(
    client: EmbeddedClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LINEAR_API_KEY", "ADE_LINEAR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = make_app(client)
    seen: set[str] = set()
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        for mode in KIND_MODES[1:]:
            await pilot.press("tab")
            await settle(pilot)
            shown = rows(app)
            assert shown, f"{mode.label}: a blank list"
            if mode.label in BROWSED:
                found = of_kind(app, BROWSED[mode.label])
                assert found, (mode.label, shown)
                stamps = [row.updated_at_ms or 0 for row in found]
                assert stamps == sorted(stamps, reverse=True), mode.label  # most recent first
                seen.add(mode.label)
            elif mode.label in EMPTY:
                assert len(shown) == 1, shown
                assert shown[0].title.startswith(EMPTY[mode.label]), shown
                seen.add(mode.label)
        assert seen == {*BROWSED, *EMPTY}
        assert of_kind(app, "pr") == []  # (back at the last stop: no stale rows)


# --- snapshots (snapshots/test_paging/) -------------------------------------------------------


def _at_stop(label: str, *keys: str, query: str = "") -> Any:
    async def run(pilot: Any) -> None:
        await opened(pilot)
        if query:
            await type_query(pilot, query)
        await to_stop(pilot, label)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


def test_snapshot_paged_group_at_its_last_hit(
    snap_compare: Any, paging_client: EmbeddedClient
) -> None:
    before = _at_stop("commit", "end")
    assert snap_compare(make_app(paging_client), terminal_size=(100, 24), run_before=before)


def test_snapshot_everything_best_of_each_kind(
    snap_compare: Any, paging_client: EmbeddedClient
) -> None:
    before = _at_stop("everything", query="strbuf_addf")
    assert snap_compare(make_app(paging_client), terminal_size=(100, 24), run_before=before)


@pytest.mark.parametrize("stop", ["commit", "linear"])
def test_snapshot_browse_of_a_stop(
    snap_compare: Any, client: EmbeddedClient, stop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LINEAR_API_KEY", "ADE_LINEAR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    # Linear by its typed `kind:` (the same browse as its stop, without tabbing past ten stops).
    before = _at_stop(stop) if stop == "commit" else _at_stop("everything", query="kind:linear")
    assert snap_compare(make_app(client), terminal_size=(100, 24), run_before=before)


def test_a_capped_count_gives_way_to_the_list_once_every_page_is_loaded(
    paging_client: EmbeddedClient,
) -> None:
    """A listing counts up to a cap (``2,000+``); once End loaded past it the header counts the
    list itself, so the two never disagree at the end."""
    from engine.types import SearchQueryArgs, SearchQueryResult
    from tui.logic.paging import KindAsk, KindPage

    ask = KindAsk("commit", SearchQueryArgs(query="", kinds=("commit",), limit=60))
    first = paging_client.query(ask.args)
    capped = KindPage.first(ask, SearchQueryResult(first.items, first.next_cursor, 100, True))
    assert capped.next_cursor is not None
    rest = paging_client.query(capped.args_after(capped.next_cursor, 500))
    whole = capped.extended(rest)
    assert (whole.total, whole.truncated, len(whole.items)) == (COMMITS, False, COMMITS)


async def test_the_hint_of_hidden_kinds_gives_each_kinds_true_total(
    paging_client: EmbeddedClient,
) -> None:
    """On a stop that hides commits, the hint names every commit that matches, not the first
    page's worth (on main: ``also 60 commit`` for 80 commits naming ``strbuf_addf``)."""
    app = make_app(paging_client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await to_stop(pilot, "branch")
        await type_query(pilot, "strbuf_addf")
        await settle(pilot)
        subtitle = str(app.screen.query_one("#query", Input).border_subtitle)
        assert f"also {NAMING} commit" in subtitle, subtitle
