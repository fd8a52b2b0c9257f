"""Discovery that does not forget.

Sessions started in a subfolder of a lane are found; a run whose environment looks elsewhere
(another ``HOME``, ``CLAUDE_CONFIG_DIR``, ``CODEX_HOME``) neither deletes the project's Claude and
Codex documents nor makes the next run ingest them again; a deleted transcript takes its
documents with it; the status names the roots each source was discovered from.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.external.catalog import FOREIGN, project_sessions
from engine.external.discover import claude_slug, external_sessions
from engine.ingest.timers import ManualTimerFactory
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

from .test_external_sources import claude_msg, homes

__all__ = ["homes"]

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def write_claude(base: Path, cwd: Path, name: str, text: str) -> Path:
    folder = base / "projects" / claude_slug(cwd)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.jsonl"
    path.write_bytes(claude_msg("u1", "user", text, str(cwd)))
    return path


def test_claude_sessions_started_in_subfolders_of_lanes_are_found(
    repo: Path, tmp_path: Path
) -> None:
    claude = tmp_path / "claude"
    lane = tmp_path / "proj-wt" / "feature-x"
    write_claude(claude, lane / "src" / "deep", "in-lane-sub", "lane subfolder")
    write_claude(claude, repo / "pkg", "in-primary-sub", "primary subfolder")
    write_claude(claude, tmp_path / "proj-other", "sibling", "a sibling folder is not ours")
    project = open_project(repo)
    tally = WarningTally()
    env = {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(tmp_path / "none")}
    found = external_sessions(project, list_lanes(project, tally), tally, env)
    assert [(m.id, m.lane_id) for m in found] == [
        ("claude-in-lane-sub", "feature-x"),
        ("claude-in-primary-sub", "primary"),
    ]


@pytest.fixture
def service(
    repo: Path, homes: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[SearchService]:
    for name, value in homes.items():
        monkeypatch.setenv(name, value)
    svc = create_project_service(open_project(repo), clock=lambda: NOW,
                                 timer=ManualTimerFactory(), start_worker=False)  # fmt: skip
    yield svc
    svc.dispose()


def chat_docs(service: SearchService) -> dict[str, int]:
    """doc id → rowid of every chat document (a rowid changes when a doc is written again)."""
    rows = service.readers.reader().execute("SELECT doc_id, id FROM docs WHERE kind = 'chat'")
    return {str(r[0]): int(r[1]) for r in rows}


def hits(service: SearchService, query: str) -> set[str | None]:
    result = service.query(SearchQueryArgs(query=query, kinds=("chat",), limit=50))
    return {item.session_id for item in result.items}


def elsewhere(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Point this process's environment at an empty home (no Claude or Codex folders)."""
    other = tmp_path / "other-home"
    other.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(other))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    return other


def test_a_run_with_another_home_forgets_nothing_and_the_next_run_reingests_nothing(
    service: SearchService, repo: Path, homes: dict[str, str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    service.catch_up()
    before = chat_docs(service)
    assert {"chat:claude-abc-123", "chat:codex-0199-abc"} <= set(before)
    other = elsewhere(monkeypatch, tmp_path)
    service.catch_up()
    assert chat_docs(service) == before  # nothing deleted, nothing rewritten
    assert hits(service, "zorblax") == {"claude-abc-123"}
    assert hits(service, "splunge") == {"codex-0199-abc"}
    listed = {m.id for m in project_sessions(open_project(repo), WarningTally())}
    assert {"claude-abc-123", "codex-0199-abc"} <= listed  # the palette and `ade open` too
    discovery = {d.source: d for d in service.index_status().discovery}
    assert discovery["claude"].searched == str(other / ".claude" / "projects")
    assert discovery["claude"].roots == (str(Path(homes["CLAUDE_CONFIG_DIR"]) / "projects"),)
    assert discovery["claude"].sessions == (1,)
    assert discovery["codex"].roots == (str(Path(homes["CODEX_HOME"]) / "sessions"),)
    for name, value in homes.items():  # back home: the same documents, none written again
        monkeypatch.setenv(name, value)
    service.catch_up()
    assert chat_docs(service) == before


def test_a_transcript_deleted_takes_its_documents_whatever_the_environment(
    service: SearchService, homes: dict[str, str], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    service.catch_up()
    assert hits(service, "zorblax") == {"claude-abc-123"}
    elsewhere(monkeypatch, tmp_path)
    worktree = tmp_path / "proj-wt" / "feature-x"
    folder = Path(homes["CLAUDE_CONFIG_DIR"]) / "projects" / claude_slug(worktree)
    (folder / "abc-123.jsonl").unlink()
    service.catch_up()
    assert hits(service, "zorblax") == set()
    assert not any(d.startswith("chat:claude-abc-123") for d in chat_docs(service))
    assert hits(service, "splunge") == {"codex-0199-abc"}  # its file is still there
    claude = {d.source: d for d in service.index_status().discovery}["claude"]
    assert claude.roots == ()


def test_the_watcher_asks_for_a_listing_when_a_lane_subfolder_session_appears(
    service: SearchService, homes: dict[str, str], tmp_path: Path
) -> None:
    service.catch_up()
    catalog = service.drainer.external
    sub = tmp_path / "proj-wt" / "feature-x" / "web"
    new = write_claude(Path(homes["CLAUDE_CONFIG_DIR"]), sub, "fresh", "new subfolder session")
    assert catalog.owner(new) is None  # unknown: re-list (not FOREIGN, which would ignore it)
    stranger = write_claude(Path(homes["CLAUDE_CONFIG_DIR"]), tmp_path / "zzz", "x", "not ours")
    assert catalog.owner(stranger) == FOREIGN
    service.catch_up()
    assert hits(service, "subfolder") == {"claude-fresh"}
    assert catalog.owner(new) == "claude-fresh"
