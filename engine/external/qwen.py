"""Qwen Code sessions: ``$QWEN_RUNTIME_DIR/projects/<sanitized cwd>/chats/<sessionId>.jsonl``.

From QwenLM/qwen-code ``packages/core/src/config/storage.ts`` (``getProjectDir``: the runtime
base — ``QWEN_RUNTIME_DIR``, else ``~/.qwen`` — then ``projects/<sanitizeCwd(root)>``) and
``packages/core/src/services/chatRecordingService.ts`` (``getChatsDir``: ``chats/``; one
``ChatRecord`` appended a line: ``uuid``, ``parentUuid``, ``sessionId``, ``timestamp``, ``type``
``user``/``assistant``/``tool_result``/``system``, ``cwd``, ``message`` — a Gemini ``Content``
whose ``parts`` hold ``text``, ``thought`` text, ``functionCall`` and ``functionResponse``).
Indexed: user text, assistant text, ``functionCall`` (name, args) and ``functionResponse``
(its ``output`` or ``error``). A user record's words are what Qwen shows for it
(``systemPayload.displayText``, else its first text part); the parts Qwen added to what the
model sees (``@`` files, extension context, MCP resources, hook context) are kept as ``system``,
as are its notifications and scheduled prompts (``NOTICES``). Hidden: ``thought`` parts; goal
control and runtime turns; a subagent's records (``isSidechain`` or ``agentId``); ``system``
records, of which only ``custom_title`` (``/rename``) is read, as the title. The folder name is lossy (``sanitizeCwd``), so the project
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

NOTICES = {"notification": "notification", "cron": "scheduled prompt"}
"""User records Qwen writes itself with ``provenance: system`` (``recordNotification``,
``recordCronPrompt`` in ``packages/core/src/services/chatRecordingService.ts``), kept as
``system`` under these labels."""


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
        if kind == "user":
            return ident, when, _user(obj, parts)
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
        if obj.get("type") == "user" and not obj.get("isSidechain") and not obj.get("agentId"):
            message = obj.get("message")
            parts = message.get("parts") if isinstance(message, dict) else None
            for etype, fields in _user(obj, parts if isinstance(parts, list) else []):
                if etype == "user_message":
                    head.saw_user(fields["text"])


def _title(obj: dict[str, Any]) -> Found:
    payload = obj.get("systemPayload")
    if obj.get("subtype") == "custom_title" and isinstance(payload, dict):
        title = payload.get("customTitle")
        if isinstance(title, str) and title.strip():
            return [("session_title", {"title": title.strip()})]
    return []


def _user(obj: dict[str, Any], parts: list[Any]) -> Found:
    """A user record's events. Qwen records what the model was sent: the typed text first, then
    a part per ``@`` file, extension and resource (``packages/cli/src/ui/hooks/
    atCommandProcessor.ts``: ``processedQueryParts``) and a hook's context; what it shows is
    ``systemPayload.displayText`` (``UserPromptRecordPayload``)."""
    provenance = obj.get("provenance")
    payload = obj.get("systemPayload")
    shown = payload.get("displayText") if isinstance(payload, dict) else None
    shown = shown if isinstance(shown, str) and shown.strip() else None
    texts = [
        str(part["text"]) for part in parts if isinstance(part, dict)
        and part.get("thought") is not True and isinstance(part.get("text"), str)
        and part["text"].strip()
    ]  # fmt: skip
    notice = NOTICES.get(str(obj.get("subtype")))
    if provenance == "system" and notice is not None:
        text = shown or "\n".join(texts)
        return [("system_message", {"text": text, "notice": notice})] if text.strip() else []
    if provenance not in (None, "real_user"):
        return []  # goal control and runtime turns
    words = shown if shown is not None else (texts[0] if texts else "")
    rest = [t for t in texts if t.strip() != words.strip()] if shown else texts[1:]
    found: Found = [("user_message", {"text": words})] if words.strip() else []
    if rest:
        found.append(("system_message", {"text": "\n".join(rest), "notice": "attached context"}))
    others = [p for p in parts if not (isinstance(p, dict) and isinstance(p.get("text"), str))]
    return found + _parts("user", others)


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
