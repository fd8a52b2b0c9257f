"""Run a program on a real pseudo-terminal and return the raw bytes it wrote.

The child sees a terminal (``isatty`` is true, so git and pytest colour their output, and the
line discipline turns ``\\n`` into ``\\r\\n``) of a fixed size, in a fixed environment, so the same
program gives the same bytes on every build.
"""

from __future__ import annotations

import errno
import fcntl
import os
import select
import struct
import subprocess
import termios
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

ROWS, COLUMNS = 40, 120
"""Terminal size every capture runs in (also exported as LINES/COLUMNS)."""

CAPTURE_TIMEOUT_S = 60.0
"""Safety net only: a capture that outlives this is killed (a hung child must not hang the build)."""


def capture_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A small fixed environment: nothing from the user's shell except PATH."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "TERM": "xterm-256color",
        "LC_ALL": "C.UTF-8",
        "LANG": "C.UTF-8",
        "COLUMNS": str(COLUMNS),
        "LINES": str(ROWS),
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONIOENCODING": "utf-8",
    }
    env.update(extra or {})
    return env


def capture(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]) -> tuple[bytes, int]:
    """Run ``argv`` on a fresh PTY; return (everything it wrote, exit code).

    Raises:
        TimeoutError: the child ran longer than ``CAPTURE_TIMEOUT_S``.
    """
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    try:
        proc = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            close_fds=True,
        )
    finally:
        os.close(slave)
    try:
        data = _drain(master, proc)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    return data, proc.returncode


def _drain(master: int, proc: subprocess.Popen[bytes]) -> bytes:
    """Read the master until the child closes the terminal (EIO on Linux, EOF on macOS)."""
    deadline = time.monotonic() + CAPTURE_TIMEOUT_S
    chunks: list[bytes] = []
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError(f"capture of pid {proc.pid} exceeded {CAPTURE_TIMEOUT_S}s")
        ready, _, _ = select.select([master], [], [], min(remaining, 1.0))
        if not ready:
            continue
        try:
            chunk = os.read(master, 1 << 16)
        except OSError as err:
            if err.errno == errno.EIO:
                break
            raise
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
