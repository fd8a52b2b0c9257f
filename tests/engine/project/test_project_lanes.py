from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from engine.project.git import Worktree
from engine.project.lanes import lanes_from_worktrees, list_lanes
from engine.project.locate import open_project
from engine.project.model import Lane, Project
from engine.project.tally import WarningTally


def test_lanes_from_real_worktrees(repo: Any, tmp_path: Path, tally: WarningTally) -> None:
    repo.commit("base")
    repo.git("worktree", "add", "-q", "-b", "feat-login", str(tmp_path / "login"))
    repo.git("worktree", "add", "-q", "--detach", str(tmp_path / "scratch"))
    lanes = list_lanes(open_project(repo.root), tally)
    assert [(lane.id, lane.name, lane.branch, lane.primary) for lane in lanes] == [
        ("primary", "repo", "main", True),
        ("login", "login", "feat-login", False),
        ("scratch", "scratch", None, False),
    ]
    assert lanes[1].path == tmp_path / "login"
    assert tally.total() == 0


def test_colliding_folder_names_disambiguated(
    repo: Any, tmp_path: Path, tally: WarningTally
) -> None:
    repo.commit("base")
    for folder in ("b/feat", "a/feat", "c/primary"):
        repo.git("worktree", "add", "-q", "--detach", str(tmp_path / folder))
    project = open_project(repo.root)
    ids = {lane.path: lane.id for lane in list_lanes(project, tally)}
    assert ids[tmp_path / "a" / "feat"] == "feat"
    assert ids[tmp_path / "b" / "feat"] == "feat-2"
    assert ids[tmp_path / "c" / "primary"] == "primary-2"
    assert ids[repo.root] == "primary"
    # Same answer on every call: ids are derived from paths, not from git's listing order.
    assert {lane.path: lane.id for lane in list_lanes(project, tally)} == ids


def test_collision_ids_do_not_depend_on_listing_order(tally: WarningTally) -> None:
    main = Worktree(Path("/r"), "a" * 40, "main", is_main=True)
    linked = [
        Worktree(Path(p), "b" * 40, None, is_main=False) for p in ("/z/feat", "/a/feat", "/m/feat")
    ]
    forward = lanes_from_worktrees([main, *linked], tally)
    backward = lanes_from_worktrees([main, *reversed(linked)], tally)
    assert {lane.path: lane.id for lane in forward} == {lane.path: lane.id for lane in backward}
    assert {str(lane.path): lane.id for lane in forward} == {
        "/r": "primary",
        "/a/feat": "feat",
        "/m/feat": "feat-2",
        "/z/feat": "feat-3",
    }


def test_bare_and_missing_worktrees_are_skipped_and_counted(tally: WarningTally) -> None:
    trees = [
        Worktree(Path("/r"), "a" * 40, "main", is_main=True),
        Worktree(Path("/gone"), "b" * 40, "x", is_main=False, prunable=True),
    ]
    assert [lane.id for lane in lanes_from_worktrees(trees, tally)] == ["primary"]
    assert tally.snapshot() == {"lanes": 1}


def test_deleted_worktree_folder(repo: Any, tmp_path: Path, tally: WarningTally) -> None:
    repo.commit("base")
    repo.git("worktree", "add", "-q", "--detach", str(tmp_path / "gone"))
    shutil.rmtree(tmp_path / "gone")
    lanes = list_lanes(open_project(repo.root), tally)
    assert [lane.id for lane in lanes] == ["primary"]
    assert tally.snapshot() == {"lanes": 1}


def test_lanes_json_wins(repo: Any, write_json: Any, tally: WarningTally) -> None:
    repo.commit("base")
    write_json(
        repo.root / ".ade" / "lanes.json",
        [
            {"id": "ui", "name": "UI work", "path": "lanes/ui", "branch": "ui", "primary": False},
            {
                "id": "main",
                "name": "Main",
                "path": str(repo.root),
                "branch": "main",
                "primary": True,
            },
            {"id": "ui", "name": "duplicate"},
            {"id": 5},
            "not an object",
            {"name": "no id"},
        ],
    )
    lanes = list_lanes(open_project(repo.root), tally)
    assert lanes == [
        Lane("main", "Main", repo.root, "main", True),
        Lane("ui", "UI work", repo.root.resolve() / "lanes/ui", "ui", False),
    ]
    assert tally.snapshot() == {"lanes": 4}


def test_lanes_json_object_form_without_git(project: Project, write_json: Any) -> None:
    write_json(project.ade_dir / "lanes.json", {"lanes": [{"id": "only", "primary": True}]})
    tally = WarningTally()
    assert list_lanes(project, tally) == [Lane("only", "only", project.root, None, True)]


def test_garbage_lanes_json_falls_back_to_worktrees(
    repo: Any, write_json: Any, tally: WarningTally
) -> None:
    repo.commit("base")
    write_json(repo.root / ".ade" / "lanes.json", "{ not json")
    lanes = list_lanes(open_project(repo.root), tally)
    assert [lane.id for lane in lanes] == ["primary"]
    assert tally.snapshot() == {"lanes": 1}


def test_not_git_and_no_lanes_json(project: Project, tally: WarningTally) -> None:
    assert list_lanes(project, tally) == []
    assert tally.total() == 0


def test_git_without_ade_folder(repo: Any, tally: WarningTally) -> None:
    repo.commit("base")
    project = open_project(repo.root)
    assert not project.ade_dir.exists()
    assert [lane.id for lane in list_lanes(project, tally)] == ["primary"]
