"""``build_demo``: create the deterministic demo project in a folder (DESIGN §2 layout)."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from engine.demo.artifacts import write_artifacts
from engine.demo.chats import write_chats
from engine.demo.clock import DEMO_NOW, demo_clock
from engine.demo.prs import write_prs
from engine.demo.repo import WORKTREE_DIR, build_repo
from engine.demo.repo_files import FILES
from engine.demo.store import write_json
from engine.demo.terminals import write_terminals
from engine.errors import UsageError

DEMO_PROJECT = {"id": "acme-payments-demo", "name": "payments-api"}
"""``.ade/project.json``; the id doubles as the marker that a folder holds a previous demo."""


@dataclass(frozen=True)
class DemoSummary:
    """What ``build_demo`` made; the ids are what tests and the README refer to."""

    root: Path
    project_id: str
    commit_count: int
    branches: tuple[str, ...]
    lanes: tuple[str, ...]
    chat_sessions: tuple[str, ...]
    terminal_sessions: tuple[str, ...]
    prs: tuple[int, ...]
    artifacts: tuple[str, ...]
    head_shas: tuple[tuple[str, str], ...]
    """(branch, tip sha) pairs, sorted by branch."""


def _demo_owned_names() -> set[str]:
    """Top-level names a demo build writes (what ``--force`` may remove)."""
    tracked = {path.split("/", 1)[0] for path in FILES}
    return tracked | {".git", ".ade", WORKTREE_DIR}


def _is_previous_demo(dest: Path) -> bool:
    try:
        marker = json.loads((dest / ".ade" / "project.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("id") == DEMO_PROJECT["id"]


def prepare_destination(dest: Path, *, force: bool) -> None:
    """Make ``dest`` ready for a build, or refuse with a ``UsageError``.

    A missing or empty folder is used as is. A non-empty one needs ``force``; even then a folder
    holding a git repository or ``.ade/`` that is not a previous demo is refused, because replacing
    it would destroy someone's project. With ``force`` only demo-owned top-level names are removed.
    """
    if dest.exists() and not dest.is_dir():
        raise UsageError(f"{dest} exists and is not a folder")
    if not dest.exists() or not any(dest.iterdir()):
        dest.mkdir(parents=True, exist_ok=True)
        return
    if not force:
        raise UsageError(f"{dest} is not empty; pass --force to replace the demo in it")
    if not _is_previous_demo(dest) and ((dest / ".git").exists() or (dest / ".ade").exists()):
        raise UsageError(
            f"{dest} holds a git repository or .ade folder that is not an ade demo; "
            "refusing to replace it even with --force"
        )
    for name in sorted(_demo_owned_names()):
        path = dest / name
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()


def build_demo(dest: Path, *, force: bool = False, now: datetime | None = None) -> DemoSummary:
    """Build the demo project in ``dest`` and return what it holds; every timestamp is relative
    to ``now`` (default ``DEMO_NOW``, which tests and snapshots pin).

    Raises:
        UsageError: ``dest`` is not empty and ``force`` is false, or it holds something that is
            not a previous demo and must not be replaced.
    """
    with demo_clock(now or DEMO_NOW):
        return _build(Path(dest).absolute(), force=force)


def _build(dest: Path, *, force: bool) -> DemoSummary:
    prepare_destination(dest, force=force)
    repo = build_repo(dest)
    ade = dest / ".ade"
    write_json(ade / "project.json", DEMO_PROJECT)
    chats = write_chats(ade, repo.subjects)
    terminals = write_terminals(ade, dest)
    prs = write_prs(ade)
    artifacts = write_artifacts(ade)
    return DemoSummary(
        root=dest,
        project_id=DEMO_PROJECT["id"],
        commit_count=repo.commit_count,
        branches=repo.branches,
        lanes=repo.lanes,
        chat_sessions=chats,
        terminal_sessions=terminals,
        prs=prs,
        artifacts=artifacts,
        head_shas=tuple(sorted(repo.head_shas.items())),
    )
