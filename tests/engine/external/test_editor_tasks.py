"""Cline's and Roo Code's tasks in VS Code's global storage and the Cursor editor's chats
(``tests/fixtures/agents/cline``, ``roo``, ``cursor-ide``, their READMEs name the sources): each
task or chat tied to its lane by the folder its history or workspace names (in any of the
editors), messages as events with roles, reasoning and the tools' own markers left out, skips
counted, a message written later read, the live database never written, no resume."""

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

AGENTS = ("cline", "roo", "cursor-ide")
TASKS = ("cline", "roo")

Installed = tuple[Path, dict[str, str], list[Lane], dict[str, Any]]


def _install(name: str, tmp: Path) -> Installed:
    project, lane = tmp / "work" / "demo", tmp / "work" / "demo-lanes" / "fix"
    (lane / "pkg").mkdir(parents=True)
    project.mkdir(parents=True)
    home = install_home(name, tmp / "appdata", project, lane)
    environ = {"HOME": str(tmp / "user"), "VSCODE_APPDATA": str(home)}
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    text = json.dumps(expect(name)).replace("@PROJECT@", str(project))
    return home, environ, lanes, json.loads(text.replace("@LANE@", str(lane)))


@pytest.mark.parametrize("name", AGENTS)
def test_each_task_is_tied_to_the_lane_its_history_names(name: str, tmp_path: Path) -> None:
    home, environ, lanes, spec = _install(name, tmp_path)
    fmt = agent_format(name)
    tally = WarningTally()
    found = fmt.sessions(lanes, tally, environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], home / s["file"]) for s in spec["sessions"]}
    assert got == want  # no task of another folder
    assert tally.reasons(name) == spec["listing_skips"]  # the task naming no folder
    for meta in found:
        session = next(s for s in spec["sessions"] if s["id"] == meta.id)
        assert str(fmt.recorded_cwd(meta)) == session["cwd"]
        assert fmt.resume_argv(meta) is None
        assert fmt.no_resume
        assert format_for_path(meta.transcript_path or Path(), environ) is fmt
    assert fmt.count_sessions(environ, lanes) == spec["found"]


@pytest.mark.parametrize("name", AGENTS)
def test_shown_messages_have_roles_and_the_extensions_own_text_never_comes_out(
    name: str, tmp_path: Path
) -> None:
    home, _, _, spec = _install(name, tmp_path)
    fmt = agent_format(name)
    for session in spec["sessions"]:
        tally = WarningTally()
        events, _ = fmt.derived_events(home / session["file"], tally, "chat:s")
        said = [(e.type, shown(e)) for e in events or []]
        assert [t for t, _ in said] == [t for t, _ in session["events"]], said
        for (_, text), (_, word) in zip(said, session["events"], strict=True):
            assert word in text, (text, word)
        for word in session["hidden"]:
            assert all(word not in json.dumps(e.data) for e in events or []), word
        assert (tally.reasons("chat:s"), tally.total()) == (session["skips"], session["skipped"])
        ids = [e.data["id"] for e in events or [] if e.type != "tool_result"]
        assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("name", TASKS)
def test_a_message_written_later_is_read_and_a_new_task_relists(name: str, tmp_path: Path) -> None:
    home, environ, lanes, spec = _install(name, tmp_path)
    fmt = agent_format(name)
    meta = next(
        m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
        if m.id == spec["sessions"][0]["id"]
    )  # fmt: skip
    path = meta.transcript_path or Path()
    before = fmt.signature(meta)
    messages = json.loads(path.read_text())
    messages.append({"ts": 1790000000000, "type": "say", "say": "user_feedback",
                     "text": "and the agouti target too"})  # fmt: skip
    path.write_text(json.dumps(messages))  # the extension rewrites the whole file
    assert fmt.signature(meta) != before
    events, _ = fmt.derived_events(path, WarningTally(), "chat:s")
    assert [(e.type, e.data.get("text")) for e in (events or [])[-1:]] == [
        ("user_message", "and the agouti target too")
    ]
    history = next(p for p in home.rglob("*.json") if p.name in ("taskHistory.json", "_index.json"))
    assert fmt.owner_hint(history, environ, None) == "relist"
    assert fmt.owner_hint(path, environ, None) == "foreign"  # a listed task's own file
    assert fmt.owner_hint(tmp_path / "elsewhere.json", environ, None) is None


def test_a_cursor_chat_growing_in_the_live_database_is_read_and_never_written(
    tmp_path: Path,
) -> None:
    home, environ, lanes, spec = _install("cursor-ide", tmp_path)
    fmt = agent_format("cursor-ide")
    meta = next(
        m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
        if m.id == spec["sessions"][0]["id"]
    )  # fmt: skip
    db = (meta.transcript_path or Path()).parent
    cid = fmt.native_id(meta)
    held = apsw.Connection(str(db))  # the editor, holding its database open
    before = fmt.signature(meta)
    bubble = {"_v": 3, "type": 2, "bubbleId": "b7", "text": "The llama parser copies every line,"
              " and the alpaca one too.", "createdAt": "2026-06-01T13:00:06.000Z"}  # fmt: skip
    held.execute(
        "INSERT INTO cursorDiskKV VALUES (?, ?)", (f"bubbleId:{cid}:b7", json.dumps(bubble))
    )  # a reply streamed: its row replaced
    assert fmt.signature(meta) != before
    events, _ = fmt.derived_events(meta.transcript_path or Path(), WarningTally(), "chat:s")
    assert (events or [])[-1].data["text"].endswith("and the alpaca one too.")
    held.close()
    stamp = db.stat().st_mtime_ns, db.stat().st_size
    fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    fmt.derived_events(meta.transcript_path or Path(), WarningTally(), "chat:s")
    assert (db.stat().st_mtime_ns, db.stat().st_size) == stamp
    assert fmt.owner_hint(db, environ, None) == "relist"
    assert home in db.parents


def test_a_commands_output_chunks_are_its_one_result(tmp_path: Path) -> None:
    """A real Cline task: ``dotnet run`` showed its output as two ``ask: command_output``
    chunks; like the extension's ``combineCommandSequences``, they are one result of that
    command, tied to its call by id, and the next command's output is its own."""
    home, _, _, spec = _install("cline", tmp_path)
    session = next(s for s in spec["sessions"] if s["id"] == "cline-1769053680585")
    events, _ = agent_format("cline").derived_events(home / session["file"], WarningTally(), "s")
    tools = [e for e in events or [] if e.type in ("tool_call", "tool_result")]
    commands = [e for e in tools if e.data.get("name") == "execute_command"]
    results = [e for e in tools if e.type == "tool_result" and e.data["id"] in
               {c.data["id"] for c in commands}]  # fmt: skip
    assert [r.data["id"] for r in results] == [c.data["id"] for c in commands]
    assert "uuidgen: command not found" in results[0].data["output"]
    tests, passed = results[1].data["output"].index("Online Card"), "ALL TESTS PASSED"
    assert passed in results[1].data["output"][tests:]
