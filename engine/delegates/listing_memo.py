"""A long-running process's memo of a lane's file listing (``git ls-files --cached --others
--exclude-standard``), kept while nothing it depends on has changed (the start-up budget).

What the listing depends on, and the stamp (``stat``: mtime, ctime, inode, size) that changes
with it:

- the tracked half is the index alone: ``git rev-parse --git-path index`` (git replaces the file
  on every write, so add, rm, mv, commit, checkout, reset all give it a new inode);
- the untracked half is the names in every directory git walks: a directory's own mtime changes
  when an entry is added, removed or renamed in it, so every directory of the work tree is
  stamped except ``.git``, ``.ade`` (its paths are dropped from the answer anyway) and one git
  reports as wholly ignored (nothing under it is listed; it is stamped itself, not walked);
- the ignore rules: every ``.gitignore`` met on the walk, ``info/exclude``, the file named by
  ``core.excludesFile`` (or its default), and the config files that could rename it — the
  user's among them are the ``HOME`` git runs in (a daemon's caller's: ``current_environ``), so
  a memo is kept per work tree and per user config (``_key``).

A file's contents never change the listing, so edits cost nothing; a new, removed or renamed
file is a miss and the next query lists again. A stamp newer than ``RACY_SECONDS`` is not
trusted (file-system clocks are coarse: a change in the same tick could leave it equal), so a
tree being written right now is simply listed every time. Beyond ``MAX_WATCHED_DIRECTORIES`` the
stamps would cost what git does, so such a tree is not memoised.

Only a process that lists the same lane twice builds a memo: a one-shot ``ade search`` pays
exactly the one ``git ls-files`` it always did.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from engine.basics.caller_env import current_environ

if TYPE_CHECKING:
    from engine.basics.spawn import Completed

MAX_WATCHED_DIRECTORIES = 2000
"""About what one ``git ls-files`` costs in ``stat`` calls (~1.5 us each)."""

RACY_SECONDS = 2.0
"""A stamp this recent may not change on the next write in the same clock tick (ext4 and
tmpfs tick in milliseconds, FAT in 2 s)."""

Listing = tuple[tuple[str, ...], tuple[str, ...]]
"""``(tracked, untracked-not-ignored)`` paths of a work tree, relative to it."""

GitRun = Callable[..., "Completed"]
"""``engine.delegates.git_process.run_git``: ``git -C root args`` run to its end."""

Stamp = tuple[int, int, int, int] | None

_USER_CONFIG = ("HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL")
"""What chooses the user's config files git reads."""

_Key = tuple[str | None, ...]


class _Memo(msgspec.Struct, frozen=True):
    watched: tuple[str, ...]
    stamps: tuple[Stamp, ...]
    listing: Listing


now_ns: Callable[[], int] = time.time_ns
"""The clock the racy rule reads (tests move it past a tree they aged)."""

_lock = threading.Lock()
_memos: dict[_Key, _Memo] = {}
_listed_once: set[_Key] = set()


def _key(root: Path) -> _Key:
    """The work tree and what names the user's git config files: a daemon lists one tree for
    callers of different ``HOME`` (their own ``core.excludesFile``)."""
    env = current_environ()
    return (str(root), *(env.get(name) for name in _USER_CONFIG))


def memoised_listing(root: Path, list_now: Callable[[], Listing], git: GitRun) -> Listing:
    """The listing of the work tree at ``root``: the memo's while its stamps hold, else
    ``list_now()`` (stamped first, so a change while git lists is a miss next time)."""
    key = _key(root)
    with _lock:
        memo = _memos.get(key)
        first = key not in _listed_once
        _listed_once.add(key)
    if memo is not None and _stamps(memo.watched) == memo.stamps:
        return memo.listing
    if first:
        return list_now()
    watched = _watched_paths(root, git)
    stamps = _stamps(watched) if watched is not None else ()
    listing = list_now()
    with _lock:
        if watched is not None and not _racy(stamps, now_ns()):
            _memos[key] = _Memo(watched, stamps, listing)
        else:
            _memos.pop(key, None)
    return listing


def held_untracked_only(root: Path) -> Listing | None:
    """The kept listing of ``root`` when it lists no tracked file (a repository without commits,
    nothing added) and its stamps still hold, else None; lists nothing. The index is one of the
    stamped paths, so "nothing tracked" holds exactly as long as the listing does: a search
    may then skip ``git grep`` of the tracked files, which could find nothing. A listing with
    tracked files answers None before any ``stat``: its grep starts at once, as before."""
    with _lock:
        memo = _memos.get(_key(root))
    if memo is None or memo.listing[0] or _stamps(memo.watched) != memo.stamps:
        return None
    return memo.listing


def memoised(root: Path) -> bool:
    """Whether a listing of ``root`` is kept (stale or not)."""
    with _lock:
        return _key(root) in _memos


def forget() -> None:
    """Drop every memo (tests; a process that wants a fresh start)."""
    with _lock:
        _memos.clear()
        _listed_once.clear()


def _stamp(path: str) -> Stamp:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_size)


def _stamps(paths: tuple[str, ...]) -> tuple[Stamp, ...]:
    return tuple(map(_stamp, paths))


def _racy(stamps: tuple[Stamp, ...], now_ns: int) -> bool:
    recent = now_ns - int(RACY_SECONDS * 1e9)
    return any(s is not None and max(s[0], s[1]) >= recent for s in stamps)


def _watched_paths(root: Path, git: GitRun) -> tuple[str, ...] | None:
    """Every path whose stamp the listing depends on, or None when there are too many or git
    cannot say where its files are."""
    files = _git_files(root, git)
    if files is None:
        return None
    skipped = _wholly_ignored(root, git)
    if skipped is None:
        return None
    watched = [*files, str(root / ".git")]
    stack = [(str(root), "")]
    directories = 0
    while stack:
        directory, relative = stack.pop()
        watched.append(directory)
        directories += 1
        if directories > MAX_WATCHED_DIRECTORIES:
            return None
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    if name == ".gitignore":
                        watched.append(entry.path)
                    elif name not in (".git", ".ade") and entry.is_dir(follow_symlinks=False):
                        inner = f"{relative}{name}/"
                        if inner in skipped:
                            watched.append(entry.path)
                        else:
                            stack.append((entry.path, inner))
        except OSError:
            return None
    return tuple(watched)


def _git_files(root: Path, git: GitRun) -> list[str] | None:
    """The index, ``info/exclude``, the global excludes file and the config files naming it."""
    done = git(root, "rev-parse", "--absolute-git-dir", "--git-common-dir",
               "--git-path", "index", "--git-path", "info/exclude")  # fmt: skip
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    if done.returncode != 0 or len(lines) != 4:
        return None
    git_dir, common, index, exclude = (str(root / line) for line in lines)  # an absolute line stays
    env = current_environ()  # git's, as it ran (engine.project.git)
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    configured = git(root, "config", "--path", "--get", "core.excludesFile")
    excludes = configured.stdout.decode("utf-8", "replace").strip()
    return [
        index, exclude, excludes or str(xdg / "git" / "ignore"),
        os.path.join(git_dir, "config"), os.path.join(git_dir, "config.worktree"),
        os.path.join(common, "config"), str(home / ".gitconfig"), str(xdg / "git" / "config"),
        env.get("GIT_CONFIG_GLOBAL") or str(home / ".gitconfig"), "/etc/gitconfig",
    ]  # fmt: skip


def _wholly_ignored(root: Path, git: GitRun) -> set[str] | None:
    """Directories git reports as ignored with nothing under them listed: git never walks them.
    (git 2.39 also names a directory whose files are all ignored, then lists those files: such
    a directory is walked, since a new file in it may not be ignored.)"""
    done = git(root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard",
               "--directory")  # fmt: skip
    if done.returncode != 0:
        return None
    names = [n.decode("utf-8", "surrogateescape") for n in done.stdout.split(b"\0") if n]
    named = sorted(names)
    wholly: set[str] = set()
    for i, name in enumerate(named):
        following = named[i + 1] if i + 1 < len(named) else ""
        if name.endswith("/") and not following.startswith(name):
            wholly.add(name)
    return wholly
