"""Files of the primary lane, asked at query time (DESIGN §5): path matches and line matches.

Both halves are git itself: ``git ls-files`` lists tracked and untracked-but-not-ignored files
(so ``.gitignore`` is honoured exactly as the user expects), and ``git grep`` finds lines — it is
multi-threaded, skips binaries (``-I``) and is the baseline the benchmark compares against, so
wrapping it rather than re-implementing a scanner keeps us within a few percent of it. The two
processes run concurrently. Every user-derived argument follows ``-e`` or ``--``, so a term that
starts with ``-`` is never read as an option.
"""

from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

GIT_TIMEOUT_SECONDS = 5.0
"""A grep over a huge tree must not hold the whole answer hostage."""

MAX_LINE_HITS = 200
"""Line matches kept per query; ranking only needs enough to fill a few pages."""

MAX_LINE_HITS_PER_FILE = 5
"""One file full of matches must not crowd out every other file."""

MAX_LINE_CHARS = 400
"""Minified files have megabyte lines; a snippet never needs more than this."""

_GIT_ENV = {"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


@dataclass(frozen=True, slots=True)
class FileLineHit:
    path: str
    line: int
    text: str


class FileSearchFailed(Exception):
    """git could not list or grep the lane; one line for the query's warnings."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            timeout=GIT_TIMEOUT_SECONDS,
            env={**os.environ, **_GIT_ENV},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise FileSearchFailed(f"git in {root} failed: {err}") from None


def list_lane_files(root: Path) -> list[str]:
    """Tracked and untracked-not-ignored files of the work tree at ``root``, sorted."""
    done = _git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    if done.returncode != 0:
        raise FileSearchFailed(_first_line(done.stderr) or f"git ls-files failed in {root}")
    names = {name.decode("utf-8", "replace") for name in done.stdout.split(b"\0") if name}
    return sorted(names)


def grep_lane_lines(root: Path, terms: list[str]) -> list[FileLineHit]:
    """Lines containing every term (case-insensitive, fixed strings) in the lane's files.

    git grep is asked for the longest term (the most selective); the other terms are checked
    here on the returned lines, which is exact and cheap because few lines survive the first.
    """
    if not terms:
        return []
    lead = max(terms, key=len)
    done = _git(
        root, "grep", "--untracked", "-I", "-i", "-F", "-n", "-z", "--no-color",
        f"--max-count={MAX_LINE_HITS_PER_FILE}", "-e", lead, "--",
    )  # fmt: skip
    if done.returncode not in (0, 1):  # 1 means no match
        raise FileSearchFailed(_first_line(done.stderr) or f"git grep failed in {root}")
    folded = [t.casefold() for t in terms]
    hits: list[FileLineHit] = []
    for record in done.stdout.split(b"\n"):
        parts = record.split(b"\0", 2)
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        text = parts[2].decode("utf-8", "replace")
        if all(term in text.casefold() for term in folded):
            hits.append(
                FileLineHit(
                    path=parts[0].decode("utf-8", "replace"),
                    line=int(parts[1]),
                    text=text[:MAX_LINE_CHARS],
                )
            )
            if len(hits) >= MAX_LINE_HITS:
                break
    return hits


def search_lane_files(root: Path, terms: list[str]) -> tuple[list[str], list[FileLineHit]]:
    """The file list and the line hits for ``terms``, from two concurrent git processes."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        listing = pool.submit(list_lane_files, root)
        lines = pool.submit(grep_lane_lines, root, terms)
        return listing.result(), lines.result()


def _first_line(stderr: bytes) -> str:
    text = stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else ""
