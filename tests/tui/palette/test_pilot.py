"""Pilot tests of the palette on the real demo project through a real EmbeddedClient.

No sleeps: the debounce is driven (``flush_debounce``), background work is awaited with
``workers.wait_for_complete()``, and slow queries are held on events the test controls.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerState

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.links.deeplink import build_link
from engine.types import ALL_KINDS, SearchQueryArgs, SearchQueryResult
from tui.logic.rows import KIND_LABEL, PaletteRow
from tui.screens.chat import ChatScreen
from tui.screens.detail import DetailScreen
from tui.screens.file_detail import FileDetailScreen
from tui.screens.palette import PaletteScreen
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList
from tui.widgets.scrollback_view import ScrollbackView

from .conftest import fixed_clock, make_app, settle

PROJECT = "acme-payments-demo"


class Recording:
    """The real client, recording queries and optionally holding some of them on an event."""

    def __init__(self, inner: EmbeddedClient, hold: dict[str, threading.Event] | None = None):
        self.inner = inner
        self.queries: list[str] = []
        self.hold = hold or {}
        self.started: dict[str, threading.Event] = {q: threading.Event() for q in self.hold}
        self.interrupted = threading.Event()

    @property
    def project(self) -> Any:
        return self.inner.project

    def query(self, args: SearchQueryArgs) -> SearchQueryResult:
        self.queries.append(args.query)
        if args.query in self.hold:
            self.started[args.query].set()
            assert self.hold[args.query].wait(10), "held query never released"
        return self.inner.query(args)

    def interrupt(self) -> None:
        self.interrupted.set()
        self.inner.interrupt()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def results(app: Any) -> ResultList:
    return app.screen.query_one(ResultList)


def search_rows(app: Any) -> list[PaletteRow]:
    return [r for r in results(app).rows if not r.local and r.kind != "header"]


async def test_typing_is_debounced_and_only_the_last_query_runs(client: EmbeddedClient) -> None:
    spy = Recording(client)
    app = make_app(spy, debounce_seconds=60.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press(*"retry")
        await pilot.pause()
        assert spy.queries == []  # still inside the debounce window
        assert [r.kind for r in results(app).rows if r.local]  # local matches painted already
        app.flush_debounce()
        await settle(pilot)
        assert set(spy.queries) == {"retry"}  # one query per kind of the stop, all "retry"
        assert search_rows(app)


async def test_slow_answer_for_a_never_overwrites_ab(client: EmbeddedClient) -> None:
    release = threading.Event()
    spy = Recording(client, hold={"a": release})
    app = make_app(spy)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("a")
            assert await asyncio.to_thread(spy.started["a"].wait, 5)
            await pilot.press("b")
            screen = app.screen
            assert isinstance(screen, PaletteScreen)
            # "a" is still held; its worker was superseded. Wait for the "ab" search only.
            live = [
                w for w in app.workers if w.group == "search" and w.state != WorkerState.CANCELLED
            ]
            await app.workers.wait_for_complete(live)
            await pilot.pause()
            # "a" asked once (held, then superseded), "ab" once per kind of the stop
            assert spy.queries[0] == "a"
            assert set(spy.queries[1:]) == {"ab"}
            shown = [r.key for r in search_rows(app)]
            assert shown
            release.set()  # the stale answer for "a" arrives now, after the one for "ab"
            await settle(pilot)
            assert [r.key for r in search_rows(app)] == shown
    finally:
        release.set()


async def test_quit_during_a_long_query_returns_at_once(client: EmbeddedClient) -> None:
    never = threading.Event()
    spy = Recording(client, hold={"retry": never})
    spy.interrupt = lambda: (never.set(), client.interrupt())  # type: ignore[method-assign]
    app = make_app(spy)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"retry")
        assert await asyncio.to_thread(spy.started["retry"].wait, 5)
        await pilot.press("ctrl+q")
    # The held query ends only when interrupted: had quitting waited for it, the app would
    # not have exited; the flag says the interrupt, not a timeout, released it.
    assert never.is_set()


async def test_hits_are_deduped_by_session_and_local_chats_not_repeated(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"timeout")
        await settle(pilot)
        rows = results(app).rows
        local_sessions = {r.session_id for r in rows if r.local and r.kind == "chat"}
        hit_sessions = [r.session_id for r in search_rows(app) if r.session_id]
        assert local_sessions  # "timeout" matches chat titles locally
        assert hit_sessions
        assert len(hit_sessions) == len(set(hit_sessions))
        assert not local_sessions & set(hit_sessions)
        assert any(r.more for r in search_rows(app))


async def test_kind_switching_groups_rows_in_fixed_order(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"retry")
        await settle(pilot)
        kinds = [r.kind for r in results(app).rows if r.kind == "header" or not r.local]
        headers = [r.title for r in results(app).rows if r.kind == "header"]
        assert {"pr", "commit", "branch"} <= set(kinds)
        labels = [h.split(" ", 1)[1].rsplit(" (", 1)[0] for h in headers]
        # Indexed kinds first, then the delegated ones (lanes, files…) — always in ALL_KINDS order.
        assert labels[:5] == ["Chats", "Terminals", "Pull requests", "Commits", "Branches"]
        await pilot.press("tab")  # sessions
        await settle(pilot)
        assert {r.kind for r in search_rows(app)} <= {"chat", "terminal"}
        fixed = [KIND_LABEL[kind] for kind in ALL_KINDS]
        assert labels == sorted(labels, key=fixed.index)
        await pilot.press("tab", "tab", "tab", "tab")  # chat, terminal, pr, then commit
        await settle(pilot)
        assert {r.kind for r in search_rows(app)} == {"commit"}
        await pilot.press("shift+tab")
        await settle(pilot)
        assert {r.kind for r in search_rows(app)} == {"pr"}
        assert app.screen.query_one("#query").border_title == "kind: pr"


async def test_late_results_do_not_move_the_highlighted_row(client: EmbeddedClient) -> None:
    app = make_app(client, debounce_seconds=60.0)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"timeout")
        await pilot.press("down")
        before = results(app).current_row()
        assert before is not None
        assert before.local
        app.flush_debounce()
        await settle(pilot)
        assert search_rows(app)  # results merged in…
        after = results(app).current_row()
        assert after is not None
        # …and the cursor stayed on its row (whose link may now name its best matching message).
        assert (after.key, after.title) == (before.key, before.title)


async def open_row(pilot: Any, row: PaletteRow) -> None:
    """Put ``row`` on top of the list, highlight it and press Enter."""
    app = pilot.app
    listing = results(app)
    listing.show_rows([row, *listing.rows], fixed_clock(), keep=False)
    await pilot.press("enter")
    await settle(pilot)


async def open_kind(pilot: Any, query: str, kind: str) -> None:
    app = pilot.app
    await pilot.press(*query)
    await settle(pilot)
    while (rows := [r for r in search_rows(app) if r.kind == kind]) == []:
        await pilot.press("tab")
        await settle(pilot)
    index = results(app).rows.index(rows[0])
    results(app).highlighted = index
    await pilot.press("enter")
    await settle(pilot)


@pytest.mark.parametrize(
    ("query", "kind", "screen"),
    [
        ("timeout", "chat", ChatScreen),
        ("timeout", "terminal", ScrollbackScreen),
        ("retry", "pr", DetailScreen),
        ("retry", "commit", DetailScreen),
        ("retry", "branch", DetailScreen),
    ],
)
async def test_activation_by_kind_and_back(
    client: EmbeddedClient, query: str, kind: str, screen: type
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_kind(pilot, query, kind)
        assert isinstance(app.screen, screen)
        palette = app.screen_stack[-2]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is palette
        assert palette.query_one("#query").value == query
        current = results(app).current_row()
        assert current is not None
        assert current.kind == kind


@pytest.mark.parametrize(
    ("kind", "target", "extra", "screen", "expect"),
    [
        ("lane", "primary", {}, DetailScreen, "Sessions"),
        ("file", "docs/runbook.md", {"line": 3, "lane": "primary"}, FileDetailScreen, "runbook"),
        ("artifact", "art-retry-report", {}, DetailScreen, "report"),
        ("linear", "ABC-123", {}, DetailScreen, "ABC-123"),
    ],
)
async def test_activation_of_delegated_kinds(
    client: EmbeddedClient, kind: str, target: str, extra: dict[str, Any], screen: type,
    expect: str,
) -> None:  # fmt: skip
    app = make_app(client)
    link = build_link(kind, target, project_id=PROJECT, **extra)
    row = PaletteRow(key=f"t:{kind}", kind=kind, title=target, deep_link=link)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await open_row(pilot, row)
        assert type(app.screen) is screen
        detail = app.screen.detail
        assert detail is not None
        text = f"{detail.title}\n{detail.fields}\n{detail.body}"
        assert expect.lower() in text.lower()
        await pilot.press("escape")
        assert isinstance(app.screen, PaletteScreen)


async def test_scrollback_opens_at_the_offset_with_the_match_marked(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_kind(pilot, "timeout", "terminal")
        screen = app.screen
        assert isinstance(screen, ScrollbackScreen)
        view = screen.query_one(ScrollbackView)
        assert view.window is not None
        assert view.focus_line is not None
        line = view.window.line_bytes(view.focus_line).lower()
        assert b"timeout" in line
        assert view.window.starts[view.focus_line] >= screen.byte_offset
        await pilot.press("n")
        after = view.focus_line
        assert after is not None
        assert after > view.window.line_at(screen.byte_offset)


async def test_scrollback_offset_past_the_end_lands_at_the_end(client: EmbeddedClient) -> None:
    path = client.transcript_path("term-pytest-retry")
    assert path is not None
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await app.push_screen(ScrollbackScreen(path, 10**9, "", "t"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ScrollbackScreen)
        assert screen.note is not None
        assert "past the end" in screen.note
        view = screen.query_one(ScrollbackView)
        assert view.window is not None
        assert view.focus_line == view.window.line_count - 1


async def test_a_session_deleted_meanwhile_says_so(demo_project: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    opened = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
    opened.service.catch_up()
    try:
        app = make_app(opened)
        async with app.run_test(size=(120, 40)) as pilot:
            await open_kind(pilot, "timeout", "terminal")
            await pilot.press("escape")
            row = results(app).current_row()
            assert row is not None
            assert row.session_id is not None
            (root / ".ade" / "sessions" / f"{row.session_id}.json").unlink()
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, PaletteScreen)
            messages = [n.message for n in app._notifications]
            assert any("is gone" in m for m in messages)
    finally:
        opened.close()


async def test_print_mode_returns_the_link_or_none(client: EmbeddedClient) -> None:
    app = make_app(client, print_mode=True, initial_query="retry")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        while not search_rows(app):
            await pilot.press("down")
        row = search_rows(app)[0]
        results(app).highlighted = results(app).rows.index(row)
        await pilot.press("enter")
    assert app.return_value == row.deep_link
    app = make_app(client, print_mode=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
    assert app.return_value is None


async def test_print_mode_prints_path_and_line_for_a_file(client: EmbeddedClient) -> None:
    app = make_app(client, print_mode=True)
    link = build_link("file", "docs/runbook.md", project_id=PROJECT, line=7, lane="primary")
    row = PaletteRow(key="f", kind="file", title="docs/runbook.md", deep_link=link)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await open_row(pilot, row)
    assert app.return_value == "docs/runbook.md:7"


async def test_inline_error_for_a_bad_filter(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"retry since:7x")
        await settle(pilot)
        box = app.screen.query_one("#inline-error")
        assert box.display
        assert "since" in str(box.render())


async def test_new_transcript_lines_show_up_while_open(demo_project: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    opened = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
    opened.service.catch_up()
    try:
        app = make_app(opened)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press(*"zebracorn")
            await settle(pilot)
            assert search_rows(app) == []
            log = root / ".ade" / "terminals" / "term-dev-server.log"
            with log.open("ab") as handle:
                handle.write(b"WARNING: zebracorn stampede on /v1/charges\n")
            opened.service.catch_up()  # what the in-process watcher triggers
            screen = app.screen
            assert isinstance(screen, PaletteScreen)
            screen.refresh_status()  # the footer's periodic status poll, driven
            await settle(pilot)
            assert [r.session_id for r in search_rows(app)] == ["term-dev-server"]
    finally:
        opened.close()
