"""Fixtures for ingestion tests: a small real project in ``tmp_path`` (a git repo with ``.ade/``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from ingest_support import NOW, ProjectWriter, _git

from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.project.model import Project
from engine.service import SearchService
from engine.wiring import create_project_service


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    return root


@pytest.fixture
def writer(project_root: Path) -> ProjectWriter:
    return ProjectWriter(project_root)


@pytest.fixture
def project(project_root: Path) -> Project:
    return open_project(project_root)


@pytest.fixture
def timers() -> ManualTimerFactory:
    return ManualTimerFactory()


@pytest.fixture
def service(project: Project, timers: ManualTimerFactory) -> Iterator[SearchService]:
    svc = create_project_service(project, clock=lambda: NOW, timer=timers, start_worker=False)
    yield svc
    svc.dispose()
