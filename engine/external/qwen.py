"""Qwen Code sessions: ``$QWEN_RUNTIME_DIR/projects/<sanitized cwd>/chats/<sessionId>.jsonl``.

From QwenLM/qwen-code ``packages/core/src/config/storage.ts`` (``getProjectDir``: the runtime
base — ``QWEN_RUNTIME_DIR``, else ``~/.qwen`` — then ``projects/<sanitizeCwd(root)>``) and
``packages/core/src/services/chatRecordingService.ts`` (``getChatsDir``: ``chats/``; one
``ChatRecord`` appended a line: ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``type``
``user``/``assistant``/``tool_result``/``system``, ``cwd``, ``message`` — a Gemini ``Content``
whose ``parts`` hold ``text``, ``thought`` text, ``functionCall`` and ``functionResponse``).
Indexed: user text, assistant text, ``functionCall`` (name, args) and ``functionResponse``
(its ``output`` or ``error``). Hidden: ``thought`` parts; user records whose ``provenance`` is
not ``real_user`` (goal control and runtime text Qwen writes as a user turn); a subagent's
records (``isSidechain`` or ``agentId``); ``system`` records, of which only ``custom_title``
(``/rename``) is read, as the title. The folder name is lossy (``sanitizeCwd``), so the project
comes from each record's ``cwd``. Resume: ``qwen --resume <sessionId>``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent
from engine.external.lines import digest
from engine.external.skips import skip
from engine.project.model import ChatEventType
from engine.project.tally import WarningTally

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
"""``ChatRecord.type``: anything else is counted as an unknown type."""


class QwenFormat(JsonlAgent):
    """Qwen Code's chat recordings."""

    name = "qwen"
    patterns: ClassVar[tuple[str, ...]] = ("*/chats/*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("qwen", "--resume")
    hidden = "thought parts, goal/runtime turns, subagent records, system records"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        kind = obj.get("type")
        if kind not in RECORD_TYPES:
            return None
        ident = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if obj.get("isSidechain") is True or obj.get("agentId"):
            return ident, when, []
        if kind == "system":
            return ident, when, _title(obj)
        message = obj.get("message")
        parts = message.get("parts") if isinstance(message, dict) else None
        if not isinstance(parts, list):
            skip(tally, source, "no message")
            return ident, when, []
        if kind == "user" and obj.get("provenance") not in (None, "real_user"):
            return ident, when, []
        return ident, when, _parts(kind, parts)

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        if head.cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
            head.cwd = obj["cwd"]
        if head.ident is None and isinstance(obj.get("sessionId"), str):
            head.ident = obj["sessionId"]
        if head.first_ts is None and isinstance(obj.get("timestamp"), str):
            head.first_ts = obj["timestamp"]
        for etype, fields in _title(obj) if obj.get("type") == "system" else []:
            if etype == "session_title":
                head.title = fields["title"]
        if obj.get("type") == "user" and obj.get("provenance") in (None, "real_user"):
            message = obj.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            for etype, fields in _parts("user", parts if isinstance(parts, list) else []):
                if etype == "user_message":
                    head.saw_user(fields["text"])


def _title(obj: dict[str, Any]) -> Found:
    payload = obj.get("systemPayload")
    if obj.get("subtype") == "custom_title" and isinstance(payload, dict):
        title = payload.get("customTitle")
        if isinstance(title, str) and title.strip():
            return [("session_title", {"title": title.strip()})]
    return []


def _parts(kind: str, parts: list[Any]) -> Found:
    said: ChatEventType = "user_message" if kind == "user" else "assistant_message"
    out: Found = []
    for part in parts:
        if not isinstance(part, dict) or part.get("thought") is True:
            continue
        text, call, response = (
            part.get("text"),
            part.get("functionCall"),
            part.get("functionResponse"),
        )
        if isinstance(text, str) and text.strip() and kind != "tool_result":
            out.append((said, {"text": text}))
        elif isinstance(call, dict):
            name = call.get("name") if isinstance(call.get("name"), str) else "tool"
            fields: dict[str, Any] = {"name": name, "input": digest(call.get("args") or {})}
            if isinstance(call.get("id"), str) and call["id"]:
                fields["id"] = call["id"]
            out.append(("tool_call", fields))
        elif isinstance(response, dict):
            fields = {"output": _response_text(response.get("response"))}
            if isinstance(response.get("id"), str) and response["id"]:
                fields["id"] = response["id"]
            out.append(("tool_result", fields))
    return out


def _response_text(response: Any) -> str:
    if isinstance(response, dict):
        for key in ("output", "error"):
            value = response.get(key)
            if isinstance(value, str):
                return value if key == "output" else f"error: {value}"
        return digest(response) if response else ""
    return response if isinstance(response, str) else ""


FORMAT = QwenFormat()
