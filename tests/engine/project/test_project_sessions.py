from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from engine.project.model import Project
from engine.project.sessions import list_sessions, read_session
from engine.project.tally import WarningTally

GOOD: dict[str, Any] = {
    "id": "s1",
    "kind": "chat",
    "title": "Fix login",
    "laneId": "primary",
    "createdAt": "2026-05-01T10:00:00+02:00",
    "updatedAt": "2026-05-01T11:00:00Z",
    "endedAt": None,
    "archived": False,
    "tool": "claude",
    "command": None,
}


def _write(project: Project, write_json: Any, name: str, value: Any) -> Path:
    path: Path = write_json(project.ade_dir / "sessions" / f"{name}.json", value)
    return path


def test_reads_every_field(project: Project, write_json: Any, tally: WarningTally) -> None:
    _write(project, write_json, "s1", GOOD)
    term = {
        **GOOD,
        "id": "t.2",
        "kind": "terminal",
        "command": "pytest -x",
        "endedAt": "2026-05-01T12:00:00+00:00",
        "archived": True,
        "exitCode": 1,
    }
    _write(project, write_json, "t.2", term)
    chat, terminal = list_sessions(project, tally)
    assert chat.id == "s1"
    assert chat.kind == "chat"
    assert chat.lane_id == "primary"
    assert chat.created_at == datetime(2026, 5, 1, 10, tzinfo=timezone(timedelta(hours=2)))
    assert chat.updated_at == datetime(2026, 5, 1, 11, tzinfo=UTC)
    assert (chat.ended_at, chat.archived, chat.tool, chat.source) == (None, False, "claude", "ade")
    assert (terminal.kind, terminal.command, terminal.archived, terminal.exit_code) == (
        "terminal",
        "pytest -x",
        True,
        1,
    )
    assert terminal.ended_at is not None
    assert terminal.ended_at.tzinfo is not None
    assert tally.total() == 0
    assert read_session(project, "s1") == chat


@pytest.mark.parametrize(
    "patch",
    [
        {"createdAt": "2026-13-01T10:00:00Z"},  # no 13th month (a naive time is UTC)
        {"updatedAt": "2026-05-01 25:00"},
        {"endedAt": "yesterday"},
        {"createdAt": None},
        {"kind": "video"},
        {"id": "other"},
        {"archived": "yes"},
        {"exitCode": True},
        {"title": 5},
    ],
)
def test_malformed_records_are_counted(
    project: Project, write_json: Any, tally: WarningTally, patch: dict[str, Any]
) -> None:
    _write(project, write_json, "s1", {**GOOD, **patch})
    assert list_sessions(project, tally) == []
    assert read_session(project, "s1") is None
    assert tally.snapshot() == {"sessions": 1}


def test_bad_json_and_non_objects_counted(
    project: Project, write_json: Any, tally: WarningTally
) -> None:
    _write(project, write_json, "a", "{ broken")
    _write(project, write_json, "b", "[1, 2]")
    _write(project, write_json, "c", {**GOOD, "id": "c"})
    (project.ade_dir / "sessions" / "README.txt").write_text("not a session")
    assert [s.id for s in list_sessions(project, tally)] == ["c"]
    assert tally.snapshot() == {"sessions": 2}


def test_bad_file_names_rejected(project: Project, write_json: Any, tally: WarningTally) -> None:
    _write(project, write_json, "has space", {**GOOD, "id": "has space"})
    _write(project, write_json, "x" * 129, {**GOOD, "id": "x" * 129})
    _write(project, write_json, "ok", {**GOOD, "id": "ok"})
    assert [s.id for s in list_sessions(project, tally)] == ["ok"]
    assert tally.snapshot() == {"sessions": 2}


@pytest.mark.parametrize("sid", ["../x", "", "x" * 129, "a\x00b", ".", "..", "a/b", "é"])
def test_read_session_rejects_bad_ids_before_touching_disk(
    tmp_path: Path, write_json: Any, sid: str
) -> None:
    # A session file outside .ade/sessions that "../x" would reach if the id were not checked.
    project = Project(root=tmp_path / "proj", id="p", name="proj", is_git=False)
    write_json(tmp_path / "proj" / ".ade" / "x.json", {**GOOD, "id": "../x"})
    assert read_session(project, sid) is None


def test_read_session_max_length_id_ok(project: Project, write_json: Any) -> None:
    sid = "a" * 128
    _write(project, write_json, sid, {**GOOD, "id": sid})
    meta = read_session(project, sid)
    assert meta is not None
    assert meta.id == sid


def test_missing_folder_and_missing_session(project: Project, tally: WarningTally) -> None:
    assert list_sessions(project, tally) == []
    assert read_session(project, "nope") is None
    assert tally.total() == 0


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file_counted(project: Project, write_json: Any, tally: WarningTally) -> None:
    path = _write(project, write_json, "s1", GOOD)
    path.chmod(0)
    assert list_sessions(project, tally) == []
    assert tally.snapshot() == {"sessions": 1}


def test_unreadable_as_directory_counted(project: Project, tally: WarningTally) -> None:
    # A directory named like a session file cannot be read as one (works as root too).
    (project.ade_dir / "sessions" / "s1.json").mkdir(parents=True)
    assert list_sessions(project, tally) == []
    assert tally.snapshot() == {"sessions": 1}


def test_a_running_terminal_is_as_old_as_its_last_write(demo_copy: Path) -> None:
    """The session file of a running terminal keeps its start; the transcript's
    last write is when it last printed. An ended session keeps its own ``updatedAt``."""
    from engine.demo import DEMO_NOW
    from engine.project.locate import open_project

    project = open_project(demo_copy)
    before = {s.id: s for s in list_sessions(project, WarningTally())}
    running = before["term-dev-server"]
    assert running.ended_at is None
    assert running.updated_at <= DEMO_NOW  # the demo dates its transcripts' mtimes too
    log = demo_copy / ".ade" / "terminals" / "term-dev-server.log"
    with log.open("ab") as out:
        out.write(b"INFO: GET /healthz 200\r\n")
    printed = datetime(2026, 6, 15, 11, 59, 30, tzinfo=UTC)
    os.utime(log, (printed.timestamp(), printed.timestamp()))
    ended = next(s for s in before.values() if s.kind == "terminal" and s.ended_at is not None)
    ended_log = demo_copy / ".ade" / "terminals" / f"{ended.id}.log"
    if ended_log.exists():
        os.utime(ended_log, (printed.timestamp(), printed.timestamp()))
    after = {s.id: s for s in list_sessions(project, WarningTally())}
    assert after["term-dev-server"].updated_at == printed
    assert after[ended.id].updated_at == ended.updated_at
