"""Finding a project's Claude Code and Codex sessions and listing them as chat sessions.

Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` (default ``~/.claude/projects``) holds one folder
per working directory, named by the absolute path with every non-alphanumeric character replaced
by ``-``. That is lossy (``a-b`` and ``a/b`` collide), so each file is confirmed by the ``cwd`` its
lines carry, and its lane is the worktree holding that ``cwd``. Subagent transcripts
(``<session>/subagents/agent-*.jsonl``) belong to their parent session. Codex: every
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (default ``~/.codex``) whose ``session_meta``
cwd lies in the project or one of its lanes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from engine.external.claude_code import ClaudeHead, parse_claude
from engine.external.codex import CodexHead, parse_codex
from engine.importers.lane_choice import lane_containing
from engine.project.fields import parse_aware_time
from engine.project.model import Lane, Project, SessionMeta, is_valid_session_id
from engine.project.tally import WarningTally

HEAD_BYTES = 256 * 1024
"""Bytes read from the start of a transcript to learn its cwd and title: the first user line is
near the top; a pasted image can push it further, and then the title falls back to the id."""

_SLUG_RE = re.compile(r"[^A-Za-z0-9]")


def claude_slug(path: Path) -> str:
    """Claude Code's folder name for a working directory."""
    return _SLUG_RE.sub("-", str(path))


def claude_projects_dir(environ: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR/projects``, default ``~/.claude/projects``."""
    base = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(_home(environ), ".claude")
    return Path(base) / "projects"


def codex_sessions_dir(environ: Mapping[str, str]) -> Path:
    """``$CODEX_HOME/sessions``, default ``~/.codex/sessions``."""
    base = environ.get("CODEX_HOME") or os.path.join(_home(environ), ".codex")
    return Path(base) / "sessions"


def _home(environ: Mapping[str, str]) -> str:
    return environ.get("HOME") or os.path.expanduser("~")


def claude_subagent_files(transcript: Path) -> list[Path]:
    """``<folder>/<session>/subagents/agent-*.jsonl`` of a Claude session, sorted."""
    folder = transcript.with_suffix("") / "subagents"
    try:
        return sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []


def external_sessions(
    project: Project, lanes: list[Lane], tally: WarningTally,
    environ: Mapping[str, str] | None = None,
) -> list[SessionMeta]:  # fmt: skip
    """Every Claude Code and Codex session whose cwd is in the project or one of its lanes."""
    env = os.environ if environ is None else environ
    roots = lanes or [Lane("primary", project.name, project.root, None, True)]
    return sorted([*_claude(roots, tally, env), *_codex(roots, tally, env)], key=lambda m: m.id)


def _claude(lanes: list[Lane], tally: WarningTally, env: Mapping[str, str]) -> list[SessionMeta]:
    base = claude_projects_dir(env)
    folders = {base / claude_slug(p) for lane in lanes for p in {lane.path, _real(lane.path)}}
    found: list[SessionMeta] = []
    for folder in sorted(folders):
        try:
            files = sorted(folder.glob("*.jsonl"))
        except OSError:
            continue
        for path in files:
            head = ClaudeHead()
            parse_claude(_head(path), 0, f"chat:claude-{path.stem}", WarningTally(), head=head)
            meta = _meta(f"claude-{path.stem}", "claude", path, head.cwd, head.title,
                         head.first_ts, lanes)  # fmt: skip
            if meta is not None:
                found.append(meta)
            elif head.cwd is None:
                tally.add("claude", f"{path.name}: no cwd in its first lines")
    return found


def _codex(lanes: list[Lane], tally: WarningTally, env: Mapping[str, str]) -> list[SessionMeta]:
    try:
        files = sorted(codex_sessions_dir(env).glob("*/*/*/rollout-*.jsonl"))
    except OSError:
        return []
    found: list[SessionMeta] = []
    for path in files:
        head = CodexHead()
        parse_codex(_head(path), 0, "codex", WarningTally(), {}, head=head)
        ident = head.session_id or path.stem.removeprefix("rollout-")
        meta = _meta(f"codex-{ident}", "codex", path, head.cwd, head.first_user, head.first_ts,
                     lanes)  # fmt: skip
        if meta is not None:
            found.append(meta)
        elif head.cwd is None:
            tally.add("codex", f"{path.name}: no session_meta cwd")
    return found


def _meta(sid: str, tool: str, path: Path, cwd: str | None, title: str | None,
          first_ts: str | None, lanes: list[Lane]) -> SessionMeta | None:  # fmt: skip
    if cwd is None or not is_valid_session_id(sid):
        return None
    lane = lane_containing(lanes, Path(cwd))
    if lane is None:
        return None  # the folder name matched but the cwd is elsewhere (lossy slug)
    try:
        mtime = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    except OSError:
        return None
    created = parse_aware_time(first_ts) or mtime
    return SessionMeta(
        id=sid, kind="chat", title=title or sid, lane_id=lane.id, created_at=created,
        updated_at=max(created, mtime), tool=tool, source=tool, transcript_path=path,
    )  # fmt: skip


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(HEAD_BYTES)
    except OSError:
        return b""


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
