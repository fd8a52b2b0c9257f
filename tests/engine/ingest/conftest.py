"""Fixtures for ingestion tests: a small real project in ``tmp_path`` (a git repo with ``.ade/``)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.index.tuning import WriteTuning
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.project.model import Project
from engine.service import SearchService
from engine.types import INDEXED_KINDS, SearchQueryArgs
from engine.wiring import create_project_service

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env={"GIT_COMMITTER_DATE": "2026-06-01T10:00:00+00:00",
             "GIT_AUTHOR_DATE": "2026-06-01T10:00:00+00:00", "PATH": "/usr/bin:/bin"},
    )  # fmt: skip


class ProjectWriter:
    """Writes ``.ade/`` records the way the environment does (append-only transcripts)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ade = root / ".ade"
        self.seq: dict[str, int] = {}

    def session(self, sid: str, kind: str = "chat", **fields: Any) -> None:
        record = {"id": sid, "kind": kind, "title": fields.pop("title", f"{kind} {sid}"),
                  "laneId": fields.pop("laneId", "primary"),
                  "createdAt": "2026-06-01T09:00:00+00:00",
                  "updatedAt": "2026-06-01T09:00:00+00:00", **fields}  # fmt: skip
        path = self.ade / "sessions" / f"{sid}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record), encoding="utf-8")

    def chat_path(self, sid: str) -> Path:
        return self.ade / "chats" / f"{sid}.jsonl"

    def terminal_path(self, sid: str) -> Path:
        return self.ade / "terminals" / f"{sid}.log"

    def append_raw(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as handle:
            handle.write(data)

    def event(self, sid: str, type_: str, **fields: Any) -> bytes:
        seq = self.seq.get(sid, 0) + 1
        self.seq[sid] = seq
        line = json.dumps({"seq": seq, "ts": "2026-06-01T09:30:00+00:00", "type": type_, **fields})
        return line.encode() + b"\n"

    def chat(self, sid: str, type_: str, **fields: Any) -> None:
        self.append_raw(self.chat_path(sid), self.event(sid, type_, **fields))

    def terminal(self, sid: str, data: bytes) -> None:
        self.append_raw(self.terminal_path(sid), data)

    def pr(self, number: int, title: str, body: str = "", **fields: Any) -> None:
        record = {"number": number, "title": title, "body": body, "state": "OPEN",
                  "author": "ada", "headBranch": fields.pop("headBranch", "feature"),
                  "baseBranch": "main", "url": f"https://example.com/pr/{number}",
                  "updatedAt": "2026-06-02T10:00:00+00:00", "comments": [], **fields}  # fmt: skip
        path = self.ade / "prs" / f"{number}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record), encoding="utf-8")

    def commit(self, message: str) -> None:
        (self.root / "file.txt").write_text(message, encoding="utf-8")
        _git(self.root, "add", "file.txt")
        _git(self.root, "commit", "-q", "-m", message)


@pytest.fixture
def no_external_tools(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A home without Claude Code, Codex or other tools' folders (never this machine's)."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture
def project_root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    # As in a real project: environment state is not source (the files delegate skips it).
    (root / ".gitignore").write_text(".ade/\n", encoding="utf-8")
    return root


@pytest.fixture
def writer(project_root: Path) -> ProjectWriter:
    return ProjectWriter(project_root)


@pytest.fixture
def project(project_root: Path) -> Project:
    return open_project(project_root)


@pytest.fixture
def timers() -> ManualTimerFactory:
    return ManualTimerFactory()


@pytest.fixture
def tuning() -> WriteTuning:
    """The write path's settings of ``service``: a test parametrizes ``tuning`` for its own."""
    return WriteTuning()


@pytest.fixture
def service(
    project: Project, timers: ManualTimerFactory, tuning: WriteTuning
) -> Iterator[SearchService]:
    svc = create_project_service(
        project, clock=lambda: NOW, timer=timers, start_worker=False, tuning=tuning
    )
    yield svc
    svc.dispose()


class Index:
    """Reads of a service's index for assertions."""

    def __init__(self, service: SearchService) -> None:
        self.service = service

    def doc_ids(self, query: str = "", **kw: Any) -> list[str]:
        """Every doc id a query returns (all pages)."""
        out: list[str] = []
        cursor = None
        while True:
            kw.setdefault("kinds", INDEXED_KINDS)  # delegated kinds (lanes, files) are not ours
            res = self.service.query(SearchQueryArgs(query=query, limit=500, cursor=cursor, **kw))
            out += [item.doc_id for item in res.items]
            cursor = res.next_cursor
            if cursor is None:
                return out

    def indexed_ids(self) -> set[str]:
        """Every doc id stored in the index, straight from the table."""
        conn = self.service.readers.reader()
        return {str(r[0]) for r in conn.execute("SELECT doc_id FROM docs")}


@pytest.fixture
def idx(service: SearchService) -> Index:
    return Index(service)


def source_cursor(service: SearchService, key: str) -> int:
    """The stored byte cursor of ``key`` (0 when never ingested)."""
    row = (
        service.readers.reader()
        .execute("SELECT cursor FROM sources WHERE key = ?", (key,))
        .fetchone()
    )
    return 0 if row is None else int(row[0])


@pytest.fixture
def cursor_of(service: SearchService) -> Any:
    return lambda key: source_cursor(service, key)


@pytest.fixture
def resets(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Source keys reindexed from zero (each call of the tailer's delete-by-source)."""
    from engine.index.writer import IndexWriter

    seen: list[str] = []
    real = IndexWriter.delete_docs_by_source

    def spy(self: IndexWriter, key: str) -> None:
        seen.append(key)
        real(self, key)

    monkeypatch.setattr(IndexWriter, "delete_docs_by_source", spy)
    return seen
