"""The names a lane answers to, read one way by ``lane:``, ``--lane`` and ``ade import --lane``:
its id first, then its name, folder or branch, and ``primary``/``main`` for the primary lane
(any case)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Sequence

from engine.errors import UsageError
from engine.project.model import Lane

PRIMARY_ALIASES = ("primary", "main")
"""What people call the primary lane, whatever its id and branch."""


def _lane_names(lane: Lane) -> list[str]:
    names = [lane.id, lane.name, lane.path.name, *([lane.branch] if lane.branch else [])]
    return [*names, *PRIMARY_ALIASES] if lane.primary else names


def _valid_lanes(lanes: Sequence[Lane]) -> str:
    ids = [lane.id for lane in lanes]
    others = dict.fromkeys(n for lane in lanes for n in _lane_names(lane) if n not in ids)
    also = f"; or by name, folder or branch: {', '.join(others)}" if others else ""
    return ", ".join(ids) + also


def resolve_lane(value: str, lanes: Sequence[Lane]) -> str:
    """The id of the lane ``value`` names: an id first, then a name, folder, branch or alias.

    Raises:
        UsageError: no lane is called that (the message lists each lane and its names).
    """
    if not lanes:
        return value
    for lane in lanes:
        if value == lane.id:
            return lane.id
    wanted = value.casefold()
    for lane in lanes:
        if any(wanted == name.casefold() for name in _lane_names(lane)):
            return lane.id
    raise UsageError(f"unknown lane {value!r}; lanes: {_valid_lanes(lanes)}")
