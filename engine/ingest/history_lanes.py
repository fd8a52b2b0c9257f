"""Every lane that holds a commit, so ``lane:X`` keeps each commit X's history reaches (DESIGN §3).

A commit document names one lane, the first whose history holds it (the primary first): that is
what a row shows, once. Which lanes hold it is a set, kept in ``commit_lanes`` (object name, lane)
and read by the ``lane:`` filter (``engine.index.sql.lane_sql``). It is brought in step at each
plan of a history pass, from object names only (``git rev-list``, ~0.2 s for 80,000 commits):

* a lane whose HEAD moved from ``old`` to ``new`` gains ``new ^old`` and loses ``old ^new``
  (one ``git rev-list --left-right old...new``);
* a lane seen for the first time, whose remembered HEAD is gone (pruned), or any lane under a
  depth setting, is listed whole (bounded by the depth, like the documents);
* a lane that is no longer one loses its rows.

The HEADs already listed live in the ``meta`` row ``commit_lanes`` and are written in the
transaction of each lane's rows, so a crash redoes at most that lane.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import json
from pathlib import Path

import apsw

from engine.index.db import immediate, meta_get, meta_set
from engine.ingest.history_plan import TipGroup
from engine.project.git import GitError

META_KEY = "commit_lanes"
"""The ``meta`` row holding ``{"depth": …, "heads": {lane id: HEAD listed}}``."""


def _recorded(conn: apsw.Connection) -> tuple[int | None, dict[str, str]]:
    """The depth and the HEADs already listed (nothing when absent or malformed: relisted)."""
    try:
        raw = json.loads(meta_get(conn, META_KEY) or "{}")
        heads = {str(k): str(v) for k, v in dict(raw.get("heads", {})).items()}
        depth = raw.get("depth")
        return (int(depth) if depth is not None else None), heads
    except (ValueError, TypeError, AttributeError):
        return None, {}


def _store(conn: apsw.Connection, depth: int | None, heads: dict[str, str]) -> None:
    meta_set(conn, META_KEY, json.dumps({"depth": depth, "heads": heads}, sort_keys=True))


def sync_commit_lanes(
    conn: apsw.Connection, repo: Path, groups: list[TipGroup], depth: int | None
) -> None:
    """Bring ``commit_lanes`` to the lanes' current HEADs (``groups`` of ``tip_groups``).

    Raises:
        GitError: git failed (the rows of the lanes not yet done stay as they were).
    """
    from engine.project import git_stream  # a walk's module (see history_plan._is_sha)

    old_depth, heads = _recorded(conn)
    if old_depth != depth:
        heads = {}  # every lane relisted: a deeper setting reaches commits never listed
    current = {g.lane_id: g.tips[0] for g in groups if g.lane_id is not None and g.tips}
    gone = sorted(heads.keys() - current.keys())
    moved = {lane: tip for lane, tip in current.items() if heads.get(lane) != tip}
    if not gone and not moved and old_depth == depth:
        return
    if not moved:
        with immediate(conn):
            _forget(conn, gone, heads)
            _store(conn, depth, heads)
        return
    first = True
    for lane, tip in sorted(moved.items()):
        old = heads.get(lane)
        whole = old is None or depth is not None  # a bounded list is not moved in steps
        if not whole:
            try:  # one process for the usual case: a commit or a reset
                removed, added = git_stream.moved_commits(repo, str(old), tip)
            except GitError:
                whole = True  # the old HEAD was pruned: list the lane again
        if whole:
            added, removed = git_stream.list_commits(repo, [tip], [], depth), []
        with immediate(conn):
            if first:
                _forget(conn, gone, heads)
                if old_depth != depth:
                    conn.execute("DELETE FROM commit_lanes")
                first = False
            if whole:
                conn.execute("DELETE FROM commit_lanes WHERE lane_id = ?", (lane,))
            conn.executemany(
                "DELETE FROM commit_lanes WHERE sha = ? AND lane_id = ?",
                [(sha, lane) for sha in removed],
            )
            conn.executemany(
                "INSERT OR IGNORE INTO commit_lanes(sha, lane_id) VALUES (?, ?)",
                [(sha, lane) for sha in added],
            )
            heads[lane] = tip
            _store(conn, depth, heads)


def _forget(conn: apsw.Connection, lanes: list[str], heads: dict[str, str]) -> None:
    """Drop the rows of lanes that are no longer lanes (inside the caller's transaction)."""
    for lane in lanes:
        conn.execute("DELETE FROM commit_lanes WHERE lane_id = ?", (lane,))
        heads.pop(lane, None)
