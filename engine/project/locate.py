"""Finding the project a command works on and its identity (DESIGN §2, §7)."""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from engine.errors import ProjectError
from engine.project.fields import read_json_object
from engine.project.git import git_toplevel
from engine.project.model import Project
from engine.project.safe_io import project_bounds
from engine.project.tally import WarningTally

PROJECT_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""Same alphabet as session ids: a project id lands in deep links and file names."""

MAX_NAME_CHARS = 200
"""A display name longer than this is garbage, not a name."""

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


def open_project(path: Path | None = None, tally: WarningTally | None = None) -> Project:
    """Open the project at ``path``, or the git top level of the working directory, else the cwd.

    An explicit ``path`` is taken as the root as given (``--project DIR`` overrides discovery).
    Identity comes from ``.ade/project.json`` (``{"id", "name"}``, each validated; garbage falls
    back and is counted under ``project`` in ``tally``), else id = first 12 hex digits of
    sha256(realpath) and name = folder name.

    Raises:
        ProjectError: ``path`` does not exist, is not a directory, or cannot be read.
    """
    if path is not None:
        root = _explicit_root(path)
        is_git = git_toplevel(root) is not None
    else:
        root, is_git = _default_root()
    project_id, name = _identity(root, tally if tally is not None else WarningTally())
    return Project(root=root, id=project_id, name=name, is_git=is_git)


def _explicit_root(path: Path) -> Path:
    candidate = Path(os.path.expanduser(path))
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        raise ProjectError(f"project folder not found: {path}") from None
    if not resolved.is_dir():
        raise ProjectError(f"project path is not a folder: {path}")
    if not os.access(resolved, os.R_OK | os.X_OK):
        raise ProjectError(f"project folder is not readable: {path}")
    return resolved


def _default_root() -> tuple[Path, bool]:
    try:
        cwd = Path.cwd()
    except OSError:
        raise ProjectError("the working directory no longer exists; pass --project DIR") from None
    top = git_toplevel(cwd)
    return _explicit_root(top if top is not None else cwd), top is not None


def default_project_id(root: Path) -> str:
    """First 12 hex digits of sha256 of the project's real path."""
    return hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[
        :12
    ]


def _identity(root: Path, tally: WarningTally) -> tuple[str, str]:
    project_id, name = default_project_id(root), root.name or str(root)
    record = read_json_object(
        root / ".ade" / "project.json", tally, "project", project_bounds(root)
    )
    if record is None:
        return project_id, name
    raw_id, raw_name = record.get("id"), record.get("name")
    if isinstance(raw_id, str) and PROJECT_ID_RE.fullmatch(raw_id) and raw_id not in {".", ".."}:
        project_id = raw_id
    elif raw_id is not None:
        tally.add("project", "bad id in project.json")
    if isinstance(raw_name, str) and _good_name(raw_name):
        name = raw_name.strip()
    elif raw_name is not None:
        tally.add("project", "bad name in project.json")
    return project_id, name


def identity_warnings(root: Path, tally: WarningTally) -> None:
    """Count what is wrong with ``.ade/project.json`` (``open_project`` keeps no tally)."""
    _identity(root, tally)


def _good_name(value: str) -> bool:
    stripped = value.strip()
    return 0 < len(stripped) <= MAX_NAME_CHARS and not _CONTROL_RE.search(stripped)
