"""Crush sessions: the SQLite database ``<project>/.crush/crush.db``, one per project folder.

Location (charmbracelet/crush ``internal/config/load.go``: the data directory is the option
``data_directory``, else the closest ``.crush`` folder from the working folder up to its git
worktree's root, else ``<working folder>/.crush``; ``internal/db/connect.go``: ``crush.db`` in
it). Crush registers each folder it ran in with its data directory in ``projects.json``
(``internal/projects/projects.go``: ``{"projects": [{"path", "data_dir", "last_accessed"}]}``)
beside its global data file (``GlobalConfigData``, ``internal/config/load.go`` line 1228:
``$CRUSH_GLOBAL_DATA``, else ``$XDG_DATA_HOME/crush``, else ``~/.local/share/crush`` on Linux
and macOS alike; ``internal/projects/projects.go`` line 31: ``projects.json`` in that folder).
A session names no folder: the database is the project's, so its folder is the lane holding
``.crush`` (each lane's ``.crush/crush.db``), or the ``path`` projects.json pairs with the
database's data directory (a subfolder, or a data directory set elsewhere).

Tables (``internal/db/migrations``): ``sessions`` (``id``, ``parent_session_id`` — set for a
task's and a title's sessions, which are the agent's own —, ``title``, ``created_at``,
``updated_at`` in seconds), ``messages`` (``id``, ``session_id``, ``role`` user | assistant |
tool, ``parts`` JSON, ``created_at``, ``updated_at``, ``is_summary_message``). Parts
(``internal/message/message.go`` ``marshalParts``): ``[{"type", "data"}]`` with ``text``
(``text``), ``reasoning`` (``thinking``), ``tool_call`` (``id``, ``name``, ``input``: a JSON
string), ``tool_result`` (``tool_call_id``, ``name``, ``content``, ``is_error``),
``shell_command`` (``command``, ``output``, ``exit_code``), ``image_url``, ``binary``,
``finish``. A message is rewritten in place while it streams, so a session is re-derived whole
when its rows change; the database is opened read-only. Indexed: user and assistant text, tool
calls and results, shell commands and their output. Hidden: reasoning, the compaction summary
(``is_summary_message``: the model's own summary, sent back as context), attachments.
Resume: ``crush --data-dir <data directory> --session <id>`` (``internal/cmd/root.go``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

from engine.agent_table import entry
from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import lane_of
from engine.external.heads import HeadCache
from engine.external.lines import digest
from engine.external.roots import agent_folders
from engine.external.skips import skip, skip_file
from engine.external.sqlite_store import (
    UNREADABLE,
    check_database,
    database_write,
    store_count,
    store_rows,
    store_signature,
)
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import Bounds, JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

DATA_DIR = ".crush"
DB_FILE = "crush.db"
PROJECTS_FILE = "projects.json"
GLOBAL_DATA = entry("crush").also[0]
"""The variable naming Crush's global data folder itself (``internal/config/load.go``
``GlobalConfigData``)."""
PROJECTS_CAP = 4 * 1024 * 1024
QUIET = frozenset({"finish", "image_url", "binary"})
"""Parts that hold nothing said: the turn's end, attachments."""


class CrushFormat(AgentFormat):
    """Crush: a SQLite database per project folder, each session re-derived when it changes."""

    name: ClassVar[str] = "crush"
    derived: ClassVar[bool] = True
    resume: ClassVar[tuple[str, ...] | None] = ("crush", "--session")
    hidden: ClassVar[str] = "reasoning, compaction summaries, attachments, task sessions"

    def session_folders(self, environ: Mapping[str, str]) -> list[Path]:
        """Its global data folder (``projects.json``): ``$CRUSH_GLOBAL_DATA``, else
        ``$XDG_DATA_HOME/crush``, else ``~/.local/share/crush`` (macOS too)."""
        moved = environ.get(GLOBAL_DATA)
        return [Path(moved)] if moved else agent_folders(self.name, environ)

    def watch_roots(self, environ: Mapping[str, str]) -> list[Path]:
        return self.session_folders(environ)  # projects.json

    def lane_roots(self, lanes: Sequence[Lane], environ: Mapping[str, str]) -> list[Path]:
        """Each lane's ``.crush`` and each data folder ``projects.json`` registers in a lane:
        a write to a database (its ``-wal`` alone, as Crush writes) is followed live."""
        found = [lane.path / DATA_DIR for lane in lanes]
        return found + [p for _, d in registered(environ, lanes) if (p := Path(d)) not in found]

    def lane_memo(self, lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache) -> object:
        del heads
        return frozenset(self.lane_roots(lanes, environ))

    def searched(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> list[Path]:
        return [db for db, _, _ in self.databases(lanes, environ)] or [
            lane.path / DATA_DIR / DB_FILE for lane in lanes
        ]

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        sql = "SELECT count(*) FROM sessions WHERE parent_session_id IS NULL"
        return sum(store_count(db, sql) for db, _, _ in self.databases(lanes, environ))

    def bounds(self, environ: Mapping[str, str], lanes: Sequence[Lane] = ()) -> Bounds:
        roots = [lane.path for lane in lanes]
        roots += [Path(data) for _, data in registered(environ, lanes)]
        return Bounds(roots, label="the project's lanes and Crush's registered data folders")

    def databases(
        self, lanes: Sequence[Lane], environ: Mapping[str, str]
    ) -> list[tuple[Path, Lane, Path]]:
        """Each database of the lanes that exists: ``(database, lane, working folder)``; the
        lanes' own ``.crush`` first, then the folders ``projects.json`` registers in a lane."""
        found: dict[Path, tuple[Path, Lane, Path]] = {}
        for lane in lanes:
            db = lane.path / DATA_DIR / DB_FILE
            if db.is_file():
                found.setdefault(_real(db), (db, lane, lane.path))
        for folder, data in registered(environ, lanes):
            holder = lane_of(list(lanes), folder)
            db = Path(data) / DB_FILE
            if holder is not None and db.is_file():
                found.setdefault(_real(db), (db, holder, Path(folder)))
        return list(found.values())

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        del heads  # one query per database lists its sessions
        bounds = self.bounds(environ, lanes)
        found: list[SessionMeta] = []
        for db, lane, _ in self.databases(lanes, environ):
            try:
                check_database(db, bounds)
            except OSError:
                rows = None
            else:
                rows = store_rows(
                    db,
                    "SELECT id, title, created_at, updated_at FROM sessions"
                    " WHERE parent_session_id IS NULL ORDER BY created_at, id",
                )
            if rows is None:
                skip_file(tally, self.name, UNREADABLE, db)
                continue
            for ident, title, created, updated in rows:
                sid = f"crush-{ident}"
                if not isinstance(ident, str) or not is_valid_session_id(sid):
                    skip(tally, self.name, "no id")
                    continue
                start = _time(created) or datetime.fromtimestamp(0, UTC)
                found.append(SessionMeta(
                    id=sid, kind="chat", title=str(title or "") or sid, lane_id=lane.id,
                    created_at=start, updated_at=max(start, _time(updated) or start),
                    tool=self.name, source=self.name, transcript_path=db / ident,
                ))  # fmt: skip
        return found

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        """The folders ``projects.json`` registers (Crush lists each folder it ran in there;
        the newest last, as it appends them)."""
        return [folder for folder, _ in _projects(environ)[::-1][:limit]]

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        if isinstance(memo, frozenset) and path.parent in memo:
            # The database, its -wal or -journal: a session's rows moved, or a new session.
            return "relist" if database_write(path, DB_FILE) else "foreign"
        if not any(root in path.parents for root in self.watch_roots(environ)):
            return None
        return "relist" if path.name == PROJECTS_FILE else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        del environ
        return path.parent.name == DB_FILE and path.parent.is_file()

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        if path is None:
            return "null"
        return store_signature(
            path.parent,
            "SELECT (SELECT updated_at FROM sessions WHERE id = ?), count(*),"
            " ifnull(max(updated_at), 0), ifnull(max(rowid), 0), total(length(parts))"
            " FROM messages WHERE session_id = ?",
            (path.name, path.name),
        )

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        rows = store_rows(
            path.parent,
            "SELECT rowid, id, role, parts, created_at, is_summary_message FROM messages"
            " WHERE session_id = ? ORDER BY created_at, rowid",
            (path.name,),
        )
        if rows is None:
            skip(tally, source, UNREADABLE)
            return None, 0
        events: list[ChatEvent] = []
        for row_id, ident, role, parts, created, summary in rows:
            if not isinstance(row_id, int) or not isinstance(ident, str):
                skip(tally, source, "no id")
            elif not summary:  # a compaction summary: the model's own, never what was said
                events += _row_events(row_id, ident, role, parts, _time(created), tally, source)
        return events, 0

    def resume_argv(self, meta: SessionMeta) -> tuple[str, ...] | None:
        path = meta.transcript_path
        if path is None:
            return ("crush", "--session", self.native_id(meta))
        return ("crush", "--data-dir", str(path.parent.parent), "--session", self.native_id(meta))

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        data = path.parent.parent
        return data.parent if data.name == DATA_DIR else None


def registered(environ: Mapping[str, str], lanes: Sequence[Lane]) -> list[tuple[str, str]]:
    """``(folder, data directory)`` of each ``projects.json`` entry whose folder is in a lane."""
    return [(f, d) for f, d in _projects(environ) if lane_of(list(lanes), f) is not None]


def _projects(environ: Mapping[str, str]) -> list[tuple[str, str]]:
    """``(folder, data directory)`` of every ``projects.json`` entry, as listed."""
    folders = FORMAT.session_folders(environ)
    try:
        raw = read_regular(folders[0] / PROJECTS_FILE, PROJECTS_CAP) if folders else b""
        doc = loads_json(raw) if raw else None
    except (OSError, JsonRejected):
        return []
    projects = doc.get("projects") if isinstance(doc, dict) else None
    out: list[tuple[str, str]] = []
    for item in projects if isinstance(projects, list) else []:
        folder = item.get("path") if isinstance(item, dict) else None
        data = item.get("data_dir") if isinstance(item, dict) else None
        if isinstance(folder, str) and isinstance(data, str) and os.path.isabs(data):
            out.append((folder, data))
    return out


def _row_events(
    row_id: int, ident: str, role: Any, raw: Any, ts: datetime | None, tally: WarningTally,
    source: str,
) -> list[ChatEvent]:  # fmt: skip
    if role not in ("user", "assistant", "tool"):
        skip(tally, source, "unknown type")
        return []
    parts = _json(raw)
    if not isinstance(parts, list):
        skip(tally, source, "bad json")
        return []
    said: ChatEventType = "user_message" if role == "user" else "assistant_message"
    out: list[ChatEvent] = []
    for i, part in enumerate(parts):
        found = _part(said, part)
        if found is None:
            skip(tally, source, "unknown type")
            continue
        for etype, fields in found:  # a shell command's call and output share the part's id
            fields.setdefault("id", ident if i == 0 else f"{ident}.{i}")
            out.append(ChatEvent(row_id, ts, etype, row_id, fields))
    return out


def _part(said: ChatEventType, part: Any) -> list[tuple[ChatEventType, dict[str, Any]]] | None:
    kind = part.get("type") if isinstance(part, dict) else None
    data = part.get("data") if isinstance(part, dict) else None
    if not isinstance(data, dict):
        return [] if kind in QUIET else None
    if kind == "text":
        text = data.get("text")
        return [(said, {"text": text})] if isinstance(text, str) and text.strip() else []
    if kind == "tool_call":
        name = data.get("name") if isinstance(data.get("name"), str) else "tool"
        fields: dict[str, Any] = {"name": name, "input": digest(_arguments(data.get("input")))}
        if isinstance(data.get("id"), str) and data["id"]:
            fields["id"] = data["id"]
        return [("tool_call", fields)]
    if kind == "tool_result":
        content = data.get("content") if isinstance(data.get("content"), str) else ""
        output = f"error: {content}" if data.get("is_error") is True else content
        fields = {"output": output}
        if isinstance(data.get("tool_call_id"), str) and data["tool_call_id"]:
            fields["id"] = data["tool_call_id"]
        return [("tool_result", fields)]
    if kind == "shell_command":
        command = data.get("command") if isinstance(data.get("command"), str) else ""
        output = data.get("output") if isinstance(data.get("output"), str) else ""
        return [("tool_call", {"name": "shell", "input": digest(command)}),
                ("tool_result", {"output": output})]  # fmt: skip
    return [] if kind in QUIET or kind == "reasoning" else None


def _arguments(raw: Any) -> Any:
    """A tool call's input: Crush stores the model's JSON arguments as a string."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        return loads_json(raw)
    except JsonRejected:
        return raw


def _json(raw: Any) -> Any:
    if not isinstance(raw, str | bytes):
        return None
    try:
        return loads_json(raw)
    except JsonRejected:
        return None


def _time(value: Any) -> datetime | None:
    """Crush writes seconds (``strftime('%s', 'now')``); a millisecond value is read as such."""
    if not isinstance(value, int) or value <= 0:
        return None
    return datetime.fromtimestamp(value / 1000 if value > 10**11 else value, UTC)


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


FORMAT = CrushFormat()
