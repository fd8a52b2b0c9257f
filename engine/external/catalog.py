"""The project's agent sessions (every agent of ``engine.agent_table``) as of the last listing.

The ingestion service keeps one: each reconcile that runs in full refreshes it, the drain looks sessions up in it,
and the watcher asks it which session a changed file belongs to, so a write to a known transcript
queues that session alone, and a write to another project's transcript costs nothing.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from engine.project.model import Lane, Project, SessionMeta
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally
from engine.types import DiscoveryRoots

if TYPE_CHECKING:
    from engine.external.heads import HeadCache
    from engine.external.memory import Remembered

FOREIGN = "-"
"""``owner`` of a file known to belong to no session of this project."""


def external_signature(meta: SessionMeta) -> str:
    """What changes whenever the session does: its agent's ``signature`` (the stats of its
    transcript files, a new subagent file included; a database's rows)."""
    from engine.external.registry import format_of

    fmt = format_of(meta.source)
    if fmt is None:
        return stat_signature([] if meta.transcript_path is None else [meta.transcript_path])
    return fmt.signature(meta)


class ExternalCatalog:
    """External sessions by id and their files by path; safe to use from any thread."""

    def __init__(self, project: Project, environ: Mapping[str, str] | None = None) -> None:
        self.project = project
        self.environ = environ
        self._heads: HeadCache | None = None
        self._heads_lock = threading.Lock()
        self._lock = threading.Lock()
        self._sessions: dict[str, SessionMeta] = {}
        self._owners: dict[Path, str] = {}
        self._found_under: list[Remembered] = []
        self._memos: dict[str, object] = {}
        """Each agent's ``lane_memo`` of the latest listing (what ``owner`` asks it with)."""
        self._listed = False
        """Whether ``refresh`` ran: a warm reconcile skipped by the manifest lists nothing."""
        self._in_lanes: tuple[list[Path], list[Path]] | None = None
        """Every agent's ``lane_roots`` and ``lane_files`` for the lanes last listed."""
        self._agent_roots: tuple[tuple[object, ...], list[Path]] | None = None
        """Every agent's ``watch_roots`` under the ``places_signature`` they were made for."""

    @property
    def heads(self) -> HeadCache:
        """What each transcript's head said, loaded on first use (a warm run never lists)."""
        with self._heads_lock:  # one cache for the drain's and the watcher's threads
            if self._heads is None:
                from engine.external.heads import HEADS_FILE, HeadCache

                self._heads = HeadCache(self.project.cache_dir / HEADS_FILE)
            return self._heads

    def env(self) -> Mapping[str, str]:
        """The environment naming the Claude and Codex homes (read at each use)."""
        return os.environ if self.environ is None else self.environ

    def refresh(self, lanes: list[Lane], tally: WarningTally) -> list[SessionMeta]:
        """List the sessions again and remember them; sessions this environment did not find
        but an earlier run did stay while their transcript exists."""
        # The tools' readers are imported by the first listing: a warm run whose manifest
        # matched lists nothing and never pays for them (the start-up budget).
        from engine.external.discover import external_sessions, project_lane, transcript_sources
        from engine.external.memory import Remembered, load_memory, save_memory, still_there
        from engine.external.registry import all_formats

        env = self.env()
        discovered = external_sessions(self.project, lanes, tally, env, self.heads)
        self.heads.save()
        roots = discovery_roots_of(env)
        kept = still_there(load_memory(self.project), {m.id for m in discovered}, roots)
        fresh = [Remembered(m, str(roots[m.source])) for m in discovered if m.source in roots]
        save_memory(self.project, [*fresh, *kept])
        sessions = sorted([*discovered, *(e.meta for e in kept)], key=lambda m: m.id)
        owners = {path: m.id for m in sessions for _, path, _ in transcript_sources(m)}
        roots_lanes = lanes or [project_lane(self.project)]
        memos = {f.name: f.lane_memo(roots_lanes, env, self.heads) for f in all_formats()}
        in_lanes = _in_lanes(roots_lanes, env)
        with self._lock:
            self._in_lanes = in_lanes
            self._sessions = {m.id: m for m in sessions}
            self._owners = owners
            self._found_under = [*fresh, *kept]
            self._memos = memos
            self._listed = True
        return sessions

    def discovery_roots(self) -> tuple[DiscoveryRoots, ...]:
        """Per source: the root this environment searched and every root the listed sessions
        were found under (remembered ones included), with how many sessions each holds."""
        searched = discovery_roots_of(self.env())
        with self._lock:
            entries = list(self._found_under) if self._listed else None
        if entries is None:  # not listed in this process: the last listing, as remembered
            from engine.external.memory import load_memory

            entries = load_memory(self.project)
        out: list[DiscoveryRoots] = []
        for source in sorted({*searched, *(e.meta.source for e in entries)}):
            counts: dict[str, int] = {}
            for entry in entries:
                if entry.meta.source == source:
                    counts[entry.root] = counts.get(entry.root, 0) + 1
            root = searched.get(source)
            out.append(DiscoveryRoots(
                source=source, searched=str(root) if root is not None else None,
                roots=tuple(sorted(counts)), sessions=tuple(counts[r] for r in sorted(counts)),
            ))  # fmt: skip
        return tuple(out)

    def get(self, sid: str) -> SessionMeta | None:
        """The session ``sid`` as last listed."""
        with self._lock:
            return self._sessions.get(sid)

    def sessions(self) -> list[SessionMeta]:
        """Every session as last listed."""
        with self._lock:
            return list(self._sessions.values())

    def owner(self, path: Path) -> str | None:
        """The session id owning ``path``, ``FOREIGN`` when it is known not to be ours (another
        project's transcript, or not a transcript), None when unknown (a new file: re-list)."""
        with self._lock:
            sid = self._owners.get(path)
            listed, memos = self._listed, self._memos
        if sid is not None:
            return sid
        if not listed:
            return None  # nothing listed yet (the manifest skipped the reconcile): re-list
        from engine.external.registry import all_formats

        env = self.env()
        for fmt in all_formats():
            hint = fmt.owner_hint(path, env, memos.get(fmt.name))
            if hint == "relist" or (hint == "if-unseen" and self._unseen(path)):
                return None
            if hint is not None:
                return FOREIGN
        return FOREIGN

    def _unseen(self, path: Path) -> bool:
        """True unless the file's head was read already and named a working folder: a file's
        cwd never changes, so a growing transcript of another project is not re-listed."""
        try:
            ino = path.stat().st_ino
        except OSError:
            return False
        head = self.heads.peek(path)
        return head is None or head.ino != ino or head.cwd is None

    def watch_roots(self) -> list[Path]:
        """Every agent tool's folder, whether it exists or not: the watcher watches the ones
        that do and polls for the others (``engine.ingest.watch_plan``)."""
        from engine.external.registry import all_formats
        from engine.external.roots import places_signature

        env = self.env()
        # The watcher asks every POLL_MS: while nothing that decides the agents' folders
        # changed (the environment, a settings file moving a storage), they are the same.
        signature = places_signature(env)
        with self._lock:
            known = self._agent_roots
        if known is None or known[0] != signature:
            known = (signature, [root for fmt in all_formats() for root in fmt.watch_roots(env)])
            with self._lock:
                self._agent_roots = known
        return known[1] + self._lane_watch()[0]

    def watch_files(self) -> list[Path]:
        """Every agent's files written straight into a lane's root (``AgentFormat.lane_files``):
        the watcher follows their folders alone, not recursively."""
        return self._lane_watch()[1]

    def _lane_watch(self) -> tuple[list[Path], list[Path]]:
        """The agents' folders and files in the lanes as last listed; before any listing (a
        warm run) the lanes are read once for it."""
        with self._lock:
            found = self._in_lanes
        if found is None:
            from engine.external.discover import project_lane
            from engine.project.lanes import list_lanes

            lanes = list_lanes(self.project, WarningTally()) or [project_lane(self.project)]
            found = _in_lanes(lanes, self.env())
            with self._lock:
                self._in_lanes = self._in_lanes or found
        return found


def _in_lanes(lanes: list[Lane], env: Mapping[str, str]) -> tuple[list[Path], list[Path]]:
    from engine.external.registry import all_formats

    formats = all_formats()
    roots = [root for fmt in formats for root in fmt.lane_roots(lanes, env)]
    return roots, [path for fmt in formats for path in fmt.lane_files(lanes, env)]


def project_sessions(
    project: Project, tally: WarningTally, environ: Mapping[str, str] | None = None
) -> list[SessionMeta]:
    """Every session of the project: ``.ade/sessions`` first, then Claude Code and Codex ones
    (an ``.ade`` session keeps its id when an external one has the same). Reads the head cache
    the ingester keeps, never writes it."""
    from engine.basics.caller_env import current_environ
    from engine.external.discover import external_sessions
    from engine.external.heads import HEADS_FILE, HeadCache
    from engine.external.memory import load_memory, still_there
    from engine.project.lanes import list_lanes
    from engine.project.sessions import list_sessions

    env = current_environ() if environ is None else environ  # a daemon: the caller's folders
    own = list_sessions(project, tally)
    ids = {m.id for m in own}
    heads = HeadCache(project.cache_dir / HEADS_FILE)
    found = external_sessions(project, list_lanes(project, tally), tally, env, heads)
    remembered = still_there(load_memory(project), {m.id for m in found}, discovery_roots_of(env))
    found += [e.meta for e in remembered]
    return [_shown(m) for m in (*own, *(m for m in found if m.id not in ids))]


def _shown(meta: SessionMeta) -> SessionMeta:
    """``meta`` with its title and command line redacted: every front end lists sessions from
    here (palette rows, ``ade open`` headers, lane details), so none shows a token in a title."""
    from engine.redaction import redact_title

    title = redact_title(meta.title)
    command = None if meta.command is None else redact_title(meta.command)
    if title == meta.title and command == meta.command:
        return meta
    return msgspec.structs.replace(meta, title=title, command=command)


def discovery_roots_of(environ: Mapping[str, str]) -> dict[str, Path]:
    """The folder each remembered agent (``AgentFormat.remembered``: one transcript file per
    session, Claude Code and Codex) is discovered under in ``environ``. Agents read from a
    shared store (an OpenCode database, Gemini's chats) are not remembered: their file outlives
    any one session."""
    from engine.external.registry import all_formats

    return {f.name: f.session_folders(environ)[0] for f in all_formats() if f.remembered}
