"""Whether a folder is a project at all (only a project is served), kept apart from locating one.

A project is a folder with an ``.ade/`` folder, a git work tree, a folder Claude Code keeps
sessions for, or a root registered with ``ade projects add``. Anything else (``/``, ``/etc``, a home folder) is refused: serving it
would create ``.ade/cache`` there and index whatever it holds.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import ProjectError
from engine.project.git import git_toplevel


def is_project(root: Path, *, is_git: bool | None = None) -> bool:
    """True for a folder with ``.ade/``, inside a git work tree (``is_git`` when known), or
    one Claude Code keeps sessions for (``~/.claude/projects/<slug>``: an agent worked there,
    and its chats are what ade searches)."""
    if (root / ".ade").is_dir():
        return True
    if git_toplevel(root) is not None if is_git is None else is_git:
        return True
    from engine.basics.caller_env import current_environ  # the rare path
    from engine.external.discover import claude_projects_dir, claude_slug

    # In the daemon: the asking caller's Claude Code folder, not the daemon's own.
    return (claude_projects_dir(current_environ()) / claude_slug(root)).is_dir()


class NotAProject(ProjectError):
    """The folder is no project (``require_project``): ``ade search`` then searches every
    project ade knows instead (``engine.machine.everywhere``)."""


def require_project(root: Path, *, is_git: bool | None = None, registered: bool = False) -> None:
    """Refuse a folder that is not a project (and not ``registered``).

    Raises:
        NotAProject: one line naming the folder and what would make it a project.
    """
    if registered or is_project(root, is_git=is_git):
        return
    raise NotAProject(
        f"{root} is not a project: no .ade/ folder and not a git work tree "
        "(run `ade term` or `ade projects add` there first, or pass --project DIR)"
    )


def is_registered(root: Path, registry_file: Path) -> bool:
    """Whether ``root`` is in the ``ade projects`` registry (compared as real paths)."""
    from engine.rpc.registry import load_registry  # only on the rare refused path

    projects, _ = load_registry(registry_file)
    real = os.path.realpath(root)
    return any(os.path.realpath(p.root) == real for p in projects)
