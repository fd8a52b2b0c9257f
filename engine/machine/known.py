"""Which projects ade knows on this machine: the registered ones and those agents' sessions name.

* **Registered**: ``ade projects add`` (the registry, ``engine.rpc.registry``).
* **Named by an agent's sessions**: every working folder a Claude Code, Codex, Gemini CLI or
  Copilot CLI session on this machine was started in (their folders under the caller's ``HOME``,
  ``engine.external.roots``), and those every other agent's format names
  (``AgentFormat.named_folders``: the JSON-lines agents' heads, Cline's and Roo Code's task
  histories, the folders in Goose's and OpenCode's session tables, Crush's ``projects.json``, the
  Cursor editor's workspaces that hold chats), taken to its project root as ``ade`` itself would
  open it (a linked worktree or a subfolder names its main worktree). Aider keeps its history in
  the project itself and names none.

Reads are bounded: a few KiB at the head of each transcript (the working folder is on its first
lines), at most ``MAX_TRANSCRIPTS`` transcripts per tool (the newest first).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import AdeError
from engine.external.roots import (
    claude_projects_dir,
    codex_sessions_dir,
    copilot_state_dir,
    gemini_tmp_dir,
)
from engine.project.safe_io import read_regular
from engine.project.tally import WarningTally

PROBE_BYTES = 64 * 1024
"""Bytes read from a transcript's start for its working folder (on the first lines)."""

MAX_TRANSCRIPTS = 2_000
"""Transcripts probed per tool: a machine with years of Codex rollouts is listed by its newest."""

INDEX_NAME = Path(".ade") / "cache" / "search-index.db"
"""A project's index, relative to its root (``engine.project.model.Project.index_path``)."""


@dataclass(frozen=True, slots=True)
class KnownProject:
    """One project ade knows: its root and where it was learned (``registered``, ``claude``…)."""

    root: Path
    source: str

    @property
    def indexed(self) -> bool:
        """Whether ade has indexed it (searching from anywhere reads existing indexes only)."""
        return (self.root / INDEX_NAME).exists()


def known_projects(
    environ: Mapping[str, str], registered: Sequence[Path] = ()
) -> list[KnownProject]:
    """Every project ade knows, the ``registered`` roots first, each root once."""
    found: dict[Path, KnownProject] = {}
    for root in registered:
        found.setdefault(root, KnownProject(root, "registered"))
    roots: dict[str, Path | None] = {}
    for tool, folder in _agent_folders(environ):
        if folder not in roots:
            roots[folder] = _project_root(folder)
        named = roots[folder]
        if named is not None:
            found.setdefault(named, KnownProject(named, tool))
    return list(found.values())


def _project_root(folder: str) -> Path | None:
    """The project root ``ade`` opens for ``folder`` (None: the folder is gone or unreadable)."""
    path = Path(folder)
    if not path.is_absolute() or not path.is_dir():
        return None
    from engine.project.locate import main_worktree

    try:
        return Path(os.path.realpath(main_worktree(path) or path))
    except (AdeError, OSError):
        return None


def _agent_folders(environ: Mapping[str, str]) -> Iterator[tuple[str, str]]:
    """``(tool, working folder)`` of the sessions each agent keeps on this machine."""
    yield from (("claude", cwd) for cwd in _claude_folders(claude_projects_dir(environ)))
    yield from (("codex", cwd) for cwd in _codex_folders(codex_sessions_dir(environ)))
    yield from (("gemini", cwd) for cwd in _gemini_folders(gemini_tmp_dir(environ)))
    yield from (("copilot", cwd) for cwd in _copilot_folders(copilot_state_dir(environ)))
    from engine.external.registry import all_formats

    for fmt in all_formats():  # every other agent says what its sessions name
        if fmt.name not in _READ_HERE:
            yield from ((fmt.name, cwd) for cwd in fmt.named_folders(environ, MAX_TRANSCRIPTS))


_READ_HERE = frozenset({"claude", "codex", "gemini", "copilot"})
"""The agents whose folders are read above (their heads' readers live in their modules)."""


def _newest(paths: list[Path]) -> list[Path]:
    def mtime(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    return sorted(paths, key=mtime, reverse=True)[:MAX_TRANSCRIPTS]


def _probe(path: Path) -> bytes:
    try:
        data = read_regular(path, PROBE_BYTES)
    except OSError:
        return b""
    return data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1]


def _claude_folders(base: Path) -> Iterator[str]:
    """One transcript per Claude folder (each folder is one working folder), the newest."""
    from engine.external.claude_code import ClaudeHead, parse_claude

    try:
        folders = sorted(p for p in base.iterdir() if p.is_dir())
    except OSError:
        return
    for folder in folders:
        for path in _newest(list(folder.glob("*.jsonl")))[:3]:
            head = ClaudeHead()
            parse_claude(_probe(path), 0, "known", WarningTally(), head=head)
            if head.cwd:
                yield head.cwd
                break


def _codex_folders(base: Path) -> Iterator[str]:
    from engine.external.codex import codex_head

    for path in _newest(list(base.glob("*/*/*/rollout-*.jsonl"))):
        cwd = codex_head(_probe(path)).cwd
        if cwd:
            yield cwd


def _gemini_folders(base: Path) -> Iterator[str]:
    """Gemini's ``tmp/<project>/.project_root`` markers name their folder."""
    from engine.external.gemini import PROJECT_ROOT_FILE

    for marker in sorted(base.glob(f"*/{PROJECT_ROOT_FILE}")):
        try:
            text = read_regular(marker, 64 * 1024).decode("utf-8", errors="replace").strip()
        except OSError:
            continue
        if text:
            yield text


def _copilot_folders(base: Path) -> Iterator[str]:
    from engine.external.copilot import EVENTS_FILE, copilot_head

    for path in _newest(list(base.glob(f"*/{EVENTS_FILE}"))):
        cwd = copilot_head(_probe(path)).cwd
        if cwd:
            yield cwd


def same_root(a: Path, b: Path) -> bool:
    """Whether two roots are one folder (as given or resolved)."""
    try:
        return a == b or os.path.samefile(a, b)
    except OSError:
        return False


def root_of_project_id(
    project_id: str, environ: Mapping[str, str], registered: Sequence[Path] = ()
) -> Path | None:
    """The root of the known project whose id is ``project_id`` (a hit's ``project=``), so a
    hit found from anywhere opens and resumes there; None when no known project has it."""
    from engine.project.locate import open_project

    for known in known_projects(environ, registered):
        try:
            if open_project(known.root).id == project_id:
                return known.root
        except (AdeError, OSError):
            continue
    return None
