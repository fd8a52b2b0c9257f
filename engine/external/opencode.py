"""OpenCode sessions: the SQLite database ``$XDG_DATA_HOME/opencode/opencode.db``.

Location (sst/opencode, now anomalyco/opencode, ``packages/opencode/src/global/index.ts``: data
folder ``xdgData/opencode``, i.e. ``$XDG_DATA_HOME`` else ``~/.local/share``;
``packages/opencode/src/storage/db.ts`` ``getChannelPath``: ``opencode.db``, or
``opencode-<channel>.db`` for other release channels). Tables
(``packages/opencode/src/session/session.sql.ts``): ``session`` (``id``, ``directory`` — the
working folder —, ``title``, ``time_created``/``time_updated`` in ms, ``parent_id`` for subtask
sessions), ``message`` (``id``, ``session_id``, ``time_created``, ``data`` JSON with ``role``) and
``part`` (``id``, ``message_id``, ``session_id``, ``time_created``/``time_updated``, ``data`` JSON).
Part shapes (``packages/opencode/src/session/message-v2.ts``): ``text`` (``text``; ``synthetic``
ones are injected by OpenCode), ``reasoning``, ``tool`` (``callID``, ``tool``, ``state``:
``status`` pending | running | completed | error, ``input``, ``output``, ``error``), ``file``,
``step-start``/``step-finish``, ``snapshot``, ``patch``, ``agent``, ``compaction``…

The database is opened read-only (``mode=ro``; never ``immutable``, OpenCode writes it through
its WAL while we read) and a session is re-derived whole when its signature — the session's and
its parts' latest ``time_updated`` and counts — changes; ids are the part ids, seq = message
position * 1000 + part position. Indexed: user and assistant ``text`` parts, tool parts (name +
input digest, then the output or error). Left out: ``reasoning``, synthetic text, files,
snapshots, patches and step markers. The pre-database JSON storage (``storage/session/…``) is
not read: OpenCode migrates it into the database (``storage/json-migration.ts``). A session's
transcript path is ``<database>/<session id>``, a path inside the database file that names both.
A session written with an empty ``directory`` is tied by its project's ``worktree``. Sessions
of OpenCode's newer storage, the ``session_message`` table, are read too
(``engine.external.opencode_v2``). Resume: ``opencode --session <id>`` in the session's folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ClassVar

import apsw

from engine.external.agent_format import AgentFormat, Hint
from engine.external.finding import lane_of, ms_time
from engine.external.heads import HeadCache
from engine.external.lines import digest
from engine.external.opencode_v2 import TABLE as V2_TABLE
from engine.external.opencode_v2 import has_table, v2_events, v2_signature_sql
from engine.external.roots import opencode_data_dir
from engine.external.skips import Reason, skip, skip_file
from engine.external.sqlite_store import UNREADABLE, check_database, read_store
from engine.project.json_salvage import salvage_cut_line
from engine.project.model import ChatEvent, ChatEventType, Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import Bounds, JsonRejected, loads_json
from engine.project.tally import WarningTally

PART_STRIDE = 1000

ROW_CAP = 32 * 1024 * 1024
"""Longest part row read whole (as a transcript line: ``WriteTuning.long_line_cap``);
a longer one is read up to ``CUT_HEAD_CHARS``, closed into valid JSON, indexed marked, counted."""

CUT_HEAD_CHARS = 4 * 1024 * 1024

CUT_ROW: Reason = "truncated"

TRUNCATED_MARK = " [… truncated]"
"""``engine.ingest.docs.TRUNCATED_MARK`` (not imported: discovery stays free of the indexer)."""


def opencode_databases(environ: Mapping[str, str], tally: WarningTally | None = None) -> list[Path]:
    """``opencode.db`` and the per-channel ``opencode-*.db`` files that exist and are safe to
    open (``check_database``); the others are counted once under ``opencode``."""
    folder = opencode_data_dir(environ)
    try:
        found = sorted(folder.glob("opencode*.db"))
    except OSError:
        return []
    bounds = Bounds([folder], label="the OpenCode data folder")
    usable = []
    for db in found:
        try:
            check_database(db, bounds)
        except OSError:
            if tally is not None:
                skip_file(tally, "opencode", "refused", db)
            continue
        usable.append(db)
    return usable


@dataclass(frozen=True)
class OpenCodeSession:
    """One ``session`` row."""

    id: str
    directory: str
    title: str
    created_ms: int
    updated_ms: int


def list_opencode_sessions(db: Path) -> list[OpenCodeSession] | None:
    """Every session of the database (None when it cannot be read now)."""

    def read(conn: apsw.Connection) -> list[Any]:
        joined = has_table(conn, "project")
        return conn.execute(
            f"SELECT s.id, {_DIRECTORY if joined else 's.directory'},"
            " s.title, s.time_created, s.time_updated FROM session s"
            f"{_PROJECT_JOIN if joined else ''} ORDER BY s.id"
        ).fetchall()

    rows = read_store(db, read)
    if rows is None:
        return None
    return [
        OpenCodeSession(str(r[0]), str(r[1] or ""), str(r[2] or ""), int(r[3] or 0), int(r[4] or 0))
        for r in rows
        if isinstance(r[0], str)
    ]


_DIRECTORY = "CASE WHEN ifnull(s.directory, '') != '' THEN s.directory ELSE p.worktree END"
"""A session's folder: its ``directory``, else (written empty) its project's ``worktree``
(``packages/opencode/src/project/project.sql.ts``)."""

_PROJECT_JOIN = " LEFT JOIN project p ON p.id = s.project_id"


SIGNATURES: dict[str, str] = {}
"""Signatures by transcript path (``<database>/<id>``) from the latest listing: a reconcile then
costs one query per database, not one connection per session. One taken before a change only
makes the next reconcile derive that session once more."""


def session_signatures(db: Path, sids: list[str]) -> dict[str, str]:
    """What changes whenever a session, one of its messages or parts changes, for ``sids``."""

    def read(conn: apsw.Connection) -> list[Any]:
        newer = f", {v2_signature_sql()}" if has_table(conn, V2_TABLE) else ""
        return conn.execute(
            "SELECT s.id, s.time_updated,"
            " (SELECT count(*) || ':' || ifnull(max(time_updated), 0) FROM message"
            "  WHERE session_id = s.id),"
            " (SELECT count(*) || ':' || ifnull(max(time_updated), 0) FROM part"
            f"  WHERE session_id = s.id){newer}"
            " FROM session s WHERE s.id IN (SELECT value FROM json_each(?))",
            (json.dumps(sids),),
        ).fetchall()

    rows = read_store(db, read)
    if rows is None:
        return dict.fromkeys(sids, UNREADABLE)
    found = {str(r[0]): json.dumps(list(r[1:])) for r in rows}
    return {sid: found.get(sid, "gone") for sid in sids}


def session_signature(db: Path, sid: str) -> str:
    """The signature of one session: the latest listing's, else read now."""
    known = SIGNATURES.get(str(db / sid))
    return known if known is not None else session_signatures(db, [sid])[sid]


def opencode_events(
    db: Path, sid: str, tally: WarningTally | None = None
) -> list[ChatEvent] | None:
    """The session's visible parts in order; a row whose JSON does not decode is counted under
    ``chat:opencode-<sid>`` and skipped (None when the database cannot be read now)."""
    source = f"chat:opencode-{sid}"

    def read(conn: apsw.Connection) -> tuple[list[Any], list[Any], list[ChatEvent]]:
        messages = conn.execute(
            "SELECT id, time_created, data FROM message WHERE session_id = ?"
            " ORDER BY time_created, id",
            (sid,),
        ).fetchall()
        # A row past ROW_CAP is read only up to its head: memory stays bounded.
        parts = conn.execute(
            "SELECT id, message_id, time_created, CASE WHEN length(data) > ?2"
            " THEN substr(data, 1, ?3) ELSE data END, length(data) > ?2"
            " FROM part WHERE session_id = ?1 ORDER BY id",
            (sid, ROW_CAP, CUT_HEAD_CHARS),
        ).fetchall()
        return (
            messages,
            parts,
            v2_events(conn, sid, (len(messages) + 1) * PART_STRIDE, tally, source),
        )

    read_whole = read_store(db, read)
    if read_whole is None:
        return None
    messages, parts, newer = read_whole
    by_message: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    for pid, mid, created, raw, cut in parts:
        if cut:
            raw = salvage_cut_line(_bytes(raw), TRUNCATED_MARK)
            if tally is not None:
                tally.add(source, CUT_ROW)
        data = _json(raw)
        if data is not None:
            by_message.setdefault(str(mid), []).append((str(pid), int(created or 0), data))
        elif tally is not None:
            skip(tally, source, "bad json")
    events: list[ChatEvent] = []
    for position, (mid, created, raw) in enumerate(messages):
        info = _json(raw)
        if info is None:
            if tally is not None:
                skip(tally, source, "bad json")
            info = {}
        role = info.get("role")
        for number, (pid, part_ms, part) in enumerate(by_message.get(str(mid), [])):
            seq = position * PART_STRIDE + 2 * min(number, PART_STRIDE // 2 - 1)
            events += _part_events(role, pid, part, seq, _time(part_ms or int(created or 0)))
    return events + newer


def _part_events(
    role: Any, pid: str, part: dict[str, Any], seq: int, ts: datetime | None
) -> list[ChatEvent]:
    ptype = part.get("type")
    if ptype == "text" and not part.get("synthetic") and not part.get("ignored"):
        text = part.get("text")
        if not isinstance(text, str) or not text.strip() or role not in ("user", "assistant"):
            return []
        etype: ChatEventType = "user_message" if role == "user" else "assistant_message"
        return [ChatEvent(seq, ts, etype, seq, {"id": pid, "text": text})]
    if ptype != "tool":
        return []  # reasoning, files, snapshots, patches, step markers
    raw_state = part.get("state")
    state: dict[str, Any] = raw_state if isinstance(raw_state, dict) else {}
    name = part.get("tool") if isinstance(part.get("tool"), str) else "tool"
    out = [ChatEvent(seq, ts, "tool_call", seq,
                     {"id": pid, "name": name, "input": digest(state.get("input"))})]  # fmt: skip
    status = state.get("status")
    result = state.get("output") if status == "completed" else state.get("error")
    if status in ("completed", "error") and isinstance(result, str) and result:
        shown = result if status == "completed" else f"error: {result}"
        out.append(ChatEvent(seq + 1, ts, "tool_result", seq + 1, {"id": pid, "output": shown}))
    return out


def _json(raw: Any) -> dict[str, Any] | None:
    try:
        value = loads_json(raw) if isinstance(raw, str | bytes) else None
    except JsonRejected:  # nested too deep included: never a RecursionError
        return None
    return value if isinstance(value, dict) else None


def _bytes(raw: Any) -> bytes:
    return raw.encode("utf-8", errors="replace") if isinstance(raw, str) else bytes(raw)


def _time(value: int) -> datetime | None:
    return datetime.fromtimestamp(value / 1000, UTC) if value > 0 else None


class OpenCode(AgentFormat):
    """OpenCode: sessions in a SQLite database, re-derived whole when their rows change."""

    name: ClassVar[str] = "opencode"
    derived: ClassVar[bool] = True
    folder_label: ClassVar[str] = "the OpenCode data folder"
    resume: ClassVar[tuple[str, ...] | None] = ("opencode", "--session")
    hidden: ClassVar[str] = (
        "`reasoning` parts, synthetic and ignored text, files, snapshots, patches"
    )

    def count_sessions(self, environ: Mapping[str, str], lanes: Sequence[Lane]) -> int:
        del lanes
        count = 0
        for db in opencode_databases(environ, WarningTally()):  # refusals: the listing's
            count += len(list_opencode_sessions(db) or ())
        return count

    def sessions(
        self, lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
    ) -> list[SessionMeta]:
        del heads  # one indexed query lists every session: nothing worth caching
        found: list[SessionMeta] = []
        for db in opencode_databases(environ, tally):
            sessions = list_opencode_sessions(db)
            if sessions is None:
                skip_file(tally, self.name, UNREADABLE, db)
                continue
            for s in sessions:
                if not s.directory:
                    skip_file(tally, self.name, "no cwd", db / s.id)
            ours = [s for s in sessions if s.directory and lane_of(lanes, s.directory) is not None]
            for raw, signature in session_signatures(db, [s.id for s in ours]).items():
                SIGNATURES[str(db / raw)] = signature
            for s in ours:
                lane = lane_of(lanes, s.directory)
                sid = f"opencode-{s.id}"
                if lane is None or not is_valid_session_id(sid):
                    continue
                created = ms_time(s.created_ms)
                found.append(SessionMeta(
                    id=sid, kind="chat", title=s.title or sid, lane_id=lane.id,
                    created_at=created, updated_at=max(created, ms_time(s.updated_ms)),
                    tool=self.name, source=self.name, transcript_path=db / s.id,
                ))  # fmt: skip
        return found

    def named_folders(self, environ: Mapping[str, str], limit: int) -> list[str]:
        sessions = [
            s for db in opencode_databases(environ, WarningTally())
            for s in list_opencode_sessions(db) or () if s.directory
        ]  # fmt: skip
        sessions.sort(key=lambda s: s.updated_ms, reverse=True)
        return [s.directory for s in sessions[:limit]]

    def owner_hint(self, path: Path, environ: Mapping[str, str], memo: object) -> Hint | None:
        del memo
        if self.session_folders(environ)[0] not in path.parents:
            return None
        return "relist" if path.suffix == ".db" or path.name.endswith("-wal") else "foreign"

    def owns(self, path: Path, environ: Mapping[str, str]) -> bool:
        del environ
        db = path.parent  # <database>/<session id>; Goose's and Crush's databases are theirs
        return db.name.startswith("opencode") and db.suffix == ".db" and db.is_file()

    def signature(self, meta: SessionMeta) -> str:
        path = meta.transcript_path
        return "null" if path is None else session_signature(path.parent, path.name)

    def derived_events(
        self, path: Path, tally: WarningTally, source: str
    ) -> tuple[list[ChatEvent] | None, int]:
        rows = WarningTally()
        events = opencode_events(path.parent, path.name, rows)
        if events is None:
            skip(tally, source, UNREADABLE)
            return None, 0
        cut = 0
        for reason, n in rows.reasons(f"chat:opencode-{path.name}").items():
            if reason == CUT_ROW:
                cut = n  # counted once with the marked bodies (derived_docs)
            else:
                tally.add(source, reason, n)
        return events, cut

    def recorded_cwd(self, meta: SessionMeta) -> Path | None:
        path = meta.transcript_path
        if path is None:
            return None

        def read(conn: apsw.Connection) -> list[Any]:
            joined = has_table(conn, "project")
            return conn.execute(
                f"SELECT {_DIRECTORY if joined else 's.directory'} FROM session s"
                f"{_PROJECT_JOIN if joined else ''} WHERE s.id = ?",
                (path.name,),
            ).fetchall()

        found = read_store(path.parent, read)
        return Path(str(found[0][0])) if found else None


FORMAT = OpenCode()
