"""Fixtures shared by the whole suite.

``demo_project``: the deterministic demo (``ade demo``) built once per test session. Treat it as
read-only; a test that writes (an index in ``.ade/cache``, new transcript lines…) must copy it
first, e.g. ``shutil.copytree(demo_project, tmp_path / "demo", symlinks=True)``.
"""

from __future__ import annotations

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
