"""Fixtures of the palette tests: an indexed copy of the demo, real clients, snapshot location.

Snapshots go to the top-level ``snapshots/`` folder. The plugin has no setting for that, so its
``SVGImageExtension`` is rebound here. The directory is spelled *through* this test folder
(``tests/tui/palette/../../../snapshots/<module>``) because syrupy decides which snapshot files
belong to the selected tests by substring-matching the test folder in the snapshot path; a path
that does not contain it makes ``pytest one_test.py::x --snapshot-update`` delete its siblings.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import pytest_textual_snapshot
from textual.worker import WorkerCancelled, WorkerFailed

from engine.demo import DEMO_NOW
from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from tui.app import PaletteApp

REPO = Path(__file__).resolve().parents[3]
"""Checkout root: three levels above tests/tui/palette."""


class TopLevelSVGExtension(pytest_textual_snapshot.SVGImageExtension):
    """Store each snapshot as ``snapshots/<test module>/<test name>.svg``."""

    @classmethod
    def dirname(cls, *, test_location: Any) -> str:
        test_dir = Path(test_location.filepath).parent
        ups = [".."] * len(test_dir.relative_to(REPO).parts)
        return str(test_dir.joinpath(*ups, "snapshots", test_location.basename))


pytest_textual_snapshot.SVGImageExtension = TopLevelSVGExtension  # type: ignore[misc]


@pytest.fixture(autouse=True)
def _deterministic_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Colour and theme must not leak in from the developer's shell, nor a daemon or a project
    registry from the user's own folders (a palette would route through that daemon)."""
    for name in ("NO_COLOR", "TEXTUAL_THEME", "ADE_NOW", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ADE_RUNTIME_DIR", str(tmp_path / "no-daemon"))
    monkeypatch.setenv("ADE_CONFIG_DIR", str(tmp_path / "config"))


def fixed_clock() -> Any:
    return DEMO_NOW


@pytest.fixture(scope="session")
def indexed_demo(demo_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo with its index built once (tests only read it)."""
    root = tmp_path_factory.mktemp("palette") / "demo"
    copy_demo(demo_project, root)
    pin_file_times(root)
    client = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
    try:
        client.service.catch_up()
    finally:
        client.close()
    return root


def pin_file_times(root: Path) -> None:
    """Give the work-tree files one fixed mtime, a day before the demo's clock: file hits are
    ordered by mtime, and a copy's mtimes are its copying order (snapshots must not depend on
    it)."""
    stamp = (DEMO_NOW - timedelta(days=1)).timestamp()
    for path in root.rglob("*"):
        parts = path.relative_to(root).parts
        if path.is_file() and not {".git", ".ade"} & set(parts):
            os.utime(path, (stamp, stamp))


@pytest.fixture
def client(indexed_demo: Path) -> Iterator[EmbeddedClient]:
    """A real in-process client on the indexed demo: no watcher, no backfill, fixed clock."""
    opened = EmbeddedClient.open(indexed_demo, clock=fixed_clock, start_worker=False)
    yield opened
    opened.close()


async def opened(pilot: Any) -> None:
    """Wait until the app's client has been opened (on the slot's own thread), then settle."""
    assert await asyncio.to_thread(pilot.app.clients.ready.wait, 30), "the project never opened"
    await settle(pilot)


async def settle(pilot: Any) -> None:
    """Wait for every worker (cancelled ones included) and let posted messages be handled."""
    for _ in range(3):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await pilot.pause()


def make_app(client: Any, **options: Any) -> PaletteApp:
    """The palette as tests run it: no debounce wait, no caret blink, the demo's clock."""
    options.setdefault("debounce_seconds", 0.0)
    options.setdefault("cursor_blink", False)
    options.setdefault("preview", False)
    return PaletteApp(client, clock=fixed_clock, **options)
