"""No terminal, no palette; a borrowed ``/dev/tty`` when there is one; Ctrl+C is 130.

Each no-terminal form runs as a real process in a session of its own (``setsid``: no controlling
terminal, so ``/dev/tty`` cannot be opened) under a timeout: before, each spun at 100% CPU until
killed. The ``/dev/tty`` forms run in tmux, whose pane is the process's controlling terminal.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.demo.copy import copy_demo
from engine.embedded import EmbeddedClient

from .conftest import fixed_clock
from .test_tmux_e2e import ADE, exit_row, tmux, wait_for

__all__ = ["tmux"]

TIMEOUT_S = 30.0
"""A refusal takes well under a second; the bound only keeps a regression from hanging CI."""

FORMS = {
    "ade </dev/null": ([], subprocess.DEVNULL),
    "echo | ade": ([], b"\n"),
    "ade palette </dev/null": (["palette"], subprocess.DEVNULL),
    "ade palette --print --query x </dev/null": (["palette", "--print", "--query", "x"],
                                                 subprocess.DEVNULL),
    "ade palette --height 40% --print-command </dev/null": (
        ["palette", "--height", "40%", "--print-command"], subprocess.DEVNULL),
}  # fmt: skip


@pytest.mark.parametrize("form", FORMS)
def test_without_a_terminal_the_palette_refuses_at_once(form: str, tmp_path: Path) -> None:
    argv, stdin = FORMS[form]
    env = {**os.environ, "HOME": str(tmp_path), "ADE_DAEMON": "off",
           "ADE_RUNTIME_DIR": str(tmp_path / "run"), "ADE_CONFIG_DIR": str(tmp_path / "cfg")}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "tui.cli", *argv],
        **({"input": stdin} if isinstance(stdin, bytes) else {"stdin": stdin}),
        capture_output=True,
        cwd=tmp_path,
        env=env,
        start_new_session=True,  # setsid: no controlling terminal
        timeout=TIMEOUT_S,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert len(err.splitlines()) == 1, err
    assert "no terminal" in err
    assert "ade search" in err
    assert done.stdout == b""


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")


@pytest.fixture
def indexed(demo_project: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    copy_demo(demo_project, root)
    with EmbeddedClient.open(root, clock=fixed_clock, start_worker=False) as client:
        client.service.catch_up()
    return root


def _shell(tmux: Callable[..., str], tmp_path: Path) -> Callable[[], str]:
    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "sh",
         "env -u NO_COLOR TERM=xterm-256color bash --norc --noprofile")  # fmt: skip
    return lambda: tmux("capture-pane", "-p", "-t", "sh")


def _type(tmux: Callable[..., str], line: str) -> None:
    tmux("send-keys", "-t", "sh", "-l", line)
    tmux("send-keys", "-t", "sh", "Enter")


@needs_tmux
def test_piped_stdin_and_stderr_borrow_dev_tty_like_fzf(
    indexed: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    capture = _shell(tmux, tmp_path)
    env = f"ADE_NOW=2026-06-15T12:00:00Z ADE_RUNTIME_DIR={tmp_path / 'run'} ADE_CONFIG_DIR={tmp_path / 'cfg'}"
    command = f"{env} {ADE} palette --print --project {indexed} --no-watch --query retry"
    _type(tmux, f'x=$(echo | {command} 2>/dev/null); echo "rc=$? x=$x"')
    wait_for(capture, lambda s: "Chats (" in s and "esc close" in s)
    tmux("send-keys", "-t", "sh", "Enter")
    result = exit_row(wait_for(capture, lambda s: exit_row(s) is not None))
    assert result is not None
    assert result.startswith("rc=0 x=ade://")


@needs_tmux
def test_ctrl_c_in_plain_ade_exits_130(
    indexed: Path, tmp_path: Path, tmux: Callable[..., str]
) -> None:
    capture = _shell(tmux, tmp_path)
    env = f"ADE_NOW=2026-06-15T12:00:00Z ADE_RUNTIME_DIR={tmp_path / 'run'} ADE_CONFIG_DIR={tmp_path / 'cfg'}"
    _type(tmux, f'{env} {ADE} --project {indexed} --no-watch --no-daemon; echo "rc=$?"')
    wait_for(capture, lambda s: "kind: everything" in s and "esc close" in s)
    tmux("send-keys", "-t", "sh", "C-c")
    result = exit_row(wait_for(capture, lambda s: exit_row(s) is not None))
    assert result == "rc=130"
