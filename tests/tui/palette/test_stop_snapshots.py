"""The browse of every stop as a snapshot (snapshots/test_stop_snapshots/).

Each stop of the switcher with an empty query, on the seeded demo (the session's one indexed copy)
at 100x24 and the demo's clock. ``commit`` and ``linear`` are in test_paging.py already; of the
``chat: <agent>`` stops only those of agents the demo has chats of (the others show one "nothing to
show" line, asserted in test_paging.py). On main the ``chat: claude`` and ``chat: codex`` browses
showed that line too: the demo's chats are .ade chats, whose listing rows left their agent out. Regenerate with ``pytest --snapshot-update``.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.embedded import EmbeddedClient
from tui.logic.kinds import KIND_MODES

from .conftest import make_app, opened, settle

ELSEWHERE = {"commit", "linear", "lane"}
"""Stops not snapshotted here: test_paging.py snapshots ``commit`` and ``linear``; a lane row shows
its worktree's absolute path (the session's tmp copy of the demo, a new folder each run), so the
``lane`` browse is asserted by test_paging.py's ``test_an_empty_query_browses_every_stop``."""

DEMO_AGENTS = {"chat: claude", "chat: codex"}
"""The agents the demo has chats of (engine/demo/chat_scripts.py)."""

STOPS = [
    mode.label
    for mode in KIND_MODES
    if mode.label not in ELSEWHERE and (mode.tool is None or mode.label in DEMO_AGENTS)
]


def _browse(label: str) -> Any:
    """Tab (or Shift+Tab, whichever is shorter) to ``label``'s stop with the query left empty."""
    index = next(i for i, mode in enumerate(KIND_MODES) if mode.label == label)
    back = len(KIND_MODES) - index

    async def run(pilot: Any) -> None:
        await opened(pilot)
        keys = ["tab"] * index if index <= back else ["shift+tab"] * back
        for key in keys:
            await pilot.press(key)
        await settle(pilot)

    return run


def test_the_stops_cover_every_demo_kind() -> None:
    assert {"everything", "sessions", "chat", "terminal", "pr", "branch", "file",
            "artifact", "chat: claude", "chat: codex"} <= set(STOPS)  # fmt: skip


@pytest.mark.parametrize("stop", STOPS)
def test_snapshot_browse_of_each_stop(
    snap_compare: Any, client: EmbeddedClient, stop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("LINEAR_API_KEY", "ADE_LINEAR_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    app = make_app(client)
    assert snap_compare(app, terminal_size=(100, 24), run_before=_browse(stop))
