"""The project registry behind ``ade projects``: which projects multi-project search spans.

One JSON file, ``<config>/projects.json`` (``ADE_CONFIG_DIR`` overrides the folder), written
atomically (temp file + ``os.replace``) so a crash never leaves half a registry. Each entry has
the project's id, display name and absolute root, taken from the project itself when added.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.errors import AdeError, UsageError
from engine.project.locate import open_project
from engine.rpc.paths import config_dir

REGISTRY_NAME = "projects.json"
REGISTRY_VERSION = 1


@dataclass(frozen=True, slots=True)
class RegisteredProject:
    """One registry entry."""

    id: str
    name: str
    root: Path


def registry_path(config: Path | None = None) -> Path:
    """Where the registry file lives."""
    return (config if config is not None else config_dir()) / REGISTRY_NAME


def load_registry(path: Path) -> tuple[list[RegisteredProject], list[str]]:
    """Read the registry; a missing file is an empty registry.

    Returns:
        The entries, and warnings for entries or files that could not be read (skipped).
    """
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return [], []
    except (OSError, ValueError) as err:
        return [], [f"project registry {path} is unreadable: {err}"]
    entries = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return [], [f"project registry {path} has no project list"]
    projects: list[RegisteredProject] = []
    warnings: list[str] = []
    for entry in entries:
        project = _entry(entry)
        if project is None:
            warnings.append(f"skipped a malformed entry in {path}")
        else:
            projects.append(project)
    return projects, warnings


def _entry(entry: Any) -> RegisteredProject | None:
    if not isinstance(entry, dict):
        return None
    pid, name, root = entry.get("id"), entry.get("name"), entry.get("root")
    if not (isinstance(pid, str) and isinstance(name, str) and isinstance(root, str)):
        return None
    if not (pid and name and root):
        return None
    if not Path(root).is_absolute():
        return None
    return RegisteredProject(id=pid, name=name, root=Path(root))


def save_registry(path: Path, projects: list[RegisteredProject]) -> None:
    """Write the registry atomically, private to the user."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    body = {
        "version": REGISTRY_VERSION,
        "projects": [{"id": p.id, "name": p.name, "root": str(p.root)} for p in projects],
    }
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(body, indent=2) + "\n", "utf-8")
    os.chmod(temp, 0o600)
    os.replace(temp, path)


def add_project(path: Path, root: Path | None) -> RegisteredProject:
    """Register the project at ``root`` (identity read from the project); idempotent by root.

    ``root`` of ``None`` means the current project (git top level of the cwd, else the cwd).

    Raises:
        ProjectError: the folder does not exist or cannot be read.
        UsageError: another registered project already has the same id.
    """
    project = open_project(root)
    entry = RegisteredProject(id=project.id, name=project.name, root=project.root)
    projects, _ = load_registry(path)
    others = [p for p in projects if p.root != entry.root]
    clash = next((p for p in others if p.id == entry.id), None)
    if clash is not None:
        raise UsageError(
            f"project id {entry.id!r} is already registered for {clash.root}; "
            "give one of them a distinct id in .ade/project.json"
        )
    save_registry(path, [*others, entry])
    return entry


def remove_project(path: Path, key: str) -> RegisteredProject:
    """Unregister the project whose id, name or root is ``key``.

    Raises:
        UsageError: nothing matches, or a name matches several projects.
    """
    projects, _ = load_registry(path)
    resolved = os.path.realpath(os.path.expanduser(key))
    matches = [p for p in projects if key in (p.id, str(p.root)) or str(p.root) == resolved]
    if not matches:
        matches = [p for p in projects if p.name == key]
    if not matches:
        raise UsageError(f"no registered project matches {key!r} (see `ade projects list`)")
    if len(matches) > 1:
        raise UsageError(f"{key!r} names several projects; use the id or the root")
    save_registry(path, [p for p in projects if p is not matches[0]])
    return matches[0]


def require_registry_ok(path: Path) -> list[RegisteredProject]:
    """The registry's entries, raising when the file itself is unreadable (for ``ade projects``)."""
    projects, warnings = load_registry(path)
    if warnings and not projects:
        raise AdeError(warnings[0])
    return projects
