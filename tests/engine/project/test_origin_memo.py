"""``engine.project.origin_memo``: the origin slug outlives the command, never git's config."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from engine.project.model import Project
from engine.project.origin_memo import CACHE_NAME, remembered_origin


@pytest.fixture
def origin_repo(
    make_repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, Project]:
    """A real repository whose origin is on GitHub, and the home whose config git reads."""
    repo = make_repo("repo")
    repo.git("remote", "add", "origin", "git@github.com:acme/widgets.git")
    (repo.root / ".ade" / "cache").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(repo.home))  # the engine's git reads this home's config
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return repo, Project(root=repo.root, id="p", name="repo", is_git=True)


def _without_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A PATH with no git on it: an answer now can only come from the cache."""
    empty = tmp_path / "no-git"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))


def test_the_next_command_answers_without_git(
    origin_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, project = origin_repo
    assert remembered_origin(project) == "acme/widgets"
    assert (project.cache_dir / CACHE_NAME).is_file()
    _without_git(monkeypatch, tmp_path)
    assert remembered_origin(project) == "acme/widgets"


def test_a_changed_remote_is_asked_again(origin_repo: tuple[Any, Project]) -> None:
    repo, project = origin_repo
    assert remembered_origin(project) == "acme/widgets"
    repo.git("remote", "set-url", "origin", "https://github.com/acme/gadgets.git")
    assert remembered_origin(project) == "acme/gadgets"
    repo.git("remote", "remove", "origin")
    assert remembered_origin(project) is None


def test_a_changed_user_config_is_asked_again(origin_repo: tuple[Any, Project]) -> None:
    """``url.<base>.insteadOf`` in ~/.gitconfig rewrites the remote: git's answer changes though
    the repository's own config did not."""
    repo, project = origin_repo
    assert remembered_origin(project) == "acme/widgets"
    with (repo.home / ".gitconfig").open("a") as config:
        config.write('[url "https://github.com/mirror/"]\n\tinsteadOf = git@github.com:acme/\n')
    assert remembered_origin(project) == "mirror/widgets"


def test_a_config_with_includes_is_never_stored(
    origin_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, project = origin_repo
    included = tmp_path / "included.gitconfig"
    included.write_text("")
    repo.git("config", "include.path", str(included))
    assert remembered_origin(project) == "acme/widgets"
    assert not (project.cache_dir / CACHE_NAME).exists()
    # the included file can rewrite the remote without any file of the signature changing
    included.write_text('[url "https://github.com/mirror/"]\n\tinsteadOf = git@github.com:acme/\n')
    assert remembered_origin(project) == "mirror/widgets"


def test_a_damaged_or_missing_cache_only_costs_a_git_call(
    origin_repo: tuple[Any, Project],
) -> None:
    _, project = origin_repo
    (project.cache_dir / CACHE_NAME).write_bytes(b"\xff{not json")
    assert remembered_origin(project) == "acme/widgets"  # asked, and stored again
    assert b"acme/widgets" in (project.cache_dir / CACHE_NAME).read_bytes()
    shutil.rmtree(project.cache_dir)  # no cache folder: nothing can be stored, git answers
    assert remembered_origin(project) == "acme/widgets"
    assert not project.cache_dir.exists()


def test_a_failed_git_is_not_remembered(
    origin_repo: tuple[Any, Project], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git missing (or timing out) says nothing about the remote: the next command asks again,
    while "no origin" is an answer like any URL."""
    repo, project = origin_repo
    path = os.environ["PATH"]
    _without_git(monkeypatch, tmp_path)
    assert remembered_origin(project) is None
    assert not (project.cache_dir / CACHE_NAME).exists()
    monkeypatch.setenv("PATH", path)
    assert remembered_origin(project) == "acme/widgets"
    repo.git("remote", "remove", "origin")
    assert remembered_origin(project) is None
    _without_git(monkeypatch, tmp_path)
    assert remembered_origin(project) is None  # from the cache: no git to ask
    assert b'"slug": null' in (project.cache_dir / CACHE_NAME).read_bytes()
