"""``session:`` takes the id an agent prints (a bare UUID, or a long enough prefix of it) as well
as ade's ``claude-<uuid>``; a value that names no session says which ones look close. A real
project and a real Claude Code folder; the resolution table itself without any."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.service import SearchService
from engine.service.session_ids import resolve_one
from engine.types import SearchQueryArgs, SearchQueryResult
from engine.wiring import create_project_service

from .test_discovery_memory import write_claude

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
UUID = "0b5e2f4c-9a1d-4c3e-8f7a-2d6b1c0e9f33"
OTHER = "7c1d0a22-5e6f-4b8a-9c3d-e4f5a6b7c8d9"


@pytest.fixture
def service(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SearchService]:
    claude = tmp_path / "claude"
    write_claude(claude, repo, UUID, "the flux capacitor drifts")
    write_claude(claude, repo, OTHER, "the flux capacitor holds")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex"))
    svc = create_project_service(open_project(repo), clock=lambda: NOW,
                                 timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    svc.catch_up()
    yield svc
    svc.dispose()


def ask(service: SearchService, query: str) -> SearchQueryResult:
    return service.query(SearchQueryArgs(query=query, kinds=("chat",)))


@pytest.mark.parametrize("value", [f"claude-{UUID}", UUID, UUID[:8], f"claude-{UUID[:13]}"])
def test_the_agents_own_id_and_a_prefix_find_the_session(
    service: SearchService, value: str
) -> None:
    result = ask(service, f"flux session:{value}")
    assert {i.session_id for i in result.items} == {f"claude-{UUID}"}
    assert result.warnings == ()


def test_a_session_not_indexed_yet_is_found_by_its_bare_id(
    service: SearchService, repo: Path, tmp_path: Path
) -> None:
    late = "5a5a5a5a-1111-4222-8333-944444444444"
    write_claude(tmp_path / "claude", repo, late, "the flux capacitor is new")
    result = ask(service, f"flux session:{late}")  # read live: the index has not seen it
    assert {i.session_id for i in result.items} == {f"claude-{late}"}


def test_an_id_that_names_nothing_says_which_sessions_look_close(service: SearchService) -> None:
    typo = UUID.replace("9a1d", "9a1e")
    result = ask(service, f"flux session:{typo}")
    assert result.items == ()
    assert result.warnings == (f"no session {typo!r}; close: claude-{UUID}",)


AMBIGUOUS = (
    "session:7c1d0a22-5 starts 2 session ids (claude-7c1d0a22-5a, claude-7c1d0a22-5b):"
    " give more of it"
)


@pytest.mark.parametrize(
    ("value", "found", "note"),
    [
        ("term-1", ["term-1"], None),  # an id as it is
        ("abc", ["abc"], "no session 'abc' in this project"),  # too short for a prefix
        ("0b5e2f4c", ["claude-0b5e2f4c", "codex-0b5e2f4c"], None),  # the agent part, exactly
        ("7c1d0a22-5", ["7c1d0a22-5"], AMBIGUOUS),
        ("7c1d0a22-5a", ["claude-7c1d0a22-5a"], None),
    ],
)
def test_the_resolution_table(value: str, found: list[str], note: str | None) -> None:
    known = {"term-1", "claude-0b5e2f4c-1", "codex-0b5e2f4c-2", "claude-0b5e2f4c",
             "codex-0b5e2f4c", "claude-7c1d0a22-5a", "claude-7c1d0a22-5b"}  # fmt: skip
    assert resolve_one(value, known) == (found, note)
