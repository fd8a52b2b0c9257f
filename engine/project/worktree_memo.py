"""The repository's worktrees, remembered across commands under the stat of what git reads.

Every command lists the lanes, and without ``.ade/lanes.json`` that is one ``git worktree list``
(3-5 ms, more under load): after the origin lookup (``origin_memo``), the last git command a
warm in-process search ran for its start-up (the start-up budget). What a lane is made of (each
worktree's folder, branch, and whether it is bare or its folder is gone) is read by git from a
few small files: ``.git/HEAD`` and ``.git/config``, and per linked worktree
``.git/worktrees/<id>/{HEAD,gitdir,locked,commondir}`` plus the ``.git`` file ``gitdir`` names.
Their signature, the ``gitdir`` texts and git's configuration (``origin_memo.config_signature``)
key ``.ade/cache/worktrees.json``; any change lists again. A linked-worktree project, git
variables that choose another repository, or a repository whose refs are not files (reftable)
always ask git. Each worktree's ``head`` is not remembered (``None``): it moves with every
commit, and no lane is made from it.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from engine.basics.memo import remember
from engine.project.git import Worktree, worktrees
from engine.project.model import Project
from engine.project.origin_memo import config_signature, load_signed, store_json
from engine.project.plain_repo import GIT_ENV
from engine.project.stat import stat_signature

CACHE_NAME = "worktrees.json"

_PER_WORKTREE = ("HEAD", "gitdir", "locked", "commondir")
"""The files of ``.git/worktrees/<id>`` git reads to list that worktree."""

_REFTABLE_RE = re.compile(rb"refstorage", re.IGNORECASE)
_MAX_SMALL_FILE = 1 << 16


def _read_small(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(_MAX_SMALL_FILE)
    except OSError:
        return None


def _signature(project: Project) -> str | None:
    """What the listing is stored under, or None when git must be asked every time."""
    git = project.root / ".git"
    if any(name in os.environ for name in GIT_ENV) or not git.is_dir():
        return None
    if _is_reftable(git / "config"):
        return None
    config = config_signature(project)
    if config is None:
        return None
    files = [git / "HEAD", git / "commondir", git / "worktrees"]
    gitdirs: list[str | None] = []
    try:
        ids = sorted(os.listdir(git / "worktrees"))
    except OSError:
        ids = []
    for wt_id in ids:
        entry = git / "worktrees" / wt_id
        files += [entry / name for name in _PER_WORKTREE]
        text = _read_small(entry / "gitdir")
        gitdir = text.decode("utf-8", "surrogateescape").strip() if text is not None else None
        gitdirs.append(gitdir)
        if gitdir:  # its existence is what git's "prunable" reports
            files.append(entry / gitdir if not os.path.isabs(gitdir) else Path(gitdir))
    parts = [str(project.root), config, ids, gitdirs, stat_signature(files)]
    return json.dumps(parts, separators=(",", ":"))


def _is_reftable(config: Path) -> bool:
    """Whether the repository's config names another ref storage (read once per its stat)."""
    key = (str(config), stat_signature([config]))
    known = _REFTABLE.get(key)
    if known is None:
        known = _REFTABLE_RE.search(_read_small(config) or b"") is not None
        remember(_REFTABLE, key, known, _MAX_REMEMBERED)
    return known


_REFTABLE: dict[tuple[str, str], bool] = {}
_REMEMBERED: dict[tuple[str, str], list[Worktree]] = {}
"""The listing of each project root and signature this process read or made (the daemon asks
on every answer): the file it is stored in need not be read again while the signature holds."""

_MAX_REMEMBERED = 64


def _encode(trees: list[Worktree]) -> list[dict[str, object]]:
    return [
        {"path": str(t.path), "branch": t.branch, "is_main": t.is_main, "bare": t.bare,
         "detached": t.detached, "prunable": t.prunable}
        for t in trees
    ]  # fmt: skip


def _decode(stored: object) -> list[Worktree] | None:
    if not isinstance(stored, list):
        return None
    out: list[Worktree] = []
    for item in stored:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            return None
        branch = item.get("branch")
        flags = [item.get(name) for name in ("is_main", "bare", "detached", "prunable")]
        if not (branch is None or isinstance(branch, str)) or not all(
            isinstance(flag, bool) for flag in flags
        ):
            return None
        is_main, bare, detached, prunable = (bool(flag) for flag in flags)
        out.append(Worktree(path=Path(item["path"]), head=None, branch=branch, is_main=is_main,
                            bare=bare, detached=detached, prunable=prunable))  # fmt: skip
    return out


def remembered_worktrees(project: Project) -> list[Worktree]:
    """``git.worktrees(project.root)`` (``head`` None), read from the cache when nothing git
    reads for it changed.

    Raises:
        GitError: git failed (nothing is stored then).
    """
    signature = _signature(project)
    if signature is None:
        return worktrees(project.root)
    key = (str(project.root), signature)
    if (known := _REMEMBERED.get(key)) is not None:
        return list(known)
    path = project.cache_dir / CACHE_NAME
    stored = load_signed(path, signature)
    if stored is not None:
        found = _decode(stored.get("worktrees"))
        if found is not None:
            remember(_REMEMBERED, key, found, _MAX_REMEMBERED)
            return list(found)
    trees = worktrees(project.root)
    store_json(path, {"signature": signature, "worktrees": _encode(trees)})
    remember(_REMEMBERED, key, trees, _MAX_REMEMBERED)
    return list(trees)
