"""What every agent's discovery shares: a file's acceptance, its lane, its session record.

Agent session files sit under HOME by design, not in the project, so "contained" means inside
the agent's own folders (``AgentFormat.bounds``); a file linked out of them or no regular file is
refused and counted once. A session belongs to the lane holding its working folder (a subfolder
included), memoised: every transcript of the machine is checked on each listing, and most share a
handful of working folders.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

from engine.external.heads import Head, HeadCache
from engine.external.last_activity import last_message_time
from engine.external.skips import skip_file
from engine.importers.lane_choice import lane_containing
from engine.project.fields import parse_aware_time
from engine.project.model import Lane, SessionMeta, is_valid_session_id
from engine.project.safe_io import Bounds, is_regular_file, read_regular
from engine.project.tally import WarningTally

HEAD_BYTES = 256 * 1024
"""Bytes read from the start of a transcript to learn its cwd and title: the first user line is
near the top; a pasted image can push it further, and then the title falls back to the id."""


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
    del is_file  # linked out or no regular file: refused either way
    skip_file(tally, tool, "refused", path)
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


def session_meta(
    sid: str, tool: str, path: Path, head: Head, st: os.stat_result, lanes: list[Lane],
    *, last_message: bool = False,
) -> SessionMeta | None:  # fmt: skip
    """The chat session of one transcript whose head named a folder inside ``lanes`` (None:
    no folder, an invalid id, or a folder elsewhere — a lossy folder name matched).

    ``last_message``: the session's last activity is its last message's time, not the file's
    mtime (a day-old chat touched by a summary line is not "just now")."""
    if head.cwd is None or not is_valid_session_id(sid):
        return None
    lane = lane_of(lanes, head.cwd)
    if lane is None:
        return None
    mtime = datetime.fromtimestamp(st.st_mtime, UTC)
    created = parse_aware_time(head.first_ts) or mtime
    last = (last_message_time(path, st) or mtime) if last_message else mtime
    return SessionMeta(
        id=sid, kind="chat", title=head.title or sid, lane_id=lane.id, created_at=created,
        updated_at=max(created, last), tool=tool, source=tool, transcript_path=path,
    )  # fmt: skip


_LANE_MEMO: dict[tuple[tuple[tuple[str, Path], ...], str], Lane | None] = {}
"""``lane_containing`` resolves both paths (a few syscalls)."""

LANE_MEMO_MAX = 4096
"""Distinct (lanes, cwd) pairs remembered; cleared when full."""


def lane_of(lanes: list[Lane], cwd: str) -> Lane | None:
    """The lane holding folder ``cwd`` (a subfolder included), memoised."""
    key = (tuple((lane.id, lane.path) for lane in lanes), cwd)
    if key not in _LANE_MEMO:
        if len(_LANE_MEMO) >= LANE_MEMO_MAX:
            _LANE_MEMO.clear()
        _LANE_MEMO[key] = lane_containing(lanes, Path(cwd))
    return _LANE_MEMO[key]


def read_head(path: Path, bounds: Bounds | None = None) -> bytes:
    """The first ``HEAD_BYTES`` of ``path`` (empty when it cannot be read)."""
    try:
        return read_regular(path, HEAD_BYTES, bounds)
    except OSError:
        return b""


def ms_time(value: int) -> datetime:
    """A time in milliseconds since the epoch (negative: the epoch)."""
    return datetime.fromtimestamp(max(value, 0) / 1000, UTC)


def real(path: Path) -> Path:
    """``path`` resolved, or as given when it cannot be."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


HeadFields = tuple[str | None, str | None, str | None, str | None]
"""What a transcript's first bytes say: ``(cwd, id, title, first time)``."""


def scan_head(
    path: Path, heads: HeadCache, learn: Callable[[bytes], HeadFields],
    bounds: Bounds | None = None,
) -> tuple[Head, os.stat_result] | None:  # fmt: skip
    """The head of ``path`` (from the cache while the file is the same) and its stat; None
    when the file is gone. ``learn`` reads the first ``HEAD_BYTES`` when the cache has none."""
    try:
        st = path.stat()
    except OSError:
        return None
    cached = heads.get(path, st)
    if cached is not None:
        return cached, st
    data = read_head(path, bounds)
    complete = len(data) >= HEAD_BYTES
    cwd, ident, title, first_ts = learn(data)
    head = Head(st.st_ino, len(data) if complete else st.st_size, complete, cwd, ident, title,
                first_ts)  # fmt: skip
    if complete or len(data) == st.st_size:
        heads.put(path, head)  # a file growing while read is read again next time
    return head, st


def newest_first(paths: Iterable[Path], limit: int) -> list[Path]:
    """The ``limit`` most recently modified of ``paths`` (one gone meanwhile sorts last): the
    sessions whose working folders ``AgentFormat.named_folders`` reads."""

    def mtime(path: Path) -> float:
        try:
            return path.stat().st_mtime
        except OSError:
            return 0.0

    return sorted(paths, key=mtime, reverse=True)[:limit]
