"""The Linear delegate against a local HTTP server that answers as Linear's GraphQL API does.

This is the one fake the project allows: the real service is out of reach from here.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from engine.delegates.gather import delegated_candidates
from engine.delegates.linear import LinearUnavailable, search_linear
from engine.project.model import Project
from engine.query.plan import QueryPlan, build_plan
from engine.types import SearchQueryArgs

NOW = datetime(2026, 6, 15, 12, tzinfo=UTC)

ISSUES = {
    "data": {
        "searchIssues": {
            "nodes": [
                {
                    "identifier": "ABC-123",
                    "title": "Retry payments with exponential backoff",
                    "description": "Use backoff on ReadTimeoutError",
                    "url": "https://linear.app/acme/issue/ABC-123",
                    "updatedAt": "2026-06-14T09:00:00.000Z",
                    "state": {"name": "In Progress"},
                },
                {"identifier": 7, "title": "malformed node is skipped"},
            ]
        }
    }
}


class LinearLike(BaseHTTPRequestHandler):
    mode = "ok"
    seen: ClassVar[list[dict[str, object]]] = []
    release = threading.Event()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        LinearLike.seen.append({"auth": self.headers.get("Authorization"), "body": body})
        if self.mode == "slow":
            LinearLike.release.wait(5)
        if self.mode == "500":
            self.send_response(500)
            self.end_headers()
            return
        payload = ISSUES if self.mode in ("ok", "slow") else {"errors": [{"message": "bad key"}]}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def linear_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), LinearLike)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    LinearLike.seen.clear()
    LinearLike.release.clear()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/graphql"
    finally:
        LinearLike.release.set()
        server.shutdown()
        server.server_close()


def test_search_sends_the_key_and_the_term_and_parses_issues(linear_url: str) -> None:
    LinearLike.mode = "ok"
    issues = search_linear("backoff", api_key="lin_api_test", url=linear_url)
    assert [i.identifier for i in issues] == ["ABC-123"]
    assert issues[0].state == "In Progress"
    assert issues[0].updated_at == datetime(2026, 6, 14, 9, tzinfo=UTC)
    request = LinearLike.seen[0]
    assert request["auth"] == "lin_api_test"
    assert request["body"]["variables"]["term"] == "backoff"  # type: ignore[index]


@pytest.mark.parametrize(("mode", "message"), [("500", "HTTP 500"), ("errors", "bad key")])
def test_failures_raise_one_line(linear_url: str, mode: str, message: str) -> None:
    LinearLike.mode = mode
    with pytest.raises(LinearUnavailable, match=message):
        search_linear("x", api_key="k", url=linear_url)


def test_timeout_is_short_and_clear(linear_url: str) -> None:
    LinearLike.mode = "slow"
    with pytest.raises(LinearUnavailable, match="did not answer"):
        search_linear("x", api_key="k", url=linear_url, timeout=0.2)


def _project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, id="p1", name="p", is_git=False)


def _plan(text: str, kinds: tuple[str, ...]) -> QueryPlan:
    args = SearchQueryArgs(query=text, kinds=kinds)  # type: ignore[arg-type]
    return build_plan(args, now=NOW, lanes=[])


def test_delegate_only_when_asked_and_failures_become_warnings(
    linear_url: str, tmp_path: Path
) -> None:
    env = {"LINEAR_API_KEY": "k", "ADE_LINEAR_API_URL": linear_url}
    LinearLike.mode = "ok"
    found, warnings = delegated_candidates(_project(tmp_path), _plan("backoff", ("chat",)), [], env)
    assert found == []
    assert LinearLike.seen == []
    plan = _plan("backoff", ("linear",))
    found, warnings = delegated_candidates(_project(tmp_path), plan, [], env)
    assert [c.doc_id for c in found] == ["linear:ABC-123"]
    link = found[0].extra.deep_link
    assert isinstance(link, str)
    assert link.startswith("ade://linear/ABC-123")
    LinearLike.mode = "500"
    plan = _plan("backoff", ("linear", "artifact"))
    found, warnings = delegated_candidates(_project(tmp_path), plan, [], env)
    assert found == []
    assert any("HTTP 500" in w for w in warnings)


def test_no_key_is_a_warning_not_an_error(tmp_path: Path) -> None:
    plan = _plan("backoff", ("linear",))
    found, warnings = delegated_candidates(_project(tmp_path), plan, [], {})
    assert found == []
    assert "LINEAR_API_KEY" in warnings[0]


def test_linear_reads_the_plan_like_every_source(linear_url: str, tmp_path: Path) -> None:
    env = {"LINEAR_API_KEY": "k", "ADE_LINEAR_API_URL": linear_url}
    LinearLike.mode = "ok"
    found, _ = delegated_candidates(
        _project(tmp_path), _plan("^retry* (backoff)", ("linear",)), [], env
    )
    assert [c.doc_id for c in found] == ["linear:ABC-123"]
    assert LinearLike.seen[-1]["body"]["variables"]["term"] == "retry backoff"  # type: ignore[index]
    excluded = _plan("retry -readtimeouterror", ("linear",))
    assert delegated_candidates(_project(tmp_path), excluded, [], env)[0] == []
    for scoped in ("retry session:s1", "retry lane:primary"):  # an issue has no session, no lane
        assert delegated_candidates(_project(tmp_path), _plan(scoped, ("linear",)), [], env) == (
            [],
            [],
        )
    before = _plan("retry until:2026-06-14", ("linear",))  # updated 06-14 09:00: still in
    assert len(delegated_candidates(_project(tmp_path), before, [], env)[0]) == 1
    assert (
        delegated_candidates(
            _project(tmp_path), _plan("retry until:2026-06-13", ("linear",)), [], env
        )[0]
        == []
    )
