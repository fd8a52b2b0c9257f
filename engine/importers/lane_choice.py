"""Which lane a new session belongs to: the one named by ``--lane``, else the one holding the cwd."""

from __future__ import annotations

from pathlib import Path

from engine.project.lane_names import resolve_lane
from engine.project.lanes import list_lanes
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally


def choose_lane(project: Project, requested: str | None, cwd: Path) -> str | None:
    """The lane id for a session started in ``cwd``.

    ``requested`` must name one of the project's lanes when it has any, by every name ``lane:``
    takes (an id, a name, a folder, a branch, ``main``/``primary`` for the primary lane); a
    project without lanes (not a git repository, no lanes.json) takes it as given.

    Raises:
        UsageError: ``requested`` names no lane of the project.
    """
    lanes = list_lanes(project, WarningTally())
    if requested is not None:
        return resolve_lane(requested, lanes)
    found = lane_containing(lanes, cwd)
    return found.id if found is not None else None


def lane_containing(lanes: list[Lane], path: Path) -> Lane | None:
    """The lane whose folder holds ``path`` — the deepest one, since linked worktrees may sit
    inside the main worktree's folder. Both sides are resolved, so symlinked paths agree."""
    target = _real(path)
    best: Lane | None = None
    best_depth = -1
    for lane in lanes:
        root = _real(lane.path)
        if target == root or root in target.parents:
            depth = len(root.parts)
            if depth > best_depth:
                best, best_depth = lane, depth
    return best


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path.absolute()
