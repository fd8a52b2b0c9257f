"""The palette paints the planted text without its controls (RELIABILITY 26).

The real app under pilot on the planted project: the composited screen (what the terminal
receives, segment by segment) holds no control for the rows, the preview of each row, the screen
each row opens, a toast, and a query pasted with escapes in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hostile_project import PAYLOAD, UNSAFE, Hostile
from textual import events
from textual.widgets import Input
from textual.worker import WorkerCancelled, WorkerFailed

from engine.demo import DEMO_NOW
from engine.embedded import EmbeddedClient
from tui import cli
from tui.app import PaletteApp
from tui.widgets.result_list import ResultList

UNSAFE_RE = re.compile(UNSAFE)


def fixed_clock() -> Any:
    return DEMO_NOW


@pytest.fixture
def client(hostile_project: Hostile) -> Iterator[EmbeddedClient]:
    opened = EmbeddedClient.open(hostile_project.root, clock=fixed_clock, start_worker=False)
    yield opened
    opened.close()


async def settle(pilot: Any) -> None:
    for _ in range(3):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await pilot.pause()


def screen_text(app: Any) -> str:
    """Every segment of the composited screen: what the terminal would be sent."""
    return "\n".join(
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    )


def assert_printable(app: Any, where: str) -> str:
    shown = screen_text(app)
    found = UNSAFE_RE.search(shown)
    assert found is None, f"{where}: {found.group()!r} painted in {shown!r}"
    # Markup in a title must stay text: a `[link=…]` would reach the terminal as an OSC 8 link.
    links = {
        segment.style.link
        for strip in app.screen._compositor.render_strips()
        for segment in strip
        if segment.style is not None and segment.style.link
    }
    assert not links, f"{where}: links painted: {links}"
    return shown


def make_app(client: EmbeddedClient, query: str) -> PaletteApp:
    return PaletteApp(client, clock=fixed_clock, debounce_seconds=0.0, cursor_blink=False,
                      preview=True, initial_query=query)  # fmt: skip


@pytest.mark.parametrize("query", ["zap", "kind:linear zaplinear"])
async def test_rows_previews_and_opened_screens_paint_no_controls(
    client: EmbeddedClient, query: str
) -> None:
    app = make_app(client, query)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(ResultList)
        rows = [r for r in listing.rows if r.kind not in ("header", "command")]
        assert rows, "the planted project's hits are listed"
        shown = assert_printable(app, "the result list")
        assert "zap" in shown
        for row in rows:
            listing.highlighted = listing.rows.index(row)
            await settle(pilot)
            assert_printable(app, f"the preview of {row.title!r}")
            await pilot.press("enter")
            await settle(pilot)
            assert_printable(app, f"the screen of {row.title!r}")
            if app.screen is not listing.screen:
                await pilot.press("escape")
                await settle(pilot)


async def test_a_toast_and_a_pasted_query_paint_no_controls(client: EmbeddedClient) -> None:
    app = make_app(client, "")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.notify(f"cannot open {PAYLOAD}", title=PAYLOAD)
        box = app.screen.query_one("#query", Input)
        box.focus()
        box.post_message(events.Paste(f"zappr {PAYLOAD}\nsecond line"))
        await settle(pilot)
        assert UNSAFE_RE.search(box.value) is None, repr(box.value)
        assert box.value.startswith("zappr ")
        assert_printable(app, "a toast and the query line")
        toasts = [(n.title, n.message) for n in app._notifications]
        assert toasts
        assert toasts[-1][1].startswith("cannot open ")
        for part in (text for toast in toasts for text in toast):
            assert UNSAFE_RE.search(part) is None, repr(part)


def test_print_writes_a_hostile_path_without_its_bidi_override(
    hostile_project: Hostile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ade palette --print` end to end: the real app (under pilot instead of a terminal)
    chooses the file hit, and the command prints its ``path:line``."""

    async def choose(app: PaletteApp) -> str | None:
        async with app.run_test(size=(140, 40)) as pilot:
            assert await asyncio.to_thread(app.clients.ready.wait, 30), "the project never opened"
            await settle(pilot)
            listing = app.screen.query_one(ResultList)
            row = next(r for r in listing.rows if r.kind == "file" and "zapbidi" in r.title)
            listing.highlighted = listing.rows.index(row)
            await pilot.press("enter")
        return app.return_value

    from tui import terminal_streams

    monkeypatch.setattr(PaletteApp, "run", lambda app: asyncio.run(choose(app)))
    monkeypatch.setattr(terminal_streams, "ensure_terminal", lambda: None)  # pilot is the terminal
    argv = ["palette", "--project", str(hostile_project.root), "--print", "--query", "zapbidi",
            "--no-daemon", "--no-watch"]  # fmt: skip
    capsys.readouterr()
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert printed == "src/zapbiditxt.exe:1\n"
