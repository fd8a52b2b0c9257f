"""Finding the project a command works on and its identity (DESIGN §2, §7)."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import re
from pathlib import Path

from engine.basics.digests import sha256_hex
from engine.errors import ProjectError
from engine.project.bounds import project_bounds
from engine.project.fields import read_json_object
from engine.project.git import GitError, git_toplevel, run_git, worktrees
from engine.project.model import Project
from engine.project.plain_repo import is_plain_main_worktree, plain_main_worktree_above
from engine.project.tally import WarningTally

PROJECT_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""Same alphabet as session ids: a project id lands in deep links and file names."""

MAX_NAME_CHARS = 200
"""A display name longer than this is garbage, not a name."""

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


def open_project(path: Path | None = None, tally: WarningTally | None = None) -> Project:
    """Open the project at ``path``, or the main worktree of the working directory's repository
    (from a linked worktree or a subfolder too: every lane shares one ``.ade/``), else the cwd.

    An explicit ``path`` is taken as the root as given (``--project DIR`` overrides discovery).
    Identity comes from ``.ade/project.json`` (``{"id", "name"}``, each validated; garbage falls
    back and is counted under ``project`` in ``tally``), else id = first 12 hex digits of
    sha256(realpath) and name = folder name.

    Raises:
        ProjectError: ``path`` does not exist, is not a directory, or cannot be read.
    """
    if path is not None:
        root = _explicit_root(path)
        # A plain main worktree is known without a git process (the start-up budget).
        is_git = is_plain_main_worktree(root) or git_toplevel(root) is not None
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
    # The usual case known without git: its two processes (and importing ``subprocess``) were
    # ~5 ms of every ``ade search --no-daemon`` run inside a repository.
    plain = plain_main_worktree_above(str(cwd))
    if plain is not None:
        return _explicit_root(Path(plain)), True
    top = git_toplevel(cwd)
    if top is None:
        return _explicit_root(cwd), False
    return _explicit_root(main_worktree(top) or top), True


def main_worktree(path: Path) -> Path | None:
    """The main worktree of the repository whose work tree holds ``path`` (``path``'s own top
    level when it is the main one), or ``None``: not a repository, or a bare repository whose
    main "worktree" has no files (its linked worktree is then the project).

    A linked worktree's git dir differs from the common dir; the main worktree is the common
    dir's parent when the common dir is a ``.git`` folder, else git's own worktree list says.
    """
    try:
        out = run_git(
            path, "rev-parse", "--path-format=absolute", "--show-toplevel", "--git-dir",
            "--git-common-dir",
        )  # fmt: skip
    except GitError:
        return None
    lines = out.splitlines()
    if len(lines) != 3:
        return None
    top, git_dir, common = (Path(line) for line in lines)
    if git_dir == common:
        return top
    if common.name == ".git" and common.parent.is_dir():
        return common.parent
    try:
        trees = worktrees(path)
    except GitError:
        return None
    main = trees[0] if trees else None
    return main.path if main is not None and not main.bare and main.path.is_dir() else None


def default_project_id(root: Path) -> str:
    """First 12 hex digits of sha256 of the project's real path."""
    return sha256_hex(os.path.realpath(root).encode("utf-8", "surrogateescape"))[:12]


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
