"""The inline palette's frames reach the terminal whole (tui.inline.whole_writes).

A write to a full pty that a signal interrupts returns short; under ``PYTHONUNBUFFERED=1`` the
stderr text stream drops the rest, and a frame that lost its closing cursor moves drew the next
frames lower (the flaky "17 rows" of test_inline_commands' tmux tests under load). This test
makes that happen on purpose: a child process writes large frames through the palette's inline
driver into a real pty the test drains, while an interval timer signals it every millisecond.
"""

from __future__ import annotations

import os
import pty
import subprocess
import sys

CHILD = r"""
import asyncio, signal, sys
from textual.app import App
from tui.inline import make_inline

async def main() -> None:
    app = App()
    make_inline(app, "9")
    driver = app.driver_class(app)  # a driver needs a running loop
    signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    try:
        for frame in range(int(sys.argv[1])):
            driver.write(f"<{frame}:" + "x" * 200_000 + ">")
            driver.flush()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    driver.write("END")
    driver.flush()

asyncio.run(main())
"""

FRAMES = 10


def test_frames_reach_the_terminal_whole_when_signals_interrupt_writes() -> None:
    master, slave = pty.openpty()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(FRAMES)], stderr=slave, stdin=subprocess.DEVNULL, env=env
    )
    os.close(slave)
    received = bytearray()
    try:
        while not received.endswith(b"END"):
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the pty
                break
            if not chunk:
                break
            received += chunk
    finally:
        child.wait()
        os.close(master)
    assert child.returncode == 0, received[-2000:]
    expected = b"".join(f"<{n}:".encode() + b"x" * 200_000 + b">" for n in range(FRAMES))
    assert len(received) == len(expected) + len(b"END")
    assert bytes(received) == expected + b"END"
