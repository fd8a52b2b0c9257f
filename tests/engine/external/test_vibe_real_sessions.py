"""Sessions Mistral Vibe 3.0.3 really wrote (``tests/fixtures/agents/vibe/real/``: its unified
session store, recorded against a scripted model) read as Vibe shows them: every prompt, answer,
tool call and result at its role and in order, reasoning hidden, each session tied to the lane
it ran in, the resumed session's appended turn read from its journal before the snapshot that
folds it in, and live while the journal grows."""

from __future__ import annotations

import json
from pathlib import Path

from engine.external.heads import HeadCache
from engine.external.vibe import FORMAT
from engine.ingest.manifest import project_manifest
from engine.project.model import Project, SessionMeta
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES, install_real_home
from tests.engine.external.fixture_reads import events_of, shown
from tests.engine.external.test_fixture_sessions import _lanes

REAL = FIXTURES / "vibe" / "real"
PROJECT_SESSION = "e075ac19-bd47-e491-54d3-8dd5fc7046d4"
LANE_SESSION = "e79e09df-3ea1-d3ff-e2e0-859775b5cb81"

PROJECT_EVENTS = [
    ("user_message", "please list the files, marmalade"),
    ("tool_call", "file_system.bash command: ls\ntimeout_seconds: 120"),
    ("tool_result", "README.md\nnotes.txt"),
    ("assistant_message", "The folder holds README.md and notes.txt, vibeanswerplum."),
    ("user_message", "continue please, walrus"),
    ("assistant_message", "Continued: vibeanswerdamson."),
]
"""The project's session: the first run's turn, then the turn ``vibe --resume`` appended."""

LANE_EVENTS = [
    ("user_message", "in this lane read the notes, quokka"),
    ("tool_call", "file_system.read_file path: notes.txt"),
    ("tool_result", "vibelanenote"),
    ("assistant_message", "The notes say vibelanenote, vibeanswerquince."),
]
HIDDEN = ("vibehiddenthought", "vibehiddensecond")
"""The reasoning the model streamed: read, never shown."""


def _sessions(tmp: Path) -> tuple[dict[str, SessionMeta], Path, WarningTally]:
    lanes = _lanes(tmp)
    home = install_real_home("vibe", tmp / "vibe-home", lanes[0].path, lanes[1].path)
    environ = {"HOME": str(tmp / "user"), "VIBE_HOME": str(home)}
    tally = WarningTally()
    found = FORMAT.sessions(lanes, tally, environ, HeadCache(None))
    return {m.id: m for m in found}, home, tally


def _said(path: Path) -> list[tuple[str, str]]:
    tally = WarningTally()
    events = events_of("vibe", path, tally)
    assert tally.total() == 0
    return [(e.type, shown(e).strip()) for e in events]


def _store(home: Path, sid: str) -> Path:
    return home / "logs" / "session" / "unified" / sid


def test_each_real_session_is_found_in_its_lane_with_every_event_in_order(tmp_path: Path) -> None:
    found, _, tally = _sessions(tmp_path)
    assert tally.total() == 0
    project, lane = found[f"vibe-{PROJECT_SESSION}"], found[f"vibe-{LANE_SESSION}"]
    assert (project.lane_id, lane.lane_id) == ("primary", "fix")
    # Vibe wrote no title (meta.json "title": null): the first prompt names the session.
    assert project.title == "please list the files, marmalade"
    assert project.transcript_path is not None
    assert lane.transcript_path is not None
    assert _said(project.transcript_path) == PROJECT_EVENTS
    assert _said(lane.transcript_path) == LANE_EVENTS
    for meta in (project, lane):
        assert meta.transcript_path is not None
        events = events_of("vibe", meta.transcript_path, WarningTally())
        assert all(word not in json.dumps(e.data) for e in events for word in HIDDEN)
    assert FORMAT.resume_argv(project) == ("vibe", "--resume", PROJECT_SESSION)
    assert FORMAT.recorded_cwd(lane) == tmp_path / "work" / "demo-lanes" / "fix"


def test_the_resumed_turn_is_read_from_the_journal_before_its_snapshot(tmp_path: Path) -> None:
    """While ``vibe --resume`` ran, ``CURRENT`` still named the first run's snapshot and the
    new turn was only in its journal segment (``states/CURRENT-before-resume``)."""
    found, home, _ = _sessions(tmp_path)
    store = _store(home, PROJECT_SESSION)
    (store / "CURRENT").write_text((REAL / "states" / "CURRENT-before-resume").read_text())
    meta = found[f"vibe-{PROJECT_SESSION}"]
    assert meta.transcript_path is not None
    assert _said(meta.transcript_path) == PROJECT_EVENTS


def test_a_turn_is_read_live_as_the_journal_grows(tmp_path: Path) -> None:
    found, home, _ = _sessions(tmp_path)
    store = _store(home, PROJECT_SESSION)
    (store / "CURRENT").write_text((REAL / "states" / "CURRENT-before-resume").read_text())
    journal = store / "journal" / "0000000000000022.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text("")
    meta = found[f"vibe-{PROJECT_SESSION}"]
    assert meta.transcript_path is not None
    assert _said(meta.transcript_path) == PROJECT_EVENTS[:4]
    signed = FORMAT.signature(meta)
    with journal.open("a") as handle:
        handle.write("".join(lines)[:-10])  # the last record torn: read when whole
    assert FORMAT.signature(meta) != signed
    assert _said(meta.transcript_path)[:5] == PROJECT_EVENTS[:5]
    with journal.open("a") as handle:
        handle.write("".join(lines)[-10:])
    assert _said(meta.transcript_path) == PROJECT_EVENTS


def test_a_change_in_a_session_folder_relists_but_its_chunks_do_not(tmp_path: Path) -> None:
    _, home, _ = _sessions(tmp_path)
    environ = {"HOME": str(tmp_path / "user"), "VIBE_HOME": str(home)}
    store = _store(home, PROJECT_SESSION)
    assert FORMAT.owner_hint(store / "journal" / "0000000000000030.jsonl", environ, None) == (
        "relist"
    )
    assert FORMAT.owner_hint(store / "CURRENT", environ, None) == "relist"
    chunk = next((store / "chunks").iterdir())
    assert FORMAT.owner_hint(chunk, environ, None) == "foreign"


def test_the_warm_manifest_sees_a_turn_written_to_the_journal(tmp_path: Path) -> None:
    """A turn goes to ``unified/<id>/journal/`` before its snapshot: a warm run must not vouch
    for the sessions while a journal grew."""
    _, home, _ = _sessions(tmp_path)
    environ = {"HOME": str(tmp_path / "user"), "VIBE_HOME": str(home)}
    lanes = _lanes(tmp_path / "again")
    project = Project(lanes[0].path, "demo", "demo", True)
    before = project_manifest(project, lanes, environ)
    journal = _store(home, PROJECT_SESSION) / "journal" / "0000000000000030.jsonl"
    journal.write_text('{"payload": {}}\n')
    after = project_manifest(project, lanes, environ)
    assert before is not None
    assert after is not None
    assert before.sessions != after.sessions
