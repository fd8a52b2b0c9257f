"""Aider chat history: ``<worktree>/.aider.chat.history.md``, beside the repository.

Format (Aider-AI/aider ``aider/io.py``: ``InputOutput.__init__``, ``user_input``, ``ai_output``,
``tool_output``, ``append_chat_history``; the default path is ``aider/args.py``
``default_chat_history_file``: the git working tree root, else the current folder): an append-only
Markdown log. Each run starts with ``# aider chat started at YYYY-MM-DD HH:MM:SS`` (local time);
a user input is ``#### `` lines (``<blank>`` for an empty one), aider's own notices and command
output are ``> `` block-quote lines, anything else is the model's reply (inside a reply's code
fence every line is reply: edit blocks hold ``>>>>>>> REPLACE``). One history file is one
session here (its runs are the file's sections); a block is a run of lines of one kind, keyed by
the byte offset of its first line, so a later append never renumbers it. No tool calls exist in
this format (edits are part of the reply text) and no reasoning is written, so nothing is hidden.
``.aider.input.history`` (prompt_toolkit's ``FileHistory``) repeats the ``####`` inputs and is not
read. Aider cannot resume a session by id (``--restore-chat-history`` replays the whole file).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.external.roots import AIDER_HISTORY_FILE
from engine.project.model import ChatEvent, ChatEventType

HISTORY_FILE = AIDER_HISTORY_FILE

_STARTED_RE = re.compile(rb"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_USER = b"#### "


def aider_session_id(lane_id: str, path: Path) -> str:
    """``aider-<lane>`` when the lane id is a valid session id tail, else a hash of the path."""
    if re.fullmatch(r"[A-Za-z0-9._-]{1,100}", lane_id):
        return f"aider-{lane_id}"
    return "aider-" + hashlib.sha1(str(path).encode(), usedforsecurity=False).hexdigest()[:12]


@dataclass
class AiderHead:
    """The first user input (the title) and the first run's start time."""

    first_user: str | None = None
    first_ts: str | None = None


def _kind(line: bytes) -> str:
    if _STARTED_RE.match(line):
        return "start"
    if line.startswith(_USER) or line.rstrip() == b"####":
        return "user"
    if line.startswith(b"> ") or line.rstrip() == b">":
        return "tool"
    return "blank" if not line.strip() else "reply"


def parse_aider(
    data: bytes, base: int, state: dict[str, Any], head: AiderHead | None = None
) -> tuple[list[ChatEvent], int]:
    """Blocks of the complete lines of ``data`` (from byte ``base``) and the bytes consumed.

    ``state["started"]`` carries the current run's start time across passes.
    """
    consumed = data.rfind(b"\n") + 1
    events: list[ChatEvent] = []
    block: list[bytes] = []
    kind, start = "", 0

    def flush() -> None:
        if block and kind in ("user", "tool", "reply"):
            event = _block_event(kind, block, base + start, state.get("started"))
            if event is not None:
                events.append(event)
                if head is not None and head.first_user is None and event.type == "user_message":
                    head.first_user = " ".join(str(event.data["text"]).split())[:120]
        block.clear()

    pos, fenced = 0, False
    while pos < consumed:
        end = data.index(b"\n", pos) + 1
        line = data[pos:end].rstrip(b"\r\n")
        line_kind = "reply" if fenced and kind == "reply" else _kind(line)
        if line_kind == "reply" and line.lstrip().startswith(b"```"):
            fenced = not fenced  # inside a code fence every line is reply (edit blocks)
        if line_kind == "blank":
            if kind == "reply":
                block.append(line)  # a blank line inside a reply is part of it
        elif line_kind != kind or line_kind == "start":
            flush()
            kind, start = line_kind, pos
            if line_kind == "start":
                stamp = _STARTED_RE.match(line)
                state["started"] = stamp.group(1).decode() if stamp else None
                if head is not None and head.first_ts is None:
                    head.first_ts = state["started"]
            else:
                block.append(line)
        else:
            block.append(line)
        pos = end
    flush()
    return events, consumed


def _block_event(kind: str, lines: list[bytes], offset: int, started: Any) -> ChatEvent | None:
    text = b"\n".join(lines).decode("utf-8", errors="replace")
    etype: ChatEventType
    if kind == "user":
        parts = [ln.removeprefix("####").strip() for ln in text.split("\n")]
        text = "\n".join(p for p in parts if p != "<blank>").strip()
        etype = "user_message"
    elif kind == "tool":
        text = "\n".join(ln.removeprefix(">").strip() for ln in text.split("\n")).strip()
        etype = "tool_result"
    else:
        text, etype = text.strip(), "assistant_message"
    if not text:
        return None
    ts = _local_time(started)
    field = "output" if etype == "tool_result" else "text"
    return ChatEvent(offset, ts, etype, offset, {"id": f"b{offset}", field: text})


def _local_time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d %H:%M:%S").astimezone()  # aider writes local
    except ValueError:
        return None
