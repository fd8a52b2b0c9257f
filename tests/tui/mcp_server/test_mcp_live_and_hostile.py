"""`ade mcp` on a project that changes and on hostile text: a transcript line appended between
two calls is found by the second (read-your-writes, both paths), a planted secret and escape
sequences never reach the model, and every answer stays under its cap and says it cut."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_client import answer, call, mcp_server

from engine.redaction import redact_secrets

pytestmark = pytest.mark.usefixtures("cli_path")

SECRET = "ghp_" + "A1b2C3d4E5" * 3 + "f6G7h8"
"""A GitHub token's shape (``tests/engine/test_redaction.py``): the redaction must replace it."""

HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example\x07click\x1b]8;;\x07\x1b[2J\x9b31m"
"""A clipboard write (OSC 52), a hidden link (OSC 8), a cleared screen (CSI 2J), a C1 CSI."""


def _append_chat(root: Path, session: str, seq: int, text: str) -> None:
    event = {
        "seq": seq,
        "ts": "2026-06-15T11:59:00.000Z",
        "type": "assistant_message",
        "id": f"msg_live_{seq}",
        "text": text,
    }
    with (root / ".ade" / "chats" / f"{session}.jsonl").open("a") as handle:
        handle.write(json.dumps(event) + "\n")


async def test_a_transcript_line_appended_between_two_calls_is_found_by_the_second(
    demo_copy: Path,
) -> None:
    """In process, every call catches up first; through the daemon, every query asks it to catch
    up first (``fresh``): on both paths a plain query sees the line the caller just wrote."""
    async with mcp_server(demo_copy) as client:
        before = await answer(client, "search", {"query": "zanzibarquux"})
        sessions = await answer(client, "list_sessions", {"agent": "claude", "limit": 100})
        counted = {row["id"]: row["messages"] for row in sessions["rows"]}
        _append_chat(demo_copy, "chat-abc123-backoff", 900, "the zanzibarquux canary is live")
        after = await answer(client, "search", {"query": "zanzibarquux"})
        scoped = await answer(
            client, "search", {"query": "zanzibarquux session:chat-abc123-backoff"}
        )
        again = await answer(client, "list_sessions", {"agent": "claude", "limit": 100})
        opened = await answer(client, "open", {"link": after["rows"][0]["link"]})
    assert before["total"] == 0
    assert after["total"] == 1
    assert scoped["rows"] == after["rows"]
    row = after["rows"][0]
    assert (row["kind"], row["session"]) == ("chat", "chat-abc123-backoff")
    assert "zanzibarquux" in row["snippet"]
    assert "> [900] assistant: the zanzibarquux canary is live" in opened["text"]
    recount = {r["id"]: r["messages"] for r in again["rows"]}
    assert recount["chat-abc123-backoff"] == counted["chat-abc123-backoff"] + 1


async def test_secrets_are_redacted_and_escape_sequences_removed_in_every_tool(
    demo_copy: Path,
) -> None:
    _append_chat(
        demo_copy,
        "chat-abc123-backoff",
        901,
        f"ocelotcanary deploy with {SECRET} then {HOSTILE} done",
    )
    pr = demo_copy / ".ade" / "prs" / "41.json"
    record = json.loads(pr.read_text())
    record["title"] = f"ocelottitle {HOSTILE} retries"
    pr.write_text(json.dumps(record))
    sessions = demo_copy / ".ade" / "sessions" / "chat-abc123-backoff.json"
    meta = json.loads(sessions.read_text())
    meta["title"] = f"Backoff {HOSTILE} session"
    sessions.write_text(json.dumps(meta))
    async with mcp_server(demo_copy) as client:
        chat = await answer(client, "search", {"query": "ocelotcanary session:chat-abc123-backoff"})
        titled = await answer(client, "search", {"query": "ocelottitle"})
        opened = [
            await answer(client, "open", {"link": hit["rows"][0]["link"]}) for hit in (chat, titled)
        ]
        listed = await call(client, "list_sessions", {"limit": 100})
    texts = [json.dumps(chat), json.dumps(titled), *map(json.dumps, opened), listed[0]]
    for text in texts:
        decoded = json.dumps(json.loads(text), ensure_ascii=False)
        assert SECRET not in decoded
        assert not any(ch in decoded for ch in "\x1b\x07\x9b"), decoded
        assert "ZXZpbA==" not in decoded
        assert "evil.example" not in decoded
    assert redact_secrets(SECRET) != SECRET
    assert redact_secrets(SECRET) in opened[0]["text"]  # the marker, where the token was
    assert "click" in opened[0]["text"]  # the visible text of the hidden link stays
    assert chat["rows"][0]["snippet"].count("ocelotcanary") == 1


async def test_answers_are_capped_and_say_where_they_cut(demo_copy: Path) -> None:
    pr = demo_copy / ".ade" / "prs" / "41.json"
    record = json.loads(pr.read_text())
    record["title"] = "ocelotlong " + "word " * 400
    pr.write_text(json.dumps(record))
    _append_chat(demo_copy, "chat-abc123-backoff", 902, "ocelotbig " + "lorem ipsum " * 5000)
    async with mcp_server(demo_copy) as client:
        wide, failed = await call(client, "search", {"query": "kind:terminal", "limit": 100})
        assert not failed
        big = await answer(client, "search", {"query": "ocelotbig session:chat-abc123-backoff"})
        titled = await answer(client, "search", {"query": "ocelotlong", "kinds": ["pr"]})
        opened = await answer(client, "open", {"link": big["rows"][0]["link"], "context": 0})
    assert len(wide) <= 24_000
    page = json.loads(wide)
    assert 0 < len(page["rows"]) < 100
    assert page["nextOffset"] == len(page["rows"])
    assert any("left out" in note and f"offset={len(page['rows'])}" in note for note in page["cut"])
    title = titled["rows"][0]["title"]
    assert len(title) == 200
    assert title.endswith("…[cut]")
    assert any("title or snippet cut" in note for note in titled["cut"])
    assert len(big["rows"][0]["snippet"]) <= 400
    assert len(opened["text"]) <= 16_000
    assert opened["text"].endswith("…[cut]")
    assert any("cut at 16,000" in note for note in opened["leftOut"])
