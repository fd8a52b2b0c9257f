"""One session per agent in the agent's own shape, for the injected-text table
(``test_injected_text.py``): the injected ``parts`` in a user message, beside the user's words
where the agent writes them so, then the user's words (``USER_WORDS``) — each writer returns
the session's file. Where each shape comes from: the agent's module docstring and its fixture's
README under ``tests/fixtures/agents/<agent>/``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import apsw

from engine.external.cursor import slug as cursor_slug
from engine.external.discover import claude_slug

USER_WORDS = "please fix the marmoset parser"
WHEN = "2026-06-01T10:00:00.000Z"


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _texts(parts: list[str]) -> list[dict[str, str]]:
    return [{"type": "text", "text": p} for p in parts]


def claude(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Claude Code transcript: one user line of ``parts`` (text blocks; one part is written as
    a plain string, as Claude Code writes a typed prompt), then the user's message."""

    def msg(uuid: str, content: Any, **extra: Any) -> bytes:
        return _line({"parentUuid": None, "isSidechain": False, "cwd": str(cwd), "sessionId": "s",
                      "type": "user", "message": {"role": "user", "content": content},
                      "uuid": uuid, "timestamp": WHEN, **extra})  # fmt: skip

    content: Any = parts[0] if len(parts) == 1 else _texts(parts)
    folder = home / "claude" / "projects" / claude_slug(cwd)
    folder.mkdir(parents=True)
    path = folder / "c0ffee00-0000-4000-8000-000000000001.jsonl"
    path.write_bytes(msg("u1", content, **flags) + msg("u2", USER_WORDS))
    return path


def codex(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Codex rollout: the injected parts and the user's words as content items of one user
    message (as ``codex-rs`` records a turn's first input), and its ``event_msg`` copy."""
    del flags

    def item(kind: str, payload: dict[str, Any]) -> bytes:
        return _line({"timestamp": WHEN, "type": kind, "payload": payload})

    content = [{"type": "input_text", "text": p} for p in [*parts, USER_WORDS]]
    day = home / "codex" / "sessions" / "2026" / "06" / "01"
    day.mkdir(parents=True)
    path = day / "rollout-2026-06-01T10-00-00-0199-inject.jsonl"
    path.write_bytes(b"".join([
        item("session_meta", {"id": "0199-inject", "timestamp": "2026-06-01T10:00:00Z",
                              "cwd": str(cwd), "originator": "codex_cli_rs"}),
        item("response_item", {"type": "message", "role": "user", "content": content}),
        item("event_msg", {"type": "user_message", "message": USER_WORDS, "images": []}),
    ]))  # fmt: skip
    return path


def copilot(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Copilot CLI ``events.jsonl``: the injected text first (a session's first message, so
    the title is at stake), then the user's words."""
    sid = "9d1e7a52-0000-4000-8000-0000000inj01"

    def event(n: int, kind: str, data: dict[str, Any]) -> bytes:
        return _line({"type": kind, "id": f"{sid}-e{n}", "timestamp": f"2026-06-01T10:00:0{n}Z",
                      "parentId": None, "data": data})  # fmt: skip

    folder = home / "copilot" / "session-state" / sid
    folder.mkdir(parents=True)
    path = folder / "events.jsonl"
    path.write_bytes(b"".join([
        event(0, "session.start", {"sessionId": sid, "context": {"cwd": str(cwd)}}),
        event(1, "user.message", {"content": "\n".join(parts), **flags}),
        event(2, "user.message", {"content": USER_WORDS}),
    ]))  # fmt: skip
    return path


def cursor(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Cursor agent transcript: one user text block holding the injected parts and the typed
    words in ``<user_query>`` side by side, as Cursor writes a turn."""
    del flags
    ident = "e13fc9ba-0fe8-455e-b069-a0eb0b37inj1"
    folder = home / ".cursor" / "projects" / cursor_slug(cwd) / "agent-transcripts" / ident
    folder.mkdir(parents=True)
    text = "\n\n".join([*parts, f"<user_query>\n{USER_WORDS}\n</user_query>"])
    path = folder / f"{ident}.jsonl"
    path.write_bytes(
        _line({"role": "user", "message": {"content": _texts([text])}})
        + _line({"role": "assistant", "message": {"content": _texts(["on it"])}})
    )
    return path


def grok(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Grok Build chat history: one user item whose text holds the injected parts beside the
    ``<user_query>`` frame (``flags``: the item's fields, ``synthetic_reason``)."""
    folder = home / ".grok" / "sessions" / quote(str(cwd), safe="") / "0199aaaa-inj"
    folder.mkdir(parents=True)
    (folder / "summary.json").write_text(json.dumps({"info": {"cwd": str(cwd)}}))
    text = "\n".join([*parts, f"<user_query>\n{USER_WORDS}\n</user_query>"])
    path = folder / "chat_history.jsonl"
    path.write_bytes(
        _line({"type": "user", "content": _texts([text]), "prompt_index": 0, **flags})
        + _line({"type": "assistant", "content": "on it", "tool_calls": []})
    )
    return path


def iflow(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """An iFlow session: the injected parts and the user's words as text blocks of one user
    record (Claude Code's envelope)."""
    del flags
    folder = home / ".iflow" / "projects" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True)
    sid = "session-7c1e9b1a-0000-4000-8000-00000000inj1"
    path = folder / f"{sid}.jsonl"
    path.write_bytes(_line({
        "uuid": "u1", "parentUuid": None, "sessionId": sid, "timestamp": WHEN, "type": "user",
        "isSidechain": False, "userType": "external", "cwd": str(cwd),
        "message": {"role": "user", "content": _texts([*parts, USER_WORDS])},
    }))  # fmt: skip
    return path


def droid(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Factory Droid session: its ``session_start`` line, then one user message whose text
    blocks are the user's words and the injected parts."""
    del flags
    folder = home / ".factory" / "sessions" / str(cwd).replace("/", "-")
    folder.mkdir(parents=True)
    sid = "550e8400-e29b-41d4-a716-4466554inj01"
    path = folder / f"{sid}.jsonl"
    path.write_bytes(
        _line({"type": "session_start", "id": sid, "title": "", "owner": "me", "version": 2,
               "cwd": str(cwd)})
        + _line({"type": "message", "id": "m1", "parentId": None, "timestamp": WHEN,
                 "message": {"role": "user", "content": _texts([USER_WORDS, *parts])}})
    )  # fmt: skip
    return path


def amp(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """An Amp thread document: one user message whose text blocks are ``parts``, then the user's
    words."""
    del flags
    folder = home / ".local" / "share" / "amp" / "threads"
    folder.mkdir(parents=True)
    messages = [
        {"role": "user", "messageId": 0, "content": _texts(parts), "meta": {"sentAt": 1}},
        {"role": "user", "messageId": 1, "content": _texts([USER_WORDS]), "meta": {"sentAt": 2}},
    ]
    path = folder / "T-5f0c1d2e-0000-4000-8000-00000000inj1.json"
    path.write_text(json.dumps({
        "v": 3, "id": "T-5f0c1d2e-0000-4000-8000-00000000inj1", "created": 1, "title": USER_WORDS,
        "messages": messages, "env": {"initial": {"trees": [{"displayName": "proj",
                                                             "uri": cwd.as_uri()}]}},
    }))  # fmt: skip
    return path


def pi(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A pi session (badlogic/pi-mono ``core/session-manager.ts``): its header, then one user
    message whose text parts are ``parts`` and the user's words, then the user's words."""
    return _pi_file(home / ".pi" / "agent" / "sessions" / f"--{str(cwd).strip('/')}--"
                    .replace("/", "-"), cwd, parts, **flags)  # fmt: skip


def openclaw(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """An OpenClaw transcript (pi's format): one user message whose text is ``parts`` and the
    user's words in one part, as OpenClaw hands pi a whole turn."""
    folder = home / ".openclaw" / "agents" / "main" / "sessions"
    return _pi_file(folder, cwd, ["\n\n".join([*parts, USER_WORDS])], **flags)


def _pi_file(folder: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    del flags
    folder.mkdir(parents=True)
    path = folder / "2026-06-01T10-00-00-000Z_0199c0de-inj.jsonl"

    def entry(n: int, text: list[str]) -> bytes:
        return _line({"type": "message", "id": f"e{n}", "parentId": None, "timestamp": WHEN,
                      "message": {"role": "user", "content": _texts(text), "timestamp": n}})  # fmt: skip

    path.write_bytes(
        _line({"type": "session", "version": 3, "id": "0199c0de-inj", "timestamp": WHEN,
               "cwd": str(cwd)})
        + entry(1, parts) + entry(2, [USER_WORDS])
    )  # fmt: skip
    return path


def vibe(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Mistral Vibe session log: one user message of ``parts`` (``flags``: its fields, such as
    ``injected``), then the user's words; ``meta.json`` names the working folder."""
    folder = home / ".vibe" / "logs" / "session" / "session_20260601_100000_6b7c8d9e"
    folder.mkdir(parents=True)
    (folder / "meta.json").write_text(json.dumps({
        "session_id": "6b7c8d9e-0000-4a3b-9c4d-00000000inj1", "start_time": WHEN,
        "environment": {"working_directory": str(cwd)},
    }))  # fmt: skip
    path = folder / "messages.jsonl"
    path.write_bytes(
        _line({"role": "user", "content": "\n\n".join(parts), "message_id": "m1", **flags})
        + _line({"role": "user", "content": USER_WORDS, "message_id": "m2"})
    )
    return path


def qwen(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Qwen Code recording: one user record whose parts are the user's words and ``parts``
    (``flags``: the record's fields), then the user's words."""
    folder = home / ".qwen" / "projects" / str(cwd).replace("/", "-") / "chats"
    folder.mkdir(parents=True)
    sid = "0199d0e1-0000-4000-8000-00000000inj1"

    def record(uuid: str, texts: list[str], **extra: Any) -> bytes:
        return _line({"uuid": uuid, "parentUuid": None, "sessionId": sid, "timestamp": WHEN,
                      "type": "user", "cwd": str(cwd), "version": "0.21.9",
                      "provenance": "real_user",
                      "message": {"role": "user", "parts": [{"text": t} for t in texts]},
                      **extra})  # fmt: skip

    path = folder / f"{sid}.jsonl"
    first = parts if flags.get("provenance") == "system" else [USER_WORDS, *parts]
    path.write_bytes(record("u1", first, **flags) + record("u2", [USER_WORDS]))
    return path


def kiro(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Kiro CLI session: its ``.json`` (working folder) and one ``Prompt`` record whose text
    holds ``parts`` and the typed words in Kiro's request frame."""
    del flags
    folder = home / ".kiro" / "sessions" / "cli"
    folder.mkdir(parents=True)
    sid = "4f5e6d7c-8b9a-4c0d-9e1f-00000000inj1"
    (folder / f"{sid}.json").write_text(json.dumps(
        {"session_id": sid, "cwd": str(cwd), "created_at": WHEN}))  # fmt: skip
    text = "\n\n".join(
        [*parts, f"--- USER MESSAGE BEGIN ---\n{USER_WORDS}--- USER MESSAGE END ---"]
    )
    path = folder / f"{sid}.jsonl"
    path.write_bytes(_line({"version": "v1", "kind": "Prompt", "data": {
        "message_id": "p1", "content": [{"kind": "text", "data": text}],
        "meta": {"timestamp": 1780308000}}}))  # fmt: skip
    return path


def goose(home: Path, cwd: Path, parts: list[str], **flags: Any) -> Path:
    """A Goose ``sessions.db`` (block/goose ``crates/goose/src/session/session_manager.rs``): one
    session, a user message of ``parts`` with ``flags`` as its metadata, then the user's words."""
    folder = home / ".local" / "share" / "goose" / "sessions"
    folder.mkdir(parents=True)
    db = folder / "sessions.db"
    conn = apsw.Connection(str(db))
    conn.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '',"
        " session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,"
        " created_at TIMESTAMP, updated_at TIMESTAMP);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,"
        " role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL,"
        " metadata_json TEXT);"
    )
    conn.execute(
        "INSERT INTO sessions VALUES ('20260601_1', ?, 'user', ?, '2026-06-01 10:00:00',"
        " '2026-06-01 10:01:00')", (USER_WORDS, str(cwd)),
    )  # fmt: skip
    shown = json.dumps({"userVisible": True, "agentVisible": True})
    for texts, meta in ((parts, json.dumps(flags)), ([USER_WORDS], shown)):
        conn.execute(
            "INSERT INTO messages (session_id, role, content_json, created_timestamp,"
            " metadata_json) VALUES ('20260601_1', 'user', ?, 1780308000, ?)",
            (json.dumps(_texts(texts)), meta),
        )
    conn.close()
    return db / "20260601_1"


Writer = Callable[..., Path]
WRITERS: dict[str, Writer] = {
    "claude": claude, "codex": codex, "copilot": copilot, "cursor": cursor, "grok": grok,
    "iflow": iflow, "droid": droid, "amp": amp, "pi": pi, "openclaw": openclaw, "vibe": vibe,
    "qwen": qwen, "kiro": kiro, "goose": goose,
}  # fmt: skip
