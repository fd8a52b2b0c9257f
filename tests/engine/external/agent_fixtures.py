"""Session stores of Gemini CLI, OpenCode, Copilot CLI and Aider, written as each tool writes them.

Shapes follow the sources cited in each parser's docstring. Every store holds the parts that
matter: user text, assistant text, a tool call and its result, hidden reasoning, scaffolding, a
corrupt line or row, a torn tail (or a rewind), a session in the linked worktree, and another
project's session that must not be listed. Unique words name each part so a search can find it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import apsw


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


# --- Gemini CLI: ~/.gemini/tmp/<slug>/chats/session-*.jsonl ---------------------------------
GEMINI_SID = "5f0c2d1e-aaaa-4bbb-8ccc-000000000001"
GEMINI_WT_SID = "5f0c2d1e-aaaa-4bbb-8ccc-000000000002"


def gemini_jsonl(project_root: str, *, torn: bool = True) -> bytes:
    tool_call = {"id": "call-1", "name": "run_shell_command", "args": {"command": "make zizzle"},
                 "status": "success", "timestamp": "2026-06-01T10:00:03Z"}  # fmt: skip
    done = {**tool_call, "result": [{"functionResponse": {"id": "call-1", "name": "run_shell_command",
            "response": {"output": "zizzle built fine"}}}], "resultDisplay": "zizzle built ok"}  # fmt: skip
    reply = {"id": "m2", "timestamp": "2026-06-01T10:00:02Z", "type": "gemini",
             "content": [{"text": "hidden thoughtpart", "thought": True}, {"text": "Building the zizzle target."}],
             "thoughts": [{"subject": "Plan", "description": "secretgeminithought",
                           "timestamp": "2026-06-01T10:00:01Z"}], "model": "gemini-2.5-pro"}  # fmt: skip
    return b"".join([
        _line({"sessionId": GEMINI_SID, "projectHash": hashlib.sha256(project_root.encode()).hexdigest(),
               "startTime": "2026-06-01T10:00:00Z", "lastUpdated": "2026-06-01T10:00:00Z"}),
        _line({"id": "m1", "timestamp": "2026-06-01T10:00:01Z", "type": "user",
               "content": [{"text": "please build the zizzle target"}]}),
        _line({"id": "m0", "timestamp": "2026-06-01T10:00:01Z", "type": "user",
               "content": "<session_context>injectedscaffold</session_context>"}),
        _line(reply),
        _line({**reply, "toolCalls": [tool_call]}),  # the same message again, with its call
        _line({**reply, "toolCalls": [done]}),  # and again when the result arrived
        _line({"id": "m3", "timestamp": "2026-06-01T10:00:04Z", "type": "info",
               "content": "infonotice scaffolding"}),
        b'{"id": "broken", "type": "user", "cont\n',  # corrupt
        _line({"id": "m4", "timestamp": "2026-06-01T10:00:05Z", "type": "user",
               "content": [{"text": "rewoundmessage never mind"}]}),
        _line({"$rewindTo": "m4"}),
        _line({"$set": {"summary": "Build the zizzle target", "lastUpdated": "2026-06-01T10:00:06Z"}}),
        _line({"id": "m5", "timestamp": "2026-06-01T10:00:07Z", "type": "user",
               "content": [{"text": "gemini torn tail words"}]})[: -12 if torn else None],
    ])  # fmt: skip


def gemini_legacy(project_root: str) -> bytes:
    """The one-document ``session-*.json`` of older releases (pretty-printed)."""
    doc = {"sessionId": GEMINI_WT_SID, "projectHash": hashlib.sha256(project_root.encode()).hexdigest(),
           "startTime": "2026-05-01T09:00:00Z", "lastUpdated": "2026-05-01T09:05:00Z",
           "messages": [{"id": "l1", "timestamp": "2026-05-01T09:00:01Z", "type": "user",
                         "content": "legacy gemini quokka question"},
                        {"id": "l2", "timestamp": "2026-05-01T09:00:02Z", "type": "gemini",
                         "content": "legacy quokka answer"}]}  # fmt: skip
    return json.dumps(doc, indent=2).encode()


def write_gemini(home: Path, repo: Path, worktree: Path) -> Path:
    tmp = home / ".gemini" / "tmp"
    slug = tmp / "proj"
    (slug / "chats").mkdir(parents=True)
    (slug / ".project_root").write_text(str(repo / "src"))  # started in a subfolder of the lane
    (slug / "chats" / "session-2026-06-01T10-00-5f0c2d1e.jsonl").write_bytes(
        gemini_jsonl(str(repo / "src"))
    )
    sub = slug / "chats" / GEMINI_SID  # a subagent's file, nested under its parent's id
    sub.mkdir()
    (sub / "a9e1-sub.jsonl").write_bytes(b"".join([
        _line({"sessionId": "a9e1-sub", "projectHash": "x", "kind": "subagent",
               "startTime": "2026-06-01T10:00:02Z"}),
        _line({"id": "s1", "timestamp": "2026-06-01T10:00:03Z", "type": "gemini",
               "content": [{"text": "subagent found gizzards"}]}),
    ]))  # fmt: skip
    hashed = tmp / hashlib.sha256(str(worktree).encode()).hexdigest()  # an older release
    (hashed / "chats").mkdir(parents=True)
    (hashed / "chats" / "session-2026-05-01T09-00-5f0c2d1e.json").write_bytes(
        gemini_legacy(str(worktree))
    )
    other = tmp / "elsewhere"
    (other / "chats").mkdir(parents=True)
    (other / ".project_root").write_text("/somewhere/else")
    (other / "chats" / "session-2026-06-01T11-00-99999999.jsonl").write_bytes(
        gemini_jsonl("/somewhere/else").replace(GEMINI_SID.encode(), b"foreign-gemini")
    )
    return tmp


# --- OpenCode: $XDG_DATA_HOME/opencode/opencode.db ----------------------------------------------
OPENCODE_DDL = """
CREATE TABLE project(id TEXT PRIMARY KEY, worktree TEXT NOT NULL);
CREATE TABLE session(id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT,
  slug TEXT NOT NULL, directory TEXT NOT NULL, title TEXT NOT NULL, version TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, time_archived INTEGER);
CREATE TABLE message(id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part(id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX session_project_idx ON session(project_id);
CREATE INDEX session_parent_idx ON session(parent_id);
CREATE INDEX message_session_time_created_id_idx ON message(session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part(message_id, id);
CREATE INDEX part_session_idx ON part(session_id);
"""

T0 = 1780308000000  # 2026-06-01T10:00:00Z
TOKEN = "ghp_" + "Zq7" * 12  # a GitHub token pasted into a reply: redacted in the index


def opencode_rows(
    sid: str, directory: str, title: str, word: str
) -> list[tuple[str, tuple[Any, ...]]]:
    tool = {"type": "tool", "callID": "c1", "tool": "bash",
            "state": {"status": "completed", "input": {"command": f"grep -rn {word}grep src"},
                      "output": f"src/x.py: {word}output", "title": "grep",
                      "metadata": {}, "time": {"start": T0, "end": T0 + 5}}}  # fmt: skip
    rows: list[tuple[str, tuple[Any, ...]]] = [
        ("INSERT INTO session VALUES (?,?,?,?,?,?,?,?,?,?)",
         (sid, "p1", None, "slug", directory, title, "1.0", T0, T0 + 9, None)),
        ("INSERT INTO message VALUES (?,?,?,?,?)",
         (f"msg_{sid}_1", sid, T0 + 1, T0 + 1, json.dumps({"role": "user", "time": {"created": T0}}))),
        ("INSERT INTO message VALUES (?,?,?,?,?)",
         (f"msg_{sid}_2", sid, T0 + 2, T0 + 2, json.dumps({"role": "assistant", "time": {"created": T0}}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_1", f"msg_{sid}_1", sid, T0 + 1, T0 + 1,
          json.dumps({"type": "text", "text": f"user asks about {word}user"}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_2", f"msg_{sid}_1", sid, T0 + 1, T0 + 1,
          json.dumps({"type": "text", "text": f"{word}synthetic file dump", "synthetic": True}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_3", f"msg_{sid}_2", sid, T0 + 2, T0 + 2,
          json.dumps({"type": "step-start"}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_4", f"msg_{sid}_2", sid, T0 + 2, T0 + 2,
          json.dumps({"type": "reasoning", "text": f"{word}reasoning hidden", "time": {"start": T0}}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_5", f"msg_{sid}_2", sid, T0 + 3, T0 + 3, json.dumps(tool))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_6", f"msg_{sid}_2", sid, T0 + 4, T0 + 4,
          json.dumps({"type": "text", "text": f"assistant says {word}reply with {TOKEN}"}))),
        ("INSERT INTO part VALUES (?,?,?,?,?,?)",
         (f"prt_{sid}_7", f"msg_{sid}_2", sid, T0 + 4, T0 + 4, "{not json")),  # corrupt row
    ]  # fmt: skip
    return rows


def write_opencode(data_home: Path, repo: Path, worktree: Path) -> Path:
    db = data_home / "opencode" / "opencode.db"
    db.parent.mkdir(parents=True)
    conn = apsw.Connection(str(db))
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute(OPENCODE_DDL)
    with conn:
        for sid, folder, title, word in (
            ("ses_main", str(repo), "Tune the wombat cache", "wombat"),
            ("ses_wt", str(worktree / "pkg"), "Worktree numbat work", "numbat"),
            ("ses_other", "/somewhere/else", "Foreign", "foreignocelot"),
        ):
            for sql, params in opencode_rows(sid, folder, title, word):
                conn.execute(sql, params)
    conn.close()
    return db


# --- Copilot CLI: $COPILOT_HOME/session-state/<id>/events.jsonl --------------------------------
COPILOT_SID = "9d1e7a52-0000-4000-8000-00000000c0p1"


def copilot_events(sid: str, cwd: str, *, torn: bool = True) -> bytes:
    def event(n: int, kind: str, data: dict[str, Any]) -> bytes:
        return _line({"type": kind, "id": f"{sid}-e{n}", "timestamp": f"2026-06-02T10:00:0{n}Z",
                      "parentId": None, "data": data})  # fmt: skip

    return b"".join([
        event(0, "session.start", {"sessionId": sid, "version": 1, "producer": "copilot-agent",
              "copilotVersion": "1.0.0", "startTime": "2026-06-02T10:00:00Z",
              "context": {"cwd": cwd, "gitRoot": cwd, "branch": "feature-x"}}),
        event(1, "user.message", {"content": "why is the kumquat parser slow",
              "transformedContent": "<wrapped>transformedscaffold</wrapped>"}),
        event(2, "user.message", {"content": "skillinjected text", "source": "skill-pdf"}),
        event(3, "assistant.reasoning", {"reasoningId": "r1", "content": "copilotsecretthought"}),
        event(4, "assistant.message", {"messageId": "am1", "content": "Profiling the kumquat parser.",
              "reasoningText": "copilotsecretthought again",
              "toolRequests": [{"toolCallId": "tc1", "name": "bash", "arguments": {"command": "x"}}]}),
        event(5, "tool.execution_start", {"toolCallId": "tc1", "toolName": "bash",
              "arguments": {"command": "py-spy top kumquatspy"}}),
        b'{"type": "tool.execution_complete", "da\n',  # corrupt
        event(6, "tool.execution_complete", {"toolCallId": "tc1", "success": True,
              "result": {"content": "short", "detailedContent": "kumquatprofile hot loop"}}),
        event(7, "assistant.message", {"messageId": "am2", "content": "copilot torn tail reply"})[: -15 if torn else None],
    ])  # fmt: skip


def write_copilot(copilot_home: Path, worktree: Path) -> Path:
    state = copilot_home / "session-state"
    (state / COPILOT_SID).mkdir(parents=True)
    (state / COPILOT_SID / "events.jsonl").write_bytes(copilot_events(COPILOT_SID, str(worktree)))
    other = "9d1e7a52-0000-4000-8000-0000000f0e1n"
    (state / other).mkdir(parents=True)
    (state / other / "events.jsonl").write_bytes(copilot_events(other, "/somewhere/else"))
    return state


# --- Aider: <worktree>/.aider.chat.history.md ---------------------------------------------------
def aider_history(word: str) -> bytes:
    return (
        "\n# aider chat started at 2026-06-03 09:00:00\n\n"
        "> Aider v0.86.0\n> Model: sonnet with diff edit format\n\n"
        f"#### make the {word} retry configurable  \n"
        "#### and document it  \n\n"
        f"I'll add a `{word}_retries` setting.\n\n"
        "config.py\n```python\n<<<<<<< SEARCH\nRETRIES = 3\n=======\nRETRIES = env()\n"
        ">>>>>>> REPLACE\n```\n\n"
        f"> Applied edit to config.py  \n> Commit 1a2b3c4 {word}commit message  \n\n"
        "\n# aider chat started at 2026-06-03 10:00:00\n\n"
        f"#### aider torn {word} tail"
    ).encode()


def write_aider(repo: Path, worktree: Path) -> None:
    (repo / ".aider.chat.history.md").write_bytes(aider_history("marmot"))
    (worktree / ".aider.chat.history.md").write_bytes(aider_history("ferret"))
