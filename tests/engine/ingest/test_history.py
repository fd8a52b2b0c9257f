"""The whole commit history of every lane and local branch, indexed incrementally.

Real repositories of hundreds of commits (fast-import), real worktrees, a real service.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine.ingest.history as history
from engine.ingest.history_plan import DEPTH_ENV
from engine.ingest.timers import ManualTimerFactory
from engine.project import git_stream
from engine.project.git_stream import CommitStream
from engine.project.locate import open_project
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

from .conftest import NOW
from .history_repo import History, git


class Streams:
    """Every ``git log`` walk the history source opens, and how many commits each handed out."""

    def __init__(self) -> None:
        self.opened: list[CommitStream] = []

    def walked(self) -> int:
        return sum(s.taken - s.skip for s in self.opened)


@pytest.fixture
def streams(monkeypatch: pytest.MonkeyPatch) -> Streams:
    seen = Streams()

    class Recorded(CommitStream):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.skip = kwargs.get("skip", 0)
            seen.opened.append(self)

    # The walker imports the stream when it opens one (a warm search never does).
    monkeypatch.setattr(git_stream, "CommitStream", Recorded)
    return seen


@pytest.fixture
def repo(tmp_path: Path) -> History:
    """``main``: 600 commits; ``side`` (a linked worktree lane): 40 more off ``main~100``;
    ``old`` (a branch no lane has checked out): 30 more off ``main~300``."""
    hist = History(tmp_path / "proj")
    hist.commits("main", ["Initial commit\n\nthe very first one"])
    hist.numbered("main", "main work", 599)
    hist.numbered("side", "side work", 40, start="main~100")
    hist.numbered("old", "old idea", 30, start="main~300")
    git(hist.root, "checkout", "-q", "main")
    git(hist.root, "worktree", "add", "-q", str(tmp_path / "lanes" / "side"), "side")
    return hist


def open_service(root: Path) -> SearchService:
    return create_project_service(open_project(root), clock=lambda: NOW,
                                  timer=ManualTimerFactory(), start_worker=False)  # fmt: skip


@pytest.fixture
def service(repo: History) -> Iterator[SearchService]:
    svc = open_service(repo.root)
    yield svc
    svc.dispose()


def commits(service: SearchService) -> dict[str, str | None]:
    """doc id → lane id of every commit document."""
    rows = service.readers.reader().execute(
        "SELECT doc_id, lane_id FROM docs WHERE kind = 'commit'"
    )
    return {str(r[0]): None if r[1] is None else str(r[1]) for r in rows}


def shas(root: Path, *revs: str) -> set[str]:
    return {f"commit:{s}" for s in git(root, "rev-list", *revs).split()}


def search(service: SearchService, query: str) -> Any:
    return service.query(SearchQueryArgs(query=query, kinds=("commit",), limit=500))


def test_every_commit_of_every_lane_and_branch_primary_first(
    service: SearchService, repo: History
) -> None:
    service.catch_up()
    indexed = commits(service)
    assert len(indexed) == repo.count("main", "side", "old") == 670  # not 100 per lane
    assert set(indexed) == shas(repo.root, "main", "side", "old")
    assert {indexed[d] for d in shas(repo.root, "main")} == {"primary"}
    assert {indexed[d] for d in shas(repo.root, "side", "^main")} == {"side"}
    # A branch no lane has checked out is in no lane's history: its own commits have no lane.
    assert {indexed[d] for d in shas(repo.root, "old", "^main")} == {None}
    hits = search(service, "Initial")
    assert [i.title for i in hits.items] == ["Initial commit"]
    assert hits.warnings == ()
    assert search(service, "side work").total == 40
    status = service.index_status().commit_history
    assert status is not None
    assert (status.indexing, status.bounded, status.notes) == (False, False, ())


def test_a_later_run_reads_only_the_new_commits(
    service: SearchService, repo: History, streams: Streams
) -> None:
    service.catch_up()
    first = streams.walked()
    assert first == 670
    service.catch_up()  # nothing moved: no walk at all
    assert streams.walked() == first
    repo.numbered("main", "fresh", 3)
    repo.numbered("side", "lane fresh", 2)
    service.catch_up()
    assert streams.walked() - first == 5
    assert search(service, "fresh").total == 5
    assert len(commits(service)) == 675


def test_a_merge_into_the_primary_lane_re_attributes_the_lane_commits(
    service: SearchService, repo: History
) -> None:
    service.catch_up()
    side_only = shas(repo.root, "side", "^main")
    git(repo.root, "merge", "-q", "--no-edit", "--no-ff", "side")
    service.catch_up()
    indexed = commits(service)
    assert {indexed[d] for d in side_only} == {"primary"}
    assert len(indexed) == 671  # the merge commit


def test_commits_no_tip_reaches_any_more_are_removed(service: SearchService, repo: History) -> None:
    service.catch_up()
    gone = shas(repo.root, "old", "^main")
    git(repo.root, "branch", "-q", "-D", "old")
    service.catch_up()
    indexed = commits(service)
    assert not gone & set(indexed)
    assert len(indexed) == 640
    assert search(service, "old idea").total == 0


def test_slices_commit_their_cursor_and_a_new_process_resumes_with_skip(
    repo: History, streams: Streams, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "SLICE_COMMITS", 50)
    first = open_service(repo.root)
    first.drainer.reconcile(first.drainer.connection(), everything=False)
    while first.queue.pending["history"] == {} and first.queue.source_count():
        first.drainer.run(first.queue.pop_next(ignore_due=True))  # type: ignore[arg-type]
    for _ in range(3):  # three slices of the first walk, each its own transaction
        first.drainer.run(first.queue.pop_next(ignore_due=True))  # type: ignore[arg-type]
    assert len(commits(first)) == 150
    status = first.index_status().commit_history
    assert status is not None
    assert (status.indexing, status.done, status.total) == (True, 150, 670)
    first.dispose()  # the process ends mid-walk ("crash": nothing else is written)
    second = open_service(repo.root)
    try:
        second.catch_up()
        assert streams.opened[1].skip == 150  # resumed, not re-walked from the start
        assert len(commits(second)) == 670
        assert second.index_status().commit_history.indexing is False  # type: ignore[union-attr]
    finally:
        second.dispose()


def test_a_catch_up_out_of_time_answers_and_says_the_history_is_still_indexing(
    service: SearchService, repo: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "SLICE_COMMITS", 100)
    service.catch_up(history_seconds=0.0)  # the CLI's budget, spent at once: one slice
    assert len(commits(service)) == 100
    hits = search(service, "main work")
    assert any("still being indexed" in w and "100 of about 670" in w for w in hits.warnings)
    assert service.query(SearchQueryArgs(query="x", kinds=("pr",))).warnings == ()
    service.catch_up()
    assert len(commits(service)) == 670
    assert search(service, "main work").warnings == ()


def test_a_depth_setting_bounds_the_walk_and_every_answer_says_so(
    service: SearchService, repo: History, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DEPTH_ENV, "100")
    service.catch_up()
    indexed = commits(service)
    assert len(indexed) == 100 + 40 + 30  # newest 100 of main; the other tips' own commits
    assert search(service, "Initial").total == 0
    assert any("newest 100 commits" in w for w in search(service, "work").warnings)
    monkeypatch.delenv(DEPTH_ENV)
    service.catch_up()
    assert len(commits(service)) == 670
    assert search(service, "Initial").total == 1
    assert not search(service, "work").warnings


# --- bad input: one clear warning each, never a failed query -----------------------------------


def test_a_shallow_clone(repo: History, tmp_path: Path) -> None:
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "5", f"file://{repo.root}", str(clone))
    svc = open_service(clone)
    try:
        svc.catch_up()
        assert len(commits(svc)) == 5
        warnings = search(svc, "work").warnings
        assert [w for w in warnings if "shallow clone" in w] == [warnings[0]]
        assert len(warnings) == 1
    finally:
        svc.dispose()


def test_a_detached_head_lane(service: SearchService, repo: History, tmp_path: Path) -> None:
    git(tmp_path / "lanes" / "side", "checkout", "-q", "--detach", "side~10")
    service.catch_up()
    warnings = search(service, "side work").warnings
    assert len(warnings) == 1
    assert "lane side: detached HEAD" in warnings[0]
    assert search(service, "side work").total == 40  # the branch still reaches all of them


def test_a_worktree_whose_folder_was_deleted(
    service: SearchService, repo: History, tmp_path: Path
) -> None:
    shutil.rmtree(tmp_path / "lanes" / "side")
    service.catch_up()
    warnings = search(service, "work").warnings
    assert len(warnings) == 1
    assert "is gone" in warnings[0]
    assert str(tmp_path / "lanes" / "side") in warnings[0]
    assert search(service, "side work").total == 40  # reached by the branch `side`


def test_a_repository_with_no_commits(tmp_path: Path) -> None:
    root = tmp_path / "empty"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    svc = open_service(root)
    try:
        svc.catch_up()
        result = search(svc, "anything")
        assert (result.total, result.warnings) == (0, ("lane primary: no commits yet",))
    finally:
        svc.dispose()


def test_the_demo_indexes_every_branch_and_each_lane_owns_its_own_commits(demo_copy: Path) -> None:
    svc = open_service(demo_copy)
    try:
        svc.catch_up()
        indexed = commits(svc)
        assert set(indexed) == shas(demo_copy, "--branches")  # 43, not the 38 the lanes reach
        retry = git(demo_copy / ".worktrees" / "abc-123-retry", "rev-parse", "HEAD").strip()
        assert {indexed[d] for d in shas(demo_copy, retry, "^main")} == {"abc-123-retry"}
        assert {indexed[d] for d in shas(demo_copy, "main")} == {"primary"}
    finally:
        svc.dispose()


def test_a_lanes_json_lane_from_another_repository_is_named_not_walked(repo: History) -> None:
    other = History(repo.root / "vendor" / "other")  # inside the project: lanes.json allows it
    other.numbered("main", "foreign", 3)
    lanes = [{"id": "primary", "path": ".", "branch": "main", "primary": True},
             {"id": "foreign", "path": str(other.root), "branch": "main"}]  # fmt: skip
    (repo.root / ".ade").mkdir()
    (repo.root / ".ade" / "lanes.json").write_text(json.dumps(lanes))
    svc = open_service(repo.root)
    try:
        svc.catch_up()
        assert len(commits(svc)) == 670
        warnings = search(svc, "work").warnings
        assert len(warnings) == 1
        assert warnings[0].startswith("lane foreign: its HEAD is not in")
    finally:
        svc.dispose()


WORKER = Path(__file__).with_name("ingest_worker.py")
CHECKOUT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_kill_9_during_the_first_pass_loses_and_duplicates_nothing(repo: History) -> None:
    """A real process killed at random moments of a sliced pass; the next run completes it."""
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT), "HOME": str(repo.root.parent)}
    rng = random.Random(5)
    progress: list[int] = []
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, str(WORKER), str(repo.root), "loop"],
                                cwd=CHECKOUT, env=env, stdout=subprocess.PIPE, text=True)  # fmt: skip
        assert proc.stdout is not None
        proc.stdout.readline()  # "ready": imports done, the index is open
        time.sleep(rng.uniform(0.1, 0.5))  # let it write some slices, then kill it mid-pass
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        svc = open_service(repo.root)
        progress.append(len(commits(svc)))
        svc.dispose()
    final = subprocess.run([sys.executable, str(WORKER), str(repo.root), "once"], cwd=CHECKOUT,
                           env=env, capture_output=True, timeout=120, check=False)  # fmt: skip
    assert final.returncode == 0, final.stderr
    svc = open_service(repo.root)
    try:
        assert set(commits(svc)) == shas(repo.root, "main", "side", "old")
        assert svc.index_status().commit_history.indexing is False  # type: ignore[union-attr]
    finally:
        svc.dispose()
    assert progress == sorted(progress), progress  # each killed run kept its committed slices
