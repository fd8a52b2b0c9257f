"""iFlow CLI sessions: ``~/.iflow/projects/<cwd, / as ->/session-<uuid>.jsonl``.

iFlow CLI is published as a bundle only (npm ``@iflow-ai/iflow-cli``, a Gemini CLI fork): the
format is taken from sessions it wrote, as documented by a public session reader that audited
two live stores (45 records, none malformed). One file per session, appended a line a record,
Claude Code's envelope: ``uuid``, ``parentUuid``, ``sessionId`` (``session-<uuid>``, the file's
stem), ``timestamp``, ``type`` ``user``/``assistant``, ``isSidechain``, ``cwd``, ``message``
(``role``, ``content``: a string or ``text``/``tool_use``/``tool_result`` blocks); a
``tool_result``'s content is Gemini's ``{callId, responseParts: {functionResponse}, resultDisplay}``.
The folder name is lossy, so the project comes from the records' ``cwd``. Indexed: user and
assistant text, tool uses and results. Hidden: thinking, sidechain (subagent) records and the
context iFlow writes into a user turn (``# AGENTS.md instructions for``, ``<INSTRUCTIONS>``,
``<local-command-caveat>``, ``<system-reminder>``: ``MARKERS``, one text block at a time).
Resume: ``iflow --resume <sessionId>``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from engine.external.injected import Marker, tag
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, message_blocks
from engine.external.skips import skip
from engine.project.tally import WarningTally

MARKERS: tuple[Marker, ...] = (
    Marker("# AGENTS.md instructions for ", "hide", "AGENTS.md", "</INSTRUCTIONS>"),
    tag("INSTRUCTIONS", "hide", "instructions"),
    tag("local-command-caveat", "hide", "caveat"),
    tag("system-reminder", "hide", "reminder"),
)
"""What iFlow writes into a user turn itself (no source: iFlow ships a bundle only; the user-form
injections its sessions hold, tests/fixtures/agents/iflow/README.md), read one text block at a
time (not by a message's first characters): the project's instructions, the command caveat
and reminders left out."""


class IFlowFormat(JsonlAgent):
    """iFlow CLI's session files."""

    name = "iflow"
    patterns: ClassVar[tuple[str, ...]] = ("*/session-*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = ("iflow", "--resume")
    hidden = "thinking, subagent records, AGENTS.md instructions, caveats, reminders"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        kind = obj.get("type")
        if kind not in ("user", "assistant"):
            return None
        ident = obj.get("uuid") if isinstance(obj.get("uuid"), str) else None
        when = obj.get("timestamp") if isinstance(obj.get("timestamp"), str) else None
        message = obj.get("message")
        if not isinstance(message, dict):
            skip(tally, source, "no message")
            return ident, when, []
        if obj.get("isSidechain") is True:
            return ident, when, []
        return ident, when, message_blocks(str(kind), message.get("content"), MARKERS)

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        if head.cwd is None and isinstance(obj.get("cwd"), str) and obj["cwd"]:
            head.cwd = obj["cwd"]
        if head.ident is None and isinstance(obj.get("sessionId"), str) and obj["sessionId"]:
            head.ident = obj["sessionId"]
        if head.first_ts is None and isinstance(obj.get("timestamp"), str):
            head.first_ts = obj["timestamp"]
        message = obj.get("message")
        if obj.get("type") == "user" and isinstance(message, dict):
            for etype, fields in message_blocks("user", message.get("content"), MARKERS):
                if etype == "user_message":
                    head.saw_user(fields["text"])


FORMAT = IFlowFormat()
