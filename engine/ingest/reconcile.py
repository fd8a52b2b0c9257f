"""Backfill and stat-based reconcile: find the sources that changed, clean up deleted sessions.

``changed_sources`` compares each source's stat signature with the one stored after its last
complete pass, so a warm ``catch_up`` over a thousand sessions stats files and reads no
transcript. With ``everything=True`` (backfill) every source is listed regardless.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from typing import NamedTuple

import apsw

from engine.external.catalog import ExternalCatalog, external_signature
from engine.index.db import SourceRow, list_sources, put_source
from engine.index.sources import delete_source
from engine.index.writer import IndexWriter
from engine.ingest.history import history_pending
from engine.ingest.manifest import Listing
from engine.ingest.queue import Entry
from engine.ingest.records import GIT_SOURCE, git_signature, pr_path
from engine.project.lane_memo import list_lanes
from engine.project.model import Lane, Project, SessionKind, SessionMeta
from engine.project.sessions import read_sessions, session_file_ids
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally

STAT_PREFIX = "stat:"
"""Source rows holding the stat signature a session had when it was last fully ingested."""

_TRANSCRIPTS: dict[str, tuple[str, str]] = {
    "chat": ("chats", ".jsonl"),
    "terminal": ("terminals", ".log"),
}


def _session_files(kind: SessionKind, sid: str) -> list[tuple[str, str]]:
    """``(.ade folder, file name)`` of what a session's stat signature covers: its metadata,
    plain transcript, ``.gz`` sibling (and, for a terminal, its commands sidecar)."""
    folder, suffix = _TRANSCRIPTS[kind]
    files = [("sessions", f"{sid}.json"), (folder, f"{sid}{suffix}"), (folder, f"{sid}{suffix}.gz")]
    if kind == "terminal":  # the OSC 133 sidecar of `ade term`: one doc per command
        files.append((folder, f"{sid}.commands.jsonl"))
    return files


def session_signature(project: Project, kind: SessionKind, sid: str) -> str:
    """Stat signature of a session's metadata, plain transcript, ``.gz`` sibling (and, for a
    terminal, its commands sidecar)."""
    # Strings, not paths: a reconcile signs every session, and building 8 ``Path`` objects a
    # session cost more than its four ``stat`` calls (journal 2026-12-06-scale.md).
    ade = os.path.join(project.root, ".ade")
    return stat_signature([os.path.join(ade, f, n) for f, n in _session_files(kind, sid)])


def listed_signature(listing: Listing, kind: SessionKind, sid: str) -> str:
    """``session_signature`` as of the manifest's walk, from the stats its listing of the
    ``.ade`` folders kept (the same string: a file the listing has not is missing, null;
    joined here, as a ``json.dumps`` with its own separators builds an encoder per call)."""
    parts = [listing.entries[f].get(n, "null") for f, n in _session_files(kind, sid)]
    return f"[{','.join(parts)}]"


def store_session_signature(
    writer: IndexWriter, kind: str, sid: str, signature: str, now_ms: int
) -> None:
    """Remember that the session was fully ingested as of ``signature``."""
    with writer.transaction() as conn:
        put_source(
            conn, SourceRow(key=f"{STAT_PREFIX}{kind}:{sid}", identity=signature, last_run=now_ms)
        )


def _pr_numbers(project: Project) -> list[int]:
    try:
        names = [p.stem for p in (project.ade_dir / "prs").iterdir() if p.suffix == ".json"]
    except OSError:
        return []
    return sorted(int(n) for n in names if n.isdigit() and not n.startswith("0"))


def changed_sources(
    conn: apsw.Connection,
    project: Project,
    tally: WarningTally,
    *,
    everything: bool = False,
    external: ExternalCatalog | None = None,
    listing: Listing | None = None,
) -> tuple[list[Entry], list[Alive]]:
    """Queue entries ``(kind, ident)`` for every source whose files changed since its last pass.

    With ``external``, Claude Code and Codex sessions are listed (and refreshed in it) too:
    ``("external", sid)`` entries, and the sessions returned so their docs are kept. With
    ``listing`` (the manifest's walk, just made) the sessions' signatures come from its stats
    instead of four ``stat`` calls a session.

    Returns:
        The entries (sessions first, then PRs, the PR sweep and git) and the sessions listed
        (own and external), as ``Alive``.
    """
    rows = {row.key: row for row in list_sources(conn)}
    out: list[Entry] = []
    unchanged, sessions = _own_sessions(project, tally, rows, everything, listing)
    lanes: list[Lane] | None = None
    if external is not None:
        lanes = list_lanes(project, tally)
        own = {m.id for m in sessions} | {a.id for a in unchanged}
        found = [m for m in external.refresh(lanes, tally) if m.id not in own]
        for meta in found:
            stored = rows.get(f"{STAT_PREFIX}chat:{meta.id}")
            if everything or stored is None or stored.identity != external_signature(meta):
                out.append(("external", meta.id))
        sessions = [*sessions, *found]
    for meta in sessions:
        stored = rows.get(f"{STAT_PREFIX}{meta.kind}:{meta.id}")
        if (
            everything
            or stored is None
            or stored.identity != _signature(project, listing, meta.kind, meta.id)
        ):
            out.append((meta.kind, meta.id))
    alive = [Alive(meta.kind, meta.id) for meta in sessions] + unchanged
    numbers = _pr_numbers(project)
    for number in numbers:
        stored = rows.get(f"pr:{number}")
        path = pr_path(project, number)
        if everything or stored is None or stored.identity != stat_signature([path]):
            out.append(("pr", str(number)))
    known = {f"pr:{n}" for n in numbers}
    if everything or any(k.startswith("pr:") and k not in known for k in rows):
        out.append(("prs", "*"))
    if project.is_git or (project.ade_dir / "lanes.json").exists():
        stored = rows.get(GIT_SOURCE)
        if (
            everything
            or stored is None
            or stored.identity != git_signature(lanes or list_lanes(project, tally))
        ):
            out.append(("git", "*"))
        elif history_pending(conn, project):
            out.append(("history", "*"))  # a pass a crash or an ended CLI run left unfinished
    return out, alive


_OWN_KINDS: tuple[SessionKind, ...] = ("chat", "terminal")


class Alive(NamedTuple):
    """A session that is still there: what ``remove_gone_sessions`` keeps."""

    kind: str
    id: str


def _signature(project: Project, listing: Listing | None, kind: SessionKind, sid: str) -> str:
    if listing is None:
        return session_signature(project, kind, sid)
    return listed_signature(listing, kind, sid)


def _own_sessions(
    project: Project,
    tally: WarningTally,
    rows: dict[str, SourceRow],
    everything: bool,
    listing: Listing | None = None,
) -> tuple[list[Alive], list[SessionMeta]]:
    """The project's own sessions: those whose files match the signature stored at their last
    pass (kind from the stored row, the file not read again) and the others, read. A search
    right after a write lists every session, and reading each session file again cost ~35 ms of
    a one-shot process at 282 sessions (journal 2026-12-06-scale.md). The session file must be
    a regular file (``lstat``) to be taken unread: one turned into a symlink is read through
    the bounds check. With the manifest's ``listing`` neither is a ``stat`` of its own: at 282
    sessions the ~1,400 calls and their paths were most of a reconcile after a write."""
    unchanged: list[Alive] = []
    to_read: list[str] = []
    for sid in session_file_ids(project, tally):
        kinds = [k for k in _OWN_KINDS if f"{STAT_PREFIX}{k}:{sid}" in rows]
        if (
            not everything
            and len(kinds) == 1
            and (_regular(project, sid) if listing is None else f"{sid}.json" in listing.regular)
        ):
            kind = kinds[0]
            stored = rows[f"{STAT_PREFIX}{kind}:{sid}"]
            if stored.identity == _signature(project, listing, kind, sid):
                unchanged.append(Alive(kind, sid))
                continue
        to_read.append(sid)
    return unchanged, read_sessions(project, to_read, tally)


def _regular(project: Project, sid: str) -> bool:
    try:
        return stat.S_ISREG(
            os.lstat(os.path.join(project.root, ".ade", "sessions", f"{sid}.json")).st_mode
        )
    except OSError:
        return False


def remove_gone_sessions(writer: IndexWriter, sessions: Sequence[Alive | SessionMeta]) -> int:
    """Delete docs and source rows of sessions whose metadata no longer exists.

    Returns:
        How many documents were deleted.
    """
    alive = {kind: {m.id for m in sessions if m.kind == kind} for kind in ("chat", "terminal")}
    conn = writer.conn
    if not _anything_gone(conn, alive):
        # A warm run where nothing was deleted takes no write lock at all: another process
        # holding it (a long drain) must not make a read-only search wait (a held write lock).
        return 0
    deleted = 0
    with writer.transaction():
        for kind, ids in alive.items():
            deleted += writer.delete_docs_where_session_not_in(kind, ids)
        for row in list_sources(conn):
            if _gone_source(row.key, alive):
                delete_source(conn, row.key)
    return deleted


def _gone_source(key: str, alive: dict[str, set[str]]) -> bool:
    kind, _, sid = key.removeprefix(STAT_PREFIX).partition(":")
    # ``chat:<sid>/agent-…``: a Claude subagent file, kept while its session lives.
    return kind in alive and sid.partition("/")[0] not in alive[kind]


def _anything_gone(conn: apsw.Connection, alive: dict[str, set[str]]) -> bool:
    """Whether a document or source row of a deleted session exists (reads only)."""
    if any(_gone_source(row.key, alive) for row in list_sources(conn)):
        return True
    for sid in indexed_session_ids(conn):
        for kind, ids in alive.items():
            if sid not in ids and conn.execute(_HOLDS, (sid, kind)).fetchone() is not None:
                return True
    return False


_HOLDS = "SELECT 1 FROM docs WHERE session_id = ? AND kind = ? LIMIT 1"

INDEXED_SESSIONS_SQL = (
    "WITH RECURSIVE s(sid) AS ("
    " SELECT min(session_id) FROM docs WHERE session_id IS NOT NULL"
    " UNION ALL SELECT (SELECT session_id FROM docs WHERE session_id > s.sid"
    " ORDER BY session_id LIMIT 1) FROM s WHERE s.sid IS NOT NULL)"
    " SELECT sid FROM s WHERE sid IS NOT NULL"
)
"""Each session id the index holds documents of: a skip scan of ``docs_by_session``, one seek a
session, inside SQLite."""


def indexed_session_ids(conn: apsw.Connection) -> Iterator[str]:
    """Each session id the index holds documents of (``INDEXED_SESSIONS_SQL``). A search right
    after a write reconciles, and scanning every document for a session that went cost 19-30 ms
    on the 100 MB project, growing with the corpus; the skip scan and one look-up a session cost
    ~4 ms for its 281 sessions, growing with the sessions (benchmarks/journal/2026-12-06-scale.md)."""
    for (sid,) in conn.execute(INDEXED_SESSIONS_SQL):
        yield str(sid)
