"""Fixtures for importer tests: a real git repository with a linked worktree."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest


def git(cwd: Path, *args: str) -> str:
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
