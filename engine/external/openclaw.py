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

from engine.external.pi import PiFormat


class OpenClawFormat(PiFormat):
    """OpenClaw's per-agent session transcripts (pi's format)."""

    name = "openclaw"
    patterns: ClassVar[tuple[str, ...]] = ("*/sessions/*.jsonl",)
    resume: ClassVar[tuple[str, ...] | None] = None
    no_resume = "OpenClaw continues a session through its gateway, not by id on the command line"


FORMAT = OpenClawFormat()
