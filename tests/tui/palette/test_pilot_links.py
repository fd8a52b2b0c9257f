"""Pilot tests: a hit in a session the palette never listed still lands; copying a hit's link;
``/`` search inside the scrollback screen.

Same rules as ``test_pilot.py``: the real app on a real demo copy, no sleeps (``settle`` awaits
the workers, the debounce is zero, ingestion is an explicit ``catch_up``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.embedded import EmbeddedClient
from tui.logic.rows import PaletteRow
from tui.screens.chat import ChatScreen
from tui.screens.palette import PaletteScreen
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList
from tui.widgets.scrollback_view import ScrollbackView

from .conftest import fixed_clock, make_app, settle

LATE_ID = "chat-late-arrival"
"""A session written after the palette listed the project's sessions."""

LATE_WORD = "quokkaflux"
"""A word found nowhere in the demo, so the only hit is the late session's message."""


def search_rows(app: Any) -> list[PaletteRow]:
    rows = app.screen.query_one(ResultList).rows
    return [r for r in rows if not r.local and r.kind != "header"]


def write_late_chat(root: Path) -> None:
    """One chat session in DESIGN §2's format: session json plus an append-only chats jsonl."""
    ade = root / ".ade"
    meta = {
        "id": LATE_ID, "kind": "chat", "title": "Late arrival", "laneId": None,
        "createdAt": "2026-06-14T09:00:00.000Z", "updatedAt": "2026-06-14T09:05:00.000Z",
        "endedAt": None, "archived": False, "tool": "claude",
    }  # fmt: skip
    (ade / "sessions" / f"{LATE_ID}.json").write_text(json.dumps(meta))
    events = [
        {"seq": 1, "ts": "2026-06-14T09:00:10.000Z", "type": "user_message", "id": "m1",
         "text": "first message about nothing in particular", "status": "accepted"},
        {"seq": 2, "ts": "2026-06-14T09:01:10.000Z", "type": "user_message", "id": "m2",
         "text": f"the {LATE_WORD} bug only shows up on Tuesdays", "status": "accepted"},
        {"seq": 3, "ts": "2026-06-14T09:02:10.000Z", "type": "user_message", "id": "m3",
         "text": "last message, also unrelated", "status": "accepted"},
    ]  # fmt: skip
    lines = "".join(json.dumps(e) + "\n" for e in events)
    (ade / "chats" / f"{LATE_ID}.jsonl").write_text(lines)


async def test_a_hit_in_a_session_the_palette_never_listed_still_lands(demo_copy: Path) -> None:
    opened = EmbeddedClient.open(demo_copy, clock=fixed_clock, start_worker=False)
    opened.service.catch_up()
    try:
        app = make_app(opened)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.sessions  # the palette has listed the sessions already…
            write_late_chat(demo_copy)
            opened.service.catch_up()  # what the in-process watcher triggers
            assert LATE_ID not in {s.id for s in app.sessions}  # …without the new one
            await pilot.press(*LATE_WORD)
            await settle(pilot)
            rows = search_rows(app)
            assert [r.session_id for r in rows] == [LATE_ID]
            results = app.screen.query_one(ResultList)
            results.highlighted = results.rows.index(rows[0])
            await pilot.press("enter")
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ChatScreen)
            assert screen.seq == 2
            assert LATE_ID in screen.title_text
            target = screen.query_one(".-target")
            assert LATE_WORD in str(target.render())
    finally:
        opened.close()


async def highlight_first_hit(pilot: Any, query: str) -> PaletteRow:
    app = pilot.app
    await pilot.press(*query)
    await settle(pilot)
    rows = search_rows(app)
    assert rows
    results = app.screen.query_one(ResultList)
    results.highlighted = results.rows.index(rows[0])
    await pilot.pause()
    return rows[0]


async def test_ctrl_y_copies_the_highlighted_hits_link(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        row = await highlight_first_hit(pilot, "retry")
        assert row.deep_link
        assert row.deep_link.startswith("ade://")
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert app.clipboard == row.deep_link
        assert any(
            n.message == f"sent to the terminal clipboard: {row.deep_link}"
            for n in app._notifications
        )


async def test_copy_link_action_copies_the_highlighted_hits_link(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        row = await highlight_first_hit(pilot, "retry")
        assert row.deep_link
        assert isinstance(app.screen, PaletteScreen)
        await app.run_action("screen.copy_link")  # the action the "link: copy" command names
        await pilot.pause()
        assert app.clipboard == row.deep_link


async def test_link_copy_command_row_copies_the_hit_highlighted_before(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press(*"retry")
        await settle(pilot)
        results = app.screen.query_one(ResultList)
        row = search_rows(app)[0]
        while results.current_row() != row:  # move there with the keys, as a person would
            await pilot.press("down")
        await pilot.press(*["backspace"] * len("retry"), *"link: copy")
        await settle(pilot)
        current = app.screen.query_one(ResultList).current_row()
        assert current is not None
        assert current.action == "screen.copy_link"
        await pilot.press("enter")
        await settle(pilot)
        assert app.clipboard == row.deep_link


async def test_slash_search_in_scrollback_moves_to_the_next_match(client: EmbeddedClient) -> None:
    path = client.transcript_path("term-pytest-retry")
    assert path is not None
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(ScrollbackScreen(path, 0, "", "t"))
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ScrollbackScreen)
        view = screen.query_one(ScrollbackView)
        window = view.window
        assert window is not None
        hits = [i for i in range(window.line_count) if b"timeout" in window.line_bytes(i).lower()]
        assert len(hits) >= 2  # the demo's pytest run times out more than once
        start = view.focus_line
        assert start is not None
        assert start < hits[0]
        await pilot.press("slash")
        box = screen.query_one("#scrollback-search")
        assert box.display
        assert box.has_focus
        await pilot.press(*"timeout", "enter")
        await pilot.pause()
        assert not box.display
        assert view.focus_line == hits[0]
        await pilot.press("n")
        assert view.focus_line == hits[1]
        await pilot.press("N")
        assert view.focus_line == hits[0]
