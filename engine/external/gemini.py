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
message id, the tool call id; a record without one is known by its place: its line's offset, its
position in a document's list, its message's id and its number among the message's calls, so
it and its tool result are kept), and seq = message position * 1000 + part. A line of no known
kind is counted ``unknown type``. Indexed: user text
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
from typing import Any, ClassVar

import msgspec

from engine.basics.digests import sha256_hex
from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import acceptable, real, session_meta
from engine.external.heads import Head, HeadCache
from engine.external.lines import digest, json_lines
from engine.external.session_file import read_session_file
from engine.external.skips import skip, skip_file
from engine.importers.lane_choice import lane_containing
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta
from engine.project.safe_io import Bounds, JsonRejected, is_regular_file, loads_json, read_regular
from engine.project.stat import stat_signature
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
        except JsonRejected:  # half-written, corrupt or nested too deep (no RecursionError)
            skip(tally, source, "bad json")
            return None
        record = GeminiRecord()
        if isinstance(whole, dict):
            _meta(record, whole)
            _put_all(record, whole.get("messages"), source, tally)
        return record
    record = GeminiRecord()
    lines, _ = json_lines(data, 0, source, tally)  # a torn last line is not read
    for offset, obj in lines:
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
                _put_all(record, update["messages"], source, tally)
            _meta(record, update)
        elif isinstance(obj.get("sessionId"), str):
            _meta(record, obj)
            _put_all(record, obj.get("messages"), source, tally)
        elif obj.get("type") in MESSAGE_TYPES:  # no id: its place in the file is its id
            record.messages[f"@{offset}"] = {**obj, "id": f"@{offset}"}
        else:
            skip(tally, source, "unknown type")
    return record


MESSAGE_TYPES = frozenset({"user", "gemini", "info", "error", "warning"})
"""``MessageRecord.type`` (``chatRecordingTypes.ts``)."""


def _put_all(record: GeminiRecord, messages: Any, source: str, tally: WarningTally) -> None:
    """The messages of a document in order; one without ``id`` (older or hand-edited records)
    gets its position in the list as a stable id, so it and its tool results are kept."""
    for position, msg in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(msg, dict):
            skip(tally, source, "bad json")
        elif isinstance(msg.get("id"), str) and msg["id"]:
            record.messages[msg["id"]] = msg
        else:
            record.messages[f"#{position}"] = {**msg, "id": f"#{position}"}


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
                events += _tool_events(call, f"{mid}.tool{number}", base + 1 + 2 * number, ts)
    return events


def _tool_events(call: Any, fallback: str, seq: int, ts: Any) -> list[ChatEvent]:
    """A tool call and its result; a call without ``id`` is known by its message's id and its
    place among the message's calls (``fallback``)."""
    if not isinstance(call, dict):
        return []
    ident = call["id"] if isinstance(call.get("id"), str) and call["id"] else fallback
    name = call.get("name") if isinstance(call.get("name"), str) else "tool"
    when = parse_aware_time(call.get("timestamp")) or ts
    out = [ChatEvent(seq, when, "tool_call", seq,
                     {"id": ident, "name": name, "input": digest(call.get("args"))})]  # fmt: skip
    shown = call.get("resultDisplay")
    output = (
        shown if isinstance(shown, str) and shown.strip() else _response_text(call.get("result"))
    )
    if output:
        etype: ChatEventType = "tool_result"
        out.append(ChatEvent(seq + 1, when, etype, seq + 1, {"id": ident, "output": output}))
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


def load_gemini(
    path: Path, source: str, tally: WarningTally, bounds: Bounds | None = None
) -> tuple[GeminiRecord | None, int]:
    """The replayed session at ``path`` and how many of its lines were cut (indexed marked);
    ``(None, 0)`` when it cannot be read or parsed now (counted under ``source``)."""
    document = path.suffix == ".json"
    try:
        read = read_session_file(path, document=document, bounds=bounds)
    except OSError:
        skip(tally, source, "unreadable")
        return None, 0
    if read.clipped:
        skip(tally, source, "too long")
    return replay_gemini(read.data, source, tally, document=document), read.cut_lines


def gemini_title(record: GeminiRecord) -> str | None:
    """The saved summary, else the first user message."""
    if record.summary:
        return record.summary
    for event in gemini_events(record):
        if event.type == "user_message":
            return " ".join(str(event.data["text"]).split())[:120]
    return None


MARKER_BYTES = 64 * 1024
"""Most of a ``.project_root`` file read: one folder path."""


def gemini_folders(
    lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache,
    tally: WarningTally | None = None,
) -> set[Path]:  # fmt: skip
    """The ``chats`` folders of the Gemini projects inside ``lanes``: named by a registry slug
    whose ``.project_root`` says which folder it is, or (older releases) by the sha256 of the
    folder — only a lane's own folder can be found that way. A marker that is no regular file
    or links out of the tmp folder is refused (counted once in ``tally``)."""
    tmp = FORMAT.session_folders(environ)[0]
    try:
        entries = sorted(tmp.iterdir())
    except OSError:
        return set()
    bounds = FORMAT.bounds(environ)
    found: set[Path] = set()
    for entry in entries:
        root = _marker_root(entry / PROJECT_ROOT_FILE, heads, bounds, tally)
        if root is not None and lane_containing(lanes, Path(root)) is not None:
            found.add(entry / "chats")
    for lane in lanes:
        for folder in {str(lane.path), str(real(lane.path))}:
            hashed = tmp / sha256_hex(folder.encode())
            if (hashed / "chats").is_dir():
                found.add(hashed / "chats")
    return found


def _marker_root(
    marker: Path, heads: HeadCache, bounds: Bounds, tally: WarningTally | None = None
) -> str | None:
    try:
        st = marker.stat()
    except OSError:
        return None
    head = heads.get(marker, st)
    if head is None:
        try:
            data = read_regular(marker, MARKER_BYTES, bounds)
        except OSError:
            if tally is not None:
                skip_file(tally, "gemini", "refused", marker)
            return None
        text = data.decode("utf-8", errors="replace").strip()
        head = Head(st.st_ino, st.st_size, False, text or None, None, None, None)
        heads.put(marker, head)
    return head.cwd


def _gemini_head(
    path: Path, root: str | None, tally: WarningTally, heads: HeadCache, bounds: Bounds
) -> tuple[Head, os.stat_result] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    head = heads.get(path, st)
    if head is None:
        # Bad lines are counted by the pass that indexes the session (under chat:<sid>, stored
        # with its docs), not here: listing runs on every reconcile.
        seen = WarningTally()
        record, _ = load_gemini(path, f"gemini:{path.name}", seen, bounds)
        if record is None or record.session_id is None:
            # Half-written (or not a session): a session listed before stays listed, its docs
            # kept, until the file parses again (its pass counts the problem); one never
            # listed is counted here, once.
            known = heads.peek(path)
            if known is None or known.ident is None:
                for reason in seen.reasons(f"gemini:{path.name}") or {"no id": 1}:
                    tally.add_once("gemini", reason, str(path))
                return None
            heads.put(path, known)
            return known, st
        head = Head(st.st_ino, st.st_size, False, root, record.session_id, gemini_title(record),
                    record.start_time)  # fmt: skip
        heads.put(path, head)
    return head, st


class Gemini(AgentFormat):
    """Gemini CLI: a JSON-lines file a session whose messages are replaced and rewound, so
    each session is re-derived whole when its files change."""

    name: ClassVar[str] = "gemini"
    derived: ClassVar[bool] = True
    folder_label: ClassVar[str] = "the Gemini CLI tmp folder"
    session_globs: ClassVar[tuple[str, ...]] = ("*/chats/session-*.json*",)
    resume: ClassVar[tuple[str, ...] | None] = ("gemini", "--resume")
    hidden: ClassVar[str] = (
        "`thoughts` and thought parts, info/error/warning notices, `<session_context>`,"
        " `<hook_context>`, messages a rewind dropped"
    )

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        found: list[SessionMeta] = []
        bounds = self.bounds(environ)
        tmp = self.session_folders(environ)[0]
        for chats in sorted(gemini_folders(lanes, environ, heads, tally)):
            root = _marker_root(chats.parent / PROJECT_ROOT_FILE, heads, bounds)
            root = root or next((str(la.path) for la in lanes if _hash_of(la) == chats.parent.name),
                                None)  # fmt: skip
            try:
                files = sorted(chats.glob("session-*.json*"))
            except OSError:
                continue
            names = {p.name for p in files}
            for path in files:
                if path.suffix not in (".json", ".jsonl") or (
                    path.suffix == ".json" and f"{path.name}l" in names
                ):
                    continue  # a legacy file the CLI has migrated to .jsonl on resume
                if not acceptable(path, bounds, self.name, tally, tmp):
                    continue
                scanned = _gemini_head(path, root, tally, heads, bounds)
                if scanned is not None:
                    head, st = scanned
                    meta = session_meta(f"gemini-{head.ident}", self.name, path, head, st, lanes)
                    if meta is not None:
                        found.append(meta)
        return found

    def lane_memo(self, lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache) -> object:
        return gemini_folders(lanes, environ, heads)

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        if self.session_folders(environ)[0] not in path.parents:
            return None
        folders = memo if isinstance(memo, set) else set()
        main = path.parent in folders and path.name.startswith("session-")
        sub = path.parent.parent in folders and path.suffix == ".jsonl"  # a subagent's file
        return "relist" if (main or sub) and path.suffix in (".json", ".jsonl") else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return path.suffix in (".json", ".jsonl") and super().owns(path, environ)

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        if path is None:
            return "null"
        return stat_signature([path, *subagent_files(path, self.native_id(meta))])

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        record, cut_lines = load_gemini(path, source, tally)
        if record is None:
            return None, 0
        events = gemini_events(record)
        for number, sub in enumerate(subagent_files(path, record.session_id or "")):
            sub_record, sub_cut = load_gemini(sub, source, tally)  # gone meanwhile: next change
            cut_lines += sub_cut
            base = (number + 1) * SUBAGENT_STRIDE
            events += [
                msgspec.structs.replace(e, seq=base + e.seq, offset=base + e.offset)
                for e in gemini_events(sub_record or GeminiRecord())
            ]
        return events, cut_lines

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        if meta.transcript_path is None:
            return None
        try:
            marker = read_regular(meta.transcript_path.parent.parent / PROJECT_ROOT_FILE,
                                  MARKER_BYTES)  # fmt: skip
        except OSError:
            return None
        text = marker.decode("utf-8", errors="replace").strip()
        return Path(text) if text else None


def _hash_of(lane: Lane) -> str:
    return sha256_hex(str(lane.path).encode())


FORMAT = Gemini()
