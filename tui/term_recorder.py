"""Run a program on a pseudo-terminal and pass everything through to the real one.

The parent puts the real terminal in raw mode (every key, Ctrl-C included, goes to the child;
restored on every exit path), copies the window size to the PTY now and on each SIGWINCH, and
hands every output chunk to ``on_output`` before the next read. Without a real terminal on stdin
(a pipe, a test) input is forwarded as is and nothing is put in raw mode.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pty
import select
import signal
import sys
import termios
import tty
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import FrameType

READ_BYTES = 65536
"""One read from the PTY: a full screen of output or more, flushed to the log at once."""

POLL_S = 0.25
"""How often an idle loop checks whether the child exited while something (a background job)
still holds the PTY open; output and keys are handled as they arrive, never after this delay."""


def run_on_pty(
    argv: Sequence[str],
    on_output: Callable[[bytes], object],
    env: Mapping[str, str],
) -> int:
    """Run ``argv`` on a new PTY until it exits; return its exit status (128+N for signal N).

    A program that cannot be started exits 127 with a one-line message on the PTY, like a shell.
    """
    in_fd, out_fd = sys.stdin.fileno(), sys.stdout.fileno()
    pid, master = pty.fork()
    if pid == 0:  # child: the PTY is its controlling terminal and stdio
        _exec(argv, env)
    try:
        with _raw_mode(in_fd), _forward_winch(in_fd, master):
            status = _pump(pid, master, in_fd, out_fd, on_output)
    finally:
        os.close(master)
    if status < 0:
        return 1
    code = os.waitstatus_to_exitcode(status)
    return 128 - code if code < 0 else code  # killed by signal N: -N, the shell says 128+N


def _exec(argv: Sequence[str], env: Mapping[str, str]) -> None:
    try:
        os.execvpe(argv[0], list(argv), dict(env))
    except OSError as err:
        os.write(2, f"ade term: {argv[0]}: {err.strerror or err}\r\n".encode())
    os._exit(127)


@contextlib.contextmanager
def _raw_mode(fd: int) -> Iterator[None]:
    if not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        tty.setraw(fd)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@contextlib.contextmanager
def _forward_winch(in_fd: int, master: int) -> Iterator[None]:
    def copy_size(_signum: int = 0, _frame: FrameType | None = None) -> None:
        with contextlib.suppress(OSError):
            size = fcntl.ioctl(in_fd, termios.TIOCGWINSZ, b"\0" * 8)
            fcntl.ioctl(master, termios.TIOCSWINSZ, size)

    if not os.isatty(in_fd):
        yield
        return
    copy_size()
    previous = signal.signal(signal.SIGWINCH, copy_size)
    try:
        yield
    finally:
        signal.signal(signal.SIGWINCH, previous)


def _pump(pid: int, master: int, in_fd: int, out_fd: int,
          on_output: Callable[[bytes], object]) -> int:  # fmt: skip
    """Copy bytes both ways until the PTY closes or the child is gone; return its wait status."""
    watch = [master, in_fd]
    status = -1
    while True:
        ready, _, _ = select.select(watch, [], [], POLL_S)
        if master in ready:
            try:
                data = os.read(master, READ_BYTES)
            except OSError as err:  # EIO: every slave side closed
                if err.errno != errno.EIO:
                    raise
                data = b""
            if not data:
                break
            on_output(data)
            _write_all(out_fd, data)
        if in_fd in ready:
            keys = os.read(in_fd, READ_BYTES)
            if keys:
                _write_all(master, keys)
            else:
                watch.remove(in_fd)  # stdin at EOF: keep relaying output
        if not ready:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _drain(master, out_fd, on_output)
                return status
    _, status = os.waitpid(pid, 0)
    return status


def _drain(master: int, out_fd: int, on_output: Callable[[bytes], object]) -> None:
    """The child exited but something still holds the PTY: take what is buffered now."""
    while select.select([master], [], [], 0)[0]:
        try:
            data = os.read(master, READ_BYTES)
        except OSError:
            return
        if not data:
            return
        on_output(data)
        _write_all(out_fd, data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            select.select([], [fd], [])
            continue
        view = view[written:]
