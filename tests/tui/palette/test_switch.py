"""``project: switch``: the registered projects plus the current one, fuzzy-filtered; choosing
one closes the old client, opens the chosen project and resets the query.

Two real demo copies (``copy_demo`` re-points their worktrees), a real registry file in a
private ``ADE_CONFIG_DIR`` (set by the autouse fixture), real embedded clients.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.color import Color

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient
from engine.rpc.paths import config_dir
from engine.rpc.registry import add_project, registry_path
from tui.screens.palette import PaletteScreen
from tui.screens.project_switch import ProjectSwitchScreen
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, opened, settle

RENAMED = "Zebracorn migration plan"
"""A chat title only the second project has."""


class Opener:
    """Opens real embedded clients (indexed on open) and remembers them, to check closing."""

    def __init__(self) -> None:
        self.opened: list[EmbeddedClient] = []
        self.closed: list[Path] = []

    def __call__(self, root: Path | None) -> Any:
        client = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
        client.service.catch_up()
        self.opened.append(client)
        original_close = client.close

        def close() -> None:
            self.closed.append(client.project.root)
            original_close()

        client.close = close  # type: ignore[method-assign]
        return client


@pytest.fixture
def two_projects(demo_project: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Demo copies ``alpha`` (the demo as is) and ``beta`` (own id, name, one renamed chat),
    both registered in the private registry."""
    alpha = copy_demo(demo_project, tmp_path / "alpha")
    beta = copy_demo(demo_project, tmp_path / "beta")
    (beta / ".ade" / "project.json").write_text(json.dumps({"id": "beta-demo", "name": "beta"}))
    meta_path = beta / ".ade" / "sessions" / "chat-release-notes.json"
    meta = json.loads(meta_path.read_text())
    meta["title"] = RENAMED
    meta_path.write_text(json.dumps(meta))
    registry = registry_path(config_dir())
    add_project(registry, alpha)
    add_project(registry, beta)
    return alpha.resolve(), beta.resolve()


def titles(app: Any) -> list[str]:
    return [row.title for row in app.screen.query_one(ResultList).rows]


async def test_switch_lists_filters_and_reopens(two_projects: tuple[Path, Path]) -> None:
    alpha, beta = two_projects
    opener = Opener()
    app = make_app(None, opener=opener, root=alpha)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press(*"retry")
            await opened(pilot)
            assert RENAMED not in titles(app)
            await pilot.press(*["backspace"] * 5, *"project: switch", "enter")
            await pilot.pause()
            picker = app.screen
            assert isinstance(picker, ProjectSwitchScreen)
            listed = titles(app)
            assert listed == ["payments-api  (current)", "beta"]  # alpha is not listed twice
            await pilot.press(*"bta")  # fuzzy: the characters in order
            await pilot.pause()
            assert titles(app) == ["beta"]
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, PaletteScreen)
            await opened(pilot)
            client = app.clients.current()
            assert client is not None
            assert client.project.root == beta
            assert opener.closed == [alpha]  # the old client was closed
            assert app.screen.query_one("#query").value == ""  # the query was reset
            assert app.project_id == "beta-demo"
            assert RENAMED in titles(app)  # beta's chats are the local items now
            await pilot.press(*"zebracorn")
            await settle(pilot)
            assert titles(app)[0] == RENAMED
    finally:
        app.clients.close()
    assert opener.closed == [alpha, beta]


async def test_escape_keeps_the_current_project(two_projects: tuple[Path, Path]) -> None:
    alpha, _ = two_projects
    opener = Opener()
    app = make_app(None, opener=opener, root=alpha)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await opened(pilot)
            await app.run_action("switch_project")
            await pilot.pause()
            assert isinstance(app.screen, ProjectSwitchScreen)
            await pilot.press("escape")
            await pilot.pause()
            assert isinstance(app.screen, PaletteScreen)
            assert opener.closed == []
            assert len(opener.opened) == 1
    finally:
        app.clients.close()


async def test_a_missing_registered_project_fails_inline(
    two_projects: tuple[Path, Path], tmp_path: Path
) -> None:
    alpha, _ = two_projects
    app = make_app(None, opener=Opener(), root=alpha)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await opened(pilot)
            app.switch_project(tmp_path / "gone")
            await opened(pilot)
            assert app.clients.current() is None
            assert app.clients.error is not None
            assert "not found" in app.clients.error
            await settle(pilot)
            assert "not found" in str(app.screen.query_one("#status").render())
    finally:
        app.clients.close()


async def test_an_unregistered_path_says_how_to_register_it(
    two_projects: tuple[Path, Path], tmp_path: Path
) -> None:
    alpha, _ = two_projects
    app = make_app(None, opener=Opener(), root=alpha)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await opened(pilot)
            await app.run_action("switch_project")
            await pilot.pause()
            notes = app.screen.query_one("#switch-warnings")
            assert not notes.display
            await pilot.press(*"/srv/elsewhere")
            await pilot.pause()
            assert titles(app) == []
            assert notes.display
            assert str(notes.render()) == (
                "/srv/elsewhere is not a registered project: register it with"
                " `ade projects add /srv/elsewhere`, then switch"
            )
    finally:
        app.clients.close()


async def test_the_chosen_row_shows_while_the_input_has_the_focus(
    two_projects: tuple[Path, Path],
) -> None:
    alpha, _ = two_projects
    app = make_app(None, opener=Opener(), root=alpha)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await opened(pilot)
            await app.run_action("switch_project")
            await pilot.pause()
            results = app.screen.query_one(ResultList)
            assert app.screen.query_one("#switch-query").has_focus
            assert results.highlighted == 0

            def background(y: int) -> set[Any]:
                return {seg.style.bgcolor for seg in results.render_line(y) if seg.style}

            lines = [results.render_line(y).text for y in range(results.size.height)]
            second = next(y for y, text in enumerate(lines) if "beta" in text)
            assert "(current)" in lines[0]
            assert background(0) != background(second)
            # Full strength, as in the palette, not OptionList's faint "blurred" tint.
            cursor = Color.parse(app.get_css_variables()["block-cursor-background"])
            assert {Color.from_rich_color(c).hex for c in background(0) if c} == {cursor.hex}
    finally:
        app.clients.close()
