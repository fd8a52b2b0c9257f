"""The command that resumes a chat session in its own agent, and the folder to run it in.

Each agent's resume-by-id form is its format's ``resume`` (``engine.external.registry``; cited
from the agent's source or documentation in its module and in docs/agents.md). An agent that
cannot resume by id (Aider) and a chat recorded by ade itself (``.ade/chats``), which has no id
its tool knows, are refused.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UsageError
from engine.external.catalog import project_sessions
from engine.external.registry import format_of
from engine.project.lanes import list_lanes
from engine.project.model import Lane, Project, SessionMeta
from engine.project.tally import WarningTally


@dataclass(frozen=True)
class ResumePlan:
    """What to run and where."""

    argv: tuple[str, ...]
    cwd: Path
    tool: str


def resume_plan(project: Project, meta: SessionMeta, lanes: list[Lane]) -> ResumePlan:
    """The resume command of ``meta`` and its folder (the session's own, else its lane's).

    Raises:
        UsageError: the session is not a chat of a tool that resumes by id.
    """
    tool = meta.source if meta.source != "ade" else (meta.tool or "ade")
    if meta.kind != "chat":
        raise UsageError(f"{meta.id} is a {meta.kind} session; only agent chats resume")
    fmt = format_of(meta.source)
    if fmt is None:
        raise UsageError(
            f"{meta.id} was recorded by ade, not by {tool}'s own store: {tool} has no id for it"
        )
    argv = fmt.resume_argv(meta)
    if argv is None:
        raise UsageError(fmt.no_resume or f"{fmt.label} cannot resume a session by id")
    return ResumePlan(argv=argv, cwd=_folder(project, meta, lanes), tool=fmt.name)


def _folder(project: Project, meta: SessionMeta, lanes: list[Lane]) -> Path:
    lane = next((la.path for la in lanes if la.id == meta.lane_id), None)
    base = lane or project.root
    fmt = format_of(meta.source)
    try:
        recorded = fmt.recorded_cwd(meta) if fmt is not None else None
    except Exception:  # a store changing under us: the lane's folder will do
        recorded = None
    if recorded is not None and recorded.is_dir():
        try:
            recorded.resolve().relative_to(base.resolve())
            return recorded  # inside the lane: the tool keys its sessions by this folder
        except ValueError:
            pass
    return base


def installed(argv0: str) -> bool:
    """True when ``argv0`` is on PATH."""
    return shutil.which(argv0, path=os.environ.get("PATH")) is not None


def plan_for_session(project: Project, session_id: str) -> ResumePlan:
    """The resume plan of chat session ``session_id`` of ``project``.

    Raises:
        UsageError: the session is gone, or its tool cannot resume it by id.
    """
    tally = WarningTally()
    meta = next((m for m in project_sessions(project, tally) if m.id == session_id), None)
    if meta is None:
        raise UsageError(f"chat session {session_id!r} is not in this project any more")
    return resume_plan(project, meta, list_lanes(project, tally))
