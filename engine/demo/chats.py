"""Write the demo's chat sessions: ``.ade/sessions/<id>.json`` and the transcript beside it.

Turns become events with the DESIGN §2 lifecycle: a user message is written ``accepted`` and,
once the agent picks it up, again with the same ``id`` as ``processed`` (or ``unprocessed``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from engine.demo.chat_scripts import (
    CHATS,
    SHA_PLACEHOLDER,
    Assistant,
    ChatPlan,
    Junk,
    Title,
    Tool,
    User,
)
from engine.demo.clock import DEMO_SEED, ago, iso
from engine.demo.store import gzip_exact, jsonl_line, write, write_json


class _Transcript:
    """Accumulates one session's lines with increasing ``seq`` and times."""

    def __init__(self, start: datetime, rng: random.Random) -> None:
        self.lines: list[bytes] = []
        self.seq = 0
        self.now = start
        self.rng = rng
        self.counter = 0

    def next_id(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}_{self.counter:04d}"

    def emit(self, kind: str, fields: dict[str, Any], *, pause: tuple[int, int] = (2, 40)) -> None:
        self.seq += 1
        self.now += timedelta(seconds=self.rng.randint(*pause))
        event = {"seq": self.seq, "ts": iso(self.now), "type": kind, **fields}
        self.lines.append(jsonl_line(event))

    def junk(self, kind: str) -> None:
        if kind == "unknown_type":
            self.emit(
                "usage",
                {
                    "inputTokens": self.rng.randint(900, 4000),
                    "outputTokens": self.rng.randint(100, 900),
                },
                pause=(0, 1),
            )
            return
        self.emit("assistant_message", {"id": self.next_id("msg"), "text": "Let me check the"})
        self.lines[-1] = self.lines[-1][: len(self.lines[-1]) // 2] + b"\n"


def transcript(plan: ChatPlan, start: datetime, rng: random.Random) -> tuple[bytes, datetime, str]:
    """The transcript bytes, the time of its last event and the session's final title."""
    out = _Transcript(start, rng)
    pending: dict[str, Any] | None = None
    title = plan.id
    for turn in plan.turns:
        if pending is not None and not isinstance(turn, Title):
            out.emit("user_message", {**pending}, pause=(1, 3))
            pending = None
        if isinstance(turn, User):
            message_id = out.next_id("msg")
            body = {"id": message_id, "text": turn.text}
            out.emit("user_message", {**body, "status": "accepted"}, pause=(30, 240))
            if turn.delivery is not None:
                pending = {**body, "status": turn.delivery}
        elif isinstance(turn, Title):
            title = turn.title
            out.emit("session_title", {"title": turn.title}, pause=(1, 4))
        elif isinstance(turn, Assistant):
            fields = {"id": out.next_id("msg"), "text": turn.text}
            out.emit("assistant_message", fields, pause=(8, 90))
            if turn.replayed:
                out.emit("assistant_message", fields, pause=(0, 2))
        elif isinstance(turn, Tool):
            call_id = out.next_id("toolu")
            out.emit("tool_call", {"id": call_id, "name": turn.name, "input": turn.input})
            out.emit("tool_result", {"id": call_id, "output": turn.output}, pause=(1, 20))
        elif isinstance(turn, Junk):
            out.junk(turn.kind)
    if pending is not None:
        out.emit("user_message", pending, pause=(1, 3))
    return b"".join(out.lines), out.now, title


def session_meta(plan: ChatPlan, title: str, start: datetime, end: datetime) -> dict[str, Any]:
    """The ``.ade/sessions/<id>.json`` object of a chat session."""
    return {
        "id": plan.id,
        "kind": "chat",
        "title": title,
        "laneId": plan.lane_id,
        "createdAt": iso(start),
        "updatedAt": iso(end),
        "endedAt": None if plan.running else iso(end + timedelta(minutes=2)),
        "archived": plan.archived,
        "tool": plan.tool,
        "command": plan.tool,
    }


def resolve_shas(data: bytes, shas: Mapping[str, str]) -> bytes:
    """Replace each ``<<sha:SUBJECT>>`` with that commit's 7-digit sha (KeyError if unknown)."""
    text = SHA_PLACEHOLDER.sub(lambda m: shas[m.group(1)][:7], data.decode("utf-8"))
    return text.encode("utf-8")


def write_chats(ade: Path, shas: Mapping[str, str]) -> tuple[str, ...]:
    """Write every chat session under ``ade`` and return their ids.

    ``shas`` maps commit subjects to shas, so chats quote the demo's real commits.
    """
    rng = random.Random(DEMO_SEED + 1)
    for plan in CHATS:
        zone = timezone(timedelta(hours=plan.utc_offset_hours))
        start = ago(days=plan.days_ago).astimezone(zone)
        data, end, title = transcript(plan, start, rng)
        data = resolve_shas(data, shas)
        name = f"{plan.id}.jsonl"
        if plan.compacted:
            write(ade / "chats" / f"{name}.gz", gzip_exact(data))
        else:
            write(ade / "chats" / name, data)
        write_json(ade / "sessions" / f"{plan.id}.json", session_meta(plan, title, start, end))
    return tuple(plan.id for plan in CHATS)
