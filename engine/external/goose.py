"""Goose sessions: ``$GOOSE_PATH_ROOT/data/sessions/sessions.db`` (default
``~/.local/share/goose/sessions/sessions.db``).

From block/goose ``crates/goose/src/session/session_manager.rs`` (``ensure_session_dir``:
``Paths::data_dir()/sessions``; ``SessionStorage::create``: ``sessions`` rows with ``id``
(``YYYYMMDD_<n>``), ``name``, ``session_type`` (``user``, ``scheduled``, ``sub_agent``,
``hidden``), ``working_dir``, ``created_at``, ``updated_at``; ``messages`` rows with
``session_id``, ``role``, ``content_json``, ``created_timestamp`` (seconds), ``metadata_json``)
and ``crates/goose/src/conversation/message.rs`` (``MessageContent`` tagged by ``type``:
``text``, ``image``, ``toolRequest`` ``{id, toolCall: {status, value: {name, arguments}}}``,
``toolResponse`` ``{id, toolResult: {status, value}}``, ``thinking``, ``redactedThinking``,
``systemNotification``, ``frontendToolRequest``, ``toolConfirmationRequest``,
``actionRequired``; ``metadata`` ``{userVisible, agentVisible}``). The database is opened
read-only and a session is re-derived whole when its rows change. Indexed: text, tool requests
and responses. Hidden: thinking, system notifications, messages the user never saw
(``userVisible: false``: summaries and context goose adds), subagent and hidden sessions. Goose
writes nothing of its own into a visible message's text: what it adds for the model alone is a
message flagged so, and its per-turn context (``crates/goose/src/agents/moim.rs``) is never
stored.
Resume: ``goose session --resume --session-id <id>``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import lane_of, ms_time
from engine.external.heads import HeadCache
from engine.external.lines import digest
from engine.external.roots import home_of
from engine.external.skips import skip, skip_file
from engine.external.sqlite_store import (
    UNREADABLE,
    database_write,
    store_count,
    store_rows,
    store_signature,
)
from engine.project.fields import parse_aware_time
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import JsonRejected, loads_json
from engine.project.tally import WarningTally

DB_FILE = "sessions.db"
LISTED_TYPES = ("user", "scheduled")
"""Session types a person started (``sub_agent`` and ``hidden`` ones are the agent's own)."""
QUIET = frozenset({"thinking", "redactedThinking", "systemNotification", "image",
                   "toolConfirmationRequest", "actionRequired", "conversationCompacted"})  # fmt: skip


class GooseFormat(AgentFormat):
    """Goose: sessions in a SQLite database, re-derived whole when their rows change."""

    name: ClassVar[str] = "goose"
    derived: ClassVar[bool] = True
    resume: ClassVar[tuple[str, ...] | None] = ("goose", "session", "--resume", "--session-id")
    hidden: ClassVar[str] = "thinking, system notifications, messages not shown to the user"

    def home(self, environ: Mapping[str, str]) -> Path:
        root = environ.get("GOOSE_PATH_ROOT")
        if root:
            return Path(root) / "data"
        data = environ.get("XDG_DATA_HOME") or os.path.join(home_of(environ), ".local", "share")
        return Path(data) / "goose"

    def session_folders(self, environ: Mapping[str, str]) -> list[Path]:
        return [self.home(environ) / "sessions"]

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        del lanes
        db = self.session_folders(environ)[0] / DB_FILE
        if not db.exists():
            return 0
        marks = ",".join("?" * len(LISTED_TYPES))
        sql = f"SELECT count(*) FROM sessions WHERE session_type IN ({marks})"
        return store_count(db, sql, LISTED_TYPES)

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        del heads  # one query lists every session
        db = self.session_folders(environ)[0] / DB_FILE
        if not db.exists():
            return []
        rows = store_rows(
            db,
            "SELECT id, working_dir, name, session_type, created_at, updated_at"
            " FROM sessions ORDER BY id",
        )
        if rows is None:
            skip_file(tally, self.name, UNREADABLE, DB_FILE)
            return []
        found: list[SessionMeta] = []
        for ident, folder, title, kind, created, updated in rows:
            if kind not in LISTED_TYPES or not isinstance(folder, str):
                continue
            lane = lane_of(lanes, folder)
            sid = f"goose-{ident}"
            if lane is None or not is_valid_session_id(sid):
                continue
            start = _time(created) or ms_time(0)
            found.append(SessionMeta(
                id=sid, kind="chat", title=str(title or "") or sid, lane_id=lane.id,
                created_at=start, updated_at=max(start, _time(updated) or start),
                tool=self.name, source=self.name, transcript_path=db / str(ident),
            ))  # fmt: skip
        return found

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        db = self.session_folders(environ)[0] / DB_FILE
        if not db.exists():
            return []
        marks = ",".join("?" * len(LISTED_TYPES))
        rows = store_rows(
            db,
            f"SELECT working_dir FROM sessions WHERE session_type IN ({marks})"
            " ORDER BY updated_at DESC LIMIT ?",
            (*LISTED_TYPES, limit),
        )
        return [str(r[0]) for r in rows or () if isinstance(r[0], str) and r[0]]

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if self.session_folders(environ)[0] not in path.parents:
            return None
        return "relist" if database_write(path, DB_FILE) else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        del environ
        return path.parent.name == DB_FILE and path.parent.is_file()

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        if path is None:
            return "null"
        return store_signature(
            path.parent,
            "SELECT (SELECT updated_at FROM sessions WHERE id = ?),"
            " count(*), ifnull(max(id), 0) FROM messages WHERE session_id = ?",
            (path.name, path.name),
        )

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        rows = store_rows(
            path.parent,
            "SELECT id, role, content_json, created_timestamp, metadata_json"
            " FROM messages WHERE session_id = ? ORDER BY id",
            (path.name,),
        )
        if rows is None:
            skip(tally, source, UNREADABLE)
            return None, 0
        events: list[ChatEvent] = []
        for row_id, role, content, created, metadata in rows:
            if isinstance(row_id, int):
                events += _row_events(row_id, role, content, created, metadata, tally, source)
        return events, 0

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        rows = store_rows(
            path.parent, "SELECT working_dir FROM sessions WHERE id = ?", (path.name,)
        )
        return Path(str(rows[0][0])) if rows else None


def _row_events(
    row_id: int, role: Any, content: Any, created: Any, metadata: Any, tally: WarningTally,
    source: str,
) -> list[ChatEvent]:  # fmt: skip
    parts, meta = _json(content), _json(metadata)
    if not isinstance(parts, list) or role not in ("user", "assistant"):
        skip(tally, source, "bad json")
        return []
    if isinstance(meta, dict) and meta.get("userVisible") is False:
        return []
    said: ChatEventType = "user_message" if role == "user" else "assistant_message"
    ts = datetime.fromtimestamp(created, UTC) if isinstance(created, int) and created > 0 else None
    out: list[ChatEvent] = []
    for i, part in enumerate(parts):
        found = _part(said, part)
        if found is None:
            skip(tally, source, "unknown type")
            continue
        for etype, fields in found:
            fields.setdefault("id", f"{row_id}" if i == 0 else f"{row_id}.{i}")
            out.append(ChatEvent(row_id, ts, etype, row_id, fields))
    return out


def _part(said: ChatEventType, part: Any) -> list[tuple[ChatEventType, dict[str, Any]]] | None:
    kind = part.get("type") if isinstance(part, dict) else None
    if kind == "text":
        text = part.get("text")
        return [(said, {"text": text})] if isinstance(text, str) and text.strip() else []
    if kind in ("toolRequest", "frontendToolRequest"):
        call = part.get("toolCall")
        value = call.get("value") if isinstance(call, dict) else None
        value = value if isinstance(value, dict) else {}
        name = value.get("name") if isinstance(value.get("name"), str) else "tool"
        fields: dict[str, Any] = {"name": name, "input": digest(value.get("arguments") or {})}
        if isinstance(part.get("id"), str) and part["id"]:
            fields["id"] = part["id"]
        return [("tool_call", fields)]
    if kind == "toolResponse":
        fields = {"output": _result(part.get("toolResult"))}
        if isinstance(part.get("id"), str) and part["id"]:
            fields["id"] = part["id"]
        return [("tool_result", fields)]
    return [] if kind in QUIET else None


def _result(result: Any) -> str:
    if not isinstance(result, dict):
        return ""
    if result.get("status") == "error":
        return f"error: {result.get('error', '')}"
    value = result.get("value")
    items = value.get("content") if isinstance(value, dict) else value
    texts = [
        str(item["text"]) for item in items if isinstance(item, dict)
        and isinstance(item.get("text"), str)
    ] if isinstance(items, list) else []  # fmt: skip
    return "\n".join(texts)


def _json(raw: Any) -> Any:
    if not isinstance(raw, str | bytes):
        return None
    try:
        return loads_json(raw)
    except JsonRejected:
        return None


def _time(value: Any) -> datetime | None:
    if isinstance(value, str):
        return parse_aware_time(value.replace(" ", "T"))
    return None


FORMAT = GooseFormat()
