from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.errors import ProjectError
from engine.project.locate import default_project_id, open_project
from engine.project.tally import WarningTally


def test_default_identity_from_realpath(tmp_path: Path) -> None:
    folder = tmp_path / "My Project"
    folder.mkdir()
    project = open_project(folder)
    expected = hashlib.sha256(os.path.realpath(folder).encode()).hexdigest()[:12]
    assert (project.id, project.name, project.root, project.is_git) == (
        expected,
        "My Project",
        folder.resolve(),
        False,
    )
    assert project.ade_dir == folder.resolve() / ".ade"


def test_symlinked_path_has_the_same_identity(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert open_project(link).id == open_project(real).id == default_project_id(real)


def test_project_json_identity(tmp_path: Path, write_json: Any) -> None:
    write_json(tmp_path / ".ade" / "project.json", {"id": "proj-42", "name": "  Widgets  "})
    project = open_project(tmp_path)
    assert (project.id, project.name) == ("proj-42", "Widgets")


@pytest.mark.parametrize(
    ("content", "bad_id", "bad_name"),
    [
        ({"id": "../../etc", "name": 7}, True, True),
        ({"id": "", "name": ""}, True, True),
        ({"id": 12, "name": "ok\x00name"}, True, True),
        ({"id": "x" * 129}, True, False),
        ({"name": "Fine"}, False, False),
    ],
)
def test_project_json_bad_fields_fall_back(
    tmp_path: Path, write_json: Any, content: dict[str, Any], bad_id: bool, bad_name: bool
) -> None:
    write_json(tmp_path / ".ade" / "project.json", content)
    tally = WarningTally()
    project = open_project(tmp_path, tally)
    assert (project.id == default_project_id(tmp_path)) == ("id" not in content or bad_id)
    if bad_name:
        assert project.name == tmp_path.name
    assert tally.total() == int(bad_id) + int(bad_name)


@pytest.mark.parametrize("raw", ["not json {", "[1, 2]", "NaN", ""])
def test_project_json_garbage_falls_back_and_counts(
    tmp_path: Path, write_json: Any, raw: str
) -> None:
    write_json(tmp_path / ".ade" / "project.json", raw)
    tally = WarningTally()
    project = open_project(tmp_path, tally)
    assert (project.id, project.name) == (default_project_id(tmp_path), tmp_path.name)
    assert tally.snapshot() == {"project": 1}


def test_missing_path_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="not found") as info:
        open_project(tmp_path / "nowhere")
    assert "\n" not in str(info.value)


def test_file_is_not_a_project(tmp_path: Path) -> None:
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(ProjectError, match="not a folder"):
        open_project(file)


def test_default_is_git_toplevel_of_cwd(repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = repo.root / "src" / "deep"
    sub.mkdir(parents=True)
    monkeypatch.chdir(sub)
    project = open_project()
    assert (project.root, project.is_git, project.name) == (repo.root.resolve(), True, "repo")


def test_default_in_a_plain_repository_starts_no_git(
    repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cwd's main worktree is told by plain checks (``plain_repo``), as the daemon-answered
    search tells it: no ``git rev-parse`` process (two of them, ~5 ms, on main 7af7cae)."""
    sub = repo.root / "src" / "deep"
    sub.mkdir(parents=True)
    shims, log = tmp_path / "shims", tmp_path / "git-calls"
    shims.mkdir()
    real = shutil.which("git")
    (shims / "git").write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real} "$@"\n')
    (shims / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(sub)
    project = open_project()
    assert (project.root, project.is_git) == (repo.root.resolve(), True)
    assert not log.exists(), log.read_text()
    monkeypatch.chdir(repo.root / ".git")  # inside the git folder: git decides (not a work tree)
    assert open_project().root == (repo.root / ".git").resolve()
    assert "rev-parse" in log.read_text()


def test_default_outside_git_is_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    project = open_project()
    assert (project.root, project.is_git) == (tmp_path.resolve(), False)


def test_explicit_subfolder_of_a_repo_is_taken_as_given(repo: Any) -> None:
    sub = repo.root / "pkg"
    sub.mkdir()
    project = open_project(sub)
    assert (project.root, project.is_git) == (sub.resolve(), True)


def test_default_from_a_linked_worktree_is_the_main_worktree(
    repo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every lane shares the primary lane's project (one `.ade/`, one index)."""
    repo.commit("first")
    lane = repo.root.parent / "lanes" / "search-index"
    repo.git("worktree", "add", "-q", "-b", "search-index", str(lane))
    sub = lane / "src" / "deep"
    sub.mkdir(parents=True)
    for where in (lane, sub):
        monkeypatch.chdir(where)
        project = open_project()
        assert (project.root, project.is_git) == (repo.root.resolve(), True)
        assert project.id == default_project_id(repo.root)


def test_explicit_linked_worktree_still_wins(repo: Any) -> None:
    repo.commit("first")
    lane = repo.root.parent / "lane-b"
    repo.git("worktree", "add", "-q", "-b", "b", str(lane))
    assert open_project(lane).root == lane.resolve()


def test_worktree_of_a_bare_repository_is_its_own_project(
    repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.commit("first")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    lane = tmp_path / "from-bare"
    repo.git("--git-dir", str(bare), "worktree", "add", "-q", "-b", "x", str(lane))
    monkeypatch.chdir(lane)
    assert open_project().root == lane.resolve()
