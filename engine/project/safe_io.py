"""Opening and parsing files that other programs wrote: never hang, never escape, never crash.

Anything may sit where a transcript, a session, a PR snapshot, ``project.json`` or ``lanes.json``
is expected: a FIFO (``open`` blocks until a writer appears: forever), a socket or device, a
directory, a symlink to ``~/.ssh/id_rsa``, or JSON nested 100,000 levels deep (both ``json``
and ``msgspec`` raise ``RecursionError``, which is no ``ValueError``). Every reader of project
data goes through these helpers so each of those is one counted warning, never a hang or a
traceback (docs/reliability.md):

- ``open_regular`` opens with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a
  writer), ``fstat``s the descriptor and refuses anything but a regular file;
- ``contained`` follows a symlink only when its target stays inside the allowed roots
  (``Bounds``; a project's own are ``engine.project.bounds.project_bounds``: the project, its
  ``.ade`` folder, and lanes git itself lists as worktrees);
- ``loads_json`` turns every parse failure, nesting too deep included, into ``JsonRejected``.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import errno
import json
import os
import stat
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

import msgspec

_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(OSError):
    """The path is not something we read: not a regular file, or a link out of bounds.

    ``str()`` is a short reason fit for a warning (``"is a FIFO"``, ``"links outside …"``).
    """


class JsonRejected(ValueError):
    """Not JSON we accept: malformed, ``NaN``/``Infinity``, or nested too deep."""


def file_type_name(mode: int) -> str:
    """``"a FIFO"``, ``"a socket"``, ``"a directory"``… for a ``st_mode`` that is not a file."""
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: Path | str, bounds: Bounds | None = None) -> IO[bytes]:
    """Open ``path`` for reading without blocking, only if it is a regular file.

    With ``bounds``, a path whose real location (symlinks resolved) is outside them is refused
    before anything is opened.

    Raises:
        FileNotFoundError: nothing there.
        UnsafeFile: a FIFO, socket, device or directory, or a symlink out of ``bounds``.
        OSError: anything else the open reports (permissions…).
    """
    name = Path(path).name
    flags = _OPEN_FLAGS
    if bounds is not None:
        target = real(path)
        if not bounds.contains(target):
            raise UnsafeFile(f"{name} links outside {bounds.describe()}")
        # Open the resolved path and refuse a symlink there: one swapped in since the check
        # cannot redirect us.
        path, flags = target, flags | getattr(os, "O_NOFOLLOW", 0)
    # stat first: a device is never even opened (opening one can have side effects).
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise UnsafeFile(f"{name} is {file_type_name(mode)}")
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise UnsafeFile(f"{name} is a directory") from None
    except OSError as err:
        if err.errno == errno.ENXIO:  # a socket swapped in since the stat
            raise UnsafeFile(f"{name} is a socket") from None
        if err.errno == errno.ELOOP:  # a symlink swapped in since the check
            raise UnsafeFile(
                f"{name} links outside {bounds.describe() if bounds else '?'}"
            ) from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise UnsafeFile(f"{name} is {file_type_name(mode)}")
        # O_NONBLOCK means nothing for a regular file's reads; clear it anyway so the handle
        # behaves like any other.
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path | str, limit: int, bounds: Bounds | None = None) -> bytes:
    """At most ``limit`` bytes from the start of ``path`` (``open_regular``'s rules and errors)."""
    with open_regular(path, bounds) as handle:
        return handle.read(limit)


def is_regular_file(path: Path | str, bounds: Bounds | None = None) -> bool:
    """True when ``path`` is a regular file (symlinks followed) inside ``bounds`` (if given)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return False
    except (OSError, ValueError):
        return False
    return bounds is None or bounds.allows(path)


def loads_json(data: bytes | str) -> Any:
    """Parse one JSON document; every failure is ``JsonRejected``.

    Strict JSON: ``NaN``, ``Infinity`` and numbers out of range (``1e400``) are refused. Invalid
    UTF-8 is decoded with replacement first (writers are other programs).

    Raises:
        JsonRejected: malformed, or nested deeper than the parser recurses.
    """
    try:
        try:
            return _DECODER.decode(data)
        except msgspec.DecodeError:
            if not isinstance(data, bytes):
                raise
            # Maybe only the UTF-8 is bad: msgspec checks it, writers do not always.
            return _DECODER.decode(data.decode("utf-8", errors="replace"))
    except msgspec.DecodeError as err:
        raise JsonRejected(f"bad json: {err}") from None
    except RecursionError:
        raise JsonRejected("json nested too deep") from None


_DECODER = msgspec.json.Decoder()

NESTED_TOO_DEEP = "[nested too deep]"
"""What ``dumps_json`` shows for a value too deep to render (it parsed a few frames higher)."""


def dumps_json(value: Any, *, sort_keys: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False)`` for display and indexing, never raising: a value
    that parsed just under the recursion limit can still be too deep to render from a deeper
    stack, and a non-JSON value falls back to ``str``."""
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)
    except RecursionError:
        return NESTED_TOO_DEEP
    except (TypeError, ValueError):
        try:
            return str(value)
        except RecursionError:
            return NESTED_TOO_DEEP


def is_inside(path: Path, root: Path) -> bool:
    """``path`` is ``root`` or below it, by components (``<root>-evil`` is not inside)."""
    return path == root or path.is_relative_to(root)


def real(path: Path | str) -> Path:
    """``path`` with every symlink resolved (non-strict: a missing tail is kept as is)."""
    return Path(os.path.realpath(path))


class Bounds:
    """The folders a followed symlink may land in.

    ``roots`` are checked first; ``more`` (e.g. ``git worktree list``) is asked only when a
    target falls outside them, and its answer is remembered for ``more_ttl`` seconds, so the
    usual case — no symlink, or one that stays inside — costs one ``realpath``.
    """

    def __init__(
        self,
        roots: Iterable[Path],
        more: Callable[[], Iterable[Path]] | None = None,
        *,
        label: str = "the project",
        more_ttl: float = 30.0,
    ) -> None:
        self.roots = tuple(dict.fromkeys(real(r) for r in roots))
        self.label = label
        self._more = more
        self._more_ttl = more_ttl
        self._more_roots: tuple[Path, ...] = ()
        self._more_at: float | None = None

    def describe(self) -> str:
        return self.label

    def allows(self, path: Path | str) -> bool:
        """Whether ``path``'s real location is inside the roots (or the lazily asked ones)."""
        return self.contains(real(path))

    def contains(self, target: Path) -> bool:
        """Whether ``target`` (already resolved) is inside the roots or the lazily asked ones."""
        if any(is_inside(target, root) for root in self.roots):
            return True
        return any(is_inside(target, root) for root in self.extra_roots())

    def extra_roots(self) -> tuple[Path, ...]:
        """The roots ``more`` gives (cached); ``()`` when it fails or there is none."""
        if self._more is None:
            return ()
        now = time.monotonic()
        if self._more_at is None or now - self._more_at > self._more_ttl:
            try:
                self._more_roots = tuple(real(p) for p in self._more())
            except Exception:  # an extra root is a courtesy: failing to list denies, never crashes
                self._more_roots = ()
            self._more_at = now
        return self._more_roots
