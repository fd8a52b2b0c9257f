"""Every chat hit links to a message, and `ade search --sessions` lists one row per session.

A session row (``chat:<sid>``) matches on its title: it links to its best matching message, or
for a title-only match to the message that set the title, so `ade open` of ``.items[0]`` lands
there; the text output prints that message once. ``--sessions`` gives one row per session with
its title, agent, lane, message count and last activity.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_main, search_argv

pytestmark = pytest.mark.usefixtures("cli_path")


def _json(capsys: pytest.CaptureFixture[str], root: Path, *query: str) -> dict[str, Any]:
    run = run_main(capsys, search_argv(root, *query, "--json"))
    assert run.code == 0, run.err
    answer: dict[str, Any] = json.loads(run.out)
    return answer


def _open(capsys: pytest.CaptureFixture[str], root: Path, link: str) -> str:
    run = run_main(capsys, ["open", "--project", str(root), link])
    assert run.code == 0, run.err
    return run.out


def test_a_title_hit_links_to_its_best_matching_message(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _json(capsys, indexed_demo, "kind:chat", "backoff", "--limit", "5")["items"]
    first = items[0]
    assert first["docId"] == "chat:chat-abc123-backoff"  # the title match ranks first
    assert "event=4&" in first["deepLink"]  # the best body match of that session
    assert first["anchor"] == "4"
    assert "backoff" in first["snippet"].lower()
    assert first["matchRanges"]
    opened = _open(capsys, indexed_demo, first["deepLink"])
    assert "> [4] assistant: Plan: a small `payments_api/retry.py`" in opened


def test_a_title_only_hit_opens_at_the_message_that_set_the_title(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = _json(capsys, indexed_demo, "kind:chat", '"Address review comments"')
    (first,) = answer["items"]
    assert first["docId"] == "chat:chat-pr41-review"
    # seq 1 is the user message the session_title event (seq 2) was made from
    assert "event=1&" in first["deepLink"]
    assert first["snippet"].startswith("Priya left review comments on PR #41")
    opened = _open(capsys, indexed_demo, first["deepLink"])
    assert "> [1] user: Priya left review comments" in opened  # not the last message


def test_the_text_output_prints_a_session_rows_message_once(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "kind:chat", "backoff", "--limit", "3"))
    assert run.code == 0, run.err
    link = "ade://chat/chat-abc123-backoff?event=4&"
    assert run.out.count(link) == 1  # on the title row, not again as a row of its own
    blocks = run.out.split("\n\n")
    assert blocks[0].startswith("chat     ABC-123: exponential backoff")
    assert "[backoff]_delays()" in blocks[0]  # the title row has the message's snippet


def test_sessions_lists_one_row_per_session(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = _json(capsys, indexed_demo, "kind:chat", "--sessions", "--limit", "50")
    items = answer["items"]
    sessions = [i["sessionId"] for i in items]
    assert len(sessions) == len(set(sessions)) == answer["total"] == 9
    assert all(i["docId"] == f"chat:{i['sessionId']}" for i in items)
    assert all(i["messageCount"] > 0 and i["matchCount"] is None for i in items)
    assert all(i["tool"] and i["laneId"] and i["title"] for i in items)
    times = [i["updatedAt"] for i in items]
    assert times == sorted(times, reverse=True)  # the most recently active first
    assert all("event=" in i["deepLink"] for i in items)  # each opens at a message
    by_id = {i["sessionId"]: i for i in items}
    assert by_id["chat-pr41-review"]["snippet"].startswith("Priya left review comments")


def test_sessions_with_words_count_the_matching_messages(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = _json(capsys, indexed_demo, "backoff", "--sessions")
    items = answer["items"]
    assert [i["sessionId"] for i in items][:1] == ["chat-abc123-backoff"]
    assert {i["kind"] for i in items} == {"chat"}
    assert all(0 < i["matchCount"] <= i["messageCount"] for i in items)
    run = run_main(capsys, search_argv(indexed_demo, "backoff", "--sessions"))
    assert "claude · abc-123-retry · 11 messages, 3 matches · 6d ago" in run.out
    assert run.out.rstrip().endswith(f"{len(items)} of {len(items)} sessions")


def test_sessions_page_with_their_own_cursor(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _json(capsys, indexed_demo, "kind:chat", "--sessions", "--limit", "5")
    assert first["nextCursor"]
    rest = _json(
        capsys, indexed_demo, "kind:chat", "--sessions", "--limit", "5",
        "--cursor", first["nextCursor"],
    )  # fmt: skip
    ids = [i["sessionId"] for i in (*first["items"], *rest["items"])]
    assert len(ids) == len(set(ids)) == 9
    assert rest["nextCursor"] is None
    text = run_main(capsys, search_argv(indexed_demo, "kind:chat", "--sessions", "--limit", "5",
                                        "--cursor", first["nextCursor"]))  # fmt: skip
    assert text.out.rstrip().endswith("6–9 of 9 sessions")  # the page says where it starts
    other = run_main(capsys, search_argv(indexed_demo, "kind:chat", "--cursor",
                                         first["nextCursor"]))  # fmt: skip
    assert other.code == 2
    assert "cursor" in other.err


def test_sessions_of_another_kind_is_a_usage_error(
    indexed_demo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_main(capsys, search_argv(indexed_demo, "kind:pr", "--sessions"))
    assert run.code == 2
    assert "--sessions lists chat sessions" in run.err
    assert "Traceback" not in run.err
