"""Where the daemon's socket, lock and token live, and the permissions they must have.

The socket lives in ``$XDG_RUNTIME_DIR/ade/`` (a per-user tmpfs on systemd machines), else in a
per-user folder under the cache dir. ``ADE_RUNTIME_DIR`` overrides both (tests). The folder is
created 0700 and must be owned by us: anyone who can enter it could connect to the socket.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from engine.errors import AdeError

SOCKET_NAME = "daemon.sock"
LOCK_NAME = "daemon.lock"

SUN_PATH_MAX = 107
"""``sockaddr_un.sun_path`` is 108 bytes on Linux including the NUL: longer paths fail to bind."""

APP_NAME = "ade"


def runtime_dir(env: dict[str, str] | None = None) -> Path:
    """The folder holding the socket and the lock file (not created here)."""
    env = dict(os.environ) if env is None else env
    if override := env.get("ADE_RUNTIME_DIR"):
        return Path(override)
    if xdg := env.get("XDG_RUNTIME_DIR"):
        return Path(xdg) / APP_NAME
    import platformdirs  # only without XDG_RUNTIME_DIR: a daemon-answered search stays light

    return Path(platformdirs.user_cache_dir(APP_NAME)) / f"run-{os.getuid()}"


def socket_path(env: dict[str, str] | None = None) -> Path:
    """The daemon's socket path; raises ``AdeError`` when it is too long to bind."""
    path = runtime_dir(env) / SOCKET_NAME
    check_socket_path(path)
    return path


def check_socket_path(path: Path) -> None:
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
    as it is — ``/tmp`` or any shared folder keeps its mode (issue 13.14); the socket file itself
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


def config_dir(env: dict[str, str] | None = None) -> Path:
    """The user's ade config folder (registry, CTO token); ``ADE_CONFIG_DIR`` overrides it."""
    env = dict(os.environ) if env is None else env
    if override := env.get("ADE_CONFIG_DIR"):
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME))
