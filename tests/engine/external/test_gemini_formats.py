"""Gemini CLI records without ids (``tests/fixtures/agents/gemini``, its README names the
sources): a legacy document whose messages and tool calls lack ``id`` and a JSON-lines message
without one keep their place as a stable id, their tool results kept; what is no record at all
is counted."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.model import Lane
from engine.project.tally import WarningTally
from tests.engine.external.agent_homes import FIXTURES
from tests.engine.external.fixture_reads import check_events, events_of, expect, install

SPEC = expect("gemini")


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str], list[Lane]]:
    project, lane = tmp_path / "work" / "demo", tmp_path / "work" / "demo-lanes" / "fix"
    project.mkdir(parents=True)
    lane.mkdir(parents=True)
    return install("gemini", tmp_path, project, lane)


def test_sessions_without_ids_are_found_in_their_lanes(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home, environ, lanes = installed
    found = agent_format("gemini").sessions(lanes, WarningTally(), environ, HeadCache(None))
    got = {(m.id, m.lane_id, m.title, m.transcript_path) for m in found}
    want = {(s["id"], s["lane"], s["title"], home / s["file"]) for s in SPEC["sessions"]}
    assert got == want


def test_messages_and_tool_calls_without_ids_are_kept_with_their_results(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    check_events("gemini", installed[0])


def test_ids_from_position_are_stable_and_unique(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home = installed[0]
    for spec in SPEC["sessions"]:
        first = events_of("gemini", home / spec["file"], WarningTally())
        again = events_of("gemini", home / spec["file"], WarningTally())
        assert [(e.type, e.event_id) for e in first] == [(e.type, e.event_id) for e in again]
        calls = [e.event_id for e in first if e.type == "tool_call"]
        results = [e.event_id for e in first if e.type == "tool_result"]
        assert calls == results  # each result under its call's id
        messages = [e.event_id for e in first if e.type != "tool_result"]
        assert len(set(messages)) == len(messages)


def test_an_appended_message_without_id_is_read_on_the_next_derivation(
    installed: tuple[Path, dict[str, str], list[Lane]],
) -> None:
    home = installed[0]
    path = home / SPEC["sessions"][1]["file"]
    before = events_of("gemini", path, WarningTally())
    with path.open("ab") as handle:
        handle.write((FIXTURES / "gemini" / "append.jsonl").read_bytes())
    after = events_of("gemini", path, WarningTally())
    etype, word = SPEC["append"]
    assert after[: len(before)] == before
    assert [(e.type, word in e.data["text"]) for e in after[len(before) :]] == [(etype, True)]
