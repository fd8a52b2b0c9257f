"""The palette paints before the project is open: the footer says ``opening…``, typing is kept
and searched once the client arrives; quitting while it opens neither hangs nor leaks it; the
rebuild progress bar is mounted on first use; the app module imports no engine machinery.

Openers here are real embedded clients held on events the test controls (no sleeps).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from textual.widgets import ProgressBar

from engine.embedded import EmbeddedClient
from tui.palette_client import ClientSlot
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, opened, settle


class HeldOpener:
    """Opens a real client once ``release`` is set; records what it opened."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.opened: list[EmbeddedClient] = []

    def __call__(self, root: Path | None) -> Any:
        self.started.set()
        assert self.release.wait(10), "opener never released"
        client = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
        self.opened.append(client)
        return client


def status_text(app: Any) -> str:
    return str(app.screen.query_one("#status").render())


async def test_paints_first_and_runs_the_typed_query_once_open(indexed_demo: Path) -> None:
    opener = HeldOpener()
    app = make_app(None, opener=opener, root=indexed_demo)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            assert await asyncio.to_thread(opener.started.wait, 10)
            await pilot.pause()
            assert "opening…" in status_text(app)
            rows = app.screen.query_one(ResultList).rows
            assert rows
            assert {r.kind for r in rows} == {"command"}  # the commands work before the engine
            await pilot.press(*"timeout")
            await pilot.pause()
            assert not [r for r in app.screen.query_one(ResultList).rows if not r.local]
            opener.release.set()
            await opened(pilot)
            hits = [r for r in app.screen.query_one(ResultList).rows if not r.local]
            assert hits  # the query typed while opening ran against the opened client
            assert "docs" in status_text(app)
            assert app.project_id == "acme-payments-demo"
    finally:
        opener.release.set()
        app.clients.close()
    assert opener.opened[0].service.closed  # the slot closed the client it opened


async def test_quit_while_opening_closes_the_late_client(indexed_demo: Path) -> None:
    opener = HeldOpener()
    app = make_app(None, opener=opener, root=indexed_demo)
    async with app.run_test(size=(100, 30)) as pilot:
        assert await asyncio.to_thread(opener.started.wait, 10)
        await pilot.press(*"retry")
        await pilot.press("ctrl+q")
    opener.release.set()
    app.clients.close()  # joins the opener, which closes what it opened for a closed slot
    assert len(opener.opened) == 1
    assert opener.opened[0].service.closed
    assert app.clients.current() is None


def test_a_waiter_is_released_by_shut_and_by_cancellation() -> None:
    def never(root: Path | None) -> Any:
        raise AssertionError("not opened in this test")

    slot = ClientSlot(None, never)
    cancelled = threading.Event()
    errors: list[str] = []

    def wait() -> None:
        try:
            slot.wait(cancelled.is_set)
        except Exception as err:
            errors.append(str(err))

    waiter = threading.Thread(target=wait)
    waiter.start()
    cancelled.set()
    waiter.join(5)
    assert errors == ["cancelled while the project was opening"]
    slot.shut()
    try:
        slot.wait()
    except Exception as err:
        errors.append(str(err))
    assert errors[-1] == "the palette is closing"


async def test_rebuild_shows_a_progress_bar_mounted_on_first_use(client: EmbeddedClient) -> None:
    app = make_app(client)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert not app.screen.query(ProgressBar)  # not part of the first paint
        from tui.app import IndexProgress

        app.post_message(IndexProgress(3, 10))
        await pilot.pause()
        bar = app.screen.query_one(ProgressBar)
        assert bar.display
        assert bar.progress == 3
        app.post_message(IndexProgress(0, None))
        await settle(pilot)
        assert not bar.display


def test_the_app_module_imports_no_engine_machinery() -> None:
    """First paint imports only Textual and the app: the engine is the opener's to import
    (``engine.basics.text``, pure text helpers on ``re``, tells a blank-like query from a real one;
    ``engine.agent_table``, plain tuples without imports, names the palette's ``chat:`` stops)."""
    code = "import sys, tui.app; print(sorted(m for m in sys.modules if m.startswith('engine')))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == (
        "['engine', 'engine.agent_table', 'engine.basics', 'engine.basics.text', 'engine.errors',"
        " 'engine.kinds', 'engine.types']"
    )
