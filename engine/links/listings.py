"""The project's sessions, lanes and transcript files, read the one way both clients read them.

The embedded client and the daemon's socket client answer ``list_sessions``, ``list_lanes`` and
``transcript_path`` with plain file reads of the project (the daemon has nothing to add to them),
so both delegate here; the link resolver looks its sessions and lanes up through the same object.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from engine.external.catalog import project_sessions
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.model import Lane, Project, SessionMeta
from engine.project.tally import WarningTally
from engine.project.transcripts import transcript_file


class ProjectListings:
    """Fresh listings of one project (every call reads the project again)."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self._tally = WarningTally()

    @classmethod
    def open(cls, root: Path | None) -> ProjectListings:
        """The listings of the project at ``root`` (None: as ``open_project`` finds it).

        Raises:
            ProjectError: the folder does not exist or cannot be read.
        """
        return cls(open_project(root))

    def list_sessions(self, *, include_archived: bool = True) -> list[SessionMeta]:
        """Every session (chat and terminal): ``.ade`` ones, then Claude Code and Codex ones."""
        sessions = project_sessions(self.project, self._tally)
        return [s for s in sessions if include_archived or not s.archived]

    def list_lanes(self) -> list[Lane]:
        """The lanes, primary first (``.ade/lanes.json`` or the git worktrees)."""
        return list_lanes(self.project, self._tally)

    def find_session(self, sid: str, known: Sequence[SessionMeta] = ()) -> SessionMeta | None:
        """The session ``sid`` from ``known`` (a front end's list) first, else a fresh listing:
        an archived or not-yet-listed session still lands."""
        for session in known:
            if session.id == sid:
                return session
        return next((s for s in self.list_sessions() if s.id == sid), None)

    def session_transcript(self, session: SessionMeta) -> Path | None:
        """Where ``session``'s transcript is (plain or ``.gz``), or None when it is gone."""
        if session.transcript_path is not None:
            from engine.external.view import transcript_exists  # its parsers: not on every search

            return session.transcript_path if transcript_exists(session.transcript_path) else None
        return transcript_file(self.project, session.kind, session.id)

    def transcript_path(self, session_id: str) -> Path | None:
        """Where the session's transcript is, for the scrollback screen (None: unknown)."""
        session = self.find_session(session_id)
        return None if session is None else self.session_transcript(session)
