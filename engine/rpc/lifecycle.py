"""The daemon's footprint on disk: the single-instance lock, the socket, the peer check.

The lock (``flock`` on ``daemon.lock`` beside the socket) decides who is *the* daemon: a second
daemon fails to take it and is refused with the first one's pid, even if both start in the same
instant. Whoever holds the lock owns the socket path, so a socket file found there is stale (its
daemon died without cleaning up) and is replaced.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from engine.errors import AdeError
from engine.rpc.paths import LOCK_NAME, check_socket_path, ensure_private_dir

LISTEN_BACKLOG = 128
"""Pending connections the kernel queues; the connection cap is enforced after accept."""


@dataclass(frozen=True, slots=True)
class PeerCredentials:
    """Who is on the other end of a Unix socket (``SO_PEERCRED``)."""

    pid: int
    uid: int
    gid: int


def peer_credentials(sock: socket.socket) -> PeerCredentials:
    """The kernel's record of the peer process (cannot be forged by the peer)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return PeerCredentials(pid=pid, uid=uid, gid=gid)


def peer_allowed(peer: PeerCredentials, own_uid: int) -> bool:
    """Only processes of the daemon's own user may talk to it."""
    return peer.uid == own_uid


class InstanceLock:
    """The single-instance lock; held for the daemon's lifetime.

    Args:
        runtime: the private runtime folder.
    """

    def __init__(self, runtime: Path) -> None:
        self.path = runtime / LOCK_NAME
        self._fd: int | None = None

    def acquire(self, socket_file: Path) -> None:
        """Take the lock or refuse with a clear message naming the live daemon.

        Raises:
            AdeError: another daemon holds the lock.
        """
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise AdeError(
                f"an ade daemon is already running (pid {other}, socket {socket_file}); "
                "stop it with `ade daemon stop`"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (the file stays; its content is only a hint)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None


def bind_socket(path: Path) -> socket.socket:
    """Create the listening socket at ``path`` (lock already held), replacing a stale one.

    Created under umask 077 so it is never, even for an instant, reachable by others; a
    filesystem path (never the abstract namespace, which has no permissions at all).

    Raises:
        AdeError: the path is too long, or something that is not a socket sits there.
    """
    check_socket_path(path)
    ensure_private_dir(path.parent)
    _remove_stale(path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    try:
        sock.bind(os.fsencode(path))
    except OSError:
        sock.close()
        raise
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock


def _remove_stale(path: Path) -> None:
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise AdeError(f"{path} exists and is not a socket: move it away and retry")
    path.unlink()


def remove_socket(path: Path) -> None:
    """Remove our socket file on shutdown (missing is fine)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
