"""Where each agent tool keeps its sessions: the folder names alone, for the warm path.

Each agent's home and session folders come from its line in ``engine.agent_table``. Discovery
(the agents' ``AgentFormat``) and the warm-run manifest (``engine.ingest.manifest``) both need
these folders; the manifest runs on every ``ade search``, so they live here, without the parsers
and readers the agents' own modules import.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path

from engine.agent_table import AIDER_HISTORY_FILE as AIDER_HISTORY_FILE
from engine.agent_table import entry
from engine.project.model import Lane

_SLUG_RE = re.compile(r"[^A-Za-z0-9]")


def home_of(environ: Mapping[str, str]) -> str:
    """``$HOME`` of ``environ`` (the process's home when unset)."""
    return environ.get("HOME") or os.path.expanduser("~")


def agent_home(name: str, environ: Mapping[str, str]) -> Path:
    """Agent ``name``'s home: its variable's value when set, else its default under ``HOME``
    (``engine.agent_table``; the VS Code agents' as VS Code places it)."""
    line = entry(name)
    moved = environ.get(line.variable) if line.variable else None
    if moved:
        return Path(moved)
    if line.variable == VSCODE_APP_DATA:
        return vscode_app_data(environ)
    return Path(home_of(environ), line.default)


VSCODE_APP_DATA = "VSCODE_APPDATA"


def vscode_app_data(environ: Mapping[str, str]) -> Path:
    """Where VS Code and its forks keep ``<product>/User`` when ``VSCODE_APPDATA`` is unset
    (VS Code's ``src/vs/platform/environment/node/userDataPath.ts``): macOS
    ``~/Library/Application Support``, else ``$XDG_CONFIG_HOME``, else ``~/.config``."""
    if sys.platform == "darwin":
        return Path(home_of(environ), "Library", "Application Support")
    return Path(environ.get("XDG_CONFIG_HOME") or os.path.join(home_of(environ), ".config"))


def agent_folders(name: str, environ: Mapping[str, str]) -> list[Path]:
    """The folders under agent ``name``'s home that hold its sessions (none for Aider)."""
    home = agent_home(name, environ)
    return [home / folder.path for folder in entry(name).folders]


def claude_projects_dir(environ: Mapping[str, str]) -> Path:
    """``$CLAUDE_CONFIG_DIR/projects``, default ``~/.claude/projects``."""
    return agent_folders("claude", environ)[0]


def codex_sessions_dir(environ: Mapping[str, str]) -> Path:
    """``$CODEX_HOME/sessions``, default ``~/.codex/sessions``."""
    return agent_folders("codex", environ)[0]


def gemini_tmp_dir(environ: Mapping[str, str]) -> Path:
    """``$GEMINI_CLI_HOME/.gemini/tmp``, default ``~/.gemini/tmp``."""
    return agent_folders("gemini", environ)[0]


def opencode_data_dir(environ: Mapping[str, str]) -> Path:
    """``$XDG_DATA_HOME/opencode``, default ``~/.local/share/opencode``."""
    return agent_folders("opencode", environ)[0]


def copilot_state_dir(environ: Mapping[str, str]) -> Path:
    """``$COPILOT_HOME/session-state``, default ``~/.copilot/session-state``."""
    return agent_folders("copilot", environ)[0]


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
