"""End to end: the real ``ade palette`` in tmux — type, see a terminal hit, Enter, read the
marked scrollback line off the screen. Polling capture-pane with a deadline is waiting on an
external process, not sleeping on our own background work."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient

from .conftest import fixed_clock

ADE = Path(sys.executable).with_name("ade")
DEADLINE_S = 20.0
"""Generous for a shared 2-core box; a healthy run takes about a second."""

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Callable[..., str]]:
    socket = f"ade-e2e-{uuid.uuid4().hex[:8]}"

    def run(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], check=True, capture_output=True, text=True
        ).stdout

    yield run
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, check=False)


def wait_for(capture: Callable[[], str], predicate: Callable[[str], bool]) -> str:
    deadline = time.monotonic() + DEADLINE_S
    screen = ""
    while time.monotonic() < deadline:
        screen = capture()
        if predicate(screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"timed out; screen was:\n{screen}")


EXIT_ROW = re.compile(r"rc=\d+(?: |$)")
"""The row the shell's ``echo "rc=$? ..."`` printed: a status number, not the echoed command
line wrapped so that a row starts with ``rc=$?"`` (it does at some temporary paths' lengths)."""


def exit_row(screen: str) -> str | None:
    """The first row the command's ``echo "rc=$?..."`` printed, or None before it ran."""
    return next((row for row in screen.splitlines() if EXIT_ROW.match(row)), None)


def test_palette_in_tmux_jumps_to_the_scrollback_line(
    demo_project: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    with EmbeddedClient.open(root, clock=fixed_clock, start_worker=False) as client:
        client.service.catch_up()
    env = (
        f"env -u NO_COLOR TERM=xterm-256color ADE_NOW=2026-06-15T12:00:00Z "
        f"ADE_RUNTIME_DIR={tmp_path / 'run'} ADE_CONFIG_DIR={tmp_path / 'cfg'}"
    )
    command = f"{env} {ADE} palette --project {root} --no-watch"
    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "e2e", command)

    def capture() -> str:
        return tmux("capture-pane", "-p", "-t", "e2e")

    wait_for(capture, lambda s: "kind: everything" in s)
    tmux("send-keys", "-t", "e2e", "-l", "healthz")
    for _ in range(3):  # everything → sessions → chat → terminal
        tmux("send-keys", "-t", "e2e", "Tab")
    screen = wait_for(capture, lambda s: "kind: terminal" in s and "Terminals (" in s)
    assert "$ uvicorn" in screen
    tmux("send-keys", "-t", "e2e", "Enter")
    screen = wait_for(capture, lambda s: "▶" in s and "n/N matches" in s)
    marked = next(line for line in screen.splitlines() if "▶" in line)
    assert "healthz" in marked
    tmux("send-keys", "-t", "e2e", "Escape")
    screen = wait_for(capture, lambda s: "kind: terminal" in s)
    assert "healthz" in screen  # the query survived the round trip


def _palette_in_command_substitution(
    tmux: Callable[..., str], root: Path, tmp_path: Path, columns: int, lines: int
) -> Callable[[], str]:
    """``x=$(ade palette --print …)`` typed into a bash in a ``columns``x``lines`` tmux pane;
    returns the pane's capture."""
    tmux("new-session", "-d", "-x", str(columns), "-y", str(lines), "-s", "sh",
         "env -u NO_COLOR TERM=xterm-256color bash --norc --noprofile")  # fmt: skip
    env = (
        f"ADE_NOW=2026-06-15T12:00:00Z ADE_RUNTIME_DIR={tmp_path / 'run'} "
        f"ADE_CONFIG_DIR={tmp_path / 'cfg'}"
    )
    command = f"{env} {ADE} palette --print --project {root} --no-watch --query retry"
    tmux("send-keys", "-t", "sh", "-l", f'x=$({command}); echo "rc=$? x=$x"')
    tmux("send-keys", "-t", "sh", "Enter")
    return lambda: tmux("capture-pane", "-p", "-t", "sh")


@pytest.mark.parametrize("key", ["C-c", "Enter"])
def test_print_inside_command_substitution_fills_the_pane(
    demo_project: Path, tmp_path: Path, tmux: Callable[..., str], key: str
) -> None:
    # stdout is a pipe inside $(…): the size must come from the terminal, not the 80x24 fallback.
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    with EmbeddedClient.open(root, clock=fixed_clock, start_worker=False) as client:
        client.service.catch_up()
    capture = _palette_in_command_substitution(tmux, root, tmp_path, 140, 40)
    screen = wait_for(capture, lambda s: "docs" in s and "Chats (" in s)
    rows = screen.split("\n")
    footers = [i for i, row in enumerate(rows) if "esc close" in row]
    assert footers == [39], screen  # one footer, on the pane's last line: no stale 80x24 frame
    assert "docs" in rows[39]
    assert len(rows[39].rstrip()) > 120
    assert rows[0].startswith("╭")
    assert len(rows[0].rstrip()) == 140
    tmux("send-keys", "-t", "sh", key)
    result = exit_row(wait_for(capture, lambda s: exit_row(s) is not None))
    assert result is not None
    if key == "C-c":
        assert result == "rc=130 x="  # cancelled like fzf, no "Do you want to quit?"
    else:
        assert result.startswith("rc=0 x=ade://")


def test_no_color_sends_no_colour_code_to_a_real_terminal(
    demo_project: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    """``NO_COLOR`` read off tmux with ``capture-pane -e``: attributes only, no greys."""
    import re

    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    with EmbeddedClient.open(root, clock=fixed_clock, start_worker=False) as client:
        client.service.catch_up()
    env = (
        f"env NO_COLOR=1 TERM=xterm-256color ADE_NOW=2026-06-15T12:00:00Z "
        f"ADE_RUNTIME_DIR={tmp_path / 'run'} ADE_CONFIG_DIR={tmp_path / 'cfg'}"
    )
    command = f"{env} {ADE} palette --project {root} --no-watch"
    tmux("new-session", "-d", "-x", "100", "-y", "30", "-s", "nc", command)

    def capture() -> str:
        return tmux("capture-pane", "-p", "-e", "-t", "nc")

    tmux("send-keys", "-t", "nc", "-l", "timeout")
    screen = wait_for(capture, lambda s: "timeout" in s.lower() and "\x1b[7m" in s)
    codes = [p for sgr in re.findall(r"\x1b\[([0-9;:]*)m", screen) for p in sgr.split(";")]
    assert not [p for p in codes if p in {"38", "48"} or re.fullmatch(r"(3|4|9|10)[0-7]", p)]
    assert "7" in codes  # the cursor row: reverse video
    assert "4" in codes  # the matches: underline
