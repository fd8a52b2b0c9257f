"""The palette's size under ``$(…)``: stdout is a pipe, the terminal is on stdin/stderr or
``/dev/tty`` (shell integration). A real pseudo-terminal of an unusual size, a real pipe for stdout."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios

PROBE = (
    "import shutil; from tui.terminal_size import terminal_size; "
    "print(shutil.get_terminal_size(), terminal_size())"
)


def _pty_of_size(columns: int, lines: int) -> tuple[int, int]:
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    return leader, follower


def test_size_comes_from_the_terminal_when_stdout_is_a_pipe() -> None:
    leader, follower = _pty_of_size(140, 40)
    env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
    try:
        out = subprocess.run(
            [sys.executable, "-c", PROBE], stdin=follower, stderr=follower,
            stdout=subprocess.PIPE, env=env, text=True, check=True, timeout=60,
        ).stdout  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    shutil_size, ours = out.rsplit(" (", 1)
    assert "columns=80, lines=24" in shutil_size  # what Textual asked before: the fallback
    assert ours.strip() == "140, 40)"


def test_size_comes_from_dev_tty_when_no_stream_is_a_terminal() -> None:
    leader, follower = _pty_of_size(120, 36)

    def controlling_terminal() -> None:
        os.setsid()
        fcntl.ioctl(follower, termios.TIOCSCTTY, 0)  # the pty becomes /dev/tty of the child

    env = {k: v for k, v in os.environ.items() if k not in {"COLUMNS", "LINES"}}
    try:
        out = subprocess.run(
            [sys.executable, "-c", PROBE], stdin=subprocess.DEVNULL, capture_output=True,
            env=env, text=True, check=True, timeout=60,
            preexec_fn=controlling_terminal, pass_fds=(follower,),
        ).stdout  # fmt: skip
    finally:
        os.close(follower)
        os.close(leader)
    assert out.strip().endswith("(120, 36)")
