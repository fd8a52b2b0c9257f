"""`ade mcp` over stdio through the SDK's client: the tool list, and every tool on the demo
project, on both paths (in process, and through an auto-started daemon of the module's own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv
from mcp_client import answer, call, mcp_server

pytestmark = pytest.mark.usefixtures("cli_path")


async def test_the_tool_list_names_four_read_only_tools_with_bounded_schemas(
    demo_project: Path,
) -> None:
    async with mcp_server(demo_project) as client:
        listed = (await client.list_tools()).tools
    tools = {tool.name: tool for tool in listed}
    assert list(tools) == ["search", "open", "list_sessions", "status"]
    for tool in listed:
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint
        assert tool.annotations.destructive_hint is False
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False
        assert tool.description
        assert len(tool.description) < 1200
    search = tools["search"]
    assert search.description is not None
    assert "kind:" in search.description
    assert "since:" in search.description
    assert '"exact phrase"' in search.description
    assert "-exclude" in search.description
    properties = search.input_schema["properties"]
    assert search.input_schema["required"] == ["query"]
    assert set(properties) == {"query", "kinds", "lane", "since", "until", "limit", "offset"}
    assert (properties["limit"]["default"], properties["limit"]["maximum"]) == (20, 100)
    assert "terminal" in properties["kinds"]["items"]["enum"]
    assert tools["open"].input_schema["required"] == ["link"]
    assert set(tools["list_sessions"].input_schema["properties"]) == {
        "agent",
        "lane",
        "since",
        "limit",
    }


async def test_search_answers_what_ade_search_answers_with_rows_for_a_model(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli = run_main(capsys, search_argv(demo_project, "exponential", "backoff", "--json"))
    assert cli.code == 0, cli.err
    expected = json.loads(cli.out)
    async with mcp_server(demo_project) as client:
        found = await answer(client, "search", {"query": "exponential backoff"})
        paged = await answer(
            client, "search", {"query": "exponential backoff", "limit": 2, "offset": 1}
        )
    assert found["total"] == expected["total"]
    assert [row["link"] for row in found["rows"]] == [i["deepLink"] for i in expected["items"]]
    assert [row["link"] for row in paged["rows"]] == [i["deepLink"] for i in expected["items"]][1:3]
    assert paged["nextOffset"] == 3
    first = found["rows"][0]
    assert {"kind", "title", "snippet", "time", "link"} <= set(first)
    assert first["time"].endswith("Z")
    chat = next(row for row in found["rows"] if row["kind"] == "chat")
    assert chat["agent"]
    assert chat["session"]
    assert chat["lane"]
    assert found["resultsTruncated"] is False
    assert found["warnings"] == []


async def test_search_filters_by_kind_lane_and_time(demo_project: Path) -> None:
    async with mcp_server(demo_project) as client:
        terminals = await answer(client, "search", {"query": "timeout", "kinds": ["terminal"]})
        recent = await answer(client, "search", {"query": "timeout", "since": "1d"})
        everything = await answer(client, "search", {"query": "timeout", "limit": 100})
    assert terminals["rows"]
    assert {row["kind"] for row in terminals["rows"]} == {"terminal"}
    assert 0 < recent["total"] < everything["total"]
    assert all(row["time"] >= "2026-06-14T12:00:00Z" for row in recent["rows"])


async def test_open_reads_a_bounded_window_around_each_kind_of_hit(demo_project: Path) -> None:
    async with mcp_server(demo_project) as client:
        hits = await answer(client, "search", {"query": "ReadTimeoutError", "limit": 100})
        by_kind = {}
        for row in hits["rows"]:
            by_kind.setdefault(row["kind"], row["link"])
        assert {"chat", "terminal", "pr", "commit"} <= set(by_kind)
        opened = {k: await answer(client, "open", {"link": v}) for k, v in by_kind.items()}
        narrow = await answer(client, "open", {"link": by_kind["chat"], "context": 0})
    chat = opened["chat"]
    assert chat["kind"] == "chat"
    assert "\n> [" in "\n" + chat["text"]
    assert len(narrow["text"].splitlines()) < len(chat["text"].splitlines())
    assert any("message" in left for left in narrow["leftOut"])
    terminal = opened["terminal"]
    assert terminal["kind"] == "terminal"
    assert "ReadTimeoutError" in terminal["text"]
    assert "\x1b" not in terminal["text"]
    assert opened["pr"]["text"].startswith("pr  #")
    assert opened["commit"]["kind"] == "commit"


async def test_list_sessions_and_status_describe_the_project(demo_project: Path) -> None:
    async with mcp_server(demo_project) as client:
        sessions = await answer(client, "list_sessions", {})
        claude = await answer(client, "list_sessions", {"agent": "claude", "limit": 2})
        lane = await answer(client, "list_sessions", {"lane": "webhooks"})
        recent = await answer(client, "list_sessions", {"since": "6h"})
        status = await answer(client, "status", {})
        opened = await answer(client, "open", {"link": claude["rows"][0]["link"]})
    rows = sessions["rows"]
    assert sessions["total"] == len(rows) > 5
    times = [row["lastActivity"] for row in rows]
    assert times == sorted(times, reverse=True)
    assert {"chat", "terminal"} == {row["kind"] for row in rows}
    assert len(claude["rows"]) == 2
    assert {r["agent"] for r in claude["rows"]} == {"claude"}
    assert lane["rows"]
    assert {row["lane"] for row in lane["rows"]} == {"webhooks"}
    assert 0 < recent["total"] < sessions["total"]
    assert all(row["messages"] > 0 for row in rows if row["kind"] == "chat")
    assert opened["kind"] == "chat"
    assert status["state"] == "ready"
    assert status["documents"] > 100
    assert {"chat", "terminal", "commit", "pr"} <= set(status["documentsByKind"])
    assert status["sessionsByAgent"]["claude"] >= 2
    assert {source["agent"] for source in status["sources"]} >= {"claude", "codex"}


async def test_bad_input_is_a_tool_error_with_the_clis_line_and_the_server_goes_on(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kind = run_main(capsys, search_argv(demo_project, "--kind", "nope", "x"))
    since = run_main(capsys, search_argv(demo_project, "since:7x"))
    assert kind.code == since.code == 2
    async with mcp_server(demo_project) as client:
        assert await call(client, "search", {"query": "x", "kinds": ["nope"]}) == (
            kind.err.strip(),
            True,
        )
        assert await call(client, "search", {"query": "since:7x"}) == (since.err.strip(), True)
        text, failed = await call(client, "open", {"link": "ade://nope/1"})
        assert failed
        assert text.startswith("ade open: ")
        assert "\n" not in text
        text, failed = await call(client, "open", {"link": "ade://chat/gone-session?event=1"})
        assert failed
        assert text.startswith("ade open: ")
        text, failed = await call(client, "list_sessions", {"since": "yesterday"})
        assert failed
        assert "since" in text
        text, failed = await call(client, "search", {"query": "x", "limit": 1000})
        assert failed
        assert "\n" not in text
        text, failed = await call(client, "nonexistent", {})
        assert failed
        assert (await answer(client, "search", {"query": "backoff"}))["rows"]
