"""Fixtures shared by the whole suite.

``demo_project``: the deterministic demo (``ade demo``) built once per test session. Treat it as
read-only; a test that writes (an index in ``.ade/cache``, new transcript lines…) must copy it
first, e.g. ``shutil.copytree(demo_project, tmp_path / "demo", symlinks=True)``.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.demo import build_demo
from engine.demo.copy import copy_demo


@pytest.fixture(scope="session")
def demo_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Root of a freshly built demo project (a git repo with worktrees and a full ``.ade/``)."""
    root = tmp_path_factory.mktemp("demo") / "ade-demo"
    build_demo(root)
    return root


@pytest.fixture
def demo_copy(demo_project: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the demo whose linked worktrees point at the copy."""
    return copy_demo(demo_project, tmp_path / "ade-demo")


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` with a fixed identity and no user or system config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Ada",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada",
        GIT_COMMITTER_EMAIL="ada@example.com",
        HOME=str(cwd),
    )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository ``proj`` with one commit and a linked worktree ``proj-wt/feature-x``."""
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README").write_text("hi\n")
    git(root, "add", "README")
    git(root, "commit", "-q", "-m", "first")
    git(root, "worktree", "add", "-q", "-b", "feature-x", str(tmp_path / "proj-wt" / "feature-x"))
    return root
