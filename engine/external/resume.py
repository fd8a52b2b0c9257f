"""The command that resumes a chat session in its own tool, and the folder to run it in.

Each tool's own resume-by-id form (cited from its source or documentation):
- Claude Code: ``claude --resume <session id>`` (the transcript's file stem); Claude keeps
  sessions per working folder, so it runs in the folder the session was started in.
- Codex: ``codex resume <session id>`` (the rollout's ``session_meta`` id).
- Gemini CLI: ``gemini --resume <session uuid>`` (google-gemini/gemini-cli
  ``packages/cli/src/config/config.ts`` ``--resume``, ``packages/cli/src/utils/sessionUtils.ts``
  ``findSession``: "a full UUID or an index number"), in the project folder it belongs to.
- OpenCode: ``opencode --session <id>`` (anomalyco/opencode ``packages/opencode/src/cli/cmd/tui``
  option ``session``: "session id to continue").
- Copilot CLI: ``copilot --resume <session id>`` (github/copilot-cli ``changelog.md``: "--resume"
  takes a session id, a 7+ character prefix or a name).
- Aider cannot resume a session by id (``--restore-chat-history`` replays the whole file), and a
  chat recorded by ade itself (``.ade/chats``) has no id its tool knows: both are refused.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from engine.errors import UsageError
from engine.external.catalog import project_sessions
from engine.external.copilot import copilot_head
from engine.external.gemini import PROJECT_ROOT_FILE
from engine.project.lanes import list_lanes
from engine.project.model import Lane, Project, SessionMeta
from engine.project.safe_io import read_regular
from engine.project.tally import WarningTally

RESUMABLE = ("claude", "codex", "gemini", "opencode", "copilot")
"""Tools whose CLI resumes a session by id."""


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
    if meta.source == "aider":
        raise UsageError("aider cannot resume a session by id (it only replays the whole history)")
    if meta.source not in RESUMABLE:
        raise UsageError(
            f"{meta.id} was recorded by ade, not by {tool}'s own store: {tool} has no id for it"
        )
    native = meta.id.removeprefix(f"{meta.source}-")
    if meta.source == "claude" and meta.transcript_path is not None:
        native = meta.transcript_path.stem
    argv = {
        "claude": ("claude", "--resume", native),
        "codex": ("codex", "resume", native),
        "gemini": ("gemini", "--resume", native),
        "opencode": ("opencode", "--session", native),
        "copilot": ("copilot", "--resume", native),
    }[meta.source]
    return ResumePlan(argv=argv, cwd=_folder(project, meta, lanes), tool=meta.source)


def _folder(project: Project, meta: SessionMeta, lanes: list[Lane]) -> Path:
    lane = next((la.path for la in lanes if la.id == meta.lane_id), None)
    base = lane or project.root
    recorded = _recorded_cwd(meta)
    if recorded is not None and recorded.is_dir():
        try:
            recorded.resolve().relative_to(base.resolve())
            return recorded  # inside the lane: the tool keys its sessions by this folder
        except ValueError:
            pass
    return base


def _recorded_cwd(meta: SessionMeta) -> Path | None:
    path = meta.transcript_path
    if path is None:
        return None
    try:
        if meta.source == "gemini":
            marker = read_regular(path.parent.parent / PROJECT_ROOT_FILE, 64 * 1024)
            return Path(marker.decode("utf-8", errors="replace").strip())
        if meta.source == "opencode":
            from engine.external.opencode import read_only

            conn = read_only(path.parent)
            try:
                row = conn.execute("SELECT directory FROM session WHERE id = ?", (path.name,))
                found = row.fetchone()
            finally:
                conn.close()
            return Path(str(found[0])) if found else None
        head = _head(path)
        if meta.source == "copilot":
            cwd = copilot_head(head).cwd
        elif meta.source == "codex":
            from engine.external.codex import codex_head

            cwd = codex_head(head).cwd
        else:
            from engine.external.claude_code import ClaudeHead, parse_claude
            from engine.project.tally import WarningTally

            learned = ClaudeHead()
            parse_claude(head, 0, "resume", WarningTally(), head=learned)
            cwd = learned.cwd
        return Path(cwd) if cwd else None
    except Exception:
        return None


def _head(path: Path) -> bytes:
    return read_regular(path, 256 * 1024)  # never blocks on a FIFO swapped in


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
