"""A child process whose stdout this process reads, without ``subprocess`` (the start-up budget).

``import subprocess`` costs a warm one-shot search ~14 M instructions over the ``threading`` it
has anyway (``signal`` with its enums, ``selectors``, ``locale``: 0.15x ``python -c pass``), for
the two git commands of the file delegate (``git ls-files`` and ``git grep``, each read to the
end or until enough). :class:`Spawned` starts one the way ``subprocess.Popen`` does with
``stdout=PIPE`` and ``stderr`` to a file: ``os.posix_spawnp`` (the program looked up on this
process's ``PATH``; ``subprocess`` reads the child's, which its callers here pass unchanged),
``SIGPIPE`` and ``SIGXFSZ`` back to their defaults in the child (``restore_signals``). The
child inherits no other descriptor as long as they are close-on-exec, as Python's, SQLite's
and the memory file's are (``subprocess``'s ``close_fds`` also closed inheritable ones, which
nothing on this path makes). The exit status reads as ``Popen.returncode`` does (``-9`` when
killed). POSIX only, as the daemon's Unix socket is.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # loaded at start-up; ``signal`` builds enums
import _thread
import contextlib
import os

_RESTORED_SIGNALS = (_signal.SIGPIPE, _signal.SIGXFSZ)
"""What ``subprocess``'s ``restore_signals`` resets in the child (Python ignores ``SIGPIPE``)."""


class Completed:
    """What ``subprocess.run(..., capture_output=True)`` answers: the exit status and the output."""

    __slots__ = ("returncode", "stderr", "stdout")

    def __init__(self, returncode: int, stdout: bytes, stderr: bytes) -> None:
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


class Spawned:
    """``argv`` running with its stdout on a pipe read through :attr:`stdout_fd` (closed by
    :meth:`wait`) and its stderr on ``stderr_fd``; stdin ``/dev/null`` with ``devnull_stdin``,
    else this process's.

    Raises:
        OSError: the program could not be started (``FileNotFoundError`` when it is not on
            ``PATH``, as ``subprocess`` raises).
    """

    def __init__(
        self, argv: list[str], env: dict[str, str], *, stderr_fd: int, devnull_stdin: bool
    ) -> None:
        read_fd, write_fd = os.pipe()
        actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = [
            (os.POSIX_SPAWN_DUP2, write_fd, 1),
            (os.POSIX_SPAWN_DUP2, stderr_fd, 2),
        ]
        if devnull_stdin:
            actions.insert(0, (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
        try:
            self.pid = os.posix_spawnp(
                argv[0], argv, env, file_actions=actions, setsigdef=_RESTORED_SIGNALS
            )
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
        self.stdout_fd = read_fd
        self.returncode: int | None = None
        self._reaping = _thread.allocate_lock()

    def read_all(self) -> bytes:
        """stdout to its end (the child exited or closed it)."""
        chunks: list[bytes] = []
        while chunk := os.read(self.stdout_fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)

    def kill(self) -> None:
        """``SIGKILL`` unless the child has been reaped, as ``Popen.kill`` does (the window
        between ``waitpid`` and the status being kept is ``subprocess``'s too)."""
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # exited, not yet reaped
                os.kill(self.pid, _signal.SIGKILL)

    def poll(self) -> int | None:
        """The exit status if the child has been reaped or has exited, else ``None``; never
        blocks (``None`` while :meth:`wait` waits)."""
        if not self._reaping.acquire(False):
            return self.returncode
        try:
            if self.returncode is None:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode
        finally:
            self._reaping.release()

    def wait(self) -> int:
        """Close stdout, wait for the child and return its exit status."""
        if self.stdout_fd >= 0:
            os.close(self.stdout_fd)
            self.stdout_fd = -1
        with self._reaping:
            if self.returncode is None:
                _, status = os.waitpid(self.pid, 0)
                self.returncode = os.waitstatus_to_exitcode(status)
            return self.returncode
