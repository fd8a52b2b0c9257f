"""A lane git still records whose folder was deleted (``git worktree add``, then ``rm -r``):
``lane:<it>`` is no usage error; its indexed chats and terminals are found, no source reads its
folder, and the answer says once that the folder is gone."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from engine.errors import UsageError
from engine.ingest.timers import ManualTimerFactory
from engine.project.lanes import gone_lanes, list_lanes
from engine.project.model import Project
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs, SearchQueryResult
from engine.wiring import create_project_service
from tests.engine.query.conftest import NOW, _git, build_world


def _terminal(project: Project, sid: str, lane: str, text: str) -> None:
    meta = {"id": sid, "kind": "terminal", "title": f"Terminal {sid}", "laneId": lane,
            "createdAt": "2026-06-01T09:00:00+00:00",
            "updatedAt": "2026-06-01T09:00:00+00:00"}  # fmt: skip
    (project.ade_dir / "sessions" / f"{sid}.json").write_text(json.dumps(meta), encoding="utf-8")
    folder = project.ade_dir / "terminals"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{sid}.log").write_bytes(f"$ make\r\n{text}\r\n".encode())


def _search(project: Project, query: str) -> SearchQueryResult:
    service = create_project_service(
        project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()
        return service.query(SearchQueryArgs(query=query, limit=50))
    finally:
        service.dispose()


def _sessions(result: SearchQueryResult) -> set[tuple[str, str]]:
    """(kind, session id) of the chat and terminal hits."""
    return {(item.kind, item.doc_id.split(":")[1].split("@")[0]) for item in result.items
            if item.kind in ("chat", "terminal")}  # fmt: skip


@pytest.fixture
def gone(tmp_path: Path) -> Project:
    """The query world with a terminal in lane ``alpha``, indexed, then alpha's folder deleted."""
    project, _ = build_world(tmp_path)
    _terminal(project, "t1", "alpha", "flamingo build finished")
    assert _sessions(_search(project, "flamingo lane:alpha")) == {
        ("chat", "s1"),
        ("terminal", "t1"),
    }
    shutil.rmtree(tmp_path / "lanes" / "alpha")
    return project


def test_a_lane_whose_folder_is_gone_still_finds_its_sessions(gone: Project) -> None:
    result = _search(gone, "flamingo lane:alpha")
    assert _sessions(result) == {("chat", "s1"), ("terminal", "t1")}
    # What lives in .ade/ (its artifact) is found too; nothing that reads its folder (files).
    assert {item.kind for item in result.items} == {"chat", "terminal", "artifact"}
    folder = gone.root.parent / "lanes" / "alpha"
    # One warning: neither the history's note on the folder nor the lane listing's count of a
    # missing worktree says it again.
    assert [w for w in result.warnings if "alpha" in w or "worktree" in w] == [
        f"lane alpha: its folder {folder} is gone"
    ]


def test_a_lane_nobody_records_is_still_a_usage_error(gone: Project) -> None:
    with pytest.raises(UsageError, match="unknown lane 'nosuch'; lanes: primary, beta"):
        _search(gone, "flamingo lane:nosuch")


def test_the_other_lanes_answer_as_before(gone: Project) -> None:
    result = _search(gone, "flamingo lane:beta")
    assert {item.doc_id for item in result.items} >= {"chat:s2:mB"}
    assert not [w for w in result.warnings if w.startswith("lane ")]  # the history note stays


def test_a_deleted_folder_moves_no_other_lane_id(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "commit", "-q", "--allow-empty", "-m", "first")
    for side in ("a", "b"):
        _git(root, "worktree", "add", "-q", "-b", f"feat-{side}", str(tmp_path / side / "feat"))
    from engine.project.locate import open_project

    project = open_project(root)
    before = {lane.id: lane.path for lane in list_lanes(project, WarningTally())}
    assert before["feat"] == tmp_path / "a" / "feat"
    assert before["feat-2"] == tmp_path / "b" / "feat"
    shutil.rmtree(tmp_path / "a" / "feat")
    assert subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=root,
                          capture_output=True, text=True, check=True).stdout.count("prunable") == 1  # fmt: skip
    tally = WarningTally()
    after = {lane.id: lane.path for lane in list_lanes(project, tally)}
    assert after == {"primary": before["primary"], "feat-2": before["feat-2"]}
    assert [(lane.id, lane.path) for lane in gone_lanes(project)] == [("feat", before["feat"])]
    assert tally.snapshot() == {"lanes": 1}  # "skipped missing worktree", as before
