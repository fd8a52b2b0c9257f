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
Hidden: thinking and the context Cursor puts in a user turn (``<user_info>``,
``<attached_files>``, ``<system_reminder>``…: text that is one tag block). The IDE's own chats
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
from engine.external.jsonl_agent import Found, HeadNotes, JsonlAgent, message_blocks
from engine.external.skips import skip
from engine.project.model import Lane, SessionMeta
from engine.project.tally import WarningTally

_SLUG = re.compile(r"[^A-Za-z0-9]")
_QUERY = re.compile(r"^\s*<user_query>\s*(.*?)\s*</user_query>\s*$", re.DOTALL)
_TAG_BLOCK = re.compile(r"^\s*<([a-z_]+)>.*</\1>\s*$", re.DOTALL)


def slug(folder: Path) -> str:
    """Cursor's project folder name for workspace ``folder``."""
    return _SLUG.sub("-", str(folder).lstrip("/"))


def user_text(text: str) -> str:
    """What the user typed: ``<user_query>`` unwrapped; any other single tag block is context
    Cursor added (nothing)."""
    found = _QUERY.match(text)
    if found:
        return found.group(1)
    return "" if _TAG_BLOCK.match(text) else text


class CursorFormat(JsonlAgent):
    """Cursor agent CLI's transcripts."""

    name = "cursor"
    patterns: ClassVar[tuple[str, ...]] = (
        "*/agent-transcripts/*/*.jsonl", "*/agent-transcripts/*.jsonl")  # fmt: skip
    resume: ClassVar[tuple[str, ...] | None] = ("cursor-agent", "--resume")
    hidden = "thinking, context blocks in user turns (<user_info>, <attached_files>…)"

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
    if role != "user":
        return message_blocks(role, content, lambda _text: False)
    found: Found = []
    for etype, fields in message_blocks(role, content, lambda _text: False):
        if etype == "user_message":
            fields["text"] = user_text(fields["text"])
            if not fields["text"].strip():
                continue
        found.append((etype, fields))
    return found


FORMAT = CursorFormat()
