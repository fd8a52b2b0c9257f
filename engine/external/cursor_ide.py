"""The Cursor editor's chats (its composer): ``$VSCODE_APPDATA/Cursor/User/`` (default
as VS Code's, ``engine.external.roots.vscode_app_data``: Windows ``%APPDATA%``, macOS
``~/Library/Application Support``, else ``$XDG_CONFIG_HOME`` or ``~/.config``), read read-only
from the live databases. A portable install's ``$VSCODE_PORTABLE`` is not read for it: the
variable does not say which product it is, and another product's databases hold no chats of
Cursor's.

Cursor is closed source: the layout below is VS Code's where Cursor keeps VS Code's, and
otherwise as Cursor's databases show it and as public readers of them read it (the fixture's
README names them). Which folder a chat belongs to: each workspace's
``workspaceStorage/<hash>/workspace.json`` (VS Code's: ``{"folder": "file:///…"}``; a multi-root
``"workspace"`` file names no one folder: its chats are counted ``no cwd``) and that
workspace's ``state.vscdb`` (table ``ItemTable``, key ``composer.composerData``: ``{"allComposers":
[{"composerId", "name", "createdAt", "lastUpdatedAt"}]}``). A chat's content is in the global
``globalStorage/state.vscdb``, table ``cursorDiskKV``: ``composerData:<composer id>`` (``name``,
``createdAt`` ms, ``fullConversationHeadersOnly``: ``[{bubbleId, type}]``, or, in older builds,
the bubbles inline in ``conversation``) and one row per message ``bubbleId:<composer
id>:<bubble id>`` (``type`` 1 user, 2 assistant; ``text``; ``thinking`` ``{text}``;
``toolFormerData`` ``{name, rawArgs | params, result, status}``; ``createdAt`` ISO). Indexed:
user and assistant text, tool calls and their results. Hidden: thinking, code-block and context
attachments. Each chat is re-derived whole when its rows change. The databases are opened with
``mode=ro`` (never ``immutable``: Cursor writes them while we read, and a read-only reader never
takes a write lock). No resume by id: a chat is reopened in the editor.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlparse

from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import lane_of, ms_time
from engine.external.heads import HeadCache
from engine.external.lines import digest
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
from engine.project.safe_io import JsonRejected, loads_json, read_regular
from engine.project.tally import WarningTally

DB_FILE = "state.vscdb"
WORKSPACE_FILE = "workspace.json"
COMPOSERS_KEY = "composer.composerData"
SMALL_CAP = 1024 * 1024


class CursorIdeFormat(AgentFormat):
    """The Cursor editor's composer chats: tied through its workspaces, read from its global
    database."""

    name: ClassVar[str] = "cursor-ide"
    derived: ClassVar[bool] = True
    no_resume: ClassVar[str] = "the Cursor editor reopens a chat from its own chat history only"
    hidden: ClassVar[str] = "thinking, attached code and context"

    def global_db(self, environ: Mapping[str, str]) -> Path:
        """``globalStorage/state.vscdb``."""
        return self.session_folders(environ)[0] / DB_FILE

    def workspaces(self, environ: Mapping[str, str]) -> Path:
        """``workspaceStorage``."""
        return self.session_folders(environ)[1]

    def composers(
        self, lanes: list[Lane], environ: Mapping[str, str], tally: WarningTally | None
    ) -> list[tuple[str, Lane, dict[str, Any]]]:
        """``(composer id, lane, its workspace entry)`` of every chat of the lanes' folders."""
        try:
            folders = sorted(p for p in self.workspaces(environ).iterdir() if p.is_dir())
        except OSError:
            return []
        found: list[tuple[str, Lane, dict[str, Any]]] = []
        for folder in folders:
            where = _folder_of(folder / WORKSPACE_FILE)
            lane = lane_of(lanes, where) if where is not None else None
            if where is None or lane is None:
                if where is None and tally is not None and _composer_entries(folder / DB_FILE):
                    skip_file(tally, self.name, "no cwd", folder / WORKSPACE_FILE)
                continue
            found += [(str(e["composerId"]), lane, e) for e in _composer_entries(folder / DB_FILE)]
        return found

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        """The folders of the workspaces that hold chats, the most recently written first."""

        def written(folder: Path) -> float:
            try:
                return (folder / DB_FILE).stat().st_mtime
            except OSError:
                return 0.0

        try:
            folders = [p for p in self.workspaces(environ).iterdir() if p.is_dir()]
        except OSError:
            return []
        found: list[str] = []
        for folder in sorted(folders, key=written, reverse=True):
            if len(found) >= limit:
                break
            where = _folder_of(folder / WORKSPACE_FILE)
            if where is not None and _composer_entries(folder / DB_FILE):
                found.append(where)
        return found

    def count_sessions(self, environ: Mapping[str, str], lanes: object) -> int:
        del lanes
        return store_count(
            self.global_db(environ),
            "SELECT count(*) FROM cursorDiskKV"
            " WHERE key >= 'composerData:' AND key < 'composerData;'",
        )

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        del heads
        db = self.global_db(environ)
        found: list[SessionMeta] = []
        seen: set[str] = set()
        for ident, lane, entry in self.composers(lanes, environ, tally):
            sid = f"{self.name}-{ident}"
            if sid in seen or not is_valid_session_id(sid):
                continue
            seen.add(sid)
            start = _ms_time(entry.get("createdAt")) or ms_time(0)
            title = entry.get("name") if isinstance(entry.get("name"), str) else ""
            found.append(SessionMeta(
                id=sid, kind="chat", title=title or sid, lane_id=lane.id, created_at=start,
                updated_at=max(start, _ms_time(entry.get("lastUpdatedAt")) or start),
                tool=self.name, source=self.name, transcript_path=db / ident,
            ))  # fmt: skip
        return found

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if not any(root in path.parents for root in self.watch_roots(environ)):
            return None
        named = database_write(path, DB_FILE) or path.name == WORKSPACE_FILE
        return "relist" if named else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        return path.parent == self.global_db(environ) and path.parent.is_file()

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        if path is None:
            return "null"
        low, high = f"bubbleId:{path.name}:", f"bubbleId:{path.name};"
        return store_signature(
            path.parent,
            "SELECT (SELECT length(value) FROM cursorDiskKV WHERE key = ?),"
            " count(*), total(length(value)) FROM cursorDiskKV WHERE key >= ? AND key < ?",
            (f"composerData:{path.name}", low, high),
        )

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        cid = path.name
        fetched = store_rows(
            path.parent,
            "SELECT key, value FROM cursorDiskKV WHERE key = ? OR (key >= ? AND key < ?)",
            (f"composerData:{cid}", f"bubbleId:{cid}:", f"bubbleId:{cid};"),
        )
        if fetched is None:
            skip(tally, source, UNREADABLE)
            return None, 0
        rows: dict[Any, Any] = {row[0]: row[1] for row in fetched}
        composer = _json(rows.get(f"composerData:{cid}"))
        if not isinstance(composer, dict):
            skip(tally, source, "no message")
            return [], 0
        events: list[ChatEvent] = []
        for n, bubble in enumerate(_bubbles(cid, composer, rows)):
            if not isinstance(bubble, dict):
                skip(tally, source, "bad json" if bubble is not None else "no message")
                continue
            found = _bubble_events(bubble)
            if found is None:
                skip(tally, source, "unknown type")
                continue
            ident = str(bubble.get("bubbleId") or n)
            ts = _time(bubble.get("createdAt"))
            for etype, fields in found:  # a tool's call and result share their own id
                fields.setdefault("id", ident if etype.endswith("_message") else f"{ident}.tool")
                events.append(ChatEvent(n, ts, etype, n, fields))
        return events, 0

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None
        try:
            folders = sorted((path.parents[2] / "workspaceStorage").iterdir())
        except OSError:
            return None
        for folder in folders:
            if any(e["composerId"] == path.name for e in _composer_entries(folder / DB_FILE)):
                where = _folder_of(folder / WORKSPACE_FILE)
                return Path(where) if where else None
        return None


def _bubbles(cid: str, composer: dict[str, Any], rows: Mapping[Any, Any]) -> list[Any]:
    """The chat's bubbles in order: the headers' rows, else the inline ``conversation``."""
    headers = composer.get("fullConversationHeadersOnly")
    if isinstance(headers, list) and headers:
        out: list[Any] = []
        for header in headers:
            bid = header.get("bubbleId") if isinstance(header, dict) else None
            raw = rows.get(f"bubbleId:{cid}:{bid}") if isinstance(bid, str) else None
            out.append(None if raw is None else _json(raw, bad=False))
        return out
    inline = composer.get("conversation")
    return list(inline) if isinstance(inline, list) else []


def _bubble_events(bubble: dict[str, Any]) -> list[tuple[ChatEventType, dict[str, Any]]] | None:
    kind = bubble.get("type")
    if kind not in (1, 2):
        return None
    said: ChatEventType = "user_message" if kind == 1 else "assistant_message"
    out: list[tuple[ChatEventType, dict[str, Any]]] = []
    text = bubble.get("text")
    if isinstance(text, str) and text.strip():
        out.append((said, {"text": text}))
    tool = bubble.get("toolFormerData")
    if kind == 2 and isinstance(tool, dict) and isinstance(tool.get("name"), str):
        raw = tool.get("rawArgs") if tool.get("rawArgs") is not None else tool.get("params")
        args = _json(raw, bad=False) if isinstance(raw, str) else raw
        fields: dict[str, Any] = {"name": tool["name"], "input": digest(args if args else None)}
        out.append(("tool_call", fields))
        result = tool.get("result")
        if result is not None:
            shown = _json(result, bad=False) if isinstance(result, str) else result
            output = shown if isinstance(shown, str) else digest(shown)
            out.append(("tool_result", {"output": output or ""}))
    return out


def _composer_entries(db: Path) -> list[dict[str, Any]]:
    """The ``allComposers`` entries of a workspace database (none when it cannot be read)."""
    found = store_rows(db, "SELECT value FROM ItemTable WHERE key = ?", (COMPOSERS_KEY,))
    if found is None:
        return []
    data = _json(found[0][0]) if found else None
    entries = data.get("allComposers") if isinstance(data, dict) else None
    return [
        e for e in entries or []
        if isinstance(e, dict) and isinstance(e.get("composerId"), str) and e["composerId"]
    ]  # fmt: skip


def _folder_of(path: Path) -> str | None:
    """The local folder a workspace opened (``workspace.json`` ``folder``, a ``file:`` URI)."""
    try:
        doc = loads_json(read_regular(path, SMALL_CAP))
    except (OSError, JsonRejected):
        return None
    uri = doc.get("folder") if isinstance(doc, dict) else None
    if not isinstance(uri, str):
        return None
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" and parsed.path else None


def _json(raw: Any, *, bad: bool = True) -> Any:
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return None
    try:
        return loads_json(raw)
    except JsonRejected:
        return raw if not bad else None


def _ms_time(value: Any) -> datetime | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return ms_time(int(value))
    return None


def _time(value: Any) -> datetime | None:
    return parse_aware_time(value) if isinstance(value, str) else _ms_time(value)


FORMAT = CursorIdeFormat()
