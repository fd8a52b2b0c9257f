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

from engine.agent_table import AGENTS, PORTABLE, Folder, entry
from engine.agent_table import AIDER_HISTORY_FILE as AIDER_HISTORY_FILE
from engine.basics.memo import remember
from engine.external.vscode_settings import Unreadable, setting_folders, settings_signature
from engine.project.model import Lane

_SLUG_RE = re.compile(r"[^A-Za-z0-9]")


def home_of(environ: Mapping[str, str]) -> str:
    """``$HOME`` of ``environ`` (the process's home when unset)."""
    return environ.get("HOME") or os.path.expanduser("~")


def agent_home(name: str, environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Agent ``name``'s home: its variable's value when set, else its default under ``HOME``
    (``engine.agent_table``; the VS Code agents': where VS Code keeps its products' user data,
    ``vscode_app_data``)."""
    line = entry(name)
    moved = environ.get(line.variable) if line.variable else None
    if moved:
        return Path(moved)
    if line.editors:
        return vscode_app_data(environ, platform)
    return Path(home_of(environ), line.default)


def vscode_app_data(environ: Mapping[str, str], platform: str | None = None) -> Path:
    """Where VS Code and its forks keep ``<product>/User`` when ``VSCODE_APPDATA`` is unset
    (VS Code's ``src/vs/platform/environment/node/userDataPath.ts``, its step 4, lines 73-91):
    Windows ``%APPDATA%``, else ``%USERPROFILE%/AppData/Roaming``; macOS
    ``~/Library/Application Support``; else ``$XDG_CONFIG_HOME``, else ``~/.config``.
    ``platform``: ``sys.platform`` unless given."""
    platform = sys.platform if platform is None else platform
    if platform == "win32":
        if environ.get("APPDATA"):
            return Path(environ["APPDATA"])
        profile = environ.get("USERPROFILE") or home_of(environ)
        return Path(profile, "AppData", "Roaming")
    if platform == "darwin":
        return Path(home_of(environ), "Library", "Application Support")
    return Path(environ.get("XDG_CONFIG_HOME") or os.path.join(home_of(environ), ".config"))


def vscode_user_data(
    name: str, environ: Mapping[str, str], platform: str | None = None
) -> list[Path]:
    """The user data folders agent ``name`` (a VS Code extension or fork) is read from, in the
    order VS Code decides them (``userDataPath.ts`` lines 52-62): a portable install's
    ``$VSCODE_PORTABLE/user-data`` first (when the agent's line says ``portable``), then each
    of its products' ``<app data>/<product>`` (``agent_home``)."""
    line = entry(name)
    portable = environ.get(PORTABLE) if line.portable else None
    key = (name, platform or sys.platform, portable or None,
           *(environ.get(v) for v in (line.variable or "", "APPDATA", "USERPROFILE", "XDG_CONFIG_HOME")),
           home_of(environ))  # fmt: skip
    known = _USER_DATA.get(key)
    if known is None:
        first = [Path(portable, "user-data")] if portable else []
        base = agent_home(name, environ, platform)
        known = remember(_USER_DATA, key, (*first, *(base / product for product in line.editors)),
                         _MAX_HOME_PLACES)  # fmt: skip
    return list(known)


_USER_DATA: dict[tuple[str | None, ...], tuple[Path, ...]] = {}
"""``vscode_user_data`` by agent, platform and every variable it reads (the manifest asks on
every search): names only, nothing on disk."""


def agent_places(
    name: str, environ: Mapping[str, str], platform: str | None = None
) -> list[tuple[Folder, Path]]:
    """Each folder of agent ``name``'s table line with where it is in ``environ``: under its
    home, or, for a VS Code agent, under each of its user data folders (``vscode_user_data``)
    and, where that folder's user settings move the extension's storage (the line's
    ``setting``), there too. Each path once."""
    line = entry(name)
    if not line.editors:
        variable = environ.get(line.variable) if line.variable else None
        key = (name, variable or None, None if variable else home_of(environ))
        known = _HOME_PLACES.get(key)
        if known is None:
            home = agent_home(name, environ, platform)
            joined = tuple((folder, home / folder.path) for folder in line.folders)
            known = remember(_HOME_PLACES, key, joined, _MAX_HOME_PLACES)
        return list(known)
    places: dict[Path, Folder] = {}
    for data in vscode_user_data(name, environ, platform):
        under = _HOME_PLACES.get((name, None, str(data)))
        if under is None:
            joined = tuple((folder, data / folder.path) for folder in line.folders)
            under = remember(_HOME_PLACES, (name, None, str(data)), joined, _MAX_HOME_PLACES)
        places.update((path, folder) for folder, path in under)
        prefix = f"{line.setting[1]}/" if line.setting else ""
        for moved in moved_storage(name, data):
            if isinstance(moved, Path):
                places.update(
                    (moved / folder.path.removeprefix(prefix), folder)
                    for folder in line.folders
                    if folder.path.startswith(prefix)
                )
    return [(folder, path) for path, folder in places.items()]


_HOME_PLACES: dict[tuple[str, str | None, str | None], tuple[tuple[Folder, Path], ...]] = {}
"""The folders of an agent's table line joined to a home or user data folder (the manifest
asks on every search, the daemon's on every answer; only the names depend on the
environment): by agent, moved home, and home (or user data folder)."""

_MAX_HOME_PLACES = 256


def moved_storage(name: str, user_data: Path) -> list[Path | Unreadable]:
    """Where ``user_data``'s settings (each profile's) move agent ``name``'s storage (its
    line's ``setting``), and the settings files that cannot be read."""
    line = entry(name)
    if line.setting is None:
        return []
    return setting_folders(user_data, line.setting[0])


def places_signature(environ: Mapping[str, str]) -> tuple[object, ...]:
    """Everything every agent's ``agent_places`` in ``environ`` depends on: the environment's
    values and the stat of each settings file that may move an agent's storage. Equal
    signatures, equal places (what the watcher's poll remembers its roots under)."""
    settings = tuple(
        settings_signature(data)
        for line in AGENTS
        if line.setting is not None
        for data in vscode_user_data(line.name, environ)
    )
    return (tuple(environ.items()), settings)


def unreadable_settings(name: str, environ: Mapping[str, str]) -> list[Path]:
    """The settings files agent ``name`` needs (its line's ``setting``) that cannot be read."""
    if entry(name).setting is None:
        return []
    found = (each for data in vscode_user_data(name, environ) for each in moved_storage(name, data))
    return [moved.path for moved in found if isinstance(moved, Unreadable)]


def agent_folders(name: str, environ: Mapping[str, str], platform: str | None = None) -> list[Path]:
    """The folders under agent ``name``'s home that hold its sessions (none for Aider)."""
    return [path for _, path in agent_places(name, environ, platform)]


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
