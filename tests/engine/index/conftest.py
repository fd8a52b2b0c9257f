"""Fixtures of the index and query tests: a real index file in ``tmp_path``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

# Test modules import ``index_helpers`` by name whatever the pytest import mode.
sys.path.insert(0, str(Path(__file__).parent))

import apsw
import pytest

from engine.index.db import connect, open_index
from engine.index.writer import IndexWriter
from engine.project.model import Project


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    return tmp_path / ".ade" / "cache" / "search-index.db"


@pytest.fixture
def conn(index_path: Path) -> Iterator[apsw.Connection]:
    open_index(index_path)
    c = connect(index_path)
    yield c
    c.close()


@pytest.fixture
def writer(index_path: Path) -> Iterator[IndexWriter]:
    """The index's writer (``engine.index.writer``), its connection open."""
    w = IndexWriter(index_path)
    w.connection()
    yield w
    w.close()


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, id="proj1", name="proj", is_git=False)
