"""A command's catch-up lists the repository's branches once (``lane_memo.branches``): the
branch documents (``git:*``) and the history pass's tips each ran ``git for-each-ref``, one
after the other, in every first index (benchmarks/journal/2026-12-08-first-index-small.md).
Counted with git's own ``GIT_TRACE``, on a real repository and a real service."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.ingest.timers import ManualTimerFactory
from engine.project.lane_memo import branches, one_listing
from engine.project.locate import open_project
from engine.wiring import create_project_service

from .conftest import NOW
from .history_repo import History, git


@pytest.fixture
def repo(tmp_path: Path) -> History:
    """``main``: 5 commits; ``old``, a branch no lane has checked out: 3 more off ``main~2``."""
    hist = History(tmp_path / "proj")
    hist.numbered("main", "main work", 5)
    hist.numbered("old", "old idea", 3, start="main~2")
    git(hist.root, "checkout", "-q", "main")
    return hist


def _for_each_ref_runs(trace: Path) -> int:
    return sum("for-each-ref" in line for line in trace.read_text().splitlines())


def test_a_catch_up_in_one_listing_lists_the_branches_once(
    repo: History, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "git-trace"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    service = create_project_service(open_project(repo.root), clock=lambda: NOW,
                                     timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    try:
        with one_listing():  # as `ade search` runs its catch-up
            service.catch_up()
        assert _for_each_ref_runs(trace) == 1
        conn = service.readers.reader()
        kinds = dict(conn.execute("SELECT kind, count(*) FROM docs GROUP BY kind").fetchall())
        # Both readers of the one listing got it: a document per branch, every branch's commits.
        assert (kinds["branch"], kinds["commit"]) == (2, 8)
    finally:
        service.dispose()


def test_branches_are_listed_once_inside_a_listing_and_afresh_outside(repo: History) -> None:
    with one_listing():
        first = branches(repo.root)
        git(repo.root, "branch", "later", "main~1")
        assert branches(repo.root) == first  # as fresh as the command
    assert [b.name for b in first] == ["main", "old"]
    assert [b.name for b in branches(repo.root)] == ["later", "main", "old"]
