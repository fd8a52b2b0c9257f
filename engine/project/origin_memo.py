"""The ``origin`` remote's slug, remembered across commands under the stat of git's config files.

Every hit's portable envelope names the repository (``owner/name`` of ``origin``), which costs
one ``git remote get-url origin`` (3-5 ms, more under load) per command: the largest single piece
of a warm in-process search's start-up after its imports (start-up budget). The answer depends only
on git's configuration, so it is stored in ``.ade/cache/origin.json`` with the signature of every
config file git reads for it (the repository's, the user's, the system's) and of the environment
variables that choose them; a signature that differs asks git again. A config with an
``[include]``/``[includeIf]`` section (whose files the signature cannot follow) is never stored.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine.basics.caller_env import current_environ
from engine.basics.memo import remember
from engine.project.git import GitError, origin_slug, parse_remote_slug, run_git
from engine.project.model import Project
from engine.project.safe_io import loads_json, read_regular
from engine.project.stat import stat_signature

CACHE_NAME = "origin.json"

_ENV = (
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_CONFIG_COUNT",
    "GIT_CONFIG_PARAMETERS",
    "HOME",
    "XDG_CONFIG_HOME",
)
"""What decides which config files git reads, or adds settings of its own."""

_INCLUDE_RE = re.compile(rb"^\s*\[\s*include", re.IGNORECASE | re.MULTILINE)
_MAX_CONFIG_BYTES = 1 << 20


def _config_files(project: Project, env: Mapping[str, str]) -> list[Path]:
    git = project.root / ".git"
    files = [git / "config", git / "config.worktree"]
    home = env.get("HOME")
    xdg = env.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else None)
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(env["GIT_CONFIG_GLOBAL"]))
    else:
        files += [Path(home) / ".gitconfig"] if home else []
        files += [Path(xdg) / "git" / "config"] if xdg else []
    files.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    return files


def config_signature(project: Project) -> str | None:
    """The signature of git's configuration an answer is stored under, or None when it cannot be trusted: a linked
    worktree (its ``.git`` is a file), per-command settings, or a config with includes."""
    env = current_environ()  # git's, as it runs (a daemon's caller's HOME)
    if not (project.root / ".git").is_dir() or env.get("GIT_CONFIG_COUNT"):
        return None
    files = _config_files(project, env)
    signature = stat_signature(files)
    key = (tuple(map(str, files)), signature)
    included = _INCLUDED.get(key)
    if included is None:  # read once per stat of the files (the daemon asks on every answer)
        included = remember(_INCLUDED, key, any(_has_include(p) for p in files), _MAX_REMEMBERED)
    if included:
        return None
    chosen = [env.get(name) for name in _ENV]
    return json.dumps([signature, chosen], separators=(",", ":"))


_INCLUDED: dict[tuple[tuple[str, ...], str], bool] = {}
"""Whether git's config files, as their stat signature says they are, have an include."""

_MAX_REMEMBERED = 64


def _has_include(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            return _INCLUDE_RE.search(handle.read(_MAX_CONFIG_BYTES)) is not None
    except OSError:
        return False  # absent (or unreadable: its stat still keys the entry)


def remembered_origin(project: Project) -> str | None:
    """``origin_slug(project.root)``, read from the cache when git's config is unchanged."""
    signature = config_signature(project)
    if signature is None:
        return origin_slug(project.root)
    path = project.cache_dir / CACHE_NAME
    stored = load_signed(path, signature)
    if stored is not None:
        slug = stored.get("slug")
        if slug is None or isinstance(slug, str):
            return slug
    try:
        url = run_git(project.root, "remote", "get-url", "origin")  # applies url.*.insteadOf
    except GitError as err:
        if "no such remote" not in str(err).lower():
            return None  # git missing, timed out, a broken repository: ask again next time
        url = None  # no origin: as cacheable an answer as a URL
    slug = None if url is None else parse_remote_slug(url)
    store_json(path, {"signature": signature, "slug": slug})
    return slug


MAX_CACHE_BYTES = 1 << 20
"""A memo file larger than this is not read (it was not written by us): asked again."""


def load_signed(path: Path, signature: str) -> dict[str, Any] | None:
    """The memo stored at ``path`` when it was stored under ``signature``, else None.

    Read through ``read_regular``: ``.ade/cache`` is inside the project, so a FIFO, a device or a
    symlink out of the project there is refused (never read, never waited on), like any project
    file (RELIABILITY: hostile files)."""
    try:
        stored = loads_json(read_regular(path, MAX_CACHE_BYTES))
    except (OSError, ValueError):
        return None
    if isinstance(stored, dict) and stored.get("signature") == signature:
        return stored
    return None


def store_json(path: Path, value: dict[str, object]) -> None:
    """Write atomically; a cache that cannot be written (read-only, disk full) is only skipped."""
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temp.write_text(json.dumps(value), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
