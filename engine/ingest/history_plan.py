"""What a commit-history pass must walk (DESIGN §3): the plan and its stored state.

Tips are grouped in attribution order: each lane's HEAD (primary first), then every local branch
(a commit only such a branch reaches is in no lane's history: it gets no lane). A commit belongs to the first group
whose history holds it. For group ``k`` the pass walks

    ``G_k --not <G_k as last indexed> G_1 … G_(k-1)``

— the commits newly in that group's history that no earlier group holds — and writes them with
that group's lane (re-attributing a commit a later lane held before, e.g. after a merge into the
primary lane). Commits no current tip reaches any more (a deleted lane or branch, a reset) are
walked as ``<old tips> --not <current tips>`` and deleted. A warm pass where no tip moved walks
nothing. The state (indexed tips, the walks left, how far the current one got) is one JSON
``sources`` row written in the transaction of each slice, so a crash resumes where it stopped.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec

from engine.project.fields import read_json_object
from engine.project.git import GitError, worktrees
from engine.project.lane_memo import branches
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally

HISTORY_SOURCE = "git:history"
"""Source key of every commit document and of the row holding the history state."""

DEPTH_ENV = "ADE_HISTORY_DEPTH"
"""Newest commits walked per tip group (a huge monorepo); also ``historyDepth`` in project.json."""

BRANCHES_GROUP = "branches"


class Walk(msgspec.Struct):
    """One ``git log`` of a pass: ``include`` minus ``exclude``, written with ``lane_id`` (None:
    local branches no lane has checked out), or deleted with ``delete``."""

    group: str
    lane_id: str | None
    include: list[str]
    exclude: list[str]
    done: int = 0
    delete: bool = False


class HistoryState(msgspec.Struct):
    """The ``git:history`` row's state."""

    tips: dict[str, list[str]] = msgspec.field(default_factory=dict)
    walks: list[Walk] = msgspec.field(default_factory=list)
    groups: list[str] = msgspec.field(default_factory=list)
    """Groups of the pass being walked: the tips of any other group are dropped at its end."""
    pass_done: int = 0
    pass_total: int | None = None
    depth: int | None = None
    bounded: bool = False
    notes: list[str] = msgspec.field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps(msgspec.to_builtins(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> HistoryState:
        """The stored state; anything malformed starts over (the pass re-walks, nothing lost)."""
        try:
            raw = json.loads(text)
            tips = {str(g): [_sha(s) for s in shas] for g, shas in raw.get("tips", {}).items()}
            walks = [
                Walk(str(w["group"]), _opt_str(w["lane_id"]), [_sha(s) for s in w["include"]],
                     [_sha(s) for s in w["exclude"]], int(w["done"]), bool(w["delete"]))
                for w in raw.get("walks", [])
            ]  # fmt: skip
            return cls(
                tips=tips, walks=walks, groups=[str(g) for g in raw.get("groups", [])],
                pass_done=int(raw.get("pass_done", 0)), pass_total=_opt_int(raw.get("pass_total")),
                depth=_opt_int(raw.get("depth")), bounded=bool(raw.get("bounded", False)),
                notes=[str(n) for n in raw.get("notes", [])],
            )  # fmt: skip
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls()


_HEX_DIGITS = frozenset("0123456789abcdef")


def _is_sha(value: str) -> bool:
    """``git_stream.SHA_RE.fullmatch`` without importing the stream: reading the stored state
    is every warm search's (its history warnings), walking it only a changed history's."""
    return len(value) in (40, 64) and _HEX_DIGITS.issuperset(value)


def _sha(value: Any) -> str:
    if not isinstance(value, str) or not _is_sha(value):
        raise ValueError("not a sha")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


class TipGroup(msgspec.Struct, frozen=True):
    """Tips attributed to one lane, in attribution order."""

    group: str
    lane_id: str | None
    tips: list[str]


def history_depth(project: Project, tally: WarningTally) -> int | None:
    """``ADE_HISTORY_DEPTH`` (or ``historyDepth`` in ``.ade/project.json``): a positive count of
    newest commits per tip group, or None for the whole history. A bad value is counted, ignored."""
    raw: object = os.environ.get(DEPTH_ENV)
    if raw is None:
        record = read_json_object(project.ade_dir / "project.json", WarningTally(), "project")
        raw = record.get("historyDepth") if record is not None else None
    if raw is None or raw == "":
        return None
    try:
        depth = int(raw) if not isinstance(raw, bool) else 0  # type: ignore[call-overload]
    except (TypeError, ValueError):
        depth = 0
    if depth <= 0:
        tally.add("git", f"ignored history depth {str(raw)[:20]!r} (a positive number)")
        return None
    return depth


def repo_path(project: Project, lanes: list[Lane]) -> Path:
    """Where git runs for the shared history: the primary lane (the project root without one)."""
    primary = next((lane for lane in lanes if lane.primary), None)
    return primary.path if primary is not None else project.root


def tip_groups(lanes: list[Lane], repo: Path, notes: list[str]) -> list[TipGroup]:
    """Each lane's HEAD (primary first), then the local branches; problems become ``notes``
    (one clear line each: a lane folder gone, a lane without commits, a detached HEAD)."""
    from engine.project import git_stream  # a walk's module: see ``_is_sha``

    ordered = sorted(lanes, key=lambda lane: not lane.primary)
    groups: list[TipGroup] = []
    for lane in ordered:
        sha = git_stream.head_commit(lane.path)
        if sha is None:
            if not lane.path.is_dir():
                notes.append(f"lane {lane.id}: its folder {lane.path} is gone; not indexed")
            else:
                notes.append(f"lane {lane.id}: no commits yet")
            continue
        if lane.branch is None and git_stream.checked_out_branch(lane.path) is None:
            notes.append(
                f"lane {lane.id}: detached HEAD at {sha[:12]}; history indexed from that commit"
            )
        groups.append(TipGroup(f"lane:{lane.id}", lane.id, [sha]))
    groups = _in_repository(groups, repo, notes)
    notes.extend(_gone_worktrees(repo, {lane.path for lane in lanes}))
    try:
        branch_tips = sorted({b.tip_sha for b in branches(repo) if _is_sha(b.tip_sha)})
    except GitError:
        branch_tips = []
    if branch_tips:
        groups.append(TipGroup(BRANCHES_GROUP, None, branch_tips))  # no lane holds them
    return groups


def _in_repository(groups: list[TipGroup], repo: Path, notes: list[str]) -> list[TipGroup]:
    """The groups whose HEAD the shared repository holds (a lanes.json lane may be a checkout of
    another repository: its history is not this one's)."""
    from engine.project import git_stream  # a walk's module: see ``_is_sha``

    try:
        known = git_stream.existing_commits(repo, [sha for g in groups for sha in g.tips])
    except GitError:
        return groups
    kept = [g for g in groups if set(g.tips) <= known]
    for group in groups:
        if group not in kept:
            notes.append(f"{group.group.replace(':', ' ')}: its HEAD is not in {repo}; not indexed")
    return kept


def _gone_worktrees(repo: Path, lane_paths: set[Path]) -> list[str]:
    """A note for each linked worktree whose folder was deleted (git lists it as prunable)."""
    try:
        trees = worktrees(repo)
    except GitError:
        return []
    return [
        f"worktree {tree.path} is gone (git worktree prune forgets it); not indexed as a lane"
        for tree in trees
        if tree.prunable and tree.path not in lane_paths
    ]


def plan_pass(
    state: HistoryState, groups: list[TipGroup], repo: Path, depth: int | None
) -> HistoryState:
    """The walks that bring the indexed history from ``state.tips`` to ``groups``' tips.

    Raises:
        GitError: git failed.
    """
    from engine.project import git_stream  # a walk's module: see ``_is_sha``

    old_all = {sha for shas in state.tips.values() for sha in shas}
    still = git_stream.existing_commits(repo, old_all) if old_all else set()
    current_all = {sha for g in groups for sha in g.tips}
    walks: list[Walk] = []
    gone = sorted(still - current_all)
    if gone:
        walks.append(Walk("-", None, gone, sorted(current_all), delete=True))
    earlier: set[str] = set()
    for group in groups:
        old = set(state.tips.get(group.group, [])) & still
        if set(group.tips) != old:
            exclude = sorted(old | earlier)
            walks.append(Walk(group.group, group.lane_id, sorted(group.tips), exclude))
        earlier |= set(group.tips)
    total = git_stream.count_commits(repo, sorted(current_all), sorted(still)) if walks else 0
    return HistoryState(
        tips=state.tips, walks=walks, groups=[g.group for g in groups], pass_done=0,
        pass_total=total, depth=depth, bounded=state.bounded and depth is not None,
        notes=state.notes,
    )  # fmt: skip


def shallow_note(repo: Path) -> str | None:
    """The note of a shallow clone, whose history stops at the clone's depth (git keeps the
    grafts in ``<common dir>/shallow``: a stat, no git process, in the usual layout)."""
    from engine.project import git_stream
    from engine.project.git import common_dir, git_dir

    gitdir = git_dir(repo)
    shallow = (common_dir(gitdir) / "shallow").exists() if gitdir is not None else None
    if shallow if shallow is not None else git_stream.is_shallow(repo):
        return "shallow clone: older history is not in the repository (git fetch --unshallow)"
    return None
