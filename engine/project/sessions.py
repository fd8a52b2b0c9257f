"""Session metadata: ``.ade/sessions/<sessionId>.json`` (DESIGN §2)."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from msgspec.structs import replace

from engine.project.bounds import project_bounds
from engine.project.fields import (
    FieldError,
    opt_bool,
    opt_int,
    opt_str,
    opt_time,
    read_json_object,
    req_time,
)
from engine.project.model import Project, SessionKind, SessionMeta, is_valid_session_id
from engine.project.tally import WarningTally

SESSIONS_SOURCE = "sessions"
"""Tally key for session metadata problems."""

_KINDS: dict[str, SessionKind] = {"chat": "chat", "terminal": "terminal"}

RACY_SECONDS = 2.0
"""A session file written this recently is read again next time (a rewrite in the same clock
tick keeps its stamp), as ``engine.delegates.listing_memo`` does for a listing."""

MEMO_MAX = 50_000
"""Session files remembered at most (all projects of a daemon); past it the memo starts over."""

now_ns: Callable[[], int] = time.time_ns
"""The clock the racy rule reads (tests move it past files they wrote)."""

Stamp = tuple[int, int, int, int]

_memo: dict[str, tuple[Stamp, SessionMeta]] = {}
"""Each session file's record as last read, by path, with the file's stamp then. A reconcile
lists every session to find the one that changed: on the 100 MB project (282 sessions) reading
every file again cost 58 ms of the 80 ms a search right after a write took through the daemon
(benchmarks/journal/2026-12-06-scale.md)."""


def list_sessions(project: Project, tally: WarningTally) -> list[SessionMeta]:
    """Every valid session under ``.ade/sessions/``, sorted by id.

    File names that are not valid session ids, unreadable files, bad JSON and records with
    missing or mistyped fields (a time without a zone included) are skipped and counted.
    """
    return read_sessions(project, session_file_ids(project, tally), tally)


def session_file_ids(project: Project, tally: WarningTally) -> list[str]:
    """The ids of the ``.ade/sessions/*.json`` files, sorted; file names that are not valid
    session ids and an unreadable folder are counted (the files are not read)."""
    folder = project.ade_dir / "sessions"
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return []
    except OSError as err:
        tally.add(SESSIONS_SOURCE, f"unreadable sessions folder: {err.strerror or err}")
        return []
    ids: list[str] = []
    for name in names:
        stem, dot, suffix = name.rpartition(".")
        if not dot or suffix != "json" or not stem:
            continue
        if not is_valid_session_id(stem):
            tally.add(SESSIONS_SOURCE, "invalid session id in file name")
            continue
        ids.append(stem)
    return ids


def read_sessions(project: Project, ids: list[str], tally: WarningTally) -> list[SessionMeta]:
    """The sessions of ``ids`` (``session_file_ids``) whose files read as valid records."""
    folder = project.ade_dir / "sessions"
    found = (_read(project, folder / f"{sid}.json", sid, tally) for sid in ids)
    return [meta for meta in found if meta is not None]


def read_session(
    project: Project, sid: str, tally: WarningTally | None = None
) -> SessionMeta | None:
    """One session's metadata, or ``None`` when ``sid`` is invalid, missing or malformed.

    ``sid`` is validated before any path is built from it: ``../x`` never reaches the disk.
    """
    if not isinstance(sid, str) or not is_valid_session_id(sid):
        return None
    path = project.ade_dir / "sessions" / f"{sid}.json"
    return _read(project, path, sid, tally if tally is not None else WarningTally())


def _stamp(path: Path) -> Stamp | None:
    """The file's ``(mtime, ctime, inode, size)``, or None when it is not a regular file (a
    symlink is read through the bounds-checked path every time)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_size)


def _record(project: Project, path: Path, sid: str, tally: WarningTally) -> SessionMeta | None:
    """The session file's record, read again only when its stamp changed (``_memo``)."""
    stamp = _stamp(path)
    key = str(path)
    hit = _memo.get(key)
    if stamp is not None and hit is not None and hit[0] == stamp:
        return hit[1]
    record = read_json_object(path, tally, SESSIONS_SOURCE, project_bounds(project.root))
    if record is None:
        return None
    try:
        meta = session_from_record(record, sid)
    except FieldError as err:
        tally.add(SESSIONS_SOURCE, f"{path.name}: {err}")
        return None
    if stamp is not None and max(stamp[0], stamp[1]) < now_ns() - int(RACY_SECONDS * 1e9):
        if len(_memo) >= MEMO_MAX:
            _memo.clear()
        _memo[key] = (stamp, meta)
    return meta


def _read(project: Project, path: Path, sid: str, tally: WarningTally) -> SessionMeta | None:
    meta = _record(project, path, sid, tally)
    if meta is None:
        return None
    bounds = project_bounds(project.root)
    if meta.transcript_path is not None:
        # A session file may name its transcript, but never one outside the project; a
        # relative name is relative to the project, not to wherever `ade` runs.
        transcript = project.root / meta.transcript_path
        if not bounds.allows(transcript):
            tally.add(SESSIONS_SOURCE, f"{path.name}: transcriptPath: outside the project")
            return None
        meta = replace(meta, transcript_path=transcript)
    if meta.kind == "terminal" and meta.ended_at is None:
        meta = replace(meta, updated_at=max(meta.updated_at, _last_write(project, meta)))
    return meta


def _last_write(project: Project, meta: SessionMeta) -> datetime:
    """A running terminal's session file keeps its start time; its transcript's last write is
    when it last printed (a shell that printed seconds ago is not "24w")."""
    from engine.project.transcripts import transcript_file  # deferred: transcripts imports more

    path = meta.transcript_path or transcript_file(project, "terminal", meta.id)
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, UTC) if path else meta.updated_at
    except OSError:
        return meta.updated_at


def session_from_record(record: dict[str, Any], sid: str) -> SessionMeta:
    """Validate one metadata object whose file name gave ``sid``.

    Raises:
        FieldError: a field is missing or mistyped, or ``id`` disagrees with the file name.
    """
    record_id = record.get("id", sid)
    if record_id != sid:
        raise FieldError("id: does not match the file name")
    raw_kind = record.get("kind")
    kind = _KINDS.get(raw_kind) if isinstance(raw_kind, str) else None
    if kind is None:
        raise FieldError("kind: expected 'chat' or 'terminal'")
    created = req_time(record, "createdAt")
    updated = opt_time(record, "updatedAt") or created
    transcript = opt_str(record, "transcriptPath")
    return SessionMeta(
        id=sid,
        kind=kind,
        title=opt_str(record, "title", "") or "",
        lane_id=opt_str(record, "laneId") or None,
        created_at=created,
        updated_at=updated,
        ended_at=opt_time(record, "endedAt"),
        archived=opt_bool(record, "archived"),
        tool=opt_str(record, "tool"),
        command=opt_str(record, "command"),
        exit_code=opt_int(record, "exitCode"),
        source=opt_str(record, "source", "ade") or "ade",
        transcript_path=Path(transcript) if transcript else None,
    )
