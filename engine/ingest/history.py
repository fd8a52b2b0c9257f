"""The commit history source: every commit of every lane and local branch, indexed
incrementally, a slice at a time (see ``history_plan`` for what a pass walks).

One queue entry ``("history", "*")`` runs one slice: up to ``SLICE_COMMITS`` commits of the
current walk are written, with the advanced state, in one transaction, and the entry returns
"more" until the pass is over. The drain yields between slices, so a first pass over 80,000
commits runs in the background of a daemon or palette while chats and terminals keep flowing.
Between slices the ``git log`` process stays open (``HistoryWalker``): git walks the history
once; after a crash or restart the walk resumes with ``--skip`` = the commits already written.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import apsw
import msgspec

from engine.index.db import SourceRow, get_source, put_source
from engine.index.writer import IndexWriter
from engine.ingest.history_lanes import sync_commit_lanes
from engine.ingest.history_plan import (
    HISTORY_SOURCE,
    HistoryState,
    Walk,
    history_depth,
    plan_pass,
    repo_path,
    shallow_note,
    tip_groups,
)
from engine.project.git import GitError
from engine.project.lanes import list_lanes
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally
from engine.types import CommitHistoryStatus

if TYPE_CHECKING:
    from engine.project.git_stream import CommitStream

SLICE_COMMITS = 2000
"""Commits written per transaction: ~0.1-0.3 s of writing, so other writers wait little."""


class HistoryWalker:
    """The open ``git log`` of the walk in progress, kept between slices."""

    def __init__(self) -> None:
        self._key: tuple[object, ...] | None = None
        self._stream: CommitStream | None = None

    def stream(self, repo: Path, walk: Walk, depth: int | None) -> CommitStream:
        """The stream of ``walk`` positioned after its ``done`` commits."""
        key = (repo, walk.group, tuple(walk.include), tuple(walk.exclude), walk.delete, depth)
        current = self._stream
        if current is not None and self._key == key and current.taken == walk.done:
            return current
        self.close()
        from engine.project.git_stream import CommitStream  # a walk's: see history_plan._is_sha

        limit = None if walk.delete or depth is None else depth - walk.done
        self._stream = CommitStream(repo, walk.include, walk.exclude, skip=walk.done,
                                    max_count=limit)  # fmt: skip
        self._key = key
        return self._stream

    def close(self) -> None:
        """Stop the git process, if one is open."""
        if self._stream is not None:
            self._stream.close()
        self._stream, self._key = None, None


def load_state(conn: apsw.Connection) -> HistoryState:
    """The stored history state (an empty one before the first pass)."""
    row = get_source(conn, HISTORY_SOURCE)
    return HistoryState.from_json(row.state) if row is not None else HistoryState()


def process_history(
    writer: IndexWriter, project: Project, tally: WarningTally, now_ms: int,
    walker: HistoryWalker,
) -> bool:  # fmt: skip
    """Run one slice of the history pass (planning one first when none is under way).

    Returns:
        True when more of the pass is left (the entry is queued again).
    """
    conn = writer.conn
    state = load_state(conn)
    lanes = list_lanes(project, tally)
    repo = repo_path(project, lanes)
    depth = history_depth(project, tally)
    try:
        if not state.walks or state.depth != depth:
            state = _plan(conn, state, project, lanes, repo, depth)
            if not state.walks:
                with writer.transaction():
                    _store(conn, state, now_ms)
                return False
        walk = state.walks[0]
        stream = walker.stream(repo, walk, depth)
        commits = stream.take(SLICE_COMMITS)
    except GitError as err:
        walker.close()
        tally.add("git", f"git history: {err}")
        return False
    from engine.ingest.docs import commit_doc  # deferred like the other document builders

    with writer.transaction():
        if walk.delete:
            writer.delete_docs([f"commit:{c.sha}" for c in commits])
        else:
            docs = [commit_doc(c, walk.lane_id or "") for c in commits]
            writer.upsert_docs([msgspec.structs.replace(d, source_key=HISTORY_SOURCE,
                                                       lane_id=walk.lane_id) for d in docs])  # fmt: skip
        walk.done += len(commits)
        state.pass_done += len(commits)
        if stream.finished:
            _finish_walk(state, walk, depth)
        _store(conn, state, now_ms)
    return bool(state.walks)


def _plan(
    conn: apsw.Connection, state: HistoryState, project: Project, lanes: list[Lane], repo: Path,
    depth: int | None,
) -> HistoryState:  # fmt: skip
    notes: list[str] = []
    if not project.is_git:
        return HistoryState()  # lanes.json without git: no history to read, nothing to warn
    groups = tip_groups(lanes, repo, notes)
    sync_commit_lanes(conn, repo, groups, depth)
    shallow = shallow_note(repo)
    if shallow is not None:
        notes.insert(0, shallow)
    if state.depth != depth:
        state = msgspec.structs.replace(state, tips={}, bounded=False)  # re-walk with the new depth
    planned = plan_pass(state, groups, repo, depth)
    planned.notes = notes
    if not planned.walks:
        planned.tips = {g.group: g.tips for g in groups}
    return planned


def _finish_walk(state: HistoryState, walk: Walk, depth: int | None) -> None:
    state.walks.pop(0)
    if walk.delete:
        state.tips = {g: shas for g, shas in state.tips.items() if g in state.groups}
    else:
        state.tips[walk.group] = walk.include
        if depth is not None and walk.done >= depth:
            state.bounded = True
    if not state.walks:
        state.tips = {g: shas for g, shas in state.tips.items() if g in state.groups}


def _store(conn: apsw.Connection, state: HistoryState, now_ms: int) -> None:
    """Write the state row (inside the caller's transaction)."""
    row = SourceRow(key=HISTORY_SOURCE, cursor=state.pass_done, identity="history",
                    last_run=now_ms, state=state.to_json())  # fmt: skip
    put_source(conn, row)


def history_pending(conn: apsw.Connection, project: Project) -> bool:
    """True while a pass is under way (a crash or an ended CLI run left walks to do), when none
    ever stored its state (a process killed between recording the git signature and the first
    slice: the signature alone would never queue it again), or when the depth setting changed
    since the last one (no tip moved, yet the walk is another)."""
    row = get_source(conn, HISTORY_SOURCE)
    if row is None:
        return True
    state = HistoryState.from_json(row.state)
    return bool(state.walks) or state.depth != history_depth(project, WarningTally())


def history_status(conn: apsw.Connection) -> CommitHistoryStatus | None:
    """The history state as the status reports it; None before the first pass."""
    if get_source(conn, HISTORY_SOURCE) is None:
        return None
    state = load_state(conn)
    return CommitHistoryStatus(
        indexing=bool(state.walks), done=state.pass_done, total=state.pass_total,
        depth=state.depth, bounded=state.bounded, notes=tuple(state.notes),
    )  # fmt: skip


def history_warnings(conn: apsw.Connection) -> list[str]:
    """What an answer that may include commits must say about the history behind it."""
    status = history_status(conn)
    if status is None:
        return []
    out: list[str] = []
    if status.indexing:
        total = f" of about {status.total:,}" if status.total else ""
        out.append(
            f"commit history is still being indexed ({status.done:,}{total} commits of this pass"
            " so far): older commits may be missing"
        )
    if status.bounded and status.depth is not None:
        out.append(
            f"commit history limited to the newest {status.depth:,} commits per lane"
            " (ADE_HISTORY_DEPTH or historyDepth in .ade/project.json): older commits are not"
            " searched"
        )
    out.extend(status.notes)
    return out


def history_warnings_for(conn: apsw.Connection, kinds: Sequence[str]) -> list[str]:
    """``history_warnings`` when the query searches commits (the default set does)."""
    return history_warnings(conn) if "commit" in kinds else []
