"""Finding a project's Gemini CLI, OpenCode, Copilot CLI and Aider sessions (docs/agents.md).

The registry beside Claude Code / Codex discovery: each tool lists the sessions whose working
folder lies in the project or one of its lanes (any subfolder), as chat ``SessionMeta`` with
``source``/``tool`` set to the tool and the transcript path the parsers read. Heads (cwd, id,
title) are remembered in the same ``HeadCache`` as Claude's and Codex's, so a warm listing stats
files and reads none. How each store is read, indexed and resumed is in the tool's module.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import apsw

from engine.external.aider import HISTORY_FILE, AiderHead, aider_session_id, parse_aider
from engine.external.copilot import EVENTS_FILE, copilot_head
from engine.external.discover import acceptable, tool_bounds
from engine.external.gemini import PROJECT_ROOT_FILE, gemini_title, load_gemini
from engine.external.heads import Head, HeadCache
from engine.external.opencode import (
    SIGNATURES,
    list_opencode_sessions,
    opencode_databases,
    session_signatures,
)
from engine.external.roots import copilot_state_dir, gemini_tmp_dir, opencode_data_dir
from engine.importers.lane_choice import lane_containing
from engine.project.fields import parse_aware_time
from engine.project.model import Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import Bounds, read_regular
from engine.project.tally import WarningTally

DERIVED_TOOLS = frozenset({"gemini", "opencode"})
"""Rewritten stores (a JSON-lines file with in-place updates and rewinds, a database): a session
is re-derived whole when its signature changes (``engine.external.derive``)."""

HEAD_BYTES = 256 * 1024
"""As for Claude/Codex: the first user line and the cwd are near the top."""

MARKER_BYTES = 64 * 1024
"""Most of a ``.project_root`` file read: one folder path."""

Finder = Callable[[list[Lane], WarningTally, Mapping[str, str], HeadCache], list[SessionMeta]]


def agent_sessions(
    lanes: list[Lane], tally: WarningTally, environ: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    """Every session of the four tools whose working folder is in one of ``lanes``."""
    found: list[SessionMeta] = []
    for finder in FINDERS.values():
        found += finder(lanes, tally, environ, heads)
    return found


def agent_watch_roots(environ: Mapping[str, str]) -> list[Path]:
    """The folders the watcher follows for these tools (Aider's files sit in the lanes, which
    the periodic reconcile stats instead), whether they exist yet or not."""
    return [gemini_tmp_dir(environ), opencode_data_dir(environ), copilot_state_dir(environ)]


def agent_owner_hint(path: Path, environ: Mapping[str, str], folders: set[Path]) -> str | None:
    """``"relist"`` when a change to ``path`` may concern a session of ours not known by path
    yet (a new Gemini or Copilot file, any OpenCode database write), ``"foreign"`` when it
    cannot, None when ``path`` is outside these tools' folders."""
    if opencode_data_dir(environ) in path.parents:
        wal = path.name.endswith("-wal")
        return "relist" if path.suffix == ".db" or wal else "foreign"
    if gemini_tmp_dir(environ) in path.parents:
        main = path.parent in folders and path.name.startswith("session-")
        sub = path.parent.parent in folders and path.suffix == ".jsonl"  # a subagent's file
        return "relist" if (main or sub) and path.suffix in (".json", ".jsonl") else "foreign"
    if copilot_state_dir(environ) in path.parents:
        return "relist" if path.name == EVENTS_FILE else "foreign"
    return None


def agent_format(path: Path, environ: Mapping[str, str]) -> str | None:
    """The tool whose transcript ``path`` is, when it is one of these four."""
    if path.parent.suffix == ".db" and path.parent.is_file():
        return "opencode"  # <database>/<session id>
    if path.name == HISTORY_FILE:
        return "aider"
    if gemini_tmp_dir(environ) in path.parents and path.suffix in (".json", ".jsonl"):
        return "gemini"
    if copilot_state_dir(environ) in path.parents and path.name == EVENTS_FILE:
        return "copilot"
    return None


def gemini_folders(
    lanes: list[Lane], environ: Mapping[str, str], heads: HeadCache,
    tally: WarningTally | None = None,
) -> set[Path]:  # fmt: skip
    """The ``chats`` folders of the Gemini projects inside ``lanes``: named by a registry slug
    whose ``.project_root`` says which folder it is, or (older releases) by the sha256 of the
    folder — only a lane's own folder can be found that way. A marker that is no regular file
    or links out of the tmp folder is refused (counted once in ``tally``)."""
    tmp = gemini_tmp_dir(environ)
    try:
        entries = sorted(tmp.iterdir())
    except OSError:
        return set()
    bounds = tool_bounds("gemini", environ)
    found: set[Path] = set()
    for entry in entries:
        root = _marker_root(entry / PROJECT_ROOT_FILE, heads, bounds, tally)
        if root is not None and lane_containing(lanes, Path(root)) is not None:
            found.add(entry / "chats")
    for lane in lanes:
        for folder in {str(lane.path), str(_real(lane.path))}:
            hashed = tmp / hashlib.sha256(folder.encode()).hexdigest()
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
        except OSError as err:
            if tally is not None:
                tally.add_once("gemini", f"refused {marker.parent.name}/{marker.name}: {err}")
            return None
        text = data.decode("utf-8", errors="replace").strip()
        head = Head(st.st_ino, st.st_size, False, text or None, None, None, None)
        heads.put(marker, head)
    return head.cwd


def _gemini(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    found: list[SessionMeta] = []
    bounds = tool_bounds("gemini", env)
    for chats in sorted(gemini_folders(lanes, env, heads, tally)):
        root = _marker_root(chats.parent / PROJECT_ROOT_FILE, heads, bounds)
        root = root or next(
            (str(la.path) for la in lanes if _hash_of(la) == chats.parent.name), None
        )
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
            if not acceptable(path, bounds, "gemini", tally, gemini_tmp_dir(env)):
                continue
            scanned = _gemini_head(path, root, tally, heads, bounds)
            if scanned is not None:
                head, st = scanned
                meta = agent_meta(f"gemini-{head.ident}", "gemini", path, head, st, lanes)
                if meta is not None:
                    found.append(meta)
    return found


def _hash_of(lane: Lane) -> str:
    return hashlib.sha256(str(lane.path).encode()).hexdigest()


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
                for reason in seen.reasons(f"gemini:{path.name}") or {"no sessionId": 1}:
                    tally.add_once(f"gemini:{path.name}", reason)
                return None
            heads.put(path, known)
            return known, st
        head = Head(st.st_ino, st.st_size, False, root, record.session_id, gemini_title(record),
                    record.start_time)  # fmt: skip
        heads.put(path, head)
    return head, st


def _opencode(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    del heads  # one indexed query lists every session: nothing worth caching
    found: list[SessionMeta] = []
    for db in opencode_databases(env, tally):
        try:
            sessions = list_opencode_sessions(db)
        except apsw.Error as err:
            tally.add_once("opencode", f"{db.name}: not readable ({type(err).__name__})")
            continue
        ours = [s for s in sessions if _lane_of(lanes, s.directory) is not None]
        for raw, signature in session_signatures(db, [s.id for s in ours]).items():
            SIGNATURES[str(db / raw)] = signature
        for s in ours:
            lane = _lane_of(lanes, s.directory)
            sid = f"opencode-{s.id}"
            if lane is None or not is_valid_session_id(sid):
                continue
            created = _ms_time(s.created_ms)
            found.append(SessionMeta(
                id=sid, kind="chat", title=s.title or sid, lane_id=lane.id, created_at=created,
                updated_at=max(created, _ms_time(s.updated_ms)), tool="opencode",
                source="opencode", transcript_path=db / s.id,
            ))  # fmt: skip
    return found


def _copilot(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    try:
        state = copilot_state_dir(env)
        files = sorted(state.glob(f"*/{EVENTS_FILE}"))
    except OSError:
        return []
    found: list[SessionMeta] = []
    bounds = tool_bounds("copilot", env)
    for path in files:
        if not acceptable(path, bounds, "copilot", tally, state):
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        head = heads.get(path, st)
        if head is None:
            data = _read_head(path, bounds)
            parsed = copilot_head(data)
            complete = len(data) >= HEAD_BYTES
            head = Head(st.st_ino, len(data) if complete else st.st_size, complete, parsed.cwd,
                        parsed.session_id, parsed.first_user, parsed.first_ts)  # fmt: skip
            if complete or len(data) == st.st_size:
                heads.put(path, head)
        sid = f"copilot-{head.ident or path.parent.name}"
        meta = agent_meta(sid, "copilot", path, head, st, lanes)
        if meta is not None:
            found.append(meta)
        elif head.cwd is None:
            tally.add_once("copilot", f"{path.parent.name}: no session.start cwd")
    return found


def _aider(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    # Per lane by design: no home folder involved; the file must stay inside the lanes.
    bounds = tool_bounds("aider", env, lanes)
    found: list[SessionMeta] = []
    for lane in lanes:
        path = lane.path / HISTORY_FILE
        try:
            st = path.stat()
        except OSError:
            continue
        if not acceptable(path, bounds, "aider", tally, lane.path):
            continue
        head = heads.get(path, st)
        if head is None:
            data = _read_head(path, bounds)
            parsed = AiderHead()
            parse_aider(data, 0, {}, parsed)
            complete = len(data) >= HEAD_BYTES
            head = Head(st.st_ino, len(data) if complete else st.st_size, complete,
                        str(lane.path), None, parsed.first_user, None)  # fmt: skip
            heads.put(path, head)
        titled = head if head.title else dataclasses.replace(head, title=f"aider in {lane.name}")
        meta = agent_meta(aider_session_id(lane.id, path), "aider", path, titled, st, [lane])
        if meta is not None:
            found.append(meta)
    return found


FINDERS: dict[str, Finder] = {
    "gemini": _gemini,
    "opencode": _opencode,
    "copilot": _copilot,
    "aider": _aider,
}


def agent_meta(
    sid: str, tool: str, path: Path, head: Head, st: os.stat_result, lanes: list[Lane]
) -> SessionMeta | None:
    """The chat session of one transcript whose head named a folder inside ``lanes``."""
    if head.cwd is None or not is_valid_session_id(sid):
        return None
    lane = _lane_of(lanes, head.cwd)
    if lane is None:
        return None
    mtime = datetime.fromtimestamp(st.st_mtime, UTC)
    created = parse_aware_time(head.first_ts) or mtime
    return SessionMeta(
        id=sid, kind="chat", title=head.title or sid, lane_id=lane.id, created_at=created,
        updated_at=max(created, mtime), tool=tool, source=tool, transcript_path=path,
    )  # fmt: skip


_LANE_MEMO: dict[tuple[tuple[tuple[str, Path], ...], str], Lane | None] = {}


def _lane_of(lanes: list[Lane], cwd: str) -> Lane | None:
    key = (tuple((lane.id, lane.path) for lane in lanes), cwd)
    if key not in _LANE_MEMO:
        if len(_LANE_MEMO) >= 4096:
            _LANE_MEMO.clear()
        _LANE_MEMO[key] = lane_containing(lanes, Path(cwd))
    return _LANE_MEMO[key]


def _ms_time(value: int) -> datetime:
    return datetime.fromtimestamp(max(value, 0) / 1000, UTC)


def _read_head(path: Path, bounds: Bounds) -> bytes:
    try:
        return read_regular(path, HEAD_BYTES, bounds)
    except OSError:
        return b""


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
