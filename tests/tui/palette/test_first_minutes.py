"""What a new user meets in the first minutes, on the real demo
through a real EmbeddedClient (and on a fresh git repository without ``.ade/`` sessions)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.embedded import EmbeddedClient
from tests.conftest import git
from tui.logic.rows import PaletteRow
from tui.screens.palette import PaletteScreen
from tui.screens.scrollback import ScrollbackScreen
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, settle


def rows(app: Any) -> list[PaletteRow]:
    return list(app.screen.query_one(ResultList).rows)


async def test_ctrl_c_cancels_at_once_even_with_the_initial_query_selected(
    client: EmbeddedClient,
) -> None:
    app = make_app(client, initial_query="retry", print_mode=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.interrupted  # `ade palette --print` turns this into exit 130
    assert app.return_value is None


def badge(app: Any) -> str:
    return str(app.screen.query_one("#query").border_title)


def count(app: Any) -> str:
    return str(app.screen.query_one("#query").border_subtitle)


def current(app: Any) -> PaletteRow | None:
    return app.screen.query_one(ResultList).current_row()


@pytest.fixture
def plain_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedClient]:
    """A git repository with files and commits that say "preview", and no ``.ade/`` at all."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # no agent transcripts of this machine
    root = tmp_path / "site"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for n in range(3):
        (root / f"page{n}.md").write_text(f"# Page {n}\n\nThe preview pane of page {n}.\n")
        git(root, "add", ".")
        git(root, "commit", "-q", "-m", f"preview page {n}")
    opened = EmbeddedClient.open(root, clock=fixed_clock, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


async def test_a_repository_without_sessions_opens_on_its_hits_with_a_count_line(
    plain_repo: EmbeddedClient,
) -> None:
    app = make_app(plain_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert badge(app) == "kind: everything"
        await pilot.press(*"preview")
        await settle(pilot)
        listed = rows(app)
        assert listed[0].title == "view: toggle preview"  # a word-start match of its name
        kinds = {row.kind for row in listed if not row.local and row.kind != "header"}
        assert {"commit", "file"} <= kinds  # nothing hides behind Tab
        docs = plain_repo.index_status().doc_count
        assert count(app).startswith(f"{app.screen.hits.total} of {docs:,}")
        await pilot.press("tab")  # sessions: nothing here, and the line says where the hits are
        await settle(pilot)
        assert badge(app) == "kind: sessions"
        assert not [row for row in rows(app) if not row.local]
        assert count(app).startswith(f"0 of {docs:,} · also ")
        assert "commit" in count(app)
        assert "file" in count(app)
        assert count(app).endswith("(tab)")


async def test_commands_lead_only_on_a_word_start_match_of_their_name(
    plain_repo: EmbeddedClient,
) -> None:
    app = make_app(plain_repo)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for typed, unwanted in (("the", "app: quit"), ("and", "help: keys")):
            await pilot.press(*typed)
            await settle(pilot)
            row = current(app)
            assert row is None or row.title != unwanted  # found by its description only
            assert unwanted not in [r.title for r in rows(app)]
            await pilot.press("enter")  # opens the top hit, if any, but never quits
            await settle(pilot)
            assert app.is_running
            if not isinstance(app.screen, PaletteScreen):
                await pilot.press("escape")
                await settle(pilot)
            for _ in typed:
                await pilot.press("backspace")
        await pilot.press(*"quit")
        await settle(pilot)
        row = current(app)
        assert row is not None
        assert row.title == "app: quit"


async def test_typed_words_rank_commands_by_the_same_rule_as_other_rows(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"out")  # mid-word in `connect_timeout`: the chat follows the hits
        await settle(pilot)
        listed = rows(app)
        weak = [i for i, row in enumerate(listed) if row.local and not row.leads]
        first_hit = next(i for i, row in enumerate(listed) if not row.local)
        assert weak
        assert min(weak) > first_hit  # a fuzzy local match follows what the index found
        for word in ("uit", "ndex"):  # mid-word in `app: quit`, `index: …`: never offered
            await pilot.press(*f" {word}")
            await settle(pilot)
            assert not [row for row in rows(app) if row.kind == "command"]


def sessions_newest_first(client: EmbeddedClient, kind: str) -> list[str]:
    listed = [s for s in client.list_sessions(include_archived=False) if s.kind == kind]
    return [s.id for s in sorted(listed, key=lambda s: (-s.updated_at.timestamp(), s.title))]


async def test_browse_terminals_lists_every_session_once_newest_first(
    client: EmbeddedClient,
) -> None:
    terminals = sessions_newest_first(client, "terminal")
    assert len(terminals) == 7
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"kind:terminal")
        await settle(pilot)
        assert badge(app) == "kind: terminal"
        assert [row.session_id for row in rows(app)] == terminals  # the 2 MB log crowds none out
        assert count(app) == "7 sessions"
        for _ in "kind:terminal":
            await pilot.press("backspace")
        await pilot.press("tab")  # sessions: chats and terminals, newest activity first
        await settle(pilot)
        listed = rows(app)
        assert {row.kind for row in listed} == {"chat", "terminal"}
        stamps = [row.updated_at_ms or 0 for row in listed]
        assert stamps == sorted(stamps, reverse=True)
        assert len({row.session_id for row in listed}) == len(listed)
        await pilot.press("tab", "tab")  # chat, then terminal: terminals, not chats
        await settle(pilot)
        assert badge(app) == "kind: terminal"
        assert [row.session_id for row in rows(app)] == terminals
        await pilot.press("enter")  # a listed terminal opens in its scrollback
        await settle(pilot)
        assert isinstance(app.screen, ScrollbackScreen)


async def test_one_kind_rule_for_stop_typed_kind_local_rows_and_badge(
    client: EmbeddedClient,
) -> None:
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("tab", "tab", "tab")  # sessions → chat → terminal
        await pilot.press(*"timeout")
        await settle(pilot)
        assert badge(app) == "kind: terminal"
        assert {row.kind for row in rows(app) if row.kind != "header"} == {"terminal"}
        await pilot.press("shift+tab")  # the chat stop, with kind:terminal typed
        await pilot.press(*" kind:terminal")
        await settle(pilot)
        assert badge(app) == "kind: terminal"
        assert "[terminal]" in str(app.screen.query_one("#status").render())
        assert {row.kind for row in rows(app) if row.kind != "header"} == {"terminal"}
        await pilot.press("shift+tab")  # sessions, with kind:file typed instead
        for _ in "terminal":
            await pilot.press("backspace")
        await pilot.press(*"file")
        await settle(pilot)
        assert badge(app) == "kind: file"
        assert {row.kind for row in rows(app) if row.kind != "header"} == {"file"}


async def test_lane_labels_read_the_same_on_local_and_search_rows(client: EmbeddedClient) -> None:
    names = {lane.name for lane in client.list_lanes()}
    app = make_app(client)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"retry")
        await settle(pilot)
        listed = rows(app)
        local_lanes = {row.lane for row in listed if row.local and row.lane}
        hit_lanes = {row.lane for row in listed if not row.local and row.lane}
        assert local_lanes
        assert hit_lanes
        assert local_lanes | hit_lanes <= names  # `demo`, never `primary` on one and not the other
        lane_rows = [row.key for row in listed if row.kind == "lane"]
        assert lane_rows == ["lane:abc-123-retry"]  # the local lane row, not again as a hit
