"""Lanes: ``.ade/lanes.json`` when present, else one lane per git worktree (DESIGN §2, §3)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.project.bounds import project_bounds
from engine.project.fields import FieldError, opt_bool, opt_str, read_json_file, req_str
from engine.project.git import GitError, Worktree
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally
from engine.project.worktree_memo import remembered_worktrees

PRIMARY_LANE_ID = "primary"
"""The main worktree's lane id (DESIGN §2)."""

LANES_SOURCE = "lanes"
"""Tally key for lanes.json and worktree problems."""

MISSING_WORKTREE = "skipped missing worktree"
"""The tally reason of a linked worktree whose folder is gone (git lists it as prunable)."""


def list_lanes(project: Project, tally: WarningTally) -> list[Lane]:
    """The project's lanes, primary first.

    ``.ade/lanes.json`` (a list of lane objects, or ``{"lanes": [...]}``) wins when it is valid;
    a garbage file is counted and git worktrees are used instead. Not a git repository and no
    lanes file → ``[]``.
    """
    lanes_file = project.ade_dir / "lanes.json"
    if lanes_file.exists():
        from_file = _lanes_from_file(project, lanes_file, tally)
        if from_file is not None:
            return from_file
    if not project.is_git:
        return []
    try:
        trees = remembered_worktrees(project)  # git asked only when its files changed
    except GitError as err:
        tally.add(LANES_SOURCE, f"git worktree list failed: {err}")
        return []
    return lanes_from_worktrees(trees, tally)


def _lanes_from_file(project: Project, path: Path, tally: WarningTally) -> list[Lane] | None:
    bounds = project_bounds(project.root)
    data = read_json_file(path, tally, LANES_SOURCE, bounds)
    if isinstance(data, dict):
        data = data.get("lanes")
    if not isinstance(data, list):
        if data is not None:
            tally.add(LANES_SOURCE, "lanes.json is not a list of lanes")
        return None
    lanes: list[Lane] = []
    seen: set[str] = set()
    for entry in data:
        lane = _lane_from_record(project, entry)
        if lane is None or lane.id in seen:
            tally.add(LANES_SOURCE, "bad or duplicate lane in lanes.json")
            continue
        if not bounds.allows(lane.path):
            # A lane's files are listed and opened (``ade open``): only a folder inside the
            # project or one git itself lists as a worktree may be one.
            tally.add_once(LANES_SOURCE, f"lane {lane.id}: outside the project and its worktrees")
            continue
        seen.add(lane.id)
        lanes.append(lane)
    return sorted(lanes, key=lambda lane: not lane.primary)  # stable: file order otherwise


def _lane_from_record(project: Project, entry: Any) -> Lane | None:
    if not isinstance(entry, dict):
        return None
    try:
        lane_id = req_str(entry, "id").strip()
        name = opt_str(entry, "name") or lane_id
        raw_path = opt_str(entry, "path")
        branch = opt_str(entry, "branch")
        primary = opt_bool(entry, "primary")
    except FieldError:
        return None
    if not lane_id or any(ord(c) < 32 for c in lane_id):
        return None
    # A relative path is relative to the project root; no path means the root itself.
    path = project.root / raw_path if raw_path else project.root
    return Lane(id=lane_id, name=name, path=path, branch=branch or None, primary=primary)


def lanes_from_worktrees(trees: list[Worktree], tally: WarningTally) -> list[Lane]:
    """Main worktree → lane ``primary``; linked worktrees → their folder name.

    Folder names that collide (``a/feat`` and ``b/feat``, or a folder named ``primary``) are
    disambiguated deterministically: in path order the first keeps the name, later ones get
    ``-2``, ``-3``… Bare and prunable (folder gone) worktrees are skipped and counted; a
    prunable one still takes its name in that order, so no other lane's id moves when a
    folder is deleted (see ``gone_lanes``).
    """
    for tree in trees:
        if tree.bare or tree.prunable:
            tally.add(LANES_SOURCE, "skipped bare worktree" if tree.bare else MISSING_WORKTREE)
    return [lane for lane, gone in _worktree_lanes(trees) if not gone]


def gone_lanes(project: Project) -> list[Lane]:
    """The lanes git still records whose folder is gone (a linked worktree deleted without
    ``git worktree remove``): asked only for a ``lane:`` that names no listed lane, so its
    indexed chats and terminals stay searchable. None from ``lanes.json``, none outside git."""
    if not project.is_git or (project.ade_dir / "lanes.json").exists():
        return []
    try:
        trees = remembered_worktrees(project)
    except GitError:
        return []
    return [lane for lane, gone in _worktree_lanes(trees) if gone]


def _worktree_lanes(trees: list[Worktree]) -> list[tuple[Lane, bool]]:
    """Every non-bare worktree's lane, and whether its folder is gone (prunable)."""
    lanes: list[tuple[Lane, bool]] = []
    taken = {PRIMARY_LANE_ID}
    linked: list[Worktree] = []
    for tree in trees:
        if tree.bare:
            continue
        if tree.is_main:
            lanes.append((Lane(PRIMARY_LANE_ID, tree.path.name, tree.path, tree.branch, True),
                          tree.prunable))  # fmt: skip
        else:
            linked.append(tree)
    for tree in sorted(linked, key=lambda t: str(t.path)):
        base = tree.path.name or "lane"
        lane_id, n = base, 1
        while lane_id in taken:
            n += 1
            lane_id = f"{base}-{n}"
        taken.add(lane_id)
        lanes.append((Lane(lane_id, tree.path.name, tree.path, tree.branch, False), tree.prunable))
    return lanes
