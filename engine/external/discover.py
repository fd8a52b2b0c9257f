"""Finding a project's Claude Code and Codex sessions and listing them as chat sessions.

Claude Code: ``$CLAUDE_CONFIG_DIR/projects`` (default ``~/.claude/projects``) holds one folder
per working directory, named by the absolute path with every non-alphanumeric character replaced
by ``-``. That is lossy (``a-b`` and ``a/b`` collide), so each file is confirmed by the ``cwd`` its
lines carry, and its lane is the worktree holding that ``cwd``. Subagent transcripts
(``<session>/subagents/agent-*.jsonl``) belong to their parent session. Codex: every
``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl`` (default ``~/.codex``) whose ``session_meta``
cwd lies in the project or one of its lanes.
"""

from __future__ import annotations

import os
import stat
import zlib
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path

from engine.external.heads import Head, HeadCache
from engine.external.last_activity import last_message_time
from engine.external.roots import (
    claude_folder_matches,
    claude_lane_slugs,
    claude_projects_dir,
    claude_slug,
    codex_sessions_dir,
    copilot_state_dir,
    gemini_tmp_dir,
    opencode_data_dir,
)
from engine.importers.lane_choice import lane_containing
from engine.project.fields import parse_aware_time
from engine.project.model import Lane, Project, SessionMeta, is_valid_session_id
from engine.project.safe_io import Bounds, is_regular_file, read_regular
from engine.project.tally import WarningTally

__all__ = [  # the folder names moved to engine.external.roots; callers still import them here
    "claude_folder_matches",
    "claude_lane_slugs",
    "claude_projects_dir",
    "claude_slug",
    "codex_sessions_dir",
]

HEAD_BYTES = 256 * 1024
"""Bytes read from the start of a transcript to learn its cwd and title: the first user line is
near the top; a pasted image can push it further, and then the title falls back to the id."""

SUBAGENT_SEQ_STRIDE = 10**12
"""Offsets stay below 1 TB, so ``file number * 10**12 + offset`` reads back as both."""


def transcript_sources(meta: SessionMeta) -> list[tuple[str, Path, int]]:
    """``(source key, file, seq base)`` of every transcript file of an external session."""
    if meta.transcript_path is None:
        return []
    out = [(f"chat:{meta.id}", meta.transcript_path, 0)]
    if meta.source == "claude":
        for path, seq_base in subagent_sources(meta.transcript_path):
            out.append((f"chat:{meta.id}/{path.stem}", path, seq_base))
    return out


def subagent_sources(transcript: Path) -> list[tuple[Path, int]]:
    """``(file, seq base)`` of each subagent file of a Claude session: the base is a stable file
    number times ``SUBAGENT_SEQ_STRIDE``, so anchors never collide with the main file's."""
    return [
        (path, (zlib.crc32(path.stem.encode()) % 4096 + 1) * SUBAGENT_SEQ_STRIDE)
        for path in claude_subagent_files(transcript)
    ]


def claude_subagent_files(transcript: Path) -> list[Path]:
    """``<folder>/<session>/subagents/agent-*.jsonl`` of a Claude session, sorted: regular files
    whose real location stays in the session's folder (no symlink out, no FIFO)."""
    folder = transcript.with_suffix("") / "subagents"
    try:
        found = sorted(folder.glob("agent-*.jsonl"))
    except OSError:
        return []
    bounds = Bounds([transcript.parent])
    return [path for path in found if is_regular_file(path, bounds)]


def external_sessions(
    project: Project, lanes: list[Lane], tally: WarningTally,
    environ: Mapping[str, str] | None = None, heads: HeadCache | None = None,
) -> list[SessionMeta]:  # fmt: skip
    """Every Claude Code and Codex session (and, through ``engine.external.agents``, Gemini CLI,
    OpenCode, Copilot CLI and Aider session) whose cwd is in the project or one of its lanes.

    ``heads`` remembers what each file's head said, so a warm listing stats files and reads none.
    """
    env = os.environ if environ is None else environ
    cache = heads if heads is not None else HeadCache(None)
    roots = lanes or [project_lane(project)]
    found = [*_claude(roots, tally, env, cache), *_codex(roots, tally, env, cache)]
    from engine.external.agents import agent_sessions  # Gemini, OpenCode, Copilot, Aider

    found += agent_sessions(roots, tally, env, cache)
    return sorted(found, key=lambda m: m.id)


def project_lane(project: Project) -> Lane:
    """The project folder as its one lane, for a project without lanes (not a git repository)."""
    return Lane("primary", project.name, project.root, None, True)


def claude_folders(lanes: list[Lane], environ: Mapping[str, str]) -> set[Path]:
    """The Claude Code project folders that may hold sessions of ``lanes``: each lane's own and
    those of its subfolders (a session started in ``lane/src`` has the folder ``<slug>-src``;
    the slug is lossy, so the cwd in each file decides, as for the lane's own folder)."""
    base = claude_projects_dir(environ)
    slugs = claude_lane_slugs(lanes)
    found = {base / slug for slug in slugs}
    try:
        names = [entry.name for entry in os.scandir(base) if entry.is_dir()]
    except OSError:
        return found
    return found | {base / name for name in names if claude_folder_matches(name, slugs)}


def _claude(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    found: list[SessionMeta] = []
    bounds = tool_bounds("claude", env)
    base = claude_projects_dir(env)  # a project folder linked out is caught below it
    for folder in sorted(claude_folders(lanes, env)):
        try:
            files = sorted(folder.glob("*.jsonl"))
        except OSError:
            continue
        for path in files:
            if not acceptable(path, bounds, "claude", tally, base):
                continue
            scanned = _scan(path, "claude", heads)
            if scanned is None:
                continue
            head, st = scanned
            meta = _meta(f"claude-{path.stem}", "claude", path, head, st, lanes)
            if meta is not None:
                found.append(meta)
            elif head.cwd is None:
                tally.add("claude", f"{path.name}: no cwd in its first lines")
    return found


def _codex(
    lanes: list[Lane], tally: WarningTally, env: Mapping[str, str], heads: HeadCache
) -> list[SessionMeta]:
    try:
        root = codex_sessions_dir(env)
        files = sorted(root.glob("*/*/*/rollout-*.jsonl"))
    except OSError:
        return []
    found: list[SessionMeta] = []
    bounds = tool_bounds("codex", env)
    for path in files:
        if not acceptable(path, bounds, "codex", tally, root):
            continue
        scanned = _scan(path, "codex", heads)
        if scanned is None:
            continue
        head, st = scanned
        ident = head.ident or path.stem.removeprefix("rollout-")
        meta = _meta(f"codex-{ident}", "codex", path, head, st, lanes)
        if meta is not None:
            found.append(meta)
        elif head.cwd is None:
            tally.add("codex", f"{path.name}: no session_meta cwd")
    return found


def tool_bounds(tool: str, environ: Mapping[str, str], lanes: Sequence[Lane] = ()) -> Bounds:
    """Where a tool's session file may really live: its tool's own root folder.

    They sit under HOME by design, not in the project, so "contained" means inside
    ``$CLAUDE_CONFIG_DIR/projects``, ``$CODEX_HOME/sessions``, Gemini CLI's ``~/.gemini/tmp``,
    OpenCode's data folder or Copilot CLI's ``session-state``: a rollout symlinked to
    ``~/.ssh/id_rsa`` is refused like an ``.ade`` transcript linked out of the project. Aider's
    history sits beside the repository, so its bounds are ``lanes`` (the project and the lanes
    git lists as worktrees).
    """
    if tool == "claude":
        return Bounds([claude_projects_dir(environ)], label="the Claude Code projects folder")
    if tool == "codex":
        return Bounds([codex_sessions_dir(environ)], label="the Codex sessions folder")
    if tool == "aider":
        return Bounds([lane.path for lane in lanes], label="the project's lanes")
    roots = {
        "gemini": (gemini_tmp_dir, "the Gemini CLI tmp folder"),
        "opencode": (opencode_data_dir, "the OpenCode data folder"),
        "copilot": (copilot_state_dir, "the Copilot CLI session-state folder"),
    }
    if tool not in roots:
        raise ValueError(f"no bounds for tool {tool!r}")
    folder, label = roots[tool]
    return Bounds([folder(environ)], label=label)


def acceptable(
    path: Path, bounds: Bounds, tool: str, tally: WarningTally, root: Path | None = None
) -> bool:
    """A regular file inside ``bounds``; anything else is counted once under ``tool`` (however
    often the folder is listed: a daemon re-lists on every reconcile).

    ``root``: the (unresolved) bound ``path`` was listed under. When no component of ``path``
    below it is a symlink, the file is inside without resolving the whole path: an lstat per
    component below ``root`` instead of ``realpath`` (a warm listing of 500 files).
    """
    if root is not None and _plain_below(path, root):
        return True
    if is_regular_file(path, bounds):
        return True
    try:
        is_file = path.is_file()
    except OSError:
        is_file = False
    reason = f"links outside {bounds.describe()}" if is_file else "is not a regular file"
    tally.add_once(tool, f"refused {path.name}: {reason}")
    return False


def _plain_below(path: Path, root: Path) -> bool:
    """``path`` is a regular file and no component of it below ``root`` is a symlink."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return False
    current = root
    mode = 0
    try:
        for part in parts:
            current = current / part
            mode = os.lstat(current).st_mode
            if stat.S_ISLNK(mode):
                return False
    except OSError:
        return False
    return stat.S_ISREG(mode)


def _scan(path: Path, tool: str, heads: HeadCache) -> tuple[Head, os.stat_result] | None:
    """The head of ``path`` (from the cache while the file is the same) and its stat."""
    try:
        st = path.stat()
    except OSError:
        return None
    cached = heads.get(path, st)
    if cached is not None:
        return cached, st
    # The parsers are imported here, not at the top: a warm run whose heads are all cached (the
    # usual case) never parses a transcript, and they cost a few ms of start-up.
    from engine.external.claude_code import ClaudeHead, parse_claude
    from engine.external.codex import codex_head

    data = _head(path)
    complete = len(data) >= HEAD_BYTES
    if tool == "claude":
        claude = ClaudeHead()
        parse_claude(data, 0, f"chat:claude-{path.stem}", WarningTally(), head=claude)
        head = Head(st.st_ino, len(data) if complete else st.st_size, complete, claude.cwd,
                    None, claude.title, claude.first_ts)  # fmt: skip
    else:
        codex = codex_head(data)
        head = Head(st.st_ino, len(data) if complete else st.st_size, complete, codex.cwd,
                    codex.session_id, codex.first_user, codex.first_ts)  # fmt: skip
    if complete or len(data) == st.st_size:
        heads.put(path, head)  # a file growing while read is read again next time
    return head, st


def _meta(
    sid: str, tool: str, path: Path, head: Head, st: os.stat_result, lanes: list[Lane]
) -> SessionMeta | None:
    if head.cwd is None or not is_valid_session_id(sid):
        return None
    lane = _lane_of(lanes, head.cwd)
    if lane is None:
        return None  # the folder name matched but the cwd is elsewhere (lossy slug)
    mtime = datetime.fromtimestamp(st.st_mtime, UTC)
    created = parse_aware_time(head.first_ts) or mtime
    # The last message, not the mtime: a day-old chat touched by a summary line is not "just now".
    last = last_message_time(path, st) or mtime
    return SessionMeta(
        id=sid, kind="chat", title=head.title or sid, lane_id=lane.id, created_at=created,
        updated_at=max(created, last), tool=tool, source=tool, transcript_path=path,
    )  # fmt: skip


_LANE_MEMO: dict[tuple[tuple[tuple[str, Path], ...], str], Lane | None] = {}
"""``lane_containing`` resolves both paths (a few syscalls): every rollout of the machine is
checked on each listing, and most share a handful of working folders."""

LANE_MEMO_MAX = 4096
"""Distinct (lanes, cwd) pairs remembered; cleared when full."""


def _lane_of(lanes: list[Lane], cwd: str) -> Lane | None:
    key = (tuple((lane.id, lane.path) for lane in lanes), cwd)
    if key not in _LANE_MEMO:
        if len(_LANE_MEMO) >= LANE_MEMO_MAX:
            _LANE_MEMO.clear()
        _LANE_MEMO[key] = lane_containing(lanes, Path(cwd))
    return _LANE_MEMO[key]


def _head(path: Path) -> bytes:
    try:
        return read_regular(path, HEAD_BYTES)
    except OSError:
        return b""
