"""Small faults, at the CLI on both paths: blank-like queries are the empty query,
a session whose times carry no zone is still found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")

BLANK_LIKE = ['"', '""', "\x00", "\u202e", "\ufeff", "  \t ", "\u200b"]


@pytest.mark.parametrize("query", BLANK_LIKE, ids=repr)
def test_a_blank_like_query_answers_as_the_empty_query(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str], query: str
) -> None:
    empty = run_main(capsys, search_argv(indexed_demo, "--json", "--limit", "5", ""))
    blank = run_main(capsys, search_argv(indexed_demo, "--json", "--limit", "5", query))
    assert (blank.code, blank.err) == (empty.code, empty.err) == (0, "")
    # The same hits and the same cursor: a next page asked with either continues the other.
    assert json.loads(blank.out) == json.loads(empty.out)


def test_a_session_with_naive_times_is_read_as_utc(
    demo_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions, terminals = demo_copy / ".ade" / "sessions", demo_copy / ".ade" / "terminals"
    (terminals / "term-naive.log").write_bytes(b"$ make quokkanaive\nquokkanaive done\n")
    record = {
        "id": "term-naive",
        "kind": "terminal",
        "title": "naive clock shell",
        "laneId": None,
        "createdAt": "2026-06-15T11:00:00",  # no zone: a tool that writes local-less times
        "updatedAt": "2026-06-15T11:30:00",
        "endedAt": "2026-06-15T11:30:00",
        "archived": False,
        "tool": "shell",
        "command": "make",
    }
    (sessions / "term-naive.json").write_text(json.dumps(record))
    run = run_main(capsys, search_argv(demo_copy, "--json", "quokkanaive"))
    assert run.code == 0, run.err
    items = json.loads(run.out)["items"]
    assert [item["sessionId"] for item in items] == ["term-naive"]
    assert items[0]["updatedAt"] == 1781523000000  # 11:30 UTC
