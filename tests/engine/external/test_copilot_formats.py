"""Copilot CLI sessions read completely (``tests/fixtures/agents/copilot``, its README names the
sources): a tool known only from ``toolRequests[]`` is a named call (never ``tool("null")``), a
string result is its text (not an empty document), a session whose events name no folder is
tied by its ``workspace.yaml``'s ``cwd``, and events without ``id`` or ``data`` are counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES
from tests.engine.external.fixture_reads import check_events, expect, install

SPEC = expect("copilot")


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    return install("copilot", tmp_path, project, lane)


def test_a_session_is_tied_by_its_events_or_its_workspace_yaml(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, lanes = installed
    fmt = agent_format("copilot")
    found = fmt.sessions(lanes, WarningTally(), environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], home / s["file"]) for s in SPEC["sessions"]}
    assert got == want
    by_lane = {m.lane_id: m for m in found}
    assert fmt.recorded_cwd(by_lane["fix"]) == lanes[1].path  # from workspace.yaml


def test_tool_requests_string_results_and_skipped_events(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    check_events("copilot", installed[0])


def test_an_appended_event_is_read_from_where_the_last_pass_stopped(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home = installed[0]
    fmt = agent_format("copilot")
    path = home / SPEC["sessions"][0]["file"]
    _, used, state = fmt.parse(path.read_bytes(), 0, "chat:s", WarningTally(), {})
    added = (FIXTURES / "copilot" / "append.jsonl").read_bytes()
    with path.open("ab") as handle:
        handle.write(added[:-8])
    assert fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)[:2] == ([], 0)
    with path.open("ab") as handle:
        handle.write(added[-8:])
    events, more, _ = fmt.parse(path.read_bytes()[used:], used, "chat:s", WarningTally(), state)
    etype, word = SPEC["append"]
    assert [(e.type, word in e.data["text"], e.offset) for e in events] == [(etype, True, used)]
    assert more == len(added)
