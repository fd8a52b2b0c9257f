"""Where each agent tool keeps its sessions: the folder names alone, for the warm path.

Discovery (``engine.external.discover``, ``engine.external.agents``) and the warm-run manifest
(``engine.ingest.manifest``) both need these folders; the manifest runs on every ``ade search``,
so they live here, without the parsers and readers the tools' own modules import.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from engine.project.model import Lane

AIDER_HISTORY_FILE = ".aider.chat.history.md"
"""Aider's chat history, beside the repository it ran in (``engine.external.aider``)."""

_SLUG_RE = re.compile(r"[^A-Za-z0-9]")


def home_of(environ: Mapping[str, str]) -> str:
    """``$HOME`` of ``environ`` (the process's home when unset)."""
    return environ.get("HOME") or os.path.expanduser("~")


def claude_projects_dir(environ: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR/projects``, default ``~/.claude/projects``."""
    base = environ.get("CLAUDE_CONFIG_DIR") or os.path.join(home_of(environ), ".claude")
    return Path(base) / "projects"


def codex_sessions_dir(environ: Mapping[str, str]) -> Path:
    """``$CODEX_HOME/sessions``, default ``~/.codex/sessions``."""
    base = environ.get("CODEX_HOME") or os.path.join(home_of(environ), ".codex")
    return Path(base) / "sessions"


def gemini_tmp_dir(environ: Mapping[str, str]) -> Path:
    """``$GEMINI_CLI_HOME/.gemini/tmp``, default ``~/.gemini/tmp``."""
    home = environ.get("GEMINI_CLI_HOME") or home_of(environ)
    return Path(home) / ".gemini" / "tmp"


def opencode_data_dir(environ: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/opencode``, default ``~/.local/share/opencode``."""
    base = environ.get("XDG_DATA_HOME") or os.path.join(home_of(environ), ".local", "share")
    return Path(base) / "opencode"


def copilot_state_dir(environ: Mapping[str, str]) -> Path:
    """``$COPILOT_HOME/session-state``, default ``~/.copilot/session-state``."""
    home = environ.get("COPILOT_HOME") or os.path.join(home_of(environ), ".copilot")
    return Path(home) / "session-state"


def claude_slug(path: Path) -> str:
    """Claude Code's folder name for a working directory."""
    return _SLUG_RE.sub("-", str(path))


def claude_folder_matches(name: str, slugs: set[str]) -> bool:
    """Whether a Claude folder name may be a lane's folder or a subfolder of one."""
    return name in slugs or any(name.startswith(f"{slug}-") for slug in slugs)


def claude_lane_slugs(lanes: list[Lane]) -> set[str]:
    """The Claude folder names of the lanes' own folders (as given and resolved)."""
    return {claude_slug(p) for lane in lanes for p in {lane.path, real_path(lane.path)}}


def real_path(path: Path) -> Path:
    """``path`` resolved, or as given when it cannot be."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path
