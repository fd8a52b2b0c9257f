"""A Claude Code / Codex session's not-yet-indexed tail reads the query like the index does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.external.catalog import project_sessions
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service
from tests.engine.external.test_external_sources import homes
from tests.engine.query.conftest import NOW

__all__ = ["homes"]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("naive cafe", True),
        ("^Naïve* (café)", True),
        ("timeout", True),  # connectTimeout's identifier part
        ('"cafe naive"', False),
        ("naive -connect", False),
        ("reindex", False),
        ("afe", False),  # inside a word: no token starts with it
        ("tool:codex naive", True),
        ("tool:claude naive", False),
    ],
)
def test_a_codex_tail_is_matched_live_with_the_plan(
    repo: Path, homes: dict[str, str], monkeypatch: pytest.MonkeyPatch, query: str, found: bool
) -> None:
    for name, value in homes.items():
        monkeypatch.setenv(name, value)
    project = open_project(repo)
    sid = "codex-0199-abc"
    path = next(m for m in project_sessions(project, WarningTally()) if m.id == sid).transcript_path
    assert path is not None
    service = create_project_service(
        project, clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    try:
        service.catch_up()
        line = {"timestamp": "2026-05-28T11:05:00Z", "type": "event_msg",
                "payload": {"type": "agent_message", "message": "a naïve café connectTimeout"}}  # fmt: skip
        with path.open("ab") as handle:
            handle.write(json.dumps(line).encode() + b"\n")
        args = SearchQueryArgs(query=f"session:{sid} {query}", kinds=("chat",))
        bodies = [i.snippet for i in service.query(args).items]
        assert any("café" in b for b in bodies) is found
    finally:
        service.dispose()
