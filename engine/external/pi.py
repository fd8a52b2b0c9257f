"""pi sessions: ``$PI_CODING_AGENT_DIR/sessions/--<cwd>--/<time>_<id>.jsonl``.

From badlogic/pi-mono ``packages/coding-agent/src/config.ts`` (``getAgentDir``:
``PI_CODING_AGENT_DIR``, else ``~/.pi/agent``; ``getSessionsDir``: ``sessions``) and
``packages/coding-agent/src/core/session-manager.ts`` (``getDefaultSessionDir``:
``--<cwd, separators as ->--``; ``newSession``: ``<timestamp>_<id>.jsonl``; ``_persist``: entries
appended, the first ones flushed once an assistant message exists). The first line is the
header ``{"type": "session", "version", "id", "timestamp", "cwd"}``; then entries with ``id``,
``parentId`` and ``timestamp``: ``message`` (an ``AgentMessage``, ``packages/ai/src/types.ts``
and ``core/messages.ts``), ``session_info`` (the ``/name`` title) and model, thinking-level,
compaction, branch, label and extension entries. Indexed: ``user`` text, ``assistant`` text and
``toolCall`` blocks, ``toolResult`` messages, and ``bashExecution`` (a ``!command`` the user ran:
its command and output). Hidden: ``thinking`` blocks, compaction and branch summaries, extension
messages (``custom``, ``custom_message``) and extension state. Kept as ``system``: what pi
writes into a user message itself (``MARKERS``). Resume: ``pi --session <file>``.

OpenClaw (``engine.external.openclaw``) writes the same format through pi's session manager.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

from engine.external.injected import Marker, tag, user_events, users_words
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, text_of
from engine.external.lines import digest
from engine.external.skips import skip
from engine.project.model import SessionMeta
from engine.project.tally import WarningTally

QUIET_ENTRIES = frozenset(
    {"thinking_level_change", "model_change", "compaction", "branch_summary", "custom",
     "custom_message", "label"}
)  # fmt: skip
"""Entries pi writes that say nothing to index (summaries and extension text are injected)."""

MARKERS: tuple[Marker, ...] = (
    tag("skill", "system", "skill"),
    tag("file", "system", "attached file"),
)
"""What pi writes into a user message's text itself: a ``/skill:name`` expanded to the skill's
``<skill name=… location=…>`` body, the user's words after it
(``packages/coding-agent/src/core/agent-session.ts`` ``_expandSkillCommand``), and each ``@file``
argument's ``<file name=…>`` contents before the first message
(``packages/coding-agent/src/cli/file-processor.ts`` ``processFileArguments``). A prompt
template's expansion (``core/prompt-templates.ts``) carries no mark and stays the user's."""

HIDDEN_ROLES = frozenset({"custom", "branchSummary", "compactionSummary"})
"""Messages pi or an extension put in the context, not said by the user or the model."""


class PiFormat(JsonlAgent):
    """pi's coding-agent session files (and OpenClaw's, which are the same)."""

    name = "pi"
    patterns: ClassVar[tuple[str, ...]] = ("*/*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("pi", "--session")
    hidden = "thinking blocks, compaction and branch summaries, extension messages"
    markers: ClassVar[tuple[Marker, ...]] = MARKERS
    """What the agent injects into a user message's text (``engine.external.injected``)."""

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        kind = obj.get("type")
        ident = obj.get("id") if isinstance(obj.get("id"), str) else None
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if kind == "session":
            return None, when, []
        if kind == "session_info":
            name = obj.get("name")
            if isinstance(name, str) and name.strip():
                return ident, when, [("session_title", {"title": name.strip()})]
            return ident, when, []
        if kind in QUIET_ENTRIES:
            return ident, when, []
        if kind != "message":
            return None
        message = obj.get("message")
        if not isinstance(message, dict):
            skip(tally, source, "no message")
            return ident, when, []
        return ident, when, _message(message, ident, self.markers)

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if kind == "session":
            if isinstance(obj.get("cwd"), str) and obj["cwd"]:
                head.cwd = head.cwd or obj["cwd"]
            if isinstance(obj.get("id"), str):
                head.ident = head.ident or obj["id"]
            if isinstance(obj.get("timestamp"), str):
                head.first_ts = head.first_ts or obj["timestamp"]
        elif kind == "session_info" and isinstance(obj.get("name"), str) and obj["name"].strip():
            head.title = obj["name"].strip()
        elif kind == "message" and isinstance(obj.get("message"), dict):
            message = obj["message"]
            if message.get("role") == "user":
                for text in _texts(message.get("content")):
                    head.saw_user(users_words(text, self.markers))

    def resume_argv(self, meta: SessionMeta) -> tuple[str, ...] | None:
        if self.resume is None or meta.transcript_path is None:
            return None
        return (*self.resume, str(meta.transcript_path))


def _texts(content: Any) -> list[str]:
    """The text parts of a user message's content (a string, or ``text`` and ``image`` parts)."""
    if isinstance(content, str):
        return [content]
    return [
        str(part["text"]) for part in content if isinstance(part, dict)
        and part.get("type", "text") == "text" and isinstance(part.get("text"), str)
    ] if isinstance(content, list) else []  # fmt: skip


def _message(message: dict[str, Any], ident: str | None, markers: Sequence[Marker]) -> Found:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        found: Found = []
        for text in _texts(content):
            found += cast(Found, user_events(text, markers))
        return found
    if role == "assistant":
        return _assistant(content)
    if role == "toolResult":
        fields: dict[str, Any] = {"output": text_of(content)}
        if message.get("isError") is True:
            fields["output"] = f"error: {fields['output']}"
        if isinstance(message.get("toolCallId"), str) and message["toolCallId"]:
            fields["id"] = message["toolCallId"]
        return [("tool_result", fields)]
    if role == "bashExecution":
        command = message.get("command") if isinstance(message.get("command"), str) else ""
        output = message.get("output") if isinstance(message.get("output"), str) else ""
        call = f"{ident}.bash" if ident else None
        found = [("tool_call", {"name": "bash", "input": command})]
        found.append(("tool_result", {"output": output}))
        if call is not None:
            found[0][1]["id"] = found[1][1]["id"] = call
        return found
    return []  # custom, branchSummary, compactionSummary (HIDDEN_ROLES) and future roles


def _assistant(content: Any) -> Found:
    out: Found = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.append(("assistant_message", {"text": block["text"]}))
        elif kind == "toolCall":
            name = block.get("name") if isinstance(block.get("name"), str) else "tool"
            fields: dict[str, Any] = {"name": name, "input": digest(block.get("arguments") or {})}
            if isinstance(block.get("id"), str) and block["id"]:
                fields["id"] = block["id"]
            out.append(("tool_call", fields))
        # thinking blocks are left out on purpose
    return out


FORMAT = PiFormat()
