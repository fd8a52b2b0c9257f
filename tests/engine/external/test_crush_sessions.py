"""Crush sessions read from its per-project databases (``tests/fixtures/agents/crush``, its README
names the sources): the lane's own ``.crush/crush.db`` and a subfolder's registered in
``projects.json``, events with roles, hidden parts and skipped rows counted, rows written later
picked up, the database never written, the resume command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format, format_for_path
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import install_home
from tests.engine.external.fixture_reads import expect, shown

SID = "456f2afe-42ee-48ff-9e4c-1db8a7a868ea"


@pytest.fixture
def installed(tmp_path: Path) -> tuple[dict[str, str], list[Lane], dict[str, Any]]:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    (lane / "pkg").mkdir(parents=True)
    project.mkdir(parents=True)
    home = install_home("crush", tmp_path / "data", project, lane)
    environ = {"HOME": str(tmp_path / "user"), "XDG_DATA_HOME": str(home)}
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    text = json.dumps(expect("crush")).replace("@PROJECT@", str(project))
    return environ, lanes, json.loads(text.replace("@LANE@", str(lane)))


def test_each_lane_database_is_found_and_the_agents_own_sessions_are_not(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]],
) -> None:
    environ, lanes, spec = installed
    fmt = agent_format("crush")
    tally = WarningTally()
    found = fmt.sessions(lanes, tally, environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, str(m.transcript_path)) for m in found}
    want = {(s["id"], s["lane"], s["title"], s["file"]) for s in spec["sessions"]}
    assert got == want  # no task or title session, nothing of /somewhere/else
    assert tally.total() == 0
    for meta in found:
        session = next(s for s in spec["sessions"] if s["id"] == meta.id)
        assert str(fmt.recorded_cwd(meta)) == session["cwd"]
        assert list(fmt.resume_argv(meta) or ()) == session["resume"]
        assert fmt.owns(meta.transcript_path or Path(), environ)
    assert fmt.count_sessions(environ, lanes) == 2
    assert [str(p) for p in fmt.searched(environ, lanes)] == [
        str(Path(s["file"]).parent) for s in spec["sessions"]
    ]


def test_without_projects_json_the_lanes_own_database_is_still_read(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]], tmp_path: Path
) -> None:
    _, lanes, spec = installed
    environ = {"HOME": str(tmp_path / "user"), "XDG_DATA_HOME": str(tmp_path / "none")}
    found = agent_format("crush").sessions(lanes, WarningTally(), environ, HeadCache(None))
    assert [m.id for m in found] == [spec["sessions"][0]["id"]]


def test_crush_global_data_names_the_folder_of_projects_json(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]], tmp_path: Path
) -> None:
    """``CRUSH_GLOBAL_DATA`` is the data folder itself (not a parent of ``crush/``) and wins
    over ``XDG_DATA_HOME``: the subfolder's database registered there is found."""
    environ, lanes, spec = installed
    moved = {"HOME": str(tmp_path / "user"), "XDG_DATA_HOME": str(tmp_path / "none"),
             "CRUSH_GLOBAL_DATA": str(Path(environ["XDG_DATA_HOME"]) / "crush")}  # fmt: skip
    fmt = agent_format("crush")
    found = fmt.sessions(lanes, WarningTally(), moved, HeadCache(None))
    assert {m.id for m in found} == {s["id"] for s in spec["sessions"]}
    assert fmt.watch_roots(moved) == [Path(moved["CRUSH_GLOBAL_DATA"])]


def test_events_have_roles_hidden_parts_never_come_out_and_skips_have_reasons(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]],
) -> None:
    _, _, spec = installed
    fmt = agent_format("crush")
    for session in spec["sessions"]:
        tally = WarningTally()
        events, cut = fmt.derived_events(Path(session["file"]), tally, "chat:s")
        said = [(e.type, shown(e)) for e in events or []]
        assert [t for t, _ in said] == [t for t, _ in session["events"]], said
        for (_, text), (_, word) in zip(said, session["events"], strict=True):
            assert word in text, (text, word)
        for word in session["hidden"]:
            assert all(word not in json.dumps(e.data) for e in events or []), word
        assert (tally.reasons("chat:s"), tally.total(), cut) == (
            session["skips"], session["skipped"], 0
        )  # fmt: skip
        ids = [e.data["id"] for e in events or [] if e.type != "tool_result"]
        assert len(set(ids)) == len(ids)


def test_rows_written_later_are_read_and_the_database_is_never_written(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]],
) -> None:
    environ, lanes, spec = installed
    fmt = agent_format("crush")
    meta = next(
        m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
        if m.id == f"crush-{SID}"
    )  # fmt: skip
    db = (meta.transcript_path or Path()).parent
    held = apsw.Connection(str(db))  # Crush itself, holding the database open in WAL mode
    before = fmt.signature(meta)
    held.execute(
        "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at)"
        " VALUES ('m-09', ?, 'user', ?, 1780308010, 1780308010)",
        (SID, json.dumps([{"type": "text", "data": {"text": "and the agouti lexer"}}])),
    )
    grown = fmt.signature(meta)
    assert grown != before
    events, _ = fmt.derived_events(db / SID, WarningTally(), "chat:s")
    etype, word = spec["append"]
    assert [(e.type, word in e.data["text"]) for e in (events or [])[-1:]] == [(etype, True)]
    # a message streamed: rewritten in place within the same second
    held.execute(
        "UPDATE messages SET parts = ? WHERE id = 'm-09'",
        (json.dumps([{"type": "text", "data": {"text": "and the agouti and paca lexers"}}]),),
    )
    assert fmt.signature(meta) != grown
    events, _ = fmt.derived_events(db / SID, WarningTally(), "chat:s")
    assert (events or [])[-1].data["text"] == "and the agouti and paca lexers"
    held.close()
    stamp = db.stat().st_mtime_ns, db.stat().st_size
    fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    fmt.derived_events(db / SID, WarningTally(), "chat:s")
    assert (db.stat().st_mtime_ns, db.stat().st_size) == stamp


def test_a_database_that_is_no_database_is_counted_not_read(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]],
) -> None:
    environ, lanes, _ = installed
    (lanes[0].path / ".crush" / "crush.db").write_bytes(b"not sqlite at all" * 100)
    tally = WarningTally()
    found = agent_format("crush").sessions(lanes, tally, environ, HeadCache(None))
    assert [m.lane_id for m in found] == ["fix"]
    assert tally.reasons("crush") == {"unreadable": 1}


def test_a_transcript_path_is_told_from_the_other_databases_agents(
    installed: tuple[dict[str, str], list[Lane], dict[str, Any]], tmp_path: Path
) -> None:
    environ, _, spec = installed
    assert format_for_path(Path(spec["sessions"][0]["file"]), environ) is agent_format("crush")
    goose = tmp_path / "goose" / "sessions.db"
    goose.parent.mkdir()
    goose.write_bytes(b"")
    assert format_for_path(goose / "20251108_1", environ) is agent_format("goose")
