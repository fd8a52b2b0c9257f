"""Browsing the delegated kinds (``engine.delegates.browse``): a filter-only query
that names ``file`` or ``linear`` lists them newest first; an unnamed (default) kind set does not.
Linear is a local HTTP server answering as Linear's GraphQL API does (the one allowed fake)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from engine.delegates.gather import delegated_candidates
from engine.project.model import Lane, Project
from engine.query.plan import build_plan
from engine.types import SearchQueryArgs
from tests.conftest import git

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)


def _node(identifier: str, title: str, updated: str) -> dict[str, object]:
    return {"identifier": identifier, "title": title, "description": "", "url": "",
            "updatedAt": updated, "state": {"name": "Todo"}}  # fmt: skip


class RecentIssues(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, object]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        RecentIssues.seen.append(body)
        nodes = [_node("ABC-9", "newest issue", "2026-06-14T09:00:00.000Z"),
                 _node("ABC-2", "older issue", "2026-06-01T09:00:00.000Z")]  # fmt: skip
        data = json.dumps({"data": {"issues": {"nodes": nodes}}}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def linear_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), RecentIssues)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    RecentIssues.seen.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/graphql"
    finally:
        server.shutdown()
        server.server_close()


def _plan(text: str, kinds: tuple[str, ...] | None) -> object:
    return build_plan(SearchQueryArgs(query=text, kinds=kinds), now=NOW, lanes=[])  # type: ignore[arg-type]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for age, name in enumerate(("new.py", "mid.py", "old.py")):
        (root / name).write_text(f"# {name}\n")
        stamp = NOW.timestamp() - 3600 * (age + 1)
        os.utime(root / name, (stamp, stamp))
    git(root, "add", "new.py", "mid.py")  # old.py untracked: listed too (not ignored)
    return root


def _files(root: Path, text: str, kinds: tuple[str, ...] | None) -> list[tuple[str, int]]:
    project = Project(root=root, id="p1", name="p", is_git=True)
    lanes = [Lane(id="primary", name="p", path=root, branch="main", primary=True)]
    found, warnings = delegated_candidates(project, _plan(text, kinds), lanes, {})  # type: ignore[arg-type]
    assert warnings == []
    return [(c.title, c.updated_at) for c in found if c.kind == "file"]


def test_kind_file_alone_lists_every_file_newest_first(repo: Path) -> None:
    listed = _files(repo, "kind:file", None)
    assert {title for title, _ in listed} == {"new.py", "mid.py", "old.py"}
    by_age = [title for title, _ in sorted(listed, key=lambda pair: -pair[1])]
    assert by_age == ["new.py", "mid.py", "old.py"]
    assert _files(repo, "", ("file", "commit")) == listed  # --kind file --kind commit


def test_since_narrows_a_browse_and_the_default_kinds_do_not_browse(repo: Path) -> None:
    recent = _files(repo, "kind:file since:2026-06-15T10:30:00Z", None)
    assert [title for title, _ in recent] == ["new.py"]
    assert _files(repo, "", None) == []  # a bare listing over every kind lists no files
    assert _files(repo, "since:7d", None) == []


def test_linear_alone_lists_recent_issues(linear_url: str, tmp_path: Path) -> None:
    env = {"LINEAR_API_KEY": "k", "ADE_LINEAR_API_URL": linear_url}
    project = Project(root=tmp_path, id="p1", name="p", is_git=False)
    found, warnings = delegated_candidates(project, _plan("kind:issue", None), [], env)  # type: ignore[arg-type]
    assert warnings == []
    assert [c.doc_id for c in found] == ["linear:ABC-9", "linear:ABC-2"]
    assert "orderBy: updatedAt" in str(RecentIssues.seen[0]["query"])
    found, warnings = delegated_candidates(project, _plan("kind:linear", None), [], {})  # type: ignore[arg-type]
    assert found == []
    assert "LINEAR_API_KEY" in warnings[0]
