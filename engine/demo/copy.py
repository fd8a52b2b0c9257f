"""Copying a demo project so that its linked worktrees belong to the copy.

git (before 2.48) records linked worktrees by absolute path in both directions
(``.git/worktrees/<name>/gitdir`` and ``<worktree>/.git``), so a plain ``copytree`` leaves the
copy's lanes pointing into the original: deleting a lane folder in the copy would change nothing,
and a ``git worktree repair`` there would rewrite the original. Tests and benchmarks that write
copy through this.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def copy_demo(source: Path, target: Path) -> Path:
    """Copy ``source`` to ``target`` (which must not exist) and re-point worktrees at the copy.

    The source's search index (``.ade/cache``) is left behind: a copy starts as a fresh demo.
    """
    cache = source / ".ade" / "cache"
    shutil.copytree(
        source,
        target,
        symlinks=True,
        ignore=lambda folder, _names: ["cache"] if Path(folder) == cache.parent else [],
    )
    old, new = str(source), str(target)
    pointers = [*target.glob(".worktrees/*/.git"), *target.glob(".git/worktrees/*/gitdir")]
    for pointer in pointers:
        if pointer.is_file():
            pointer.write_text(pointer.read_text().replace(old, new))
    return target
