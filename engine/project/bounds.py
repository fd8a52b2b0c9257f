"""Where a project's files may point: the project folder, its ``.ade`` folder and git's worktrees.

Every reader of a project's files (sessions, transcripts, lanes, PRs, artifacts, ``project.json``)
hands these bounds to ``engine.project.safe_io`` so a symlink is followed only when its target
stays inside them. Git is asked for the worktree list only when a target is outside the first
two (``engine.project.git`` is imported then, not before).
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import time
from pathlib import Path

from engine.project.safe_io import Bounds

_PROJECT_BOUNDS: dict[Path, tuple[float, Bounds]] = {}

BOUNDS_TTL_S = 30.0
"""A long-running service re-resolves a project's bounds this often (``.ade`` moved, worktrees
added): fresh enough, and a file read costs a dict lookup, not a ``realpath`` of the root."""


def project_bounds(root: Path) -> Bounds:
    """Where a symlink under ``root/.ade`` may point: the project folder, the ``.ade`` folder's
    real location (a user may keep it elsewhere on purpose), and every worktree that
    ``git worktree list`` names (asked only when a target is outside the first two)."""
    now = time.monotonic()
    cached = _PROJECT_BOUNDS.get(root)
    if cached is not None and now - cached[0] < BOUNDS_TTL_S:
        return cached[1]
    if len(_PROJECT_BOUNDS) > 64:
        _PROJECT_BOUNDS.clear()
    bounds = Bounds([root, root / ".ade"], lambda: _worktree_paths(root), more_ttl=BOUNDS_TTL_S)
    _PROJECT_BOUNDS[root] = (now, bounds)
    return bounds


def _worktree_paths(root: Path) -> list[Path]:
    from engine.project.git import worktrees  # deferred: only a symlink out of the project asks

    return [tree.path for tree in worktrees(root) if not tree.bare and not tree.prunable]
