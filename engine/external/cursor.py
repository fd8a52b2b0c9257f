"""Cursor agent CLI transcripts: ``~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl``.

Cursor's agent CLI is closed source: the format is taken from transcripts it wrote, as quoted in
public session readers' tests and notes found through the code corpus (Cursor Agent 2026.10.01's
bundle: "one ``{role, message: {content}}`` per message, tool calls as ``tool_use``, tool results
left out, ``turn_ended`` at each turn's end"; older builds wrote ``agent-transcripts/<id>.jsonl``
flat). ``<slug>`` is the workspace folder without its leading ``/``, every other character but
letters and digits as ``-`` — lossy, and the lines name no folder, so a transcript belongs to the
lane whose folder's slug its folder is (or starts with, for a subfolder; the longest wins).
Lines carry no id and no time: a message's id is its byte offset. Indexed: user text (its
``<user_query>`` framing removed), assistant text, ``tool_use`` blocks and any ``tool_result``.
Hidden: thinking and the context Cursor puts in a user turn beside the query (``MARKERS``). The IDE's own chats
(``state.vscdb``'s ``cursorDiskKV``) are not read. Resume: ``cursor-agent --resume <chatId>``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from engine.external.finding import acceptable, real, scan_head, session_meta
from engine.external.heads import HeadCache
from engine.external.injected import Marker, block, query_frame, tag
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, message_blocks
from engine.external.skips import skip
from engine.project.model import Lane, SessionMeta
from engine.project.tally import WarningTally

_SLUG = re.compile(r"[^A-Za-z0-9]")

MARKERS: tuple[Marker, ...] = (
    tag("user_info", "hide", "environment"),
    tag("system_reminder", "hide", "reminder"),
    tag("attached_files", "system", "attached files"),
    tag("cursor_commands", "system", "command"),
    block(r"<([a-z_]+)>.*?</\1>", "hide", "context"),
)
"""What Cursor writes into a user turn beside what was typed (no source: closed source; the
transcripts quoted in tests/fixtures/agents/cursor/README.md and by public readers' parsers):
the typed words are framed by ``<user_query>`` (``FRAME``), the workspace's ``<user_info>`` is
and reminders are left out, attached files and commands kept as ``system``; any other tag block
in a user turn is Cursor's context and left out. Read one text block at a time: a block that
holds ``<user_info>`` and the query side by side gives the query only."""

FRAME = query_frame("user_query", "context")
"""Where a text block holds ``<user_query>``, only its inside is the user's."""


def slug(folder: Path) -> str:
    """Cursor's project folder name for workspace ``folder``."""
    return _SLUG.sub("-", str(folder).lstrip("/"))


class CursorFormat(JsonlAgent):
    """Cursor agent CLI's transcripts."""

    name = "cursor"
    patterns: ClassVar[tuple[str, ...]] = (
        "*/agent-transcripts/*/*.jsonl", "*/agent-transcripts/*.jsonl")  # fmt: skip
    resume: ClassVar[tuple[str, ...] | None] = ("cursor-agent", "--resume")
    hidden = "thinking, <user_info> and other context blocks in user turns"

    def record_events(
        self, obj: dict[str, Any], tally: WarningTally, source: str, state: dict[str, Any]
    ) -> tuple[str | None, str | None, Found] | None:
        del state
        if obj.get("type") == "turn_ended":
            return None, None, []
        role = obj.get("role")
        if role not in ("user", "assistant"):
            return None
        message = obj.get("message")
        if not isinstance(message, dict):
            skip(tally, source, "no message")
            return None, None, []
        return None, None, _blocks(str(role), message.get("content"))

    def learn(self, head: HeadNotes, obj: dict[str, Any]) -> None:
        message = obj.get("message")
        if obj.get("role") == "user" and isinstance(message, dict):
            for etype, fields in _blocks("user", message.get("content")):
                if etype == "user_message":
                    head.saw_user(fields["text"])

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        found: list[SessionMeta] = []
        bounds = self.bounds(environ, lanes)
        slugs = sorted(
            {(slug(p), lane.id) for lane in lanes for p in (lane.path, real(lane.path))},
            key=lambda pair: -len(pair[0]),
        )
        by_id = {lane.id: lane for lane in lanes}
        for folder, path in self.transcripts(environ):
            project = path.relative_to(folder).parts[0]
            lane_id = next(
                (i for s, i in slugs if project == s or project.startswith(f"{s}-")), None
            )
            if lane_id is None or not acceptable(path, bounds, self.name, tally, folder):
                continue
            scanned = scan_head(path, heads, self._learner(path, bounds), bounds)
            if scanned is None:
                continue
            head, st = scanned
            lane = by_id[lane_id]
            placed = dataclasses.replace(head, cwd=str(lane.path))
            meta = session_meta(self.session_id(path, head), self.name, path, placed, st, [lane])
            if meta is not None:
                found.append(meta)
        return found

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        del meta
        return None  # the transcript names no folder; its lane's folder is the best guess


def _blocks(role: str, content: Any) -> Found:
    return message_blocks(role, content, MARKERS, FRAME)


FORMAT = CursorFormat()
