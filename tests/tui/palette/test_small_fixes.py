"""The palette's smaller fixes, each on the real demo through a real client: the
footer at 80 columns, the chat viewer's place, message numbers, notes, typed commands."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input, Static

from engine.embedded import EmbeddedClient
from engine.links.details import chat_context, message_events, read_chat_events
from tui.commands.palette import build_app
from tui.logic.kinds import KIND_MODES
from tui.open_format import format_context
from tui.screens.chat import ChatScreen
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, settle


def screen_lines(app: Any) -> list[str]:
    """The composited screen, row by row: what the terminal is sent."""
    return [
        "".join(segment.text for segment in strip).rstrip()
        for strip in app.screen._compositor.render_strips()
    ]


async def test_at_80_columns_the_footer_shows_whole_hints_and_the_whole_status(
    client: EmbeddedClient,
) -> None:
    """The hints were cut mid-word (``^y copy link  f…``): now the ones that fit, help last."""
    app = make_app(client, initial_query="timeout")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        footer = screen_lines(app)[-1]
    assert "…" not in footer
    assert footer.startswith("⏎ open  esc close")
    assert "f1 help" in footer
    assert footer.endswith(" docs")


def status_of(screen: Any) -> str:
    return str(screen.query_one("#chat-status", Static).render())


async def open_chat(pilot: Any, path: Path, query: str, seq: int | None = None) -> ChatScreen:
    await settle(pilot)
    await pilot.app.push_screen(ChatScreen(path, seq, query, "chat"))
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, ChatScreen)
    return screen


async def test_the_chat_viewers_place_follows_n_and_shift_n(client: EmbeddedClient) -> None:
    """``message 14 of 14`` named the opening message only; n/N move it."""
    path = client.transcript_path("chat-readtimeout-triage")
    assert path is not None
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, path, "timeout")
        total = len(screen.messages)
        assert f"message {total} of {total}" in status_of(screen)
        hits = [i for i, m in enumerate(screen.messages) if m.matches(screen.pattern)]
        await pilot.press("N")
        assert screen.current == hits[-2]
        assert f"message {hits[-2] + 1} of {total}" in status_of(screen)
        assert f"message {total} of {total}" not in status_of(screen)


def claude_line(uuid: str, role: str, text: str) -> bytes:
    record = {"parentUuid": None, "isSidechain": False, "cwd": "/tmp/w", "sessionId": "s1",
              "type": role, "message": {"role": role, "content": text}, "uuid": uuid,
              "timestamp": "2026-05-28T10:00:00.000Z"}  # fmt: skip
    return json.dumps(record).encode() + b"\n"


@pytest.fixture
def claude_transcript(tmp_path: Path) -> Path:
    """A Claude Code transcript of four messages: its anchors are byte offsets."""
    path = tmp_path / "claude" / "s1.jsonl"
    path.parent.mkdir()
    words = ["why does zorblax crash", "it reads a stale config", "fix it", "fixed zorblax"]
    roles = ["user", "assistant", "user", "assistant"]
    path.write_bytes(
        b"".join(
            claude_line(f"u{n}", r, w) for n, (r, w) in enumerate(zip(roles, words, strict=True))
        )
    )
    return path


async def test_claude_code_messages_are_numbered_one_to_n(
    client: EmbeddedClient, claude_transcript: Path
) -> None:
    """The viewer's heads showed each message's byte offset (``#0``, ``#312``…)."""
    events = message_events(read_chat_events(claude_transcript))
    assert [e.seq for e in events][-1] > 100  # the anchors are byte offsets
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_chat(pilot, claude_transcript, "zorblax", seq=events[1].seq)
        heads = [message.head for message in screen.messages]
        assert "message 2 of 4" in status_of(screen)
    assert heads == ["you · #1", "assistant · #2", "you · #3", "assistant · #4"]


def test_ade_open_numbers_claude_code_messages_one_to_n(claude_transcript: Path) -> None:
    """``ade open`` of a Claude Code message: ``[1]``…, not byte offsets, around the target."""
    events = message_events(read_chat_events(claude_transcript))
    found = chat_context(claude_transcript, events[2].seq, radius=1)
    assert format_context(found, numbered=True).splitlines() == [
        "  [2] assistant: it reads a stale config",
        "> [3] user: fix it",
        "  [4] assistant: fixed zorblax",
    ]


async def test_before_the_first_index_the_count_stands_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hits from the live sources while the index is still empty read ``1 found``, not
    ``1 of 0``."""
    monkeypatch.setenv("HOME", str(repo.parent / "home"))
    fresh = EmbeddedClient.open(repo, clock=fixed_clock, start_worker=False)  # never caught up
    try:
        assert fresh.index_status().doc_count == 0
        app = make_app(fresh, initial_query="first")
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            total = app.screen.hits.total
            line = str(app.screen.query_one("#query").border_subtitle)
    finally:
        fresh.close()
    assert total >= 1
    assert line == f"{total} found"


async def test_a_typed_command_works_in_every_stop(client: EmbeddedClient) -> None:
    """``index: rebuild`` was found in the everything and sessions stops only."""
    app = make_app(client, initial_query="rebuild")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        missing = []
        for mode in KIND_MODES:  # local rows are matched on the keystroke: no search awaited
            titles = [row.title for row in app.screen.query_one(ResultList).rows if row.local]
            if "index: rebuild" not in titles:
                missing.append(mode.label)
            await pilot.press("tab")
        await pilot.press("end", *" kind:commit")  # a typed kind: still decides what is shown
        await pilot.pause()
        titles = [row.title for row in app.screen.query_one(ResultList).rows if row.local]
        await settle(pilot)
    assert missing == []
    assert "index: rebuild" not in titles


async def test_the_engines_note_on_the_query_is_shown_under_it(client: EmbeddedClient) -> None:
    """``ade search`` printed ``warning: query has 35 terms…``; the palette showed nothing."""
    words = " ".join(f"w{n}" for n in range(35))
    app = make_app(client, initial_query=words)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        box = app.screen.query_one("#inline-error", Static)
        shown = (box.display, box.has_class("-note"), str(box.render()))
        app.screen.query_one("#query", Input).value = "retry"
        await settle(pilot)
        gone = box.display
    assert shown[:2] == (True, True)
    assert shown[2].startswith("note: query has 35 terms, over the limit of 32")
    assert not gone


async def test_the_palette_in_a_folder_that_is_no_project_indexes_nothing_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It opened as if indexing (``0 docs · indexing…``) and made ``.ade/cache`` there; now it
    searches every project ade knows and writes nothing there."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    monkeypatch.chdir(folder)
    args = argparse.Namespace(demo=False, project=None, no_daemon=True, no_watch=True,
                              query="", print_link=False, print_command=False, height=None)  # fmt: skip
    app = build_app(args)
    app.cursor_blink = False
    async with app.run_test(size=(100, 24)) as pilot:
        assert await asyncio.to_thread(app.clients.ready.wait, 30)
        await settle(pilot)
        status = str(app.screen.query_one("#status", Static).render())
    app.clients.close()
    assert "indexing" not in status  # it searches every project ade knows (search from anywhere)
    assert not (folder / ".ade").exists()
