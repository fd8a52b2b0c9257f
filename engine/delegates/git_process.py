"""git run by the file delegate: a command to its end (``run_git``) and a streamed ``git grep``
(``Streamed``), each bounded in time and with git's stderr kept out of the pipe we read; the
line record they yield and the failures they raise.

Started by ``engine.basics.spawn`` rather than ``subprocess``: ``subprocess`` with its
``signal``, ``selectors`` and ``locale`` is ~14 M instructions of a one-shot search's start-up
(benchmarks/journal/2026-12-07-startup.md).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import msgspec

from engine.basics.caller_env import current_environ
from engine.basics.spawn import Completed, Spawned
from engine.project.git import stderr_file

GIT_TIMEOUT_SECONDS = 5.0
"""A grep over a huge tree must not hold the whole answer hostage."""

GREP_TIMEOUT_SECONDS = GIT_TIMEOUT_SECONDS
"""The same bound for a streamed ``git grep``: past it the lines found by then are the answer,
marked cut (``FileMatches.cut_short``)."""

_GIT_ENV = {"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


class FileLineHit(msgspec.Struct, frozen=True):
    """One line git grep found: the work-tree path (undecodable bytes as surrogates), its
    1-based number and its text (decoded with replacement)."""

    path: str
    line: int
    text: str


class FileSearchFailed(Exception):
    """git could not list or grep the lane; one line for the query's warnings."""


class GrepTimedOut(FileSearchFailed):
    """git grep ran past ``GREP_TIMEOUT_SECONDS``: ``hits`` holds the lines it had found."""

    def __init__(self, message: str, hits: list[FileLineHit]) -> None:
        super().__init__(message)
        self.hits = hits


def run_git(root: Path, *args: str) -> Completed:
    """``git -C root args`` run to its end, as ``subprocess.run(capture_output=True,
    timeout=GIT_TIMEOUT_SECONDS)`` ran it (``engine.basics.spawn``: no ``subprocess`` on a
    search's start-up); stdin is this process's, stderr goes to an unnamed file."""
    cmd = ["git", "-C", str(root), *args]
    timed_out: list[bool] = []
    try:
        with stderr_file() as err_file:
            proc = Spawned(
                cmd,
                {**current_environ(), **_GIT_ENV},
                stderr_fd=err_file.fileno(),
                devnull_stdin=False,
            )

            def timeout() -> None:
                timed_out.append(True)
                proc.kill()

            timer = threading.Timer(GIT_TIMEOUT_SECONDS, timeout)
            timer.daemon = True
            timer.start()
            try:
                stdout = proc.read_all()
            except BaseException:
                proc.kill()  # not waited for to its end
                raise
            finally:
                returncode = proc.wait()  # still under the timer: git may outlive its stdout
                timer.cancel()
            err_file.seek(0)
            stderr = err_file.read()
    except OSError as err:
        raise FileSearchFailed(f"git in {root} failed: {err}") from None
    if timed_out:  # subprocess.TimeoutExpired's words
        message = "Command '%s' timed out after %s seconds" % (cmd, GIT_TIMEOUT_SECONDS)  # noqa: UP031
        raise FileSearchFailed(f"git in {root} failed: {message}")
    return Completed(returncode, stdout, stderr)


class Streamed:
    """``git <args>`` whose stdout is read while it runs; killed on ``stop``, on leaving the
    ``with`` block early, or after ``GREP_TIMEOUT_SECONDS``. stderr goes to an unnamed file so a
    chatty git can never block on a full pipe while we read stdout."""

    def __init__(self, root: Path, args: tuple[str, ...]) -> None:
        self._root = root
        # Closed in __exit__: the file outlives this constructor on purpose.
        self._err = stderr_file()
        try:
            self._proc = Spawned(
                ["git", "-C", str(root), *args],
                {**current_environ(), **_GIT_ENV},
                stderr_fd=self._err.fileno(),
                devnull_stdin=True,
            )
        except OSError as err:
            self._err.close()
            raise FileSearchFailed(f"git in {root} failed: {err}") from None
        self.stopped = False
        self.timed_out = False  # set before the timer starts: it may fire at once
        self.returncode: int | None = None
        self._stderr_line = ""
        self._timer = threading.Timer(GREP_TIMEOUT_SECONDS, self._timeout)
        self._timer.daemon = True
        self._timer.start()

    def _timeout(self) -> None:
        self.timed_out = True
        self._kill()

    def _kill(self) -> None:
        with contextlib.suppress(OSError):
            self._proc.kill()

    def chunks(self) -> Iterator[bytes]:
        """stdout as it arrives, in pieces of at most 64 KiB."""
        fd = self._proc.stdout_fd  # read unbuffered: a record is used as soon as it is in
        return iter(lambda: os.read(fd, 65536), b"")

    def stop(self) -> None:
        """Enough output: end the process (its exit status no longer matters)."""
        self.stopped = True
        self._kill()

    def error(self) -> str:
        """The first line git wrote to stderr (read when the process ended)."""
        return self._stderr_line

    def __enter__(self) -> Streamed:
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        if exc[0] is not None and self._proc.poll() is None:
            self.stop()  # an exception while reading: do not wait for git to finish
        self.returncode = self._proc.wait()  # closes stdout first
        self._err.seek(0)
        self._stderr_line = first_line(self._err.read(4096))
        self._err.close()
        if self.timed_out:
            raise GrepTimedOut(
                f"git grep in {self._root} took longer than {GREP_TIMEOUT_SECONDS:g} s", []
            )


def first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""
