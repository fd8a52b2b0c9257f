"""OpenCode sessions read completely (``tests/fixtures/agents/opencode``, its README names the
sources): a session written with an empty ``directory`` tied by its project's ``worktree``, and
a session of the newer ``session_message`` storage read (a new row re-derives it:
``test_fixture_sessions``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.fixture_reads import check_events, expect, install

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
