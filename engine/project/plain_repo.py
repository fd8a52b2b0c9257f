"""Whether a folder is the main worktree of a plain git repository, told without running git.

``git rev-parse`` costs a process (3-7 ms) on every command; for the common case — a ``.git``
folder of ours, with a valid ``HEAD``, ``objects/`` and ``refs/`` and a config that neither moves
the work tree nor makes it bare — the answer is known from a few ``stat`` calls (start-up budget).
Anything else (a ``.git`` file: a linked worktree or a submodule; another user's repository,
which git refuses; ``GIT_DIR`` and friends) answers ``False``: ask git.

Paths are strings: a daemon-answered ``ade search`` without ``--project`` asks this and must
not import ``pathlib`` (~3 ms, the start-up budget); a ``Path`` is accepted as well.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import re

GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_COMMON_DIR")
"""Variables that change which repository git sees: then git is asked."""

_HEAD = re.compile(r"(ref: refs/\S+|[0-9a-f]{40}|[0-9a-f]{64})\n?")
_MOVED_OR_BARE = re.compile(r"^\s*(worktree\s*=|bare\s*=\s*true)", re.MULTILINE | re.IGNORECASE)


def is_plain_main_worktree(folder: str | os.PathLike[str]) -> bool:
    """True when git would name ``folder`` the top level of a main worktree (see module doc)."""
    if any(name in os.environ for name in GIT_ENV):
        return False
    dot_git = os.path.join(folder, ".git")
    try:
        info, top = os.lstat(dot_git), os.stat(folder)
        head = _read(os.path.join(dot_git, "HEAD"), "ascii")
        config = _read(os.path.join(dot_git, "config"), "utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    mine = info.st_uid == os.getuid() and top.st_uid == os.getuid()
    return (
        mine
        and os.path.isdir(dot_git)
        and not os.path.islink(dot_git)
        and os.path.isdir(os.path.join(dot_git, "objects"))
        and os.path.isdir(os.path.join(dot_git, "refs"))
        and _HEAD.fullmatch(head) is not None
        and _MOVED_OR_BARE.search(config) is None
    )


def _read(path: str, encoding: str) -> str:
    """``Path.read_text``: ascii strictly (a HEAD that is not is no HEAD), utf-8 leniently."""
    errors = "strict" if encoding == "ascii" else "replace"
    with open(path, encoding=encoding, errors=errors) as file:
        return file.read()


def plain_main_worktree_above(here: str) -> str | None:
    """The main worktree git would name from the folder ``here`` (a physical path, as
    ``os.getcwd()`` gives it), when plain checks can tell: the nearest ``.git`` above it is a
    folder of a plain main worktree (``is_plain_main_worktree``) that this user can enter. None
    otherwise — no ``.git`` up to ``/``, a ``.git`` file (a linked worktree, a submodule),
    ``here`` inside a ``.git`` folder, a file-system boundary on the way (git stops there):
    then ask git."""
    if ".git" in here.split("/"):
        return None
    try:
        device = os.stat(here).st_dev
        folder = here
        while True:
            if os.stat(folder).st_dev != device:
                return None  # git stops at a file-system boundary; let it say so
            if os.path.lexists(os.path.join(folder, ".git")):
                plain = is_plain_main_worktree(folder) and os.access(folder, os.R_OK | os.X_OK)
                return folder if plain else None
            parent = os.path.dirname(folder)
            if parent == folder:
                return None
            folder = parent
    except OSError:  # a folder on the way we may not stat: git decides
        return None
