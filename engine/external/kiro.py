"""Kiro CLI sessions: ``$KIRO_HOME/sessions/cli/<sessionId>.jsonl`` beside ``<sessionId>.json``.

Kiro CLI is closed source: the format is taken from sessions it wrote (version 2.14, as quoted
in public session readers that measured it) and from their metadata files. ``<id>.json`` holds
``session_id``, ``cwd``, ``created_at``, ``updated_at``, ``title`` and the model state; a
``<id>.lock`` marks a live session. ``<id>.jsonl`` appends one record a line:
``{"version": "v1", "kind": "Prompt" | "AssistantMessage" | "ToolResults", "data": {"message_id",
"content": [{"kind": "text", "data": "..."}, {"kind": "toolUse", "data": {"toolUseId", "name",
"input"}}, {"kind": "toolResult", "data": {"toolUseId", "content", "status"}}, {"kind":
"thinking"}…], "meta": {"timestamp"}}}``. Indexed: prompts, assistant text, tool uses and their
results. Hidden: ``thinking`` blocks, the ``__tool_use_purpose`` Kiro adds to a tool's input and
the context entries it may frame a prompt with (``MARKERS``, ``FRAME``).
Resume: ``kiro-cli chat --resume-id <sessionId>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, cast

from engine.external.injected import Frame, Marker, user_events
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, time_text
from engine.external.lines import digest
from engine.external.skips import skip
from engine.project.model import ChatEventType
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

KINDS: dict[str, ChatEventType] = {"Prompt": "user_message", "AssistantMessage": "assistant_message",
                                   "ToolResults": "tool_result"}  # fmt: skip
MARKERS: tuple[Marker, ...] = (
    Marker("--- CONTEXT ENTRY BEGIN ---", "hide", "context entry", "--- CONTEXT ENTRY END ---"),
)
"""What Kiro CLI may write into a prompt beside the typed words (no source: closed source). The
sessions quoted hold the typed prompt alone; the request Kiro sends frames it as ``--- CONTEXT
ENTRY BEGIN --- … END ---`` blocks (the current time, context files) and ``--- USER MESSAGE
BEGIN --- … END ---`` (as proxies that capture kiro-cli's requests record it), so a prompt
stored in that frame gives the framed words only, the context entries left out."""

FRAME = Frame("--- USER MESSAGE BEGIN ---", "--- USER MESSAGE END ---", "context")
"""The frame of the typed words in a Kiro request."""

META_BYTES = 4 * 1024 * 1024
"""Most of a session's ``.json`` read (its model state can hold long turn lists)."""


class KiroFormat(JsonlAgent):
    """Kiro CLI's session logs."""

    name = "kiro"
    patterns: ClassVar[tuple[str, ...]] = ("*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("kiro-cli", "chat", "--resume-id")
    hidden = "thinking blocks, tool-use purpose notes, context entries"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        said = KINDS.get(str(obj.get("kind")))
        body = obj.get("data")
        if said is None:
            return None
        if not isinstance(body, dict):
            skip(tally, source, "no message")
            return None, None, []
        ident = body.get("message_id") if isinstance(body.get("message_id"), str) else None
        meta = body.get("meta")
        when = time_text(meta.get("timestamp")) if isinstance(meta, dict) else None
        return ident, when, _blocks(said, body.get("content"))

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        body = obj.get("data")
        if obj.get("kind") == "Prompt" and isinstance(body, dict):
            for etype, fields in _blocks("user_message", body.get("content")):
                if etype == "user_message":
                    head.saw_user(fields["text"])

    def head_notes(self, path: Path, data: bytes, bounds: Bounds | None) -> HeadNotes:
        head = super().head_notes(path, data, bounds)
        try:
            meta = loads_json(read_regular(path.with_suffix(".json"), META_BYTES, bounds))
        except (OSError, JsonRejected):
            meta = None
        if isinstance(meta, dict):
            if isinstance(meta.get("cwd"), str) and meta["cwd"]:
                head.cwd = meta["cwd"]
            if isinstance(meta.get("session_id"), str) and meta["session_id"]:
                head.ident = meta["session_id"]
            if isinstance(meta.get("title"), str) and meta["title"].strip():
                head.title = meta["title"].strip()
            head.first_ts = time_text(meta.get("created_at")) or head.first_ts
        return head


def _blocks(said: ChatEventType, content: Any) -> Found:
    out: Found = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind, data = block.get("kind"), block.get("data")
        if kind == "text" and isinstance(data, str) and data.strip() and said == "user_message":
            out += cast(Found, user_events(data, MARKERS, frame=FRAME))
        elif kind == "text" and isinstance(data, str) and data.strip() and said != "tool_result":
            out.append((said, {"text": data}))
        elif kind == "toolUse" and isinstance(data, dict):
            name = data.get("name") if isinstance(data.get("name"), str) else "tool"
            given = data.get("input")
            shown = {k: v for k, v in given.items() if k != "__tool_use_purpose"} if isinstance(
                given, dict) else given  # fmt: skip
            fields: dict[str, Any] = {"name": name, "input": digest(shown or {})}
            if isinstance(data.get("toolUseId"), str) and data["toolUseId"]:
                fields["id"] = data["toolUseId"]
            out.append(("tool_call", fields))
        elif kind == "toolResult" and isinstance(data, dict):
            fields = {"output": _result(data.get("content"))}
            if data.get("status") == "error":
                fields["output"] = f"error: {fields['output']}"
            if isinstance(data.get("toolUseId"), str) and data["toolUseId"]:
                fields["id"] = data["toolUseId"]
            out.append(("tool_result", fields))
    return out


def _result(content: Any) -> str:
    parts: list[str] = []
    for item in content if isinstance(content, list) else []:
        if isinstance(item, dict):
            data = item.get("data")
            parts.append(data if isinstance(data, str) else digest(data))
    return "\n".join(parts)


FORMAT = KiroFormat()
