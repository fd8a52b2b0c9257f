"""SVG snapshots of the palette on the demo project (stored in top-level ``snapshots/``).

Deterministic: fixed terminal size, pinned theme, caret blink off, the demo's clock, no watcher,
``NO_COLOR``/``TEXTUAL_THEME`` removed, and every worker awaited before the screenshot.
``snap_compare`` runs its own event loop, so these are sync test functions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from engine.embedded import EmbeddedClient
from engine.links.deeplink import build_link
from tui.logic.rows import PaletteRow
from tui.widgets.result_list import ResultList

from .conftest import fixed_clock, make_app, settle

PROJECT = "acme-payments-demo"

Before = Callable[[Any], Awaitable[None]]


def typing(text: str, *keys: str, pick: str | None = None) -> Before:
    """Type ``text``, press ``keys``; with ``pick``, highlight the first hit of that kind and
    press Enter."""

    async def run(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press(*text)
        await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        if pick is not None:
            listing = pilot.app.screen.query_one(ResultList)
            index = next(i for i, r in enumerate(listing.rows) if r.kind == pick and not r.local)
            listing.highlighted = index
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)

    return run


def opening(kind: str, target: str, **extra: Any) -> Before:
    """Activate a row pointing at ``ade://kind/target`` (delegated kinds the demo index lacks)."""

    async def run(pilot: Any) -> None:
        await settle(pilot)
        link = build_link(kind, target, project_id=PROJECT, **extra)
        row = PaletteRow(key="x", kind=kind, title=target, deep_link=link)  # type: ignore[arg-type]
        listing = pilot.app.screen.query_one(ResultList)
        listing.show_rows([row], fixed_clock(), keep=False)
        await pilot.press("enter")
        await settle(pilot)

    return run


def test_empty_palette_80x24(snap_compare: Any, client: EmbeddedClient) -> None:
    assert snap_compare(make_app(client), terminal_size=(80, 24), run_before=typing(""))


def test_local_and_search_results_80x24(snap_compare: Any, client: EmbeddedClient) -> None:
    assert snap_compare(make_app(client), terminal_size=(80, 24), run_before=typing("timeout"))


def test_wide_with_preview_200x60(snap_compare: Any, client: EmbeddedClient) -> None:
    app = make_app(client, preview=None)  # wide enough: the preview opens by itself
    assert snap_compare(app, terminal_size=(200, 60), run_before=typing("timeout", "down"))


def test_kind_filtered_everything(snap_compare: Any, client: EmbeddedClient) -> None:
    # The palette starts in the everything stop (never an empty-looking first screen): no Tab needed.
    assert snap_compare(make_app(client), terminal_size=(120, 40), run_before=typing("retry"))


def test_sessions_stop_says_which_kinds_have_hits(
    snap_compare: Any, client: EmbeddedClient
) -> None:
    assert snap_compare(
        make_app(client), terminal_size=(120, 40), run_before=typing("retry", "tab")
    )


def test_preview_of_a_terminal_hit(snap_compare: Any, client: EmbeddedClient) -> None:
    async def run(pilot: Any) -> None:
        await typing("timeout")(pilot)
        listing = pilot.app.screen.query_one(ResultList)
        listing.highlighted = next(i for i, r in enumerate(listing.rows) if r.kind == "terminal")
        await settle(pilot)

    app = make_app(client, preview=True)
    assert snap_compare(app, terminal_size=(160, 40), run_before=run)


def test_inline_error(snap_compare: Any, client: EmbeddedClient) -> None:
    before = typing("retry since:7x")
    assert snap_compare(make_app(client), terminal_size=(80, 24), run_before=before)


def test_help_screen(snap_compare: Any, client: EmbeddedClient) -> None:
    assert snap_compare(make_app(client), terminal_size=(100, 32), run_before=typing("", "f1"))


def test_scrollback_at_offset(snap_compare: Any, client: EmbeddedClient) -> None:
    before = typing("timeout", pick="terminal")
    assert snap_compare(make_app(client), terminal_size=(120, 32), run_before=before)


def test_chat_transcript_at_message(snap_compare: Any, client: EmbeddedClient) -> None:
    before = typing("jitter", pick="chat")
    assert snap_compare(make_app(client), terminal_size=(120, 32), run_before=before)


@pytest.mark.parametrize(
    ("kind", "query"),
    [("pr", "retry"), ("commit", "retry"), ("branch", "retry")],
)
def test_detail_screen_from_search(
    snap_compare: Any, client: EmbeddedClient, kind: str, query: str
) -> None:
    steps = {"pr": ["tab", "tab", "tab", "tab"], "commit": ["tab"] * 5, "branch": ["tab"] * 6}
    before = typing(query, *steps[kind], pick=kind)
    assert snap_compare(make_app(client), terminal_size=(100, 30), run_before=before)


@pytest.mark.parametrize(
    ("kind", "target", "extra"),
    [
        ("lane", "primary", {}),
        ("file", "payments_api/gateway.py", {"line": 20, "lane": "primary"}),
        ("artifact", "art-retry-report", {}),
        ("linear", "ABC-123", {}),
    ],
    ids=["lane", "file", "artifact", "linear"],
)
def test_detail_screen_delegated(
    snap_compare: Any, client: EmbeddedClient, kind: str, target: str, extra: dict[str, Any]
) -> None:
    before = opening(kind, target, **extra)
    assert snap_compare(make_app(client), terminal_size=(100, 30), run_before=before)
