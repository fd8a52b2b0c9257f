"""``engine.project.worktree_memo``: the worktree list outlives the command, never a change git sees."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.project.git import GitError, Worktree, worktrees
from engine.project.model import Project
from engine.project.worktree_memo import CACHE_NAME, remembered_worktrees


@pytest.fixture
def lanes_repo(make_repo: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Project]:
    """A real repository with one commit and a linked worktree, and the home git reads."""
    repo = make_repo("repo")
    repo.commit("first")
    repo.git("worktree", "add", "-q", "-b", "feat", str(repo.root / ".worktrees" / "feat"))
    (repo.root / ".ade" / "cache").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(repo.home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for name in ("XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    return repo, Project(root=repo.root, id="p", name="repo", is_git=True)


def _lanes_of(trees: list[Worktree]) -> list[tuple[str, str | None, bool, bool, bool]]:
    """What lanes are made of (``head`` is not remembered)."""
    return [(str(t.path), t.branch, t.is_main, t.bare, t.prunable) for t in trees]


def _matches_git(project: Project) -> None:
    assert _lanes_of(remembered_worktrees(project)) == _lanes_of(worktrees(project.root))


def _without_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    empty = tmp_path / "no-git"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))


def test_the_next_command_lists_without_git(
    lanes_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, project = lanes_repo
    first = _lanes_of(remembered_worktrees(project))
    assert [(Path(path).name, branch) for path, branch, *_ in first] == [
        ("repo", "main"),
        ("feat", "feat"),
    ]
    assert (project.cache_dir / CACHE_NAME).is_file()
    _without_git(monkeypatch, tmp_path)
    assert _lanes_of(remembered_worktrees(project)) == first


def test_every_change_git_would_list_is_seen(lanes_repo: tuple[Any, Project]) -> None:
    repo, project = lanes_repo
    _matches_git(project)
    repo.git("checkout", "-q", "-b", "other")  # the main worktree's branch
    _matches_git(project)
    repo.git("checkout", "-q", "--detach", cwd=repo.root / ".worktrees" / "feat")
    _matches_git(project)
    repo.git("worktree", "add", "-q", "-b", "second", str(repo.root / ".worktrees" / "second"))
    _matches_git(project)
    shutil.rmtree(repo.root / ".worktrees" / "second")  # its folder gone: prunable
    assert _lanes_of(remembered_worktrees(project))[-1][-1] is True
    _matches_git(project)
    repo.git("worktree", "lock", str(repo.root / ".worktrees" / "second"))  # locked: not prunable
    _matches_git(project)
    repo.git("worktree", "unlock", str(repo.root / ".worktrees" / "second"))
    repo.git("worktree", "prune")
    _matches_git(project)
    repo.git("config", "core.bare", "true")
    _matches_git(project)


def test_git_variables_or_a_linked_project_always_ask_git(
    lanes_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, project = lanes_repo
    remembered_worktrees(project)
    linked = Project(root=repo.root / ".worktrees" / "feat", id="f", name="feat", is_git=True)
    (linked.cache_dir).mkdir(parents=True)
    remembered_worktrees(linked)
    assert not (linked.cache_dir / CACHE_NAME).exists()  # its .git is a file
    _without_git(monkeypatch, tmp_path)
    monkeypatch.setenv("GIT_DIR", str(repo.root / ".git"))
    with pytest.raises(GitError):
        remembered_worktrees(project)


def test_a_failing_git_is_not_remembered(
    lanes_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, project = lanes_repo
    _without_git(monkeypatch, tmp_path)
    with pytest.raises(GitError):
        remembered_worktrees(project)
    assert not (project.cache_dir / CACHE_NAME).exists()


def test_a_damaged_cache_lists_again(lanes_repo: tuple[Any, Project]) -> None:
    _, project = lanes_repo
    remembered_worktrees(project)
    (project.cache_dir / CACHE_NAME).write_text('{"signature": 1, "worktrees": [{"path": 3}]')
    _matches_git(project)


def test_a_process_answers_from_memory_while_the_signature_holds(
    lanes_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon asks on every answer: the stored file is not read again (nor git asked)
    while git's files stand still; a change is still seen."""
    repo, project = lanes_repo
    first = _lanes_of(remembered_worktrees(project))
    (project.cache_dir / CACHE_NAME).unlink()
    with monkeypatch.context() as patched:
        _without_git(patched, tmp_path)
        assert _lanes_of(remembered_worktrees(project)) == first
    assert not (project.cache_dir / CACHE_NAME).exists()
    repo.git("worktree", "add", "-q", "-b", "third", str(repo.root / ".worktrees" / "third"))
    _matches_git(project)
    assert len(remembered_worktrees(project)) == len(first) + 1
