"""Resuming a chat in its own tool (docs/agents.md) — `ade resume` and Ctrl+R in the palette — with
stand-in executables on PATH that record their argv and working folder; and the palette showing
each hit's agent and narrowing to one agent with the kind switcher."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import no_daemon_flag
from textual.worker import WorkerCancelled, WorkerFailed

from engine.embedded import EmbeddedClient
from tui.app import PaletteApp
from tui.cli import main
from tui.logic.kinds import KIND_MODES
from tui.screens.chat import ChatMessage, ChatScreen
from tui.widgets.result_list import ResultList, row_prompt

from .agent_fixtures import COPILOT_SID, GEMINI_SID, GEMINI_WT_SID
from .test_agent_sources import agent_env
from .test_external_sources import homes

__all__ = ["agent_env", "homes"]

RECORDER = '#!/bin/sh\nprintf "%s\\n" "$PWD" "$@" > "$ADE_TEST_RECORD/${0##*/}"\n'


@pytest.fixture
def stand_ins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding git and recording stand-ins of every tool but opencode."""
    bin_dir, record = tmp_path / "bin", tmp_path / "record"
    bin_dir.mkdir()
    record.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    for tool in ("claude", "codex", "gemini", "copilot"):
        (bin_dir / tool).write_text(RECORDER)
        (bin_dir / tool).chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("ADE_TEST_RECORD", str(record))
    return record


def link_for(capsys: pytest.CaptureFixture[str], repo: Path, query: str) -> str:
    capsys.readouterr()
    assert main(["search", *no_daemon_flag(), "--json", "--project", str(repo), query]) == 0
    items = [i for i in json.loads(capsys.readouterr().out)["items"] if i["kind"] == "chat"]
    assert len({i["sessionId"] for i in items}) == 1, items
    return str(items[0]["deepLink"])


@pytest.mark.usefixtures("cli_path")
def test_resume_runs_each_tool_by_id_in_the_sessions_folder(
    repo: Path, tmp_path: Path, homes: dict[str, str], agent_env: dict[str, str],
    stand_ins: Path, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    worktree = tmp_path / "proj-wt" / "feature-x"
    (repo / "src").mkdir()  # Gemini's and Codex's sessions were started here
    cases = {
        "zorblax": ("claude", ["--resume", "abc-123"], worktree),
        "splunge pass": ("codex", ["resume", "0199-abc"], repo / "src"),
        "zizzle built": ("gemini", ["--resume", GEMINI_SID], repo / "src"),
        "kumquatprofile": ("copilot", ["--resume", COPILOT_SID], worktree),
    }
    for query, (tool, args, folder) in cases.items():
        link = link_for(capsys, repo, query)
        assert main(["resume", "--print", "--project", str(repo), link]) == 0
        printed = capsys.readouterr().out.strip()
        assert printed == f"cd {folder} && {tool} {' '.join(args)}", query
        assert main(["resume", "--project", str(repo), link]) == 0
        recorded = (stand_ins / tool).read_text().splitlines()
        assert recorded == [str(folder), *args], query


@pytest.mark.usefixtures("cli_path")
def test_resume_refuses_what_cannot_resume_in_one_line(
    repo: Path, agent_env: dict[str, str], stand_ins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = link_for(capsys, repo, "wombatreply")  # opencode: no stand-in on PATH
    assert main(["resume", "--print", "--project", str(repo), link]) == 0
    assert capsys.readouterr().out.strip() == f"cd {repo} && opencode --session ses_main"
    assert main(["resume", "--project", str(repo), link]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["ade resume: opencode is not installed (no 'opencode' on PATH)"]
    aider = link_for(capsys, repo, "marmot_retries")
    assert main(["resume", "--project", str(repo), aider]) == 2
    assert "aider cannot resume a session by id" in capsys.readouterr().err
    assert main(["resume", "--project", str(repo), "ade://pr/7"]) == 2
    assert "only chat links resume" in capsys.readouterr().err
    assert not list(stand_ins.iterdir())  # nothing ran


@pytest.fixture
def client(repo: Path, agent_env: dict[str, str], tmp_path: Path,
           monkeypatch: pytest.MonkeyPatch) -> Iterator[EmbeddedClient]:  # fmt: skip
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


@pytest.mark.usefixtures("stand_ins")
async def test_palette_shows_the_agent_narrows_to_one_and_resumes_with_ctrl_r(
    client: EmbeddedClient, repo: Path
) -> None:
    app = PaletteApp(client, debounce_seconds=0.0, cursor_blink=False, preview=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"applied edit")  # aider's own output in both lanes, in no title
        await settle(pilot)
        listing = app.screen.query_one(ResultList)
        hits = [r for r in listing.rows if not r.local and r.kind == "chat"]
        assert hits
        assert all("aider" in str(row_prompt(r, app.now())) for r in hits)
        gemini_stop = next(i for i, m in enumerate(KIND_MODES) if m.tool == "gemini")
        for _ in range(gemini_stop):
            await pilot.press("tab")
        await settle(pilot)
        assert app.screen.query_one("#query").border_title == "kind: chat: gemini"
        assert not [r for r in listing.rows if not r.local and r.kind == "chat"]
        for _ in range(len("applied edit")):
            await pilot.press("backspace")
        await pilot.press("e")  # every title has an e: only Gemini's chats in this stop
        await settle(pilot)
        local = {r.session_id for r in listing.rows if r.local}
        assert local == {f"gemini-{GEMINI_SID}", f"gemini-{GEMINI_WT_SID}"}
        for _ in range(len("e")):
            await pilot.press("backspace")
        await pilot.press(*"built ok")  # the Gemini tool result
        await settle(pilot)
        hits = [r for r in listing.rows if not r.local and r.kind == "chat"]
        assert {r.session_id for r in hits} == {f"gemini-{GEMINI_SID}"}
        listing.highlighted = listing.rows.index(hits[0])
        await pilot.press("enter")  # opens the transcript at that tool result
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ChatScreen)
        target = screen.query(ChatMessage).filter(".-target")
        assert len(target) == 1
        assert "zizzle built ok" in str(target.first().render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one(ResultList).current_row() == hits[0]
        await pilot.press("ctrl+r")
        await settle(pilot)
    plan = app.resume_plan
    assert plan is not None
    assert (plan.argv, plan.cwd) == (("gemini", "--resume", GEMINI_SID), repo)
    assert os.fspath(plan.cwd) == str(repo)  # repo/src does not exist here: the lane's folder


@pytest.mark.usefixtures("stand_ins")
async def test_ctrl_r_on_a_chat_whose_tool_is_missing_says_so_and_stays_open(
    client: EmbeddedClient,
) -> None:
    """The palette closed first and ``ade`` said so on the restored terminal."""
    app = PaletteApp(client, debounce_seconds=0.0, cursor_blink=False, preview=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press(*"wombatreply")  # opencode's chat: no stand-in on PATH
        await settle(pilot)
        listing = app.screen.query_one(ResultList)
        hit = next(r for r in listing.rows if not r.local and r.kind == "chat")
        listing.highlighted = listing.rows.index(hit)
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert app.is_running
        notes = [str(n.message) for n in app._notifications]
    assert app.resume_plan is None
    assert "opencode is not installed (no 'opencode' on PATH)" in notes


@pytest.mark.usefixtures("cli_path")
def test_a_resumed_tool_ended_by_ctrl_c_exits_130(
    repo: Path, tmp_path: Path, homes: dict[str, str], agent_env: dict[str, str], stand_ins: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The tool's death by SIGINT came back as Python's -2, so ``ade resume`` exited 254."""
    (tmp_path / "bin" / "claude").write_text("#!/bin/sh\nkill -INT $$\n")
    link = link_for(capsys, repo, "zorblax")
    assert main(["resume", "--project", str(repo), link]) == 130
