"""One lane listing per query or command, instead of one per caller.

Listing lanes spawns ``git worktree list`` (3-7 ms). A warm ``ade search`` used to list them three
times: the catch-up's git signature, the query's lane filter and the lane delegate's warnings.
Inside ``one_listing()`` the first listing of a project is remembered and replayed, warnings
included, to every later caller; outside it ``list_lanes`` lists afresh as before. The service
opens one per query, the command line one per command (a listing taken when the command starts is
as fresh as the command), so a long-running service never serves a lane list older than a query.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from engine.project import lanes
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally

_Listing = tuple[list[Lane], WarningTally]
"""The lanes and the warnings their listing added."""

_MEMO: ContextVar[dict[Path, _Listing] | None] = ContextVar("ade_lane_memo", default=None)


@contextlib.contextmanager
def one_listing() -> Iterator[None]:
    """List each project's lanes at most once inside this block (nested blocks share it)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def list_lanes(project: Project, tally: WarningTally) -> list[Lane]:
    """``engine.project.lanes.list_lanes``, listed once per ``one_listing`` block."""
    memo = _MEMO.get()
    if memo is None:
        return lanes.list_lanes(project, tally)
    listing = memo.get(project.root)
    if listing is None:
        own = WarningTally()
        found = lanes.list_lanes(project, own)
        listing = memo[project.root] = (found, own)
    tally.merge(listing[1])
    return list(listing[0])
