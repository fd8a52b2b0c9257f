"""The daemon's footprint on disk: the single-instance lock, the socket, the peer check.

The lock (``flock`` on ``daemon.lock`` beside the socket) decides who is *the* daemon: a second
daemon fails to take it and is refused with the first one's pid, even if both start in the same
instant. Whoever holds the lock owns the socket path, so a socket file found there is stale (its
daemon died without cleaning up) and is replaced.
"""

from __future__ import annotations

import _socket
import contextlib
import fcntl
import os
import socket
import stat
import struct
from dataclasses import dataclass
from pathlib import Path

from engine.errors import AdeError
from engine.rpc.paths import LOCK_NAME, SOCKET_NAME, check_socket_path, prepare_socket_dir

LISTEN_BACKLOG = 128
"""Pending connections the kernel queues; the connection cap is enforced after accept."""


@dataclass(frozen=True, slots=True)
class PeerCredentials:
    """Who is on the other end of a Unix socket (``SO_PEERCRED``)."""

    pid: int
    uid: int
    gid: int


def peer_credentials(sock: _socket.socket) -> PeerCredentials:
    """The kernel's record of the peer process (cannot be forged by the peer); ``sock`` may be
    the built-in socket a ``DaemonConnection`` holds or a ``socket.socket``."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return PeerCredentials(pid=pid, uid=uid, gid=gid)


def peer_allowed(peer: PeerCredentials, own_uid: int) -> bool:
    """Only processes of the daemon's own user may talk to it."""
    return peer.uid == own_uid


class InstanceTaken(AdeError):
    """Another daemon holds the instance lock (a second daemon started alongside it)."""


class InstanceLock:
    """The single-instance lock; held for the daemon's lifetime.

    Args:
        runtime: the private runtime folder.
    """

    def __init__(self, runtime: Path, name: str = LOCK_NAME) -> None:
        self.path = runtime / name
        self._fd: int | None = None
        self._created = False

    @classmethod
    def beside(cls, socket_file: Path) -> InstanceLock:
        """The lock of the daemon serving ``socket_file``: ``daemon.lock`` beside the default
        socket, ``<name>.lock`` beside any other (``--socket /tmp/x.sock`` in a shared folder
        must not contend for, or truncate, a ``daemon.lock`` someone else keeps there)."""
        name = LOCK_NAME if socket_file.name == SOCKET_NAME else f"{socket_file.name}.lock"
        return cls(socket_file.parent, name)

    def acquire(self, socket_file: Path) -> None:
        """Take the lock or refuse with a clear message naming the live daemon.

        Raises:
            InstanceTaken: another daemon holds the lock.
            AdeError: the lock file is unusable.
        """
        try:
            # No symlink (a shared folder could hold one pointing at a file of ours) and no
            # other user's file: the lock is truncated and rewritten below.
            fd, self._created = _open_lock_file(self.path)
        except OSError as err:
            raise AdeError(f"cannot use the lock file {self.path}: {err.strerror}") from None
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            os.close(fd)
            raise AdeError(f"{self.path} is not our lock file: move it away and retry")
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            other = os.read(fd, 32).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise InstanceTaken(
                f"an ade daemon is already running (pid {other}, socket {socket_file}); "
                "stop it with `ade daemon stop`"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def discard(self) -> None:
        """Drop the lock of a daemon that refused to serve, and the file too when this daemon
        made it: ``daemon run --socket F`` that refuses leaves no ``F.lock`` behind. Unlinked
        while still held, so no other daemon can have taken this file meanwhile."""
        if self._fd is not None and self._created:
            with contextlib.suppress(OSError):
                info, now = os.fstat(self._fd), self.path.lstat()
                if (info.st_dev, info.st_ino) == (now.st_dev, now.st_ino):
                    self.path.unlink()
        self.release()

    def release(self) -> None:
        """Drop the lock (the file stays; its content is only a hint)."""
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, 0)
            os.close(self._fd)
            self._fd = None


def _open_lock_file(path: Path) -> tuple[int, bool]:
    """The lock file's descriptor, and whether this call created it.

    Raises:
        OSError: the file cannot be opened (a symlink: ELOOP).
    """
    flags = os.O_RDWR | os.O_NOFOLLOW
    for _ in range(3):  # a refusing daemon may unlink the file between our two opens
        try:
            return os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600), True
        except FileExistsError:
            pass
        with contextlib.suppress(FileNotFoundError):
            return os.open(path, flags), False
    return os.open(path, flags | os.O_CREAT, 0o600), False


@dataclass
class BoundSocket:
    """The listening socket and the identity of the file it made, so shutdown removes that
    file and nothing else (a file put there meanwhile, or before a failed bind, stays)."""

    sock: socket.socket
    path: Path
    identity: tuple[int, int]

    def remove(self) -> None:
        """Unlink the socket file if it is still the one we bound."""
        try:
            info = self.path.lstat()
        except FileNotFoundError:
            return
        if stat.S_ISSOCK(info.st_mode) and (info.st_dev, info.st_ino) == self.identity:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()


def bind_socket(path: Path, *, private_dir: bool = True) -> BoundSocket:
    """Create the listening socket at ``path`` (lock already held), replacing a stale one.

    Created under umask 077 so it is never, even for an instant, reachable by others; a
    filesystem path (never the abstract namespace, which has no permissions at all).
    ``private_dir=False`` (a ``--socket`` path): the folder's mode is left alone unless we
    create it (``prepare_socket_dir``).

    Raises:
        AdeError: the path is too long, something that is not our stale socket sits there, or
            a daemon answers on it.
    """
    check_socket_path(path)
    prepare_socket_dir(path.parent, private=private_dir)
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
    info = path.lstat()
    os.chmod(path, 0o600)
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return BoundSocket(sock=sock, path=path, identity=(info.st_dev, info.st_ino))


def _remove_stale(path: Path) -> None:
    """Unlink a socket left by a daemon that died: ours, and nobody answers on it."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise AdeError(f"{path} exists and is not a socket: move it away and retry")
    if info.st_uid != os.getuid():
        raise AdeError(f"{path} is another user's socket (uid {info.st_uid}): choose another path")
    if _answers(path):
        raise AdeError(f"something is listening on {path}: stop it or choose another path")
    path.unlink()


def _answers(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(1.0)
    try:
        probe.connect(os.fsencode(path))
    except OSError:
        return False  # ECONNREFUSED: a socket file with no listener behind it
    finally:
        probe.close()
    return True
