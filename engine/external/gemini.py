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

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.external.lines import digest, json_lines
from engine.project.fields import parse_aware_time
from engine.project.json_salvage import salvage_cut_line
from engine.project.model import ChatEvent, ChatEventType
from engine.project.safe_io import Bounds, JsonRejected, is_regular_file, loads_json, open_regular
from engine.project.tally import WarningTally

PROJECT_ROOT_FILE = ".project_root"
INJECTED_PREFIXES = ("<session_context>", "<hook_context>")
PART_STRIDE = 1000
"""seq = message position * PART_STRIDE + part number (a message has far fewer parts)."""

SUBAGENT_STRIDE = 10**9
"""A subagent file's seqs start at (its number + 1) * SUBAGENT_STRIDE: after the parent's."""


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
            whole = loads_json(data)
        except JsonRejected as err:  # nested too deep included: never a RecursionError
            reason = "nested too deep" if "deep" in str(err) else "half-written or corrupt"
            tally.add(source, f"{reason} session file skipped")
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
        found = sorted(folder.glob("*.jsonl"))
    except OSError:
        return []
    bounds = Bounds([path.parent])  # no FIFO, no link out of the session's chats folder
    return [sub for sub in found if is_regular_file(sub, bounds)]


READ_LIMIT = 64 * 1024 * 1024
"""Most bytes of one session file kept for parsing (a huge line counts only its cut head)."""

LINE_CAP = 32 * 1024 * 1024
"""Longest line parsed whole (as ``engine.ingest.tailing.LONG_LINE_CAP``); a longer one is cut
to its first ``CUT_HEAD_BYTES``, closed into valid JSON, indexed marked and counted."""

CUT_HEAD_BYTES = 4 * 1024 * 1024
_CHUNK = 1024 * 1024  # < LINE_CAP: a line held whole inside one chunk is never too long

TRUNCATED_MARK = " [… truncated]"
"""``engine.ingest.docs.TRUNCATED_MARK`` (not imported: discovery stays free of the indexer)."""


@dataclass
class SessionBytes:
    """What ``read_session_file`` kept of a file: its bytes, lines cut, whether it stopped early."""

    data: bytes
    cut_lines: int = 0
    clipped: bool = False


def read_session_file(path: Path, *, document: bool, bounds: Bounds | None = None) -> SessionBytes:
    """A session file's bytes, never hanging and never holding a huge line whole.

    ``open_regular``'s rules (a FIFO, socket or directory, or a link out of ``bounds``, raises
    ``UnsafeFile``). A JSON-lines file keeps its complete lines only (the torn tail is the
    writer's, not ours yet); a line longer than ``LINE_CAP`` is replaced by its closed head.
    A legacy document is read whole up to ``READ_LIMIT``.

    Raises:
        OSError: missing, unreadable or refused.
    """
    with open_regular(path, bounds) as handle:
        if document:
            data = handle.read(READ_LIMIT + 1)
            return SessionBytes(data[:READ_LIMIT], clipped=len(data) > READ_LIMIT)
        out = bytearray()
        line = bytearray()
        cutting = False
        found = SessionBytes(b"")
        while chunk := handle.read(_CHUNK):
            first = chunk.find(b"\n")
            if first < 0:
                cutting = _grow(line, chunk, cutting)
                continue
            cutting = _grow(line, chunk[:first], cutting)
            if cutting:
                out += salvage_cut_line(bytes(line), TRUNCATED_MARK)
                found.cut_lines += 1
            else:
                out += line + b"\n"
            last = chunk.rfind(b"\n")
            out += chunk[first + 1 : last + 1]
            line, cutting = bytearray(chunk[last + 1 :]), False
            if len(out) > READ_LIMIT:
                found.clipped = True
                out = out[: out.rfind(b"\n", 0, READ_LIMIT) + 1]
                break
        found.data = bytes(out)
        return found


def _grow(line: bytearray, piece: bytes, cutting: bool) -> bool:
    """Append ``piece`` to the line being read unless it is already cut; cut it past the cap."""
    if cutting:
        return True
    line += piece
    if len(line) > LINE_CAP:
        del line[CUT_HEAD_BYTES:]
        return True
    return False


def load_gemini(
    path: Path, source: str, tally: WarningTally, bounds: Bounds | None = None
) -> tuple[GeminiRecord | None, int]:
    """The replayed session at ``path`` and how many of its lines were cut (indexed marked);
    ``(None, 0)`` when it cannot be read or parsed now (counted under ``source``)."""
    document = path.suffix == ".json"
    try:
        read = read_session_file(path, document=document, bounds=bounds)
    except OSError as err:
        tally.add(source, f"session file not readable: {err}")
        return None, 0
    if read.clipped:
        tally.add(source, f"session file longer than {READ_LIMIT >> 20} MiB: the rest not read")
    return replay_gemini(read.data, source, tally, document=document), read.cut_lines


def gemini_title(record: GeminiRecord) -> str | None:
    """The saved summary, else the first user message."""
    if record.summary:
        return record.summary
    for event in gemini_events(record):
        if event.type == "user_message":
            return " ".join(str(event.data["text"]).split())[:120]
    return None
