"""Factory Droid sessions: ``~/.factory/sessions/<folder, / as ->/<sessionId>.jsonl``.

Droid is closed source: the format is taken from sessions it wrote, as quoted in public session
readers' tests, and from Factory's CLI reference (``droid --resume [sessionId]``). The first line
is ``{"type": "session_start", "id", "title", "sessionTitle", "owner", "version", "cwd"}``
(rewritten in place when the session is renamed); then ``{"type": "message", "id",
"parentId", "timestamp", "visibility"?, "message": {"role", "content"}}`` with Anthropic-style
``text``, ``tool_use``, ``tool_result`` and ``thinking`` blocks, and bookkeeping lines
(``todo_state``, ``session_event``). A ``<uuid>.settings.json`` beside it holds the model and
token use. Indexed: user and assistant text, tool calls and results. Hidden: thinking, messages
only the model sees (``visibility: llm_only``) and ``<system-reminder>`` text Droid adds to a
user turn (``MARKERS``, one text block at a time). Resume: ``droid --resume <sessionId>``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.external.injected import Marker, tag
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, message_blocks
from engine.external.skips import skip
from engine.project.tally import WarningTally

QUIET = frozenset({"todo_state", "session_event", "compaction_state", "session_end"})
"""Bookkeeping lines Droid writes beside its messages."""


MARKERS: tuple[Marker, ...] = (tag("system-reminder", "hide", "reminder"),)
"""What Droid writes into a user turn itself (no source: Droid is closed source; the sessions
quoted in tests/fixtures/agents/droid/README.md), read one text block at a time: its
``<system-reminder>`` left out, as whole messages only the model sees, which Droid marks
itself (``visibility: llm_only``)."""


class DroidFormat(JsonlAgent):
    """Factory Droid's session files."""

    name = "droid"
    patterns: ClassVar[tuple[str, ...]] = ("*/*.jsonl", "*.jsonl")
    resume: ClassVar[tuple[str, ...] | None] = ("droid", "--resume")
    hidden = "thinking, model-only messages, <system-reminder> text"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        kind = obj.get("type")
        ident = obj.get("id") if isinstance(obj.get("id"), str) else None
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        if kind == "session_start":
            return None, when, []
        if kind in QUIET:
            return ident, when, []
        if kind != "message":
            return None
        message = obj.get("message")
        if not isinstance(message, dict):
            skip(tally, source, "no message")
            return ident, when, []
        if obj.get("visibility") == "llm_only":
            return ident, when, []
        role = message.get("role")
        if role not in ("user", "assistant"):
            return ident, when, []
        return ident, when, message_blocks(str(role), message.get("content"), MARKERS)

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        if obj.get("type") == "session_start":
            if isinstance(obj.get("cwd"), str) and obj["cwd"]:
                head.cwd = obj["cwd"]
            if isinstance(obj.get("id"), str) and obj["id"]:
                head.ident = obj["id"]
            for key in ("sessionTitle", "title"):
                if isinstance(obj.get(key), str) and obj[key].strip():
                    head.title = obj[key].strip()
                    break
        elif obj.get("type") == "message" and obj.get("visibility") != "llm_only":
            if head.first_ts is None and isinstance(obj.get("timestamp"), str):
                head.first_ts = obj["timestamp"]
            message = obj.get("message")
            if isinstance(message, dict) and message.get("role") == "user":
                for etype, fields in message_blocks("user", message.get("content"), MARKERS):
                    if etype == "user_message":
                        head.saw_user(fields["text"])


FORMAT = DroidFormat()
