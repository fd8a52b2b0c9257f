"""The project's external (Claude Code, Codex, Gemini CLI, OpenCode, Copilot CLI, Aider) sessions as of the last listing.

The ingestion service keeps one: each reconcile refreshes it, the drain looks sessions up in it,
and the watcher asks it which session a changed file belongs to, so a write to a known transcript
queues that session alone, and a write to another project's transcript costs nothing.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from engine.external.agents import agent_owner_hint, agent_watch_roots, gemini_folders
from engine.external.discover import (
    claude_folders,
    claude_projects_dir,
    codex_sessions_dir,
    external_sessions,
    project_lane,
    transcript_sources,
)
from engine.external.heads import HEADS_FILE, HeadCache
from engine.project.model import Lane, Project, SessionMeta
from engine.project.stat import stat_signature
from engine.project.tally import WarningTally

FOREIGN = "-"
"""``owner`` of a file known to belong to no session of this project."""


def external_signature(meta: SessionMeta) -> str:
    """Stat signature of every transcript file of ``meta`` (a new subagent file changes it);
    Gemini's and OpenCode's come from ``engine.external.derive``."""
    if meta.source in ("opencode", "gemini"):  # a database's rows; a file and its subagents'
        from engine.external.derive import derived_signature

        return derived_signature(meta)
    return stat_signature([path for _, path, _ in transcript_sources(meta)])


class ExternalCatalog:
    """External sessions by id and their files by path; safe to use from any thread."""

    def __init__(self, project: Project, environ: Mapping[str, str] | None = None) -> None:
        self.project = project
        self.environ = environ
        self.heads = HeadCache(project.cache_dir / HEADS_FILE)
        self._lock = threading.Lock()
        self._sessions: dict[str, SessionMeta] = {}
        self._owners: dict[Path, str] = {}
        self._folders: set[Path] = set()
        self._agent_folders: set[Path] = set()

    def env(self) -> Mapping[str, str]:
        """The environment naming the Claude and Codex homes (read at each use)."""
        return os.environ if self.environ is None else self.environ

    def refresh(self, lanes: list[Lane], tally: WarningTally) -> list[SessionMeta]:
        """List the sessions again and remember them."""
        env = self.env()
        sessions = external_sessions(self.project, lanes, tally, env, self.heads)
        self.heads.save()
        owners = {path: m.id for m in sessions for _, path, _ in transcript_sources(m)}
        with self._lock:
            self._sessions = {m.id: m for m in sessions}
            self._owners = owners
            self._folders = claude_folders(lanes or [project_lane(self.project)], env)
            self._agent_folders = gemini_folders(lanes or [project_lane(self.project)], env,
                                                 self.heads)  # fmt: skip
        return sessions

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
            folders = self._folders
        if sid is not None:
            return sid
        env = self.env()
        with self._lock:
            agent_folders = self._agent_folders
        hint = agent_owner_hint(path, env, agent_folders)
        if hint is not None:  # Gemini, OpenCode, Copilot: a new file or a database write
            return None if hint == "relist" and self._relist(path) else FOREIGN
        if path.suffix != ".jsonl":
            return FOREIGN
        claude = claude_projects_dir(env)
        if claude in path.parents:
            folder = claude / path.relative_to(claude).parts[0]
            return None if folder in folders and self._unseen(path) else FOREIGN
        if codex_sessions_dir(env) in path.parents:
            return None if self._unseen(path) else FOREIGN
        return FOREIGN

    def _relist(self, path: Path) -> bool:
        """A Copilot file whose head named a cwd is known not to be ours; other hints re-list."""
        return path.name != "events.jsonl" or self._unseen(path)

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
        """The Claude projects folder and the Codex sessions folder, where they exist."""
        env = self.env()
        roots = [p for p in (claude_projects_dir(env), codex_sessions_dir(env)) if p.is_dir()]
        return [*roots, *agent_watch_roots(env)]


def project_sessions(
    project: Project, tally: WarningTally, environ: Mapping[str, str] | None = None
) -> list[SessionMeta]:
    """Every session of the project: ``.ade/sessions`` first, then Claude Code and Codex ones
    (an ``.ade`` session keeps its id when an external one has the same). Reads the head cache
    the ingester keeps, never writes it."""
    from engine.project.lanes import list_lanes
    from engine.project.sessions import list_sessions

    own = list_sessions(project, tally)
    ids = {m.id for m in own}
    heads = HeadCache(project.cache_dir / HEADS_FILE)
    found = external_sessions(project, list_lanes(project, tally), tally, environ, heads)
    return [_shown(m) for m in (*own, *(m for m in found if m.id not in ids))]


def _shown(meta: SessionMeta) -> SessionMeta:
    """``meta`` with its title and command line redacted: every front end lists sessions from
    here (palette rows, ``ade open`` headers, lane details), so none shows a token in a title."""
    from engine.redaction import redact_title

    title = redact_title(meta.title)
    command = None if meta.command is None else redact_title(meta.command)
    if title == meta.title and command == meta.command:
        return meta
    return dataclasses.replace(meta, title=title, command=command)
