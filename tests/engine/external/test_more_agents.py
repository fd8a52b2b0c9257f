"""Qwen Code, pi, OpenClaw, Mistral Vibe, Factory Droid, Kiro CLI, iFlow CLI, Grok Build and
Cursor's agent CLI, read from fixtures in the shapes each agent writes (their READMEs name the
sources): each session found in its lane, its events with roles in order, hidden text absent,
skipped records counted, a live append read from where the last pass stopped, the resume
command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import apsw
import pytest

from engine.agent_table import entry
from engine.external.cursor import slug
from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES, install_goose, install_home

AGENTS = ("qwen", "pi", "openclaw", "vibe", "droid", "kiro", "iflow", "grok", "cursor")


def _expect(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((FIXTURES / name / "expect.json").read_text())
    return spec


def _install(name: str, tmp: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    """The fixture's home copied under ``tmp`` with the lanes' folders put in."""
    project, lane = tmp / "work" / "demo", tmp / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    line = entry(name)
    environ = {"HOME": str(tmp / "user")}
    home = Path(environ["HOME"]) / line.default
    if line.variable is not None:
        home = tmp / "moved-home"
        environ[line.variable] = str(home)
    install_home(name, home, project, lane)
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    return home, environ, lanes


def _shown(etype: str, data: dict[str, Any]) -> str:
    """What an event shows: its text, a tool's name and input, a result, a title."""
    key = {"tool_call": "input", "tool_result": "output", "session_title": "title"}.get(
        etype, "text"
    )
    return f"{data.get('name', '')} {data.get(key, '')}"


def _file(home: Path, spec: dict[str, Any], lanes: list[Lane]) -> Path:
    rel = str(spec["file"]).replace("@PROJECT_SLUG@", slug(lanes[0].path))
    return home / rel.replace("@LANE_SLUG@", slug(lanes[1].path))


@pytest.mark.parametrize("name", AGENTS)
def test_each_session_is_found_in_its_lane(name: str, tmp_path: Path) -> None:
    home, environ, lanes = _install(name, tmp_path)
    found = agent_format(name).sessions(lanes, WarningTally(), environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.tool) for m in found}
    want = {(s["id"], s["lane"], s["title"], name) for s in _expect(name)["sessions"]}
    assert got == want
    by_id = {m.id: m for m in found}
    for spec in _expect(name)["sessions"]:
        assert by_id[spec["id"]].transcript_path == _file(home, spec, lanes)


@pytest.mark.parametrize("name", AGENTS)
def test_events_have_roles_and_hidden_text_never_comes_out(name: str, tmp_path: Path) -> None:
    home, _, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    for spec in _expect(name)["sessions"]:
        data = _file(home, spec, lanes).read_bytes()
        tally = WarningTally()
        events, used, _ = fmt.parse(data, 0, "chat:s", tally, {})
        assert used == len(data)
        said = [(e.type, json.dumps(e.data)) for e in events]
        assert len(said) == len(spec["events"]), said
        for (etype, text), (want_type, word) in zip(said, spec["events"], strict=True):
            assert etype == want_type
            assert word in _shown(etype, json.loads(text)), (etype, text, word)
        for word in spec["hidden"]:
            assert all(word not in text for _, text in said), word
        assert sum(tally.snapshot().values()) == spec["skipped"], tally.reasons("chat:s")
        assert len({e.data["id"] for e in events if e.type != "tool_result"}) == len(
            [e for e in events if e.type != "tool_result"]
        )


@pytest.mark.parametrize("name", AGENTS)
def test_an_appended_record_is_read_from_where_the_last_pass_stopped(
    name: str, tmp_path: Path
) -> None:
    home, _, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    path = _file(home, _expect(name)["sessions"][0], lanes)
    _, used, state = fmt.parse(path.read_bytes(), 0, "chat:s", WarningTally(), {})
    added = (FIXTURES / name / "append.jsonl").read_text()
    added = added.replace("@PROJECT@", str(lanes[0].path))
    with path.open("a") as handle:
        handle.write(added[:-8])  # torn: not read yet
    events, more, state = fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)
    assert (events, more) == ([], 0)
    with path.open("a") as handle:
        handle.write(added[-8:])
    events, more, _ = fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)
    etype, word = _expect(name)["append"]
    assert [(e.type, word in e.data["text"]) for e in events] == [(etype, True)]
    assert events[0].offset == used
    assert more == len(added.encode())


@pytest.mark.parametrize("name", AGENTS)
def test_resume_is_the_agents_own_command(name: str, tmp_path: Path) -> None:
    home, environ, lanes = _install(name, tmp_path)
    fmt = agent_format(name)
    spec = _expect(name)["sessions"][0]
    meta = next(
        m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
        if m.id == spec["id"]
    )  # fmt: skip
    want = spec["resume"]
    if want is None:
        assert fmt.resume_argv(meta) is None
        assert fmt.no_resume
    else:
        path = str(_file(home, spec, lanes))
        assert list(fmt.resume_argv(meta) or ()) == [w.replace("{path}", path) for w in want]


def _goose(tmp: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    project, lane = tmp / "work" / "demo", tmp / "work" / "demo-lanes" / "fix"
    (lane / "pkg").mkdir(parents=True)
    project.mkdir(parents=True, exist_ok=True)
    environ = {"HOME": str(tmp / "user"), "GOOSE_PATH_ROOT": str(tmp / "goose")}
    db = install_goose(tmp / "goose" / "data" / "sessions" / "sessions.db", project, lane)
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    return db, environ, lanes


def test_goose_sessions_are_read_from_its_database_and_rederived_when_rows_change(
    tmp_path: Path,
) -> None:
    db, environ, lanes = _goose(tmp_path)
    fmt = agent_format("goose")
    found = fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    assert {(m.id, m.lane_id, m.title) for m in found} == {
        ("goose-20251108_1", "primary", "Tune the jerboa cache"),
        ("goose-20251108_2", "fix", "Lane gerbil work"),
    }
    meta = next(m for m in found if m.id == "goose-20251108_1")
    tally = WarningTally()
    events, _ = fmt.derived_events(db / "20251108_1", tally, "chat:g")
    said = [
        (e.type, e.data.get("text") or e.data.get("input") or e.data.get("output"))
        for e in events or []
    ]
    assert said == [
        ("user_message", "why is the jerboa cache slow"),
        ("assistant_message", "Let me look at the jerboa config."),
        ("tool_call", "command: cat jerboa.yaml"),
        ("tool_result", "ttl: 1"),
        ("assistant_message", "The jerboa cache ttl is one second."),
    ]
    assert tally.reasons("chat:g") == {"bad json": 1, "unknown type": 1}
    before = fmt.signature(meta)
    conn = apsw.Connection(str(db))
    conn.execute(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp)"
        ' VALUES (\'20251108_1\', \'user\', \'[{"type":"text","text":"and the vole cache"}]\', 1)'
    )
    conn.close()
    assert fmt.signature(meta) != before
    events, _ = fmt.derived_events(db / "20251108_1", WarningTally(), "chat:g")
    assert (events or [])[-1].data["text"] == "and the vole cache"
    assert fmt.resume_argv(meta) == ("goose", "session", "--resume", "--session-id", "20251108_1")
    assert fmt.recorded_cwd(meta) == lanes[0].path


def test_amp_threads_are_read_whole_and_a_subagents_thread_is_left_out(tmp_path: Path) -> None:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    home = install_home("amp", tmp_path / "data", project, lane)
    environ = {"HOME": str(tmp_path / "user"), "XDG_DATA_HOME": str(home)}
    lanes = [Lane("primary", "main", project, "main", True), Lane("fix", "fix", lane, "fix", False)]
    fmt = agent_format("amp")
    found = fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    assert {(m.id, m.lane_id, m.title) for m in found} == {
        ("amp-T-3f1c0d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f", "primary", "Fix the failing walrus test"),
        (
            "amp-T-7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d",
            "fix",
            "rename the manatee crate in this lane",
        ),
    }
    meta = next(m for m in found if m.lane_id == "primary")
    tally = WarningTally()
    events, _ = fmt.derived_events(meta.transcript_path or Path(), tally, "chat:a")
    said = [(e.type, _shown(e.type, e.data).strip()) for e in events or []]
    assert said == [
        ("user_message", "fix the failing walrus test"),
        ("assistant_message", "Running the walrus tests first."),
        ("tool_call", "Bash cmd: cargo test walrus"),
        ("tool_result", "test walrus_parse ... FAILED"),
        ("assistant_message", "The walrus parser rejects empty input."),
    ]
    assert tally.reasons("chat:a") == {"unknown type": 1}
    assert fmt.resume_argv(meta) == (
        "amp",
        "threads",
        "continue",
        "T-3f1c0d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
    )
    assert fmt.recorded_cwd(meta) == project
