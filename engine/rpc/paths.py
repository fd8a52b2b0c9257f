"""Where the daemon's socket, lock and token live, and the permissions they must have.

The socket lives in ``$XDG_RUNTIME_DIR/ade/`` (a per-user tmpfs on systemd machines), else in
``ade-<uid>`` in the temporary folder (``$TMPDIR`` when it is an absolute path, else ``/tmp``), the
convention of tmux (``/tmp/tmux-<uid>``) and ssh-agent for sockets. ``ADE_RUNTIME_DIR`` overrides
both (tests). The folder is created 0700 and must be owned by us: anyone who can enter it could
connect to the socket, and a folder of that name someone else made is refused
(``ensure_private_dir``), not used.

Not the cache folder under ``$HOME`` (where it was until the sixth wave): a home shared between
machines (NFS) would show one machine's socket to the others, where nobody answers on it, and
finding that folder meant importing ``platformdirs`` (with ``tempfile``, ``shutil`` and
``urllib.parse`` behind it: ~9 ms of a ~50 ms daemon-answered search) on every search of a
machine without ``XDG_RUNTIME_DIR``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import _socket
import os
import stat
import sys

from engine.errors import AdeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"

SUN_PATH_MAX = 107
"""``sockaddr_un.sun_path`` is 108 bytes on Linux including the NUL: longer paths fail to bind."""

APP_NAME = "ade"


def _spelled_as_pathlib(path: str) -> str:
    """``str(PurePosixPath(path))`` without importing ``pathlib`` (~3 ms of a daemon-answered
    search): empty and ``.`` parts dropped, ``..`` kept, a leading ``//`` kept, so every length
    check sees the bytes it saw when these were ``Path`` objects."""
    if path.startswith("//") and not path.startswith("///"):
        root = "//"
    else:
        root = "/" if path.startswith("/") else ""
    parts = [part for part in path.split("/") if part and part != "."]
    return (root + "/".join(parts)) or "."


def _child(folder: str, name: str) -> str:
    """``str(Path(folder) / name)``: a ``/`` folder gives ``/name``, not the ``//`` root."""
    return _spelled_as_pathlib(os.path.join(_spelled_as_pathlib(folder), name))


def runtime_folder(env: dict[str, str] | None = None) -> str:
    """``runtime_dir`` as a string, for the client that must not import ``pathlib``."""
    env = dict(os.environ) if env is None else env
    if override := env.get("ADE_RUNTIME_DIR"):
        return _spelled_as_pathlib(override)
    if xdg := env.get("XDG_RUNTIME_DIR"):
        return _child(xdg, APP_NAME)
    temporary = env.get("TMPDIR", "")
    if not os.path.isabs(temporary):
        temporary = "/tmp"
    return _child(temporary, f"{APP_NAME}-{os.getuid()}")


def runtime_dir(env: dict[str, str] | None = None) -> Path:
    """The folder holding the socket and the lock file (not created here)."""
    from pathlib import Path

    return Path(runtime_folder(env))


def socket_file(env: dict[str, str] | None = None) -> str:
    """``socket_path`` as a string (the daemon-answered search's client)."""
    path = _child(runtime_folder(env), SOCKET_NAME)
    check_socket_path(path)
    return path


def socket_path(env: dict[str, str] | None = None) -> Path:
    """The daemon's socket path; raises ``AdeError`` when it is too long to bind."""
    from pathlib import Path

    return Path(socket_file(env))


def check_socket_path(path: str | os.PathLike[str]) -> None:
    """Refuse a socket path that does not fit ``sun_path`` (a bind would fail obscurely)."""
    size = len(os.fsencode(path))
    if size > SUN_PATH_MAX:
        raise AdeError(
            f"socket path is {size} bytes, over the {SUN_PATH_MAX}-byte limit: {path} "
            "(set ADE_RUNTIME_DIR or XDG_RUNTIME_DIR to a shorter folder)"
        )


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` 0700 (parents too) and check it is ours and private.

    Raises:
        AdeError: the folder is owned by someone else, or is not a directory.
    """
    old = os.umask(0o077)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    finally:
        os.umask(old)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode):
        raise AdeError(f"{path} is not a directory")
    if info.st_uid != os.getuid():
        raise AdeError(f"{path} belongs to uid {info.st_uid}, not to us: refusing to use it")
    if stat.S_IMODE(info.st_mode) & 0o077:
        # An existing folder from an older version or a lax umask: tighten it, never widen.
        os.chmod(path, 0o700)
    return path


def prepare_socket_dir(path: Path, *, private: bool) -> Path:
    """Make sure the socket's folder exists; tighten it only when it is ours to tighten.

    ``private`` (the default runtime folder): created 0700 and checked as ``ensure_private_dir``
    does. A folder named by ``--socket``: created 0700 when missing (then it is ours), else used
    as it is — ``/tmp`` or any shared folder keeps its mode; the socket file itself
    is created 0600 and every peer's uid is checked, which is what keeps others out.

    Raises:
        AdeError: the path is not a directory, or a private folder is not ours.
    """
    if private:
        return ensure_private_dir(path)
    if not os.path.lexists(path):
        return ensure_private_dir(path)
    if not path.is_dir():
        raise AdeError(f"{path} is not a directory")
    return path


class UntrustedDaemon(AdeError):
    """The socket, its folder or the process behind it is not the user's own: nothing is sent
    to it (no query, no project path, no token, no signal)."""


def folder_to_trust(folder: str) -> bool:
    """Whether the default runtime folder exists, checked before anything in it is used: False
    when it does not (no daemon ever ran). Another user can create ``/tmp/ade-<uid>`` first, so
    it must be a real folder (not a symlink), ours, and closed to everyone else (0700).

    Raises:
        UntrustedDaemon: the folder is there and any of that does not hold.
    """
    try:
        info = os.lstat(folder)
    except (FileNotFoundError, NotADirectoryError):  # nothing there, nor can there be
        return False
    except OSError as err:
        raise UntrustedDaemon(
            f"cannot check the ade runtime folder {folder}: {err.strerror}"
        ) from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise UntrustedDaemon(f"the ade runtime folder {folder} is not a plain folder")
    if info.st_uid != os.getuid():
        raise UntrustedDaemon(
            f"the ade runtime folder {folder} belongs to uid {info.st_uid}, not to you"
        )
    if stat.S_IMODE(info.st_mode) & 0o077:
        mode = stat.S_IMODE(info.st_mode)
        raise UntrustedDaemon(f"the ade runtime folder {folder} is open to others (mode {mode:o})")
    return True


def socket_to_trust(path: str | os.PathLike[str], *, private: bool) -> str | None:
    """The socket path to connect to, or ``None`` when no daemon's socket is there.

    ``private``: ``path`` is the default socket, whose folder must pass ``folder_to_trust``. A
    ``--socket`` path may sit in a shared folder: there the socket itself must be
    ours. Either way ``check_peer`` still checks the process that answers, which is what a
    swapped file cannot fake.

    Raises:
        UntrustedDaemon: the folder or the socket is not the user's own.
    """
    path = os.fspath(path)
    if private and not folder_to_trust(os.path.dirname(path) or "."):
        return None
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as err:
        raise UntrustedDaemon(
            f"cannot check the ade daemon's socket {path}: {err.strerror}"
        ) from None
    if not stat.S_ISSOCK(info.st_mode):
        return None  # no daemon can answer there (the daemon refuses to replace such a file)
    if info.st_uid != os.getuid():
        raise UntrustedDaemon(f"the socket {path} belongs to uid {info.st_uid}, not to you")
    return path


def check_peer(sock: _socket.socket, path: str | os.PathLike[str]) -> None:
    """Refuse the process at the other end of a connected socket unless it runs as us.

    The kernel's ``SO_PEERCRED`` record cannot be forged by the peer; read with the built-in
    ``_socket`` (no ``socket``/``struct`` imports on a daemon-answered search).

    Raises:
        UntrustedDaemon: the peer runs as another user.
    """
    raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # struct ucred: 3 ints
    uid = int.from_bytes(raw[4:8], sys.byteorder, signed=True)
    if uid != os.getuid():
        raise UntrustedDaemon(f"the ade daemon at {os.fspath(path)} runs as uid {uid}, not as you")


def config_folder(env: dict[str, str] | None = None) -> str:
    """``config_dir`` as a string (the daemon-answered search's client)."""
    env = dict(os.environ) if env is None else env
    if override := env.get("ADE_CONFIG_DIR"):
        return _spelled_as_pathlib(override)
    import platformdirs

    return _spelled_as_pathlib(platformdirs.user_config_dir(APP_NAME))


def config_dir(env: dict[str, str] | None = None) -> Path:
    """The user's ade config folder (registry, CTO token); ``ADE_CONFIG_DIR`` overrides it."""
    from pathlib import Path

    return Path(config_folder(env))
