"""Untracked files searched in this process (``engine.delegates.file_passes.search_lane``): the
same line search as ``git grep`` of the tracked ones (``engine.delegates.files``), over the
new files ``git ls-files`` listed, without git's own walk of the work tree."""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Sequence
from pathlib import Path

from engine.delegates.files import MAX_LINE_HITS, FileLineHit, is_ade_state, line_filter
from engine.query.match import LineFilter

UNTRACKED_MAX_BYTES = 1024 * 1024
"""Larger untracked files are data dumps or logs, not code; they are not read, and the answer
says how many were left out (every untracked file under it is searched, however many)."""


def grep_untracked(
    root: Path, paths: Sequence[str], terms: Sequence[str] | LineFilter, limit: int = MAX_LINE_HITS
) -> list[FileLineHit]:
    """:func:`scan_untracked`'s hits alone."""
    return scan_untracked(root, paths, line_filter(terms), limit)[0]


def scan_untracked(
    root: Path,
    paths: Sequence[str],
    wanted: LineFilter,
    limit: int = MAX_LINE_HITS,
    keep: Callable[[str, str], bool] | None = None,
) -> tuple[list[FileLineHit], int]:
    """The same line search over untracked files, in this process, at most ``limit`` lines, and
    how many files were too large to read (``UNTRACKED_MAX_BYTES``).

    Untracked-not-ignored files are few in a real work tree (new files not yet added), and
    ``git ls-files`` has already listed them; reading them here saves ``git grep --untracked``
    its own walk of the whole directory tree (~15% of a grep on 10,000 files). Like ``git grep``
    it skips binaries (a NUL in the first 8000 bytes), does not follow symlinks and numbers
    lines by ``\\n`` alone. Every listed file is read, however many there are.
    """
    hits: list[FileLineHit] = []
    too_large = 0
    for relative in paths:
        if is_ade_state(relative):
            continue
        data = _read_regular(root / relative)
        if data is _TOO_LARGE:
            too_large += 1
            continue
        if data is None or b"\0" in data[:8000]:
            continue
        lines = data.split(b"\n")
        if lines and not lines[-1]:
            lines.pop()
        for number, raw in enumerate(lines, 1):
            line = raw.decode("utf-8", "replace")
            if wanted.admits(f"{relative}\n{line}") and (keep is None or keep(relative, line)):
                hits.append(FileLineHit(relative, number, line))
                if len(hits) >= limit:
                    return hits, too_large
    return hits, too_large


_TOO_LARGE = b"\0too large"
"""``_read_regular``'s answer for a regular file over ``UNTRACKED_MAX_BYTES``."""


def _read_regular(path: Path) -> bytes | None:
    """The bytes of a regular file (not a symlink, not too big), or None."""
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > UNTRACKED_MAX_BYTES:
            return _TOO_LARGE
        return path.read_bytes()
    except OSError:
        return None
