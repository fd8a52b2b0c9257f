"""Claude Code transcripts: ``~/.claude/projects/<cwd-slug>/<session>.jsonl``.

One JSON object a line, threaded by ``uuid``/``parentUuid`` (not time-ordered). ``type`` is
``user`` or ``assistant`` for messages, whose ``message.content`` is a string or a list of
``text``, ``thinking``, ``tool_use``, ``tool_result`` and ``image`` blocks; ``summary`` lines
title the session; anything else (``system``, ``file-history-snapshot``…) is skipped. Events come
out in the shape the chat ingester indexes (``ChatEvent`` with ``id``/``text``/``name``/
``input``/``output``); the message id is the line's ``uuid``, the seq is the line's byte offset
(plus a per-file base for subagent files), so a deep link lands on the exact line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.external.lines import digest, json_lines
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType
from engine.project.tally import WarningTally

NOT_A_TITLE = ("<command-", "<local-command", "Caveat:", "[Request interrupted")
"""User lines Claude Code writes itself (slash commands, their output, notices): not a title."""


@dataclass
class ClaudeHead:
    """What a scan learned about the session: working folder, title, first time."""

    cwd: str | None = None
    summary: str | None = None
    first_user: str | None = None
    first_ts: str | None = None

    @property
    def title(self) -> str | None:
        return self.summary or self.first_user


def parse_claude(
    data: bytes, base: int, source: str, tally: WarningTally, *, seq_base: int = 0,
    head: ClaudeHead | None = None,
) -> tuple[list[ChatEvent], int]:  # fmt: skip
    """Events of the complete lines of ``data`` (starting at byte ``base``) and bytes consumed."""
    lines, consumed = json_lines(data, base, source, tally)
    events: list[ChatEvent] = []
    for offset, obj in lines:
        kind = obj.get("type")
        if head is not None:
            _learn(head, obj)
        if kind not in ("user", "assistant") or obj.get("isMeta") is True:
            continue
        uuid = obj.get("uuid")
        message = obj.get("message")
        if not isinstance(uuid, str) or not uuid or not isinstance(message, dict):
            tally.add(source, "message line without uuid or message")
            continue
        ts = parse_aware_time(obj.get("timestamp"))
        for i, (etype, data_) in enumerate(_blocks(kind, message.get("content"))):
            data_["id"] = uuid if i == 0 else f"{uuid}.{i}"
            events.append(ChatEvent(seq_base + offset, ts, etype, offset, data_))
    return events, consumed


def _blocks(kind: str, content: Any) -> list[tuple[ChatEventType, dict[str, Any]]]:
    said: ChatEventType = "user_message" if kind == "user" else "assistant_message"
    if isinstance(content, str):
        return [(said, {"text": content})] if content.strip() else []
    out: list[tuple[ChatEventType, dict[str, Any]]] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        btype = block.get("type")
        if btype == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            out.append((said, {"text": block["text"]}))
        elif btype == "tool_use":
            name = block.get("name") if isinstance(block.get("name"), str) else "tool"
            out.append(("tool_call", {"name": name, "input": digest(block.get("input"))}))
        elif btype == "tool_result":
            out.append(("tool_result", {"output": result_text(block.get("content"))}))
        # thinking, redacted_thinking and image blocks are left out on purpose.
    return out


def result_text(content: Any) -> str:
    """A tool result's text: a string, or the ``text`` blocks of a list (images dropped)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
        )
    return ""


def _learn(head: ClaudeHead, obj: dict[str, Any]) -> None:
    if head.cwd is None and isinstance(obj.get("cwd"), str):
        head.cwd = obj["cwd"]
    if head.first_ts is None and isinstance(obj.get("timestamp"), str):
        head.first_ts = obj["timestamp"]
    if obj.get("type") == "summary" and isinstance(obj.get("summary"), str):
        head.summary = obj["summary"].strip() or head.summary
    if head.first_user is None and obj.get("type") == "user" and obj.get("isMeta") is not True:
        message = obj.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            content = next(
                (b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"),
                None,
            )
        if isinstance(content, str) and content.strip() and not content.startswith(NOT_A_TITLE):
            head.first_user = " ".join(content.split())[:120]
