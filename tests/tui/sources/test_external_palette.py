"""The palette on a real project whose chats live in Claude Code's folder: the session is listed
with its tool's name, and a search hit opens its transcript at the exact message."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.worker import WorkerCancelled, WorkerFailed

from engine.embedded import EmbeddedClient
from engine.external.discover import claude_slug
from tui.app import PaletteApp
from tui.screens.chat import ChatMessage, ChatScreen
from tui.widgets.result_list import ResultList


def claude_line(uuid: str, kind: str, text: str, cwd: str) -> str:
    content = text if kind == "user" else [{"type": "text", "text": text}]
    return json.dumps({"type": kind, "uuid": uuid, "parentUuid": None, "cwd": cwd,
                       "sessionId": "s", "timestamp": "2026-06-01T10:00:00Z",
                       "message": {"role": kind, "content": content}})  # fmt: skip


@pytest.fixture
def client(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedClient]:
    worktree = tmp_path / "proj-wt" / "feature-x"
    folder = tmp_path / "claude" / "projects" / claude_slug(worktree)
    folder.mkdir(parents=True)
    lines = [claude_line("u1", "user", "the palette gizmo flickers", str(worktree))]
    lines += [claude_line(f"a{i}", "assistant", f"filler reply number {i}", str(worktree))
              for i in range(40)]  # fmt: skip
    lines.append(claude_line("u2", "assistant", "fixed the doohickey redraw", str(worktree)))
    lines += [
        claude_line(f"b{i}", "assistant", f"later reply {i}", str(worktree)) for i in range(5)
    ]
    (folder / "sess-1.jsonl").write_text("\n".join(lines) + "\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("ADE_RUNTIME_DIR", str(tmp_path / "no-daemon"))
    monkeypatch.setenv("ADE_CONFIG_DIR", str(tmp_path / "config"))
    opened = EmbeddedClient.open(repo, start_worker=False)
    opened.service.catch_up()
    yield opened
    opened.close()


async def settle(pilot: Any) -> None:
    for _ in range(3):
        for worker in list(pilot.app.workers):
            with contextlib.suppress(WorkerCancelled, WorkerFailed):
                await worker.wait()
        await pilot.pause()


async def test_claude_session_listed_with_its_tool_and_opened_at_the_message(
    client: EmbeddedClient,
) -> None:
    app = PaletteApp(client, debounce_seconds=0.0, cursor_blink=False, preview=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"gizmo")
        await settle(pilot)
        rows = app.screen.query_one(ResultList).rows
        local = [r for r in rows if r.local and r.session_id == "claude-sess-1"]
        assert [(r.kind, r.title, r.snippet) for r in local] == [
            ("chat", "the palette gizmo flickers", "claude")
        ]
        for _ in range(5):
            await pilot.press("backspace")
        await pilot.press(*"doohickey")
        await settle(pilot)
        listing = app.screen.query_one(ResultList)
        hit = next(r for r in listing.rows if not r.local and r.kind == "chat")
        assert hit.lane == "feature-x"
        listing.highlighted = listing.rows.index(hit)
        await pilot.press("enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        target = screen.query(ChatMessage).filter(".-target")
        assert len(target) == 1
        assert "fixed the doohickey redraw" in str(target.first().render())
