"""OpenClaw sessions: ``$OPENCLAW_STATE_DIR/agents/<agentId>/sessions/<sessionId>.jsonl``.

From openclaw/openclaw ``src/config/sessions/paths.ts`` (``resolveAgentSessionsDir``: the state
dir — ``OPENCLAW_STATE_DIR``, else ``~/.openclaw`` — then ``agents/<agentId>/sessions``;
``resolveSessionTranscriptPathInDir``: ``<sessionId>.jsonl``, or ``<sessionId>-topic-<topic>.jsonl``
for a thread) beside the ``sessions.json`` index. The transcript is written by pi's session
manager (``SessionManager.open(sessionFile)`` in ``src/agents/pi-embedded-runner``), so each file
is pi's format (``engine.external.pi``): a ``session`` header naming the working folder the
gateway ran the agent in (its workspace), then ``message`` entries. A session belongs to a project
when that folder is inside one of its lanes. OpenClaw continues a conversation through its
gateway, by channel or session key, not by a session id on the command line: no resume.
"""

from __future__ import annotations

from typing import ClassVar

from engine.external.injected import Marker, block
from engine.external.pi import MARKERS as PI_MARKERS
from engine.external.pi import PiFormat

_JSON_BLOCK = r" \((?:untrusted metadata|untrusted, for context)\):\n```json\n.*?\n```"
"""The fenced JSON after a context block's label (``JSON.stringify`` escapes newlines, so no
line of the JSON opens with the closing fence)."""

MARKERS: tuple[Marker, ...] = (
    *PI_MARKERS,
    block(rf"(?:Conversation info|Sender){_JSON_BLOCK}", "hide", "channel metadata"),
    block(rf"(?:Thread starter|Replied message|Forwarded message context"
          rf"|Chat history since last reply){_JSON_BLOCK}", "system", "channel context"),
    block(r"System: [^\n]*(?:\nSystem: [^\n]*)*", "system", "system event"),
    block(r"\[message_id: [^\]\n]+\][ \t]*(?=\n|$)", "hide", "message id"),
)  # fmt: skip
"""What OpenClaw writes into the user turn it hands pi beside the message itself: the inbound
context blocks (``src/auto-reply/reply/inbound-meta.ts`` ``buildInboundUserContextPrefix``: the
conversation and sender metadata left out; a thread starter, a replied or forwarded message and
the chat history since the last reply — other people's words — kept as ``system``), the queued
system events (``src/auto-reply/reply/session-updates.ts`` ``prependSystemEvents``: ``System:
[time] …`` lines, kept as ``system``) and ``[message_id: …]`` hints
(``src/shared/chat-envelope.ts``). The channel envelope (``[Telegram …]``) opens the user's own
line and stays with it."""


class OpenClawFormat(PiFormat):
    """OpenClaw's per-agent session transcripts (pi's format)."""

    name = "openclaw"
    patterns: ClassVar[tuple[str, ...]] = ("*/sessions/*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = None
    no_resume = "OpenClaw continues a session through its gateway, not by id on the command line"
    hidden = "as pi, and channel metadata blocks in user turns"
    markers: ClassVar[tuple[Marker, ...]] = MARKERS


FORMAT = OpenClawFormat()
