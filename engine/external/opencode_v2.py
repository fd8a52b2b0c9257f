"""OpenCode's newer session storage: the ``session_message`` table of ``opencode.db``.

anomalyco/opencode ``packages/opencode/src/session/session.sql.ts`` (``SessionMessageTable``:
``id``, ``session_id``, ``type``, ``time_created``/``time_updated``, ``data`` — the message
without its ``type`` and ``id``) and ``packages/core/src/session-message.ts`` (the messages:
``user`` with ``text``; ``assistant`` with ``content`` of ``text``, ``reasoning`` and ``tool``
items — ``id``, ``name``, ``state`` with ``status``, ``input``, ``content``, ``error``;
``shell`` with ``callID``, ``command``, ``output``; ``synthetic`` text OpenCode injects;
``compaction`` summaries; ``agent-switched`` / ``model-switched`` markers). Sessions that
OpenCode writes this way have no ``message``/``part`` rows; both are read.

Indexed: the user's text, the assistant's text items, tool calls (name + input digest) and
their output or error, shell commands and their output. Left out: reasoning, synthetic and
ignored text, compaction summaries, the switch markers. A row of a type OpenCode does not
write is counted ``unknown type``, one whose JSON does not decode ``bad json``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import apsw

from engine.external.lines import digest
from engine.external.skips import skip
from engine.project.model import ChatEvent, ChatEventType
from engine.project.safe_io import JsonRejected, loads_json
from engine.project.tally import WarningTally

TABLE = "session_message"

KNOWN = frozenset({"user", "assistant", "shell", "synthetic", "compaction", "agent-switched",
                   "model-switched"})  # fmt: skip
"""``SessionMessage.Message``'s types."""

PART_STRIDE = 1000


def has_table(conn: apsw.Connection, name: str) -> bool:
    """Whether the database has table ``name`` (older OpenCode databases lack the newer ones)."""
    row = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return row is not None


def v2_events(
    conn: apsw.Connection, sid: str, base: int, tally: WarningTally | None, source: str
) -> list[ChatEvent]:
    """The events of session ``sid``'s ``session_message`` rows, their seqs from ``base``."""
    if not has_table(conn, TABLE):
        return []
    rows = conn.execute(
        f"SELECT id, type, time_created, data FROM {TABLE} WHERE session_id = ?"
        " ORDER BY time_created, id",
        (sid,),
    ).fetchall()
    events: list[ChatEvent] = []
    for position, (mid, kind, created, raw) in enumerate(rows):
        data = _json(raw)
        if data is None or kind not in KNOWN:
            if tally is not None:
                skip(tally, source, "bad json" if data is None else "unknown type")
            continue
        seq = base + position * PART_STRIDE
        ts = _time(int(created or 0))
        events += _message_events(str(mid), str(kind), data, seq, ts)
    return events


def _message_events(
    mid: str, kind: str, data: dict[str, Any], seq: int, ts: datetime | None
) -> list[ChatEvent]:
    if kind == "user":
        text = data.get("text")
        if isinstance(text, str) and text.strip():
            return [ChatEvent(seq, ts, "user_message", seq, {"id": mid, "text": text})]
        return []
    if kind == "shell":
        call = f"{mid}.shell"
        out = [ChatEvent(seq, ts, "tool_call", seq,
                         {"id": call, "name": "shell", "input": digest(data.get("command"))})]  # fmt: skip
        output = data.get("output")
        if isinstance(output, str) and output:
            out.append(
                ChatEvent(seq + 1, ts, "tool_result", seq + 1, {"id": call, "output": output})
            )
        return out
    if kind != "assistant":
        return []  # synthetic text, compaction summaries, switch markers
    content = data.get("content")
    events: list[ChatEvent] = []
    for number, item in enumerate(content if isinstance(content, list) else []):
        if not isinstance(item, dict):
            continue
        at = seq + 2 * min(number, PART_STRIDE // 2 - 1)
        events += _content_events(mid, number, item, at, ts)
    return events


def _content_events(
    mid: str, number: int, item: dict[str, Any], seq: int, ts: datetime | None
) -> list[ChatEvent]:
    kind = item.get("type")
    if kind == "text":
        text = item.get("text")
        if item.get("synthetic") or item.get("ignored") or not isinstance(text, str):
            return []
        if not text.strip():
            return []
        etype: ChatEventType = "assistant_message"
        return [ChatEvent(seq, ts, etype, seq, {"id": f"{mid}.{number}", "text": text})]
    if kind != "tool":
        return []  # reasoning
    call = item["id"] if isinstance(item.get("id"), str) and item["id"] else f"{mid}.{number}"
    name = item.get("name") if isinstance(item.get("name"), str) else "tool"
    raw_state = item.get("state")
    state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
    out = [ChatEvent(seq, ts, "tool_call", seq,
                     {"id": call, "name": name, "input": digest(state.get("input"))})]  # fmt: skip
    shown = _output(state)
    if shown:
        out.append(ChatEvent(seq + 1, ts, "tool_result", seq + 1, {"id": call, "output": shown}))
    return out


def _output(state: dict[str, Any]) -> str:
    """A finished tool's text content, or its error."""
    status = state.get("status")
    if status == "error":
        error = state.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        return f"error: {message}" if isinstance(message, str) and message else "error"
    if status != "completed":
        return ""
    content = state.get("content")
    texts = [
        str(part["text"]) for part in (content if isinstance(content, list) else [])
        if isinstance(part, dict) and isinstance(part.get("text"), str)
    ]  # fmt: skip
    return "\n".join(texts) or digest(state.get("structured"))


def _json(raw: Any) -> dict[str, Any] | None:
    try:
        value = loads_json(raw) if isinstance(raw, str | bytes) else None
    except JsonRejected:
        return None
    return value if isinstance(value, dict) else None


def _time(value: int) -> datetime | None:
    return datetime.fromtimestamp(value / 1000, UTC) if value > 0 else None


def v2_signature_sql() -> str:
    """The signature subquery over ``session_message`` for the session row ``s``."""
    return (
        f"(SELECT count(*) || ':' || ifnull(max(time_updated), 0) FROM {TABLE}"
        " WHERE session_id = s.id)"
    )
