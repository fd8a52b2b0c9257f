"""How a caller proves the CTO role to the daemon.

The role is a property of the *connection*: a client proves it once with ``rpc.hello`` by
presenting the contents of ``<config>/cto.token``, a random secret readable only by the user
(0600), created on the daemon's first start. The human's CLI and palette present it. Agent
sessions do not: a client whose environment has ``ADE_SESSION_ID`` (set by ade for every agent
and terminal session it launches) presents no token unless ``ADE_ROLE=cto`` is set explicitly.
Everyone else is an ``agent`` and may query but not rebuild.

This is a guard against an agent using the daemon on its own initiative, not a sandbox: a process
running as the user can read the user's files. The design keeps the secret out of agent
environments and out of every request parameter.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import stat

from engine.errors import AdeError, UsageError

TYPE_CHECKING = False  # the client imports neither `typing` nor `pathlib` (the start-up budget)
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from engine.actions import Role

CTO_METHODS: frozenset[str] = frozenset({"search.rebuildIndex"})
"""The methods only the CTO role may call (``engine.actions.CTO_ONLY`` is the same set): a
one-shot request for any other method presents no token, so finding the config folder (and
importing ``platformdirs`` for it, ~10-15 ms) is not on a daemon-answered search's path."""

TOKEN_NAME = "cto.token"
TOKEN_BYTES = 32
"""256 bits of randomness: not guessable, and short enough to read in one call."""


def token_path(config: Path) -> Path:
    """Where the CTO token lives in the config folder."""
    return config / TOKEN_NAME


def _token_file(config: str | os.PathLike[str]) -> str:
    """``token_path`` as a string, for a client that does not import ``pathlib``."""
    return os.path.join(config, TOKEN_NAME)


def ensure_cto_token(config: Path) -> str:
    """Return the CTO token, creating it 0600 on first use (daemon start).

    A token file with group/other permission bits is replaced: a leaked secret proves nothing.

    Raises:
        AdeError: the file exists but belongs to someone else.
    """
    config.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = token_path(config)
    token = _read_private(path)
    if token is not None:
        return token
    import secrets  # the daemon's start only: a client reads the token, never makes one

    token = secrets.token_hex(TOKEN_BYTES)
    temp = path.with_name(f".{TOKEN_NAME}.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, token.encode("ascii") + b"\n")
    finally:
        os.close(fd)
    os.replace(temp, path)
    return token


def _read_private(path: str | os.PathLike[str]) -> str | None:
    """The token in ``path`` if it exists, is ours and is private; else ``None``."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if info.st_uid != os.getuid():
        raise AdeError(f"{path} belongs to uid {info.st_uid}: refusing to trust it")
    if not stat.S_ISREG(info.st_mode) or stat.S_IMODE(info.st_mode) & 0o077:
        return None
    with open(path, encoding="ascii", errors="replace") as file:  # Path.read_text's own reading
        text = file.read().strip()
    return text or None


def client_token(config: str | os.PathLike[str], env: dict[str, str] | None = None) -> str | None:
    """The token a client should present, or ``None`` when it must act as an agent.

    Args:
        config: the config folder.
        env: the client's environment (``os.environ`` by default).
    """
    env = dict(os.environ) if env is None else env
    if env.get("ADE_SESSION_ID") and env.get("ADE_ROLE") != "cto":
        return None
    try:
        return _read_private(_token_file(config))
    except (OSError, AdeError):
        return None


def check_rebuild_allowed(environ: Mapping[str, str]) -> None:
    """Rebuilding is the CTO's: an agent's shell (``ADE_SESSION_ID`` set) needs ``ADE_ROLE=cto``
    (``ade search --rebuild`` refuses before it asks anyone).

    Raises:
        UsageError: this shell is an agent's.
    """
    if environ.get("ADE_SESSION_ID") and environ.get("ADE_ROLE", "").lower() != "cto":
        raise UsageError(
            "--rebuild is CTO-only: this shell belongs to agent session "
            f"{environ['ADE_SESSION_ID']!r} (set ADE_ROLE=cto only in the CTO's shell)"
        )


def role_for(presented: object, expected: str) -> Role:
    """``"cto"`` when ``presented`` matches the daemon's token (constant time), else ``"agent"``."""
    if not (isinstance(presented, str) and presented and expected):
        return "agent"
    import hmac  # the daemon only: a client never compares tokens

    return "cto" if hmac.compare_digest(presented.encode(), expected.encode()) else "agent"
