"""Session files are read again only when they changed (``engine.project.sessions._memo``): a
reconcile lists every session to find the one that changed, and a search right after a write
reconciles. A rewrite, a replaced file and a file written within the racy window are read anew."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

import engine.project.sessions as sessions
from engine.project.model import Project
from engine.project.sessions import list_sessions
from engine.project.tally import WarningTally

RECORD: dict[str, Any] = {
    "id": "s1",
    "kind": "chat",
    "title": "Fix login",
    "laneId": None,
    "createdAt": "2026-05-01T10:00:00+00:00",
    "updatedAt": "2026-05-01T11:00:00+00:00",
    "endedAt": None,
}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The session files read from disk, in order; the clock one hour ahead (none is racy)."""
    seen: list[str] = []
    real = sessions.read_json_object

    def spy(path: Path, *args: Any) -> Any:
        seen.append(path.name)
        return real(path, *args)

    monkeypatch.setattr(sessions, "read_json_object", spy)
    monkeypatch.setattr(sessions, "now_ns", lambda: time.time_ns() + 3600 * 10**9)
    monkeypatch.setattr(sessions, "_memo", {})
    return seen


def _titles(project: Project) -> list[str]:
    return [m.title for m in list_sessions(project, WarningTally())]


def _write(project: Project, sid: str, title: str) -> Path:
    path = project.ade_dir / "sessions" / f"{sid}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({**RECORD, "id": sid, "title": title}))
    return path


def test_an_unchanged_session_file_is_not_read_again(project: Project, reads: list[str]) -> None:
    _write(project, "s1", "first")
    _write(project, "s2", "second")
    assert _titles(project) == ["first", "second"]
    assert _titles(project) == ["first", "second"]
    assert reads == ["s1.json", "s2.json"]


def test_a_rewritten_session_file_is_read_again(project: Project, reads: list[str]) -> None:
    path = _write(project, "s1", "first")
    assert _titles(project) == ["first"]
    _write(project, "s1", "renamed by the agent")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # even a same-size rewrite
    assert _titles(project) == ["renamed by the agent"]
    assert reads == ["s1.json", "s1.json"]


def test_a_file_written_within_the_racy_window_is_read_again(
    project: Project, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _write(project, "s1", "first")
    monkeypatch.setattr(sessions, "now_ns", lambda: path.stat().st_mtime_ns)
    assert _titles(project) == ["first"]
    assert _titles(project) == ["first"]
    assert reads == ["s1.json", "s1.json"]


def test_a_session_file_replaced_by_a_symlink_is_read_through_the_bounds_check(
    project: Project, reads: list[str], tmp_path: Path
) -> None:
    path = _write(project, "s1", "first")
    assert _titles(project) == ["first"]
    outside = tmp_path / "outside.json"
    outside.write_text(path.read_text())
    path.unlink()
    path.symlink_to(outside)
    assert _titles(project) == []  # a symlink out of the project is refused, not remembered
