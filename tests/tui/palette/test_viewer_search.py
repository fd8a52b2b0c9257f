"""The chat viewer searches like the scrollback: ``n``/``N`` step between the
messages that match, ``/`` searches for other words, the status says ``match 2 of 5``; a ``/``
search that matches nothing says ``not found`` in both viewers."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Static

from engine.embedded import EmbeddedClient
from tui.screens.chat import ChatMessage, ChatScreen
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.scrollback_view import ScrollbackView

from .conftest import make_app, settle

CHAT = "chat-readtimeout-triage"


def status_of(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def open_chat(pilot: Any, client: EmbeddedClient, query: str) -> ChatScreen:
    path = client.transcript_path(CHAT)
    assert path is not None
    await settle(pilot)
    await pilot.app.push_screen(ChatScreen(path, None, query, "chat"))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ChatScreen)
    return screen


def hits_of(screen: ChatScreen, word: str) -> list[int]:
    return [i for i, m in enumerate(screen.query(ChatMessage)) if word in m.text.lower()]


async def test_n_and_shift_n_step_between_the_chats_matches(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, client, "timeout")
        hits = hits_of(screen, "timeout")
        assert len(hits) >= 3  # the triage chat talks about the timeout again and again
        count = len(hits)
        # Opened on the latest message, which mentions the timeout: the last match.
        assert screen.current == hits[-1]
        assert f"match {count} of {count}" in status_of(screen, "#chat-status")
        await pilot.press("N")
        assert screen.current == hits[-2]
        assert f"match {count - 1} of {count}" in status_of(screen, "#chat-status")
        await pilot.press("N", "n")
        assert screen.current == hits[-2]
        await pilot.press("n", "n")
        assert screen.current == hits[-1]
        assert "no more matches" in status_of(screen, "#chat-status")
        assert screen.messages[hits[-1]].has_class("-current")
        assert not screen.messages[hits[-2]].has_class("-current")


async def test_slash_searches_the_chat_from_the_top(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, client, "")
        hits = hits_of(screen, "timeout")
        await pilot.press("n")
        assert "no search terms" in status_of(screen, "#chat-status")
        await pilot.press("slash")
        box = screen.query_one("#chat-search", Input)
        assert box.display
        assert box.has_focus
        await pilot.press(*"timeout", "enter")
        await pilot.pause()
        assert not box.display
        assert screen.current == hits[0]  # the latest message is last: the search wraps
        assert f"match 1 of {len(hits)}" in status_of(screen, "#chat-status")
        await pilot.press("n")
        assert screen.current == hits[1]
        assert f"match 2 of {len(hits)}" in status_of(screen, "#chat-status")
        await pilot.press("N", "N")
        assert screen.current == hits[0]
        assert "no more matches" in status_of(screen, "#chat-status")


async def test_a_chat_search_for_nothing_says_not_found(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, client, "")
        await pilot.press("slash", *"zqxwvnothing", "enter")
        await pilot.pause()
        assert "not found" in status_of(screen, "#chat-status")


async def test_a_scrollback_search_for_nothing_says_not_found(client: EmbeddedClient) -> None:
    path = client.transcript_path("term-pytest-retry")
    assert path is not None
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(ScrollbackScreen(path, 0, "", "t"))
        await settle(pilot)
        screen = app.screen
        view = screen.query_one(ScrollbackView)
        before = view.focus_line
        await pilot.press("slash", *"zqxwvnothing", "enter")
        await pilot.pause()
        assert "not found: zqxwvnothing" in status_of(screen, "#scrollback-status")
        assert view.focus_line == before


async def test_a_typo_answers_with_a_note_of_the_corrected_spelling(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"timeuot")
        await settle(pilot)
        status = status_of(app.screen, "#status")
        # the corrected spelling answers, and the status says so
        assert "≈ no exact match; spelling corrected: timeuot → timeout" in status
        await pilot.press(*["backspace"] * 7, *"timeout")
        await settle(pilot)
        assert "≈" not in status_of(app.screen, "#status")
