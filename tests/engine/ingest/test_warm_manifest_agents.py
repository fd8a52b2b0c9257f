"""The warm-run manifest covers the agent tools' folders too (the start-up budget).

With Claude Code installed (``~/.claude/projects`` exists) a warm ``ade search`` used to list and
stat every session again. Now the manifest digests one ``scandir`` per folder discovery looks in;
these tests use real Claude Code and Codex transcripts under a temporary ``HOME`` and check that
an unchanged tree is skipped while a touched, added or deleted session is still picked up.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import engine.ingest.reconcile as reconcile
from engine.external.discover import claude_slug
from engine.index.db import connect, meta_get
from engine.index.sources import MANIFEST_KEY
from engine.ingest.manifest import project_manifest
from engine.ingest.timers import ManualTimerFactory
from engine.project.lanes import list_lanes
from engine.project.tally import WarningTally
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

from .conftest import NOW


def _line(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj) + "\n").encode()


def _claude(uuid: str, text: str, cwd: str) -> bytes:
    return _line({"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s1",
                  "type": "user", "message": {"role": "user", "content": text}, "uuid": uuid,
                  "timestamp": "2026-05-28T10:00:00.000Z"})  # fmt: skip


def _codex(ident: str, text: str, cwd: str) -> bytes:
    def item(kind: str, payload: dict[str, Any]) -> bytes:
        return _line({"timestamp": "2026-05-28T11:00:00.000Z", "type": kind, "payload": payload})

    return item("session_meta", {"id": ident, "timestamp": "2026-05-28T11:00:00Z", "cwd": cwd,
                                 "originator": "codex_cli_rs", "cli_version": "0.40.0"}) + item(
        "response_item", {"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": text}]})  # fmt: skip


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A temporary home with Claude Code and Codex folders (never this machine's)."""
    home = tmp_path / "home"
    (home / ".claude" / "projects").mkdir(parents=True)
    (home / ".codex" / "sessions").mkdir(parents=True)
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the reconcile listed the sessions."""
    calls: list[int] = []
    real = reconcile.session_file_ids

    def spy(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(reconcile, "session_file_ids", spy)
    return calls


class Tools:
    """Writes Claude Code and Codex transcripts for the project, as the tools do."""

    def __init__(self, home: Path, root: Path) -> None:
        self.cwd = str(root)
        self.claude = home / ".claude" / "projects" / claude_slug(root)
        self.codex = home / ".codex" / "sessions" / "2026" / "05" / "28"

    def claude_file(self, sid: str) -> Path:
        return self.claude / f"{sid}.jsonl"

    def codex_file(self, ident: str) -> Path:
        return self.codex / f"rollout-2026-05-28T11-00-00-{ident}.jsonl"

    def append(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as handle:
            handle.write(data)


@pytest.fixture
def tools(home: Path, writer: Any) -> Tools:
    out = Tools(home, writer.root)
    out.append(out.claude_file("aa-1"), _claude("u1", "claude says quinzelbop", out.cwd))
    out.append(out.codex_file("0199-abc"), _codex("0199-abc", "codex says vorpalsnack", out.cwd))
    return out


def _ids(service: SearchService, text: str) -> list[str]:
    """The sessions whose docs match ``text`` (a message, and the session doc by its title)."""
    return sorted({i.session_id or "" for i in service.query(SearchQueryArgs(query=text)).items})


def _warm(service: SearchService, listings: list[int]) -> None:
    service.catch_up()  # cold: both tools' sessions ingested, the manifest stored
    assert meta_get(service.readers.reader(), MANIFEST_KEY) is not None
    before = len(listings)
    holder = connect(service.project.index_path)
    holder.execute("BEGIN IMMEDIATE")  # another process's long drain holds the write lock
    try:
        service.catch_up()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert len(listings) == before  # nothing listed: the agent folders matched the manifest
    assert service.drainer.skipped_reconciles == 1
    assert not service.drainer.busy  # never waited for the lock


def test_an_unchanged_claude_and_codex_tree_is_skipped(
    service: SearchService, tools: Tools, listings: list[int]
) -> None:
    _warm(service, listings)
    assert _ids(service, "quinzelbop") == ["claude-aa-1"]
    assert _ids(service, "vorpalsnack") == ["codex-0199-abc"]


def test_a_touched_added_or_deleted_claude_session_is_seen(
    service: SearchService, tools: Tools, listings: list[int]
) -> None:
    _warm(service, listings)
    tools.append(tools.claude_file("aa-1"), _claude("u2", "appended flumpwidget", tools.cwd))
    service.catch_up()
    assert _ids(service, "flumpwidget") == ["claude-aa-1"]
    tools.append(tools.claude_file("bb-2"), _claude("u1", "brand new gnarfle", tools.cwd))
    service.catch_up()
    assert _ids(service, "gnarfle") == ["claude-bb-2"]
    sub = tools.claude / "bb-2" / "subagents" / "agent-1f.jsonl"
    tools.append(sub, _claude("s1", "subagent grommetry", tools.cwd))
    service.catch_up()
    assert _ids(service, "grommetry") == ["claude-bb-2"]
    tools.claude_file("bb-2").unlink()
    service.catch_up()
    assert _ids(service, "gnarfle") == []
    assert service.drainer.skipped_reconciles == 1  # only the first warm run
    service.catch_up()  # caught up again: warm
    assert service.drainer.skipped_reconciles == 2


def test_a_touched_added_or_deleted_codex_session_is_seen(
    service: SearchService, tools: Tools, listings: list[int]
) -> None:
    _warm(service, listings)
    tools.append(tools.codex_file("0199-abc"), _codex("0199-abc", "then zazzlefrap", tools.cwd))
    service.catch_up()
    assert _ids(service, "zazzlefrap") == ["codex-0199-abc"]
    later = tools.codex.parent / "29"  # a new day folder
    new = later / "rollout-2026-05-29T09-00-00-0200-def.jsonl"
    tools.append(new, _codex("0200-def", "next day blorptastic", tools.cwd))
    service.catch_up()
    assert _ids(service, "blorptastic") == ["codex-0200-def"]
    new.unlink()
    service.catch_up()
    assert _ids(service, "blorptastic") == []
    service.catch_up()
    assert service.drainer.skipped_reconciles == 2


@pytest.fixture
def next_process(service: SearchService, tools: Tools) -> Iterator[SearchService]:
    """A second service over the same project, as the next ``ade`` process opens it, once the
    first one stored the manifest: its catch-up is warm and lists no session."""
    service.catch_up()
    svc = create_project_service(service.project, clock=lambda: NOW, timer=ManualTimerFactory(),
                                 start_worker=False)  # fmt: skip
    svc.catch_up()
    assert svc.drainer.skipped_reconciles == 1
    yield svc
    svc.dispose()


def test_a_watched_change_after_a_skipped_reconcile_is_followed(
    next_process: SearchService, tools: Tools
) -> None:
    """A watcher event on a transcript the warm process never listed re-lists instead of calling
    it another project's."""
    path = tools.claude_file("aa-1")
    tools.append(path, _claude("u3", "watched zibberwock", tools.cwd))
    next_process.notify_external_file(path)
    next_process.process_pending_now()
    assert _ids(next_process, "zibberwock") == ["claude-aa-1"]


def test_the_status_names_the_sessions_of_a_skipped_reconcile(next_process: SearchService) -> None:
    status = next_process.index_status()  # this process listed nothing: the remembered listing
    assert {d.source: d.sessions for d in status.discovery} == {"claude": (1,), "codex": (1,)}


def test_an_aider_history_is_in_the_manifest(
    service: SearchService, tools: Tools, listings: list[int], writer: Any
) -> None:
    """Aider writes its history beside the repository: it is stat'ed with the lanes' files."""
    from tests.engine.external.agent_fixtures import aider_history

    history = writer.root / ".aider.chat.history.md"
    history.write_bytes(aider_history("marmot"))
    _warm(service, listings)
    assert any(s.startswith("aider-") for s in _ids(service, "marmot"))
    with history.open("ab") as handle:
        handle.write(b"\n\n#### now the wombat setting  \n\nDone.\n")
    service.catch_up()
    assert any(s.startswith("aider-") for s in _ids(service, "wombat"))


def test_a_new_claude_folder_of_the_project_is_seen(
    service: SearchService, tools: Tools, listings: list[int], writer: Any
) -> None:
    """A session started in a subfolder lands in a folder of its own (``<slug>-src``)."""
    _warm(service, listings)
    sub = writer.root / "src"
    sub.mkdir()
    folder = tools.claude.with_name(f"{tools.claude.name}-src")
    tools.append(folder / "cc-3.jsonl", _claude("u1", "from src snorkelwhip", str(sub)))
    service.catch_up()
    assert _ids(service, "snorkelwhip") == ["claude-cc-3"]


def test_another_projects_claude_folder_does_not_change_the_manifest(
    service: SearchService, tools: Tools, home: Path
) -> None:
    lanes = list_lanes(service.project, WarningTally())
    before = project_manifest(service.project, lanes)
    other = home / ".claude" / "projects" / "-somewhere-else"
    other.mkdir()
    (other / "x.jsonl").write_bytes(_claude("u1", "elsewhere", "/somewhere/else"))
    after = project_manifest(service.project, lanes)
    assert before is not None
    assert after is not None
    assert before.digest == after.digest
    st = tools.claude_file("aa-1").stat()
    os.utime(tools.claude_file("aa-1"), ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    touched = project_manifest(service.project, lanes)
    assert touched is not None
    assert touched.digest != before.digest


def test_a_session_remembered_from_another_home_stores_no_manifest(
    service: SearchService, tools: Tools, listings: list[int], monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:  # fmt: skip
    """Found under one HOME, listed from memory under another: its transcript lies
    outside every folder the second manifest lists, so that one cannot vouch for it."""
    service.catch_up()
    other = tmp_path / "other-home"
    other.mkdir()
    monkeypatch.setenv("HOME", str(other))
    service.catch_up()
    assert _ids(service, "quinzelbop") == ["claude-aa-1"]  # remembered, still searchable
    service.catch_up()
    assert service.drainer.skipped_reconciles == 0


def test_a_folder_an_agents_other_variable_names_is_in_the_manifest(
    service: SearchService, tmp_path: Path
) -> None:
    """``CRUSH_GLOBAL_DATA`` moves Crush's ``projects.json`` out of its table home: a project
    Crush registers there changes the manifest, so a warm run lists the sessions again."""
    lanes = list_lanes(service.project, WarningTally())
    data = tmp_path / "crush-data"
    data.mkdir()
    env = {**os.environ, "CRUSH_GLOBAL_DATA": str(data)}
    before = project_manifest(service.project, lanes, env)
    (data / "projects.json").write_text('{"projects": []}', encoding="utf-8")
    after = project_manifest(service.project, lanes, env)
    assert before is not None
    assert after is not None
    assert before.digest != after.digest
