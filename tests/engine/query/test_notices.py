"""Notices an agent injected (``system_message``) are found only when asked for (``role:system``).

A real project whose chat holds one message of each role, every one with the word ``heron``:
a plain search finds the user's and the assistant's words, never the notice; ``role:system``
finds the notice alone; the index, the live ``session:`` source and the ``--sessions`` rows agree.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import apsw
import pytest

from engine.errors import UsageError
from engine.index.schema import SCHEMA_SQL
from engine.index.sql import role_match
from engine.ingest.timers import ManualTimerFactory
from engine.kinds import ROLE_TOKEN
from engine.project.locate import open_project
from engine.service import SearchService
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)

EVENTS = [
    ("user_message", "mu", "please find the heron nest"),
    ("system_message", "mn", "This session is being continued: heron summary"),
    ("assistant_message", "ma", "the heron nest is in the reeds"),
]


def _chat(ade: Path, sid: str) -> None:
    (ade / "sessions").mkdir(parents=True, exist_ok=True)
    (ade / "sessions" / f"{sid}.json").write_text(json.dumps(
        {"id": sid, "kind": "chat", "title": f"Session {sid}", "laneId": "primary",
         "createdAt": "2026-06-01T09:00:00+00:00", "updatedAt": "2026-06-01T09:00:00+00:00"}
    ))  # fmt: skip
    at = "2026-06-01T09:30:00+00:00"
    lines = [
        json.dumps({"seq": seq, "ts": at, "type": etype, "id": mid, "text": text})
        for seq, (etype, mid, text) in enumerate(EVENTS, 1)
    ]
    (ade / "chats").mkdir(parents=True, exist_ok=True)
    (ade / "chats" / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SearchService]:
    root = tmp_path_factory.mktemp("notices") / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    _chat(root / ".ade", "s1")
    svc = create_project_service(
        open_project(root), clock=lambda: NOW, timer=ManualTimerFactory(), start_worker=False
    )
    svc.catch_up()
    _chat(root / ".ade", "live")  # written after the catch-up: read live by session:live
    yield svc
    svc.dispose()


def _found(service: SearchService, query: str) -> set[str]:
    return {item.doc_id for item in service.query(SearchQueryArgs(query=query, limit=50)).items}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("heron", {"chat:s1:mu", "chat:s1:ma"}),
        ("kind:chat heron", {"chat:s1:mu", "chat:s1:ma"}),
        ("summary", set()),
        ("he", {"chat:s1:mu", "chat:s1:ma"}),  # the short-prefix table too
        ("role:system heron", {"chat:s1:mn"}),
        ("role:system", {"chat:s1:mn"}),  # filter-only
        ("role:system summary", {"chat:s1:mn"}),
        ("session:live heron", {"chat:live:mu", "chat:live:ma"}),
        ("session:live role:system heron", {"chat:live:mn"}),
    ],
)
def test_a_notice_is_found_only_when_asked(
    service: SearchService, query: str, expected: set[str]
) -> None:
    assert _found(service, query) == expected


def test_a_filter_only_listing_leaves_the_notice_out(service: SearchService) -> None:
    found = _found(service, "kind:chat")
    assert "chat:s1:mu" in found
    assert "chat:s1:mn" not in found


def test_the_total_counts_no_notice(service: SearchService) -> None:
    assert service.query(SearchQueryArgs(query="heron")).total == 2
    assert service.query(SearchQueryArgs(query="role:system heron")).total == 1


def test_a_session_row_needs_more_than_its_notice(service: SearchService) -> None:
    rows = service.query(SearchQueryArgs(query="summary", sessions=True)).items
    assert rows == ()
    rows = service.query(SearchQueryArgs(query="role:system summary", sessions=True)).items
    assert [row.session_id for row in rows] == ["s1"]


def test_an_unknown_role_is_a_usage_error(service: SearchService) -> None:
    with pytest.raises(UsageError, match="unknown role:'robot'; known roles: system"):
        service.query(SearchQueryArgs(query="role:robot heron"))


def test_a_plain_match_leaves_the_notices_out_in_fts5_itself() -> None:
    conn = apsw.Connection(":memory:")
    conn.execute(SCHEMA_SQL)
    for rowid, parts in ((1, "egret"), (2, f"egret {ROLE_TOKEN}")):
        conn.execute("INSERT INTO docs_fts(rowid, body, rank_title, parts) VALUES (?, '', '', ?)",
                     (rowid, parts))  # fmt: skip
    sql = "SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?"
    assert [r[0] for r in conn.execute(sql, [role_match('"egret"', None)])] == [1]
    assert [r[0] for r in conn.execute(sql, [role_match('"egret"', ("system",))])] == [2]
