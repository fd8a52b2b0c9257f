"""Fixtures for the project reader tests: real git repositories and real ``.ade/`` folders."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.project.model import Project
from engine.project.tally import WarningTally

BASE_EPOCH = 1_780_000_000
"""A fixed committer clock (2026-05-28) so commit times and order are deterministic."""


class Repo:
    """A real git repository in a temporary folder, committed to with a fixed clock."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.home = home
        self.tick = 0

    def env(self, when: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        env.update(
            HOME=str(self.home),
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="Ada Lovelace",
            GIT_AUTHOR_EMAIL="ada@example.com",
            GIT_COMMITTER_NAME="Ada Lovelace",
            GIT_COMMITTER_EMAIL="ada@example.com",
        )
        if when is not None:
            env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
        return env

    def git(self, *args: str, cwd: Path | None = None) -> str:
        return subprocess.run(
            ["git", *args],
            cwd=cwd or self.root,
            env=self.env(),
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def commit(self, subject: str, body: str = "", cwd: Path | None = None) -> str:
        """An empty commit one minute after the previous one; returns its sha."""
        self.tick += 1
        when = f"@{BASE_EPOCH + 60 * self.tick} +0200"
        message = subject if not body else f"{subject}\n\n{body}"
        subprocess.run(
            ["git", "commit", "-q", "--allow-empty", "-m", message],
            cwd=cwd or self.root,
            env=self.env(when),
            check=True,
            capture_output=True,
        )
        return self.git("rev-parse", "HEAD", cwd=cwd).strip()


@pytest.fixture
def make_repo(tmp_path: Path) -> Callable[[str], Repo]:
    home = tmp_path / "home"
    home.mkdir()

    def make(name: str) -> Repo:
        root = tmp_path / name
        root.mkdir(parents=True)
        repo = Repo(root, home)
        repo.git("init", "-q", "-b", "main")
        return repo

    return make


@pytest.fixture
def repo(make_repo: Callable[[str], Repo]) -> Repo:
    return make_repo("repo")


@pytest.fixture
def tally() -> WarningTally:
    return WarningTally()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    """A non-git project folder for the pure ``.ade/`` readers (no discovery)."""
    root = tmp_path / "proj"
    root.mkdir()
    return Project(root=root, id="p1", name="proj", is_git=False)


def _write_json(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


@pytest.fixture
def write_json() -> Any:
    """``write_json(path, value)``: a dict/list is dumped as JSON, a str is written raw."""
    return _write_json
