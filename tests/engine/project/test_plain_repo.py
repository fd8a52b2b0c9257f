"""`is_plain_main_worktree` says True only where `git rev-parse --show-toplevel` names the folder
itself, checked against the real git on real repositories (the start-up budget: one git process less)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.project.git import git_toplevel
from engine.project.locate import open_project
from engine.project.plain_repo import is_plain_main_worktree


def _git_says_top(folder: Path) -> bool:
    top = git_toplevel(folder)
    return top is not None and top.resolve() == folder.resolve()


def test_a_main_worktree_is_plain_and_git_agrees(repo: Any) -> None:
    repo.commit("first")
    assert is_plain_main_worktree(repo.root)
    assert _git_says_top(repo.root)
    assert open_project(repo.root).is_git


def test_an_empty_repository_is_plain_too(repo: Any) -> None:
    assert is_plain_main_worktree(repo.root)
    assert _git_says_top(repo.root)


def test_a_linked_worktree_subfolder_or_plain_folder_asks_git(repo: Any, tmp_path: Path) -> None:
    repo.commit("first")
    lane = repo.root.parent / "lane-b"
    repo.git("worktree", "add", "-q", "-b", "b", str(lane))
    sub = repo.root / "pkg"
    sub.mkdir()
    plain = tmp_path / "plain"
    plain.mkdir()
    for folder in (lane, sub, plain):
        assert not is_plain_main_worktree(folder), folder
    # ...and the project still says what git says.
    assert (open_project(lane).is_git, open_project(sub).is_git) == (True, True)
    assert open_project(plain).is_git is False


def test_a_moved_work_tree_or_a_broken_git_folder_asks_git(repo: Any, tmp_path: Path) -> None:
    repo.commit("first")
    repo.git("config", "core.worktree", str(tmp_path))
    assert not is_plain_main_worktree(repo.root)
    fake = tmp_path / "fake"
    (fake / ".git").mkdir(parents=True)
    (fake / ".git" / "HEAD").write_text("garbage\n")
    assert not is_plain_main_worktree(fake)
    assert open_project(fake).is_git is (git_toplevel(fake) is not None)


def test_git_dir_in_the_environment_asks_git(repo: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_DIR", str(repo.root / ".git"))
    assert not is_plain_main_worktree(repo.root)
