"""Google Gemini CLI sessions: ``$GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl``.

Location (google-gemini/gemini-cli ``packages/core/src/utils/paths.ts`` ``homedir``:
``GEMINI_CLI_HOME`` else the user's home; ``packages/core/src/config/storage.ts``
``getProjectTempDir``: ``~/.gemini/tmp/<identifier>``; ``packages/core/src/config/projectRegistry.ts``:
the identifier is a slug from ``~/.gemini/projects.json`` whose folder holds a ``.project_root``
file naming the project folder; older releases used ``sha256(project root)`` as the folder name).
Format (``packages/core/src/services/chatRecordingService.ts`` ``loadConversationRecord`` and
``chatRecordingTypes.ts``): JSON lines — a metadata record (``sessionId``, ``projectHash``,
``startTime``…), message records (``id``, ``timestamp``, ``type``: ``user`` | ``gemini`` |
``info`` | ``error`` | ``warning``, ``content`` / ``displayContent`` as Gemini parts, and on
``gemini`` messages ``toolCalls`` [``id``, ``name``, ``args``, ``result``, ``resultDisplay``] and
``thoughts``), ``{"$set": {...}}`` metadata updates (``summary``; ``messages`` rebuilds the list),
and ``{"$rewindTo": id}`` which drops that message and every later one. A message is appended
again whole when it changes (a tool result arrives), keeping its place. Older releases wrote one
JSON document ``session-*.json`` (the whole ``ConversationRecord``), rewritten on every change.

So the file is re-derived whole on each change (not tailed): the same replay, stable ids (the
message id, the tool call id), and seq = message position * 1000 + part. Indexed: user text
(``displayContent`` when present: what the user saw), the model's text parts (not ``thought``
parts), tool calls (name + args digest) and results (``resultDisplay`` when it is text, else the
function response). Left out: ``thoughts``, ``info``/``error``/``warning`` notices, injected
``<session_context>``/``<hook_context>`` user turns. A subagent's file
(``chats/<parent id>/<id>.jsonl``) belongs to its parent session, after the parent's messages.
Resume: ``gemini --resume <sessionId>`` in the
project folder.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from engine.external.lines import digest, json_lines
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType
from engine.project.tally import WarningTally

PROJECT_ROOT_FILE = ".project_root"
INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
PART_STRIDE = 1000
"""seq = message position * PART_STRIDE + part number (a message has far fewer parts)."""

SUBAGENT_STRIDE = 10**9
"""A subagent file's seqs start at (its number + 1) * SUBAGENT_STRIDE: after the parent's."""


def gemini_tmp_dir(environ: Mapping[str, str]) -> Path:
    """``$GEMINI_CLI_HOME/.gemini/tmp``, default ``~/.gemini/tmp``."""
    home = environ.get("GEMINI_CLI_HOME") or environ.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".gemini" / "tmp"


@dataclass
class GeminiRecord:
    """A replayed session file: its metadata and messages in order (None: unreadable)."""

    session_id: str | None = None
    summary: str | None = None
    start_time: str | None = None
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)


def replay_gemini(
    data: bytes, source: str, tally: WarningTally, *, document: bool = False
) -> GeminiRecord | None:
    """The session as the CLI itself would load it (``document``: a legacy ``.json`` file);
    None for a legacy document cut short (half-written) or corrupt."""
    if document:
        try:
            whole = msgspec.json.decode(data)
        except msgspec.DecodeError:
            tally.add(source, "half-written or corrupt session file skipped")
            return None
        record = GeminiRecord()
        if isinstance(whole, dict):
            _meta(record, whole)
            _put_all(record, whole.get("messages"))
        return record
    record = GeminiRecord()
    lines, _ = json_lines(data, 0, source, tally)  # a torn last line is not read
    for _offset, obj in lines:
        if isinstance(obj.get("$rewindTo"), str):
            ids = list(record.messages)
            target = obj["$rewindTo"]
            keep = ids[: ids.index(target)] if target in ids else []
            record.messages = {k: record.messages[k] for k in keep}
        elif isinstance(obj.get("id"), str):
            record.messages[obj["id"]] = obj
        elif isinstance(obj.get("$set"), dict):
            update = obj["$set"]
            if isinstance(update.get("messages"), list):
                record.messages = {}
                _put_all(record, update["messages"])
            _meta(record, update)
        elif isinstance(obj.get("sessionId"), str):
            _meta(record, obj)
            _put_all(record, obj.get("messages"))
    return record


def _put_all(record: GeminiRecord, messages: Any) -> None:
    for msg in messages if isinstance(messages, list) else []:
        if isinstance(msg, dict) and isinstance(msg.get("id"), str):
            record.messages[msg["id"]] = msg


def _meta(record: GeminiRecord, obj: dict[str, Any]) -> None:
    if isinstance(obj.get("sessionId"), str):
        record.session_id = obj["sessionId"]
    if isinstance(obj.get("summary"), str) and obj["summary"].strip():
        record.summary = obj["summary"].strip()
    if isinstance(obj.get("startTime"), str):
        record.start_time = record.start_time or obj["startTime"]


def gemini_events(record: GeminiRecord) -> list[ChatEvent]:
    """The messages, tool calls and results the user saw, in order."""
    events: list[ChatEvent] = []
    for position, msg in enumerate(record.messages.values()):
        base = position * PART_STRIDE
        ts = parse_aware_time(msg.get("timestamp"))
        mid = msg["id"]
        kind = msg.get("type")
        if kind == "user":
            text = parts_text(msg.get("displayContent") or msg.get("content")).strip()
            if text and not text.startswith(INJECTED_PREFIXES):
                events.append(ChatEvent(base, ts, "user_message", base, {"id": mid, "text": text}))
        elif kind == "gemini":
            text = parts_text(msg.get("content")).strip()
            if text:
                events.append(
                    ChatEvent(base, ts, "assistant_message", base, {"id": mid, "text": text})
                )
            calls = msg.get("toolCalls")
            for number, call in enumerate(calls if isinstance(calls, list) else []):
                events += _tool_events(call, base + 1 + 2 * number, ts)
    return events


def _tool_events(call: Any, seq: int, ts: Any) -> list[ChatEvent]:
    if not isinstance(call, dict) or not isinstance(call.get("id"), str):
        return []
    name = call.get("name") if isinstance(call.get("name"), str) else "tool"
    when = parse_aware_time(call.get("timestamp")) or ts
    out = [ChatEvent(seq, when, "tool_call", seq,
                     {"id": call["id"], "name": name, "input": digest(call.get("args"))})]  # fmt: skip
    shown = call.get("resultDisplay")
    output = (
        shown if isinstance(shown, str) and shown.strip() else _response_text(call.get("result"))
    )
    if output:
        etype: ChatEventType = "tool_result"
        out.append(ChatEvent(seq + 1, when, etype, seq + 1, {"id": call["id"], "output": output}))
    return out


def parts_text(content: Any) -> str:
    """The visible text of Gemini content: a string, a part, or a list of parts (``thought``
    parts and non-text parts left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    texts = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif (
            isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought")
        ):
            texts.append(part["text"])
    return "".join(texts)


def _response_text(result: Any) -> str:
    """A tool's function response (``output``, ``error`` or the whole response as JSON)."""
    parts = result if isinstance(result, list) else [result]
    texts = []
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        body = response.get("response") if isinstance(response, dict) else None
        if isinstance(body, dict):
            value = body.get("output", body.get("error", body))
            texts.append(value if isinstance(value, str) else digest(value))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
    return "\n".join(t for t in texts if t)


def subagent_files(path: Path, session_id: str) -> list[Path]:
    """A session's subagent files: ``chats/<sanitized parent id>/<id>.jsonl``
    (``chatRecordingService.ts`` ``initialize``; ``fileUtils.ts`` ``sanitizeFilenamePart``)."""
    folder = path.parent / re.sub(r"[^a-zA-Z0-9_-]", "_", session_id)
    try:
        return sorted(folder.glob("*.jsonl"))
    except OSError:
        return []


def gemini_title(record: GeminiRecord) -> str | None:
    """The saved summary, else the first user message."""
    if record.summary:
        return record.summary
    for event in gemini_events(record):
        if event.type == "user_message":
            return " ".join(str(event.data["text"]).split())[:120]
    return None
