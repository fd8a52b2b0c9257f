"""Claude Code and Codex transcripts: discovery, parsing from byte offsets, indexing in place."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from engine.external.claude_code import parse_claude
from engine.external.codex import parse_codex
from engine.external.discover import claude_slug, external_sessions
from engine.index.db import connect
from engine.index.writer import IndexWriter
from engine.ingest.external_pass import SUBAGENT_SEQ_STRIDE, process_external
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from engine.query.source_text import document_texts


def line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def claude_msg(uuid: str, kind: str, content: Any, cwd: str, **extra: Any) -> bytes:
    return line({"parentUuid": None, "isSidechain": False, "cwd": cwd, "sessionId": "s1",
                 "type": kind, "message": {"role": kind, "content": content}, "uuid": uuid,
                 "timestamp": "2026-05-28T10:00:00.000Z", **extra})  # fmt: skip


BIG = "A" * (3 * 1024 * 1024)


def claude_transcript(cwd: str) -> bytes:
    return b"".join([
        line({"type": "summary", "summary": "Fix the zorblax crash", "leafUuid": "u9"}),
        claude_msg("u1", "user", "why does zorblax crash on start?", cwd),
        claude_msg("u2", "assistant", [{"type": "thinking", "thinking": "secretthought"}], cwd),
        claude_msg("u3", "assistant", [{"type": "text", "text": "Let me look at frobnicate."}], cwd),
        claude_msg("u4", "assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                   "input": {"command": "grep -rn quuxify src", "description": "search"}}], cwd),
        b'{"type": "user", "uuid": "broken", "mess\n',  # corrupt
        claude_msg("u5", "user", [{"type": "tool_result", "tool_use_id": "toolu_1",
                   "content": [{"type": "text", "text": "src/a.py:3: quuxify()"}]}], cwd)[:-1]
        + claude_msg("u6", "user", "spliced", cwd),  # two records on one line
        claude_msg("u7", "user", [{"type": "image", "source": {"data": BIG}},
                                  {"type": "text", "text": "see the screenshot wibblewobble"}], cwd),
        line({"type": "file-history-snapshot", "snapshot": {}}),
        claude_msg("u8", "user", [{"type": "tool_result", "tool_use_id": "t",
                   "content": "plain result flibbertigibbet"}], cwd),
        claude_msg("u10", "user", "torn tail text", cwd)[:-10],
    ])  # fmt: skip


def codex_rollout(cwd: str) -> bytes:
    def item(kind: str, payload: dict[str, Any]) -> bytes:
        return line({"timestamp": "2026-05-28T11:00:00.000Z", "type": kind, "payload": payload})

    out = json.dumps({"output": "tests passed: 12\n", "metadata": {"exit_code": 0}})
    return b"".join([
        item("session_meta", {"id": "0199-abc", "timestamp": "2026-05-28T11:00:00Z", "cwd": cwd,
                              "originator": "codex_cli_rs", "cli_version": "0.40.0"}),
        item("response_item", {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]}),
        item("response_item", {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "run the splunge tests"}]}),
        item("event_msg", {"type": "user_message", "message": "run the splunge tests", "images": []}),
        item("response_item", {"type": "reasoning", "summary": [{"type": "summary_text", "text": "hiddenreason"}]}),
        item("event_msg", {"type": "agent_reasoning", "text": "hiddenreason"}),
        item("response_item", {"type": "function_call", "name": "shell", "call_id": "call_1",
             "arguments": json.dumps({"command": ["bash", "-lc", "pytest -q splunge"]})}),
        item("response_item", {"type": "function_call_output", "call_id": "call_1", "output": out}),
        item("event_msg", {"type": "agent_message", "message": "All splunge tests pass."}),
        item("response_item", {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "All splunge tests pass."}]}),
        item("event_msg", {"type": "user_message", "message": "run the splunge tests", "images": []}),
    ])  # fmt: skip


@pytest.fixture
def homes(tmp_path: Path, repo: Path) -> dict[str, str]:
    """Claude and Codex homes holding sessions for the repo, its worktree, and elsewhere."""
    worktree = tmp_path / "proj-wt" / "feature-x"
    claude = tmp_path / "claude"
    folder = claude / "projects" / claude_slug(worktree)
    folder.mkdir(parents=True)
    (folder / "abc-123.jsonl").write_bytes(claude_transcript(str(worktree)))
    sub = folder / "abc-123" / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-7f.jsonl").write_bytes(
        claude_msg(
            "s1",
            "assistant",
            [{"type": "text", "text": "subagent found grommets"}],
            str(worktree),
            isSidechain=True,
        )
    )
    # Same slug, different cwd (the slug is lossy): not ours.
    (folder / "other.jsonl").write_bytes(claude_msg("x", "user", "elsewhere", "/proj/wt-feature-x"))
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "05" / "28"
    day.mkdir(parents=True)
    (day / "rollout-2026-05-28T11-00-00-0199-abc.jsonl").write_bytes(
        codex_rollout(str(repo / "src"))
    )
    (day / "rollout-2026-05-28T12-00-00-0199-zzz.jsonl").write_bytes(codex_rollout("/elsewhere"))
    return {"CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex), "HOME": str(tmp_path)}


def bodies(project_root: Path) -> dict[str, tuple[str, str | None, str | None]]:
    project = open_project(project_root)
    conn = connect(project.index_path)
    rows = list(conn.execute("SELECT rowid, doc_id, lane_id, anchor FROM docs WHERE kind = 'chat'"))
    texts = document_texts(conn, project, [str(r[1]) for r in rows])
    return {str(r[1]): (texts.get(str(r[1]), ""), r[2], r[3]) for r in rows}


def test_discovery_confirms_cwd_and_assigns_lanes(repo: Path, homes: dict[str, str]) -> None:
    project = open_project(repo)
    tally = WarningTally()
    sessions = external_sessions(project, list_lanes(project, tally), tally, homes)
    assert [(m.id, m.lane_id, m.tool, m.source) for m in sessions] == [
        ("claude-abc-123", "feature-x", "claude", "claude"),
        ("codex-0199-abc", "primary", "codex", "codex"),
    ]
    assert sessions[0].title == "Fix the zorblax crash"
    assert sessions[1].title == "run the splunge tests"
    assert sessions[0].transcript_path is not None
    assert sessions[0].transcript_path.name == "abc-123.jsonl"


def test_index_in_place_skips_thinking_and_corrupt_lines_and_waits_for_the_torn_tail(
    repo: Path, homes: dict[str, str]
) -> None:
    project = open_project(repo)
    tally = WarningTally()
    sessions = {
        m.id: m for m in external_sessions(project, list_lanes(project, tally), tally, homes)
    }
    writer = IndexWriter(project.index_path)
    for meta in sessions.values():
        while process_external(writer, meta, tally, 1).more:
            pass
    docs = bodies(repo)
    claude = {k.removeprefix("chat:claude-abc-123:"): v for k, v in docs.items() if "claude" in k}
    assert claude["u1"][0] == "why does zorblax crash on start?"
    assert claude["u4"][0].startswith("Bash command: grep -rn quuxify src")
    assert "flibbertigibbet" in claude["u8:result"][0]
    assert "wibblewobble" in claude["u7"][0]  # the multi-MB line, image left out
    assert claude["u1"][1] == "feature-x"
    assert "u10" not in claude  # torn tail not consumed
    assert not any("secretthought" in body for body, _, _ in docs.values())
    assert not any("spliced" in body for body, _, _ in docs.values())
    assert tally.snapshot()["chat:claude-abc-123"] == 2  # the corrupt and the spliced line
    sub = claude["s1"]
    assert sub[0] == "subagent found grommets"
    assert int(sub[2] or 0) >= SUBAGENT_SEQ_STRIDE
    # The writer completes the torn line: indexed exactly once on the next pass.
    path = sessions["claude-abc-123"].transcript_path
    assert path is not None
    with path.open("ab") as handle:
        handle.write(claude_msg("u10", "user", "torn tail text", "x")[-10:])
    process_external(writer, sessions["claude-abc-123"], tally, 2)
    process_external(writer, sessions["claude-abc-123"], tally, 3)
    assert bodies(repo)["chat:claude-abc-123:u10"][0] == "torn tail text"
    codex = sorted(v[0] for k, v in bodies(repo).items() if k.startswith("chat:codex-0199-abc:"))
    assert codex == sorted([
        "run the splunge tests", "run the splunge tests", "All splunge tests pass.",
        "shell command: bash -lc pytest -q splunge", "tests passed: 12\n\n[exit code 0]",
    ])  # fmt: skip
    writer.close()


def test_codex_copies_pair_up_across_passes() -> None:
    data = codex_rollout("/p")
    tally = WarningTally()
    counters: dict[str, int] = {}
    cut = data.index(b'"event_msg", "payload": {"type": "user_message"')
    cut = data.rfind(b"\n", 0, cut) + 1
    first, used = parse_codex(data[:cut], 0, "c", tally, counters)
    second, _ = parse_codex(data[used:], used, "c", tally, counters)
    ids = [e.event_id for e in first + second if e.type == "user_message"]
    # response_item copy, its event_msg twin, then a genuinely repeated message.
    assert ids[0] == ids[1] != ids[2]
    assert [e.type for e in first + second].count("assistant_message") == 2
    assert len({e.event_id for e in first + second if e.type == "assistant_message"}) == 1


def test_claude_parser_from_an_offset_keeps_absolute_offsets() -> None:
    data = claude_transcript("/p")
    start = data.index(
        b'{"parentUuid": null, "isSidechain": false, "cwd": "/p", "sessionId": "s1", "type": "assistant"'
    )
    events, consumed = parse_claude(data[start:], start, "c", WarningTally())
    assert events[0].data["id"] == "u3"
    assert (
        events[0].seq
        == events[0].offset
        == data.index(
            b'"cwd": "/p", "sessionId": "s1", "type": "assistant", "message": {"role": "assistant", "content": [{"type": "text"'
        )
        - len(b'{"parentUuid": null, "isSidechain": false, ')
    )
    assert start + consumed == data.rfind(b"\n") + 1


def test_a_chat_is_as_old_as_its_last_message_not_its_mtime(
    repo: Path, homes: dict[str, str]
) -> None:
    """Claude appends a summary to an old session; its row must not say "just now"."""
    project = open_project(repo)
    worktree = Path(homes["HOME"]) / "proj-wt" / "feature-x"
    folder = Path(homes["CLAUDE_CONFIG_DIR"]) / "projects" / claude_slug(worktree)
    path = folder / "abc-123.jsonl"
    whole = claude_transcript(str(worktree))
    last = claude_msg("u11", "assistant", "the last word", str(worktree))
    last = last.replace(b"2026-05-28T10:00:00.000Z", b"2026-05-28T17:30:00.000Z")
    path.write_bytes(
        whole[: whole.rindex(b"\n") + 1]  # without the torn tail
        + last
        + line({"type": "summary", "summary": "Fix the zorblax crash", "leafUuid": "u11"})
    )
    os.utime(path, (2_000_000_000, 2_000_000_000))  # touched much later (2033)
    tally = WarningTally()
    sessions = {
        m.id: m for m in external_sessions(project, list_lanes(project, tally), tally, homes)
    }
    assert sessions["claude-abc-123"].updated_at.isoformat() == "2026-05-28T17:30:00+00:00"
