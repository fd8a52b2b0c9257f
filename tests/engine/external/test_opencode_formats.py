"""OpenCode sessions read completely (``tests/fixtures/agents/opencode``, its README names the
sources): a session written with an empty ``directory`` tied by its project's ``worktree``, and
a session of the newer ``session_message`` storage read, re-derived when its rows change."""

from __future__ import annotations

from pathlib import Path

import apsw
import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.fixture_reads import check_events, events_of, expect, install

SPEC = expect("opencode")


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    return install("opencode", tmp_path, project, lane)


def test_an_empty_directory_is_tied_by_the_project_worktree_and_new_storage_is_listed(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, lanes = installed
    fmt = agent_format("opencode")
    found = fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], home / s["file"]) for s in SPEC["sessions"]}
    assert got == want
    lane_path = {lane.id: lane.path for lane in lanes}
    for meta in found:
        spec = next(s for s in SPEC["sessions"] if s["id"] == meta.id)
        assert fmt.recorded_cwd(meta) == lane_path[spec["lane"]]
        assert list(fmt.resume_argv(meta) or ()) == spec["resume"]


def test_both_storages_give_events_with_roles_hidden_text_out_skips_counted(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    check_events("opencode", installed[0])


def test_a_new_storage_row_changes_the_signature_and_is_read(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, lanes = installed
    fmt = agent_format("opencode")
    spec = SPEC["sessions"][1]
    meta = next(
        m for m in fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
        if m.id == spec["id"]
    )  # fmt: skip
    before = fmt.signature(meta)
    conn = apsw.Connection(str(home / "opencode" / "opencode.db"))
    conn.execute(
        "INSERT INTO session_message VALUES ('evt_09', ?, 'user', 1767000099000, 1767000099000,"
        ' \'{"text": "and the heron module too", "time": {"created": 1767000099000}}\')',
        (fmt.native_id(meta),),
    )
    conn.close()
    fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))  # a listing takes signatures
    assert fmt.signature(meta) != before
    events = events_of("opencode", home / spec["file"], WarningTally())
    assert events[-1].data["text"] == "and the heron module too"
