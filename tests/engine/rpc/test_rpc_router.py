"""The machine router over three registered projects, through a real daemon (docs/daemon.md)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.rpc.registry import add_project, registry_path
from engine.rpc.router import PROJECT_CEILING


def _pr(root: Path, number: int, title: str) -> None:
    prs = root / ".ade" / "prs"
    prs.mkdir(parents=True, exist_ok=True)
    snapshot = {
        "number": number, "title": title, "body": "zebra body", "state": "OPEN",
        "author": "dev", "headBranch": "feat", "baseBranch": "main",
        "url": f"https://example.invalid/pr/{number}", "updatedAt": "2026-06-02T09:00:00+00:00",
        "comments": [],
    }  # fmt: skip
    (prs / f"{number}.json").write_text(json.dumps(snapshot))


@pytest.fixture
def projects(short_dir: Path, daemon: Any, chat_project: Any) -> dict[str, Path]:
    """Alpha (active: 12 chats, a PR), Beta (250 chats: over the ceiling, a PR), Gamma (5)."""
    alpha = chat_project(short_dir / "alpha", "alpha", "Alpha", 12).resolve()
    beta = chat_project(short_dir / "beta", "beta", "Beta", 250).resolve()
    gamma = chat_project(short_dir / "gamma", "gamma", "Gamma", 5).resolve()
    _pr(alpha, 1, "zebra crossing in alpha")
    _pr(beta, 2, "zebra crossing in beta")
    registry = registry_path(daemon.config)
    for root in (alpha, beta, gamma):
        add_project(registry, root)
    return {"alpha": alpha, "beta": beta, "gamma": gamma}


def _all_pages(conn: Any, root: Path, **params: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = {"projectRoot": str(root), "limit": 100, **params}
        if cursor:
            page["cursor"] = cursor
        answer = conn.call("search.query", page)
        result = answer["result"]
        items += result["items"]
        cursor = result["nextCursor"]
        if cursor is None:
            return items, result


def test_chats_from_every_project_bounded_and_flagged(
    daemon: Any, projects: dict[str, Path]
) -> None:
    items, last = _all_pages(daemon.connect(), projects["alpha"], query="zebra")
    per_project = Counter((i["projectId"], i["kind"]) for i in items)
    assert per_project == {
        ("alpha", "chat"): 12, ("alpha", "pr"): 1,
        ("beta", "chat"): PROJECT_CEILING, ("gamma", "chat"): 5,
    }  # fmt: skip
    assert last["resultsTruncated"] is True
    assert last["total"] >= 12 + 1 + 250 + 5
    assert len({(i["projectId"], i["docId"]) for i in items}) == len(items)


def test_each_result_carries_its_own_project(daemon: Any, projects: dict[str, Path]) -> None:
    items, _ = _all_pages(daemon.connect(), projects["gamma"], query="zebra")
    names = {"alpha": "Alpha", "beta": "Beta", "gamma": "Gamma"}
    for item in items:
        pid = item["projectId"]
        assert item["projectName"] == names[pid]
        assert item["projectRoot"] == str(projects[pid])
        if item["kind"] == "chat":
            assert item["sessionId"] == f"chat-{pid}"


def test_non_chat_kinds_come_only_from_the_active_project(
    daemon: Any, projects: dict[str, Path]
) -> None:
    conn = daemon.connect()
    items, _ = _all_pages(conn, projects["beta"], query="zebra crossing")
    prs = [i for i in items if i["kind"] == "pr"]
    assert [p["projectId"] for p in prs] == ["beta"]
    only_prs, last = _all_pages(conn, projects["alpha"], query="zebra", kinds=["pr"])
    assert [(i["projectId"], i["kind"]) for i in only_prs] == [("alpha", "pr")]
    assert last["resultsTruncated"] is False


def test_merge_is_in_comparator_order(daemon: Any, projects: dict[str, Path]) -> None:
    items, _ = _all_pages(daemon.connect(), projects["alpha"], query="zebra", kinds=["chat"])
    tiers = {"exact_title": 0, "title_prefix": 1, "title_substring": 2, "body": 3}
    keys = [(tiers[i["tier"]], -i["updatedAt"]) for i in items]
    assert keys == sorted(keys)


def test_below_the_ceiling_nothing_is_truncated(daemon: Any, projects: dict[str, Path]) -> None:
    items, last = _all_pages(daemon.connect(), projects["alpha"], query="zebra note 1")
    assert items
    assert last["resultsTruncated"] is False


def test_missing_project_is_skipped_with_a_warning(
    daemon: Any, projects: dict[str, Path], short_dir: Path, chat_project: Any
) -> None:
    doomed = chat_project(short_dir / "delta", "delta", "Delta", 3).resolve()
    add_project(registry_path(daemon.config), doomed)
    shutil.rmtree(doomed)
    items, last = _all_pages(daemon.connect(), projects["alpha"], query="zebra")
    assert "delta" not in {i["projectId"] for i in items}
    assert {i["projectId"] for i in items} == {"alpha", "beta", "gamma"}
    assert any("skipped project Delta" in w for w in last["warnings"])
    assert "skipped project Delta" in daemon.log_text()


def test_router_cursor_is_bound_to_its_query(daemon: Any, projects: dict[str, Path]) -> None:
    conn = daemon.connect()
    root = str(projects["alpha"])
    first = conn.call("search.query", {"projectRoot": root, "query": "zebra", "limit": 5})
    cursor = first["result"]["nextCursor"]
    assert cursor.startswith("m1:")
    for params in (
        {"query": "note", "cursor": cursor},
        {"query": "zebra", "cursor": cursor[:-4] + "AAAA"},
        {"query": "zebra", "kinds": ["pr"], "cursor": cursor},
    ):
        answer = conn.call("search.query", {"projectRoot": root, **params})
        assert answer["error"]["code"] == -32602, params


def test_an_offset_pages_the_merged_window_like_its_cursor(
    daemon: Any, projects: dict[str, Path]
) -> None:
    conn = daemon.connect()
    root = str(projects["alpha"])
    items, _ = _all_pages(conn, root, query="zebra")
    skipped = conn.call("search.query", {"projectRoot": root, "query": "zebra", "offset": 30,
                                         "limit": 10})["result"]  # fmt: skip
    assert [i["docId"] for i in skipped["items"]] == [i["docId"] for i in items[30:40]]
