"""Walking a whole commit history through ``git log``, streamed.

``recent_commits`` reads one bounded ``git log`` at once; a history of 80,000 commits is ~25 MB of
messages, so here the output is read from the pipe in pieces and handed out a slice at a time: the
caller holds one slice, never the history. Revisions go in on stdin (``--stdin``): any number of
tips and ``^exclusions`` without an argument-length limit, and never parsed as options. They are
full object names only (checked here), so nothing a user or a file wrote reaches git's parser.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from engine.project.git import _CONFIG, GitError, _env, _parse_git_time, run_git, stderr_file
from engine.project.model import Commit

SHA_RE = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
"""A full SHA-1 or SHA-256 object name."""

READ_BYTES = 256 * 1024
"""Bytes read from the pipe at a time."""

STALL_TIMEOUT_S = 60.0
"""Longest wait for the next piece of output (git prints its first commit of a big walk within
a second or two; minutes of silence mean it hangs)."""

_FORMAT = "%H%x00%s%x00%b%x00%an%x00%cI"
_FIELDS = 5


def _checked(shas: Iterable[str]) -> list[str]:
    out: list[str] = []
    for sha in shas:
        if not SHA_RE.fullmatch(sha):
            raise GitError(f"not an object name: {sha[:80]!r}")
        out.append(sha)
    return out


def existing_commits(repo_path: Path, shas: Iterable[str]) -> set[str]:
    """The ``shas`` that name commits in the repository (a pruned or foreign sha is not one).

    git refuses to walk from a missing object even with ``--ignore-missing``, so remembered tips
    are filtered here first, in one ``cat-file --batch-check``.

    Raises:
        GitError: not a repository, or git failed.
    """
    wanted = sorted(set(_checked(shas)))
    if not wanted:
        return set()
    cmd = ["git", "--no-pager", "-C", str(Path(repo_path).absolute()), *_CONFIG,
           "cat-file", "--batch-check=%(objectname) %(objecttype)"]  # fmt: skip
    try:
        proc = subprocess.run(cmd, input="\n".join(wanted) + "\n", capture_output=True,
                              text=True, env=_env(), timeout=60, check=False)  # fmt: skip
    except (FileNotFoundError, subprocess.TimeoutExpired) as err:
        raise GitError(f"git cat-file failed: {type(err).__name__}") from err
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise GitError(lines[0] if lines else f"git exited with {proc.returncode}")
    found = set()
    for line in proc.stdout.splitlines():
        name, _, kind = line.partition(" ")
        if kind == "commit":
            found.add(name)
    return found


def count_commits(repo_path: Path, include: list[str], exclude: list[str]) -> int:
    """How many commits ``include`` reaches that ``exclude`` does not (``git rev-list --count``).

    Raises:
        GitError: git failed.
    """
    if not include:
        return 0
    return int(_rev_list(repo_path, include, exclude, "--count").strip() or 0)


def list_commits(
    repo_path: Path, include: list[str], exclude: list[str], max_count: int | None = None
) -> list[str]:
    """The object names of the commits ``include`` reaches that ``exclude`` does not, newest
    first, at most ``max_count`` (``git rev-list``: names only, ~0.2 s for 80,000 commits).

    Raises:
        GitError: git failed.
    """
    if not include:
        return []
    limit = () if max_count is None else (f"--max-count={max_count}",)
    return _rev_list(repo_path, include, exclude, *limit).split()


def moved_commits(repo_path: Path, old: str, new: str) -> tuple[list[str], list[str]]:
    """The commits only ``old`` reaches and those only ``new`` reaches, in one ``git rev-list
    --left-right old...new`` (one process: a lane's HEAD moved by a commit or a reset).

    Raises:
        GitError: git failed (``old`` pruned, for one).
    """
    out = _rev_list(
        repo_path, [], [], "--left-right", f"{_checked([old])[0]}...{_checked([new])[0]}"
    )
    lines = out.split()
    return [ln[1:] for ln in lines if ln.startswith("<")], [
        ln[1:] for ln in lines if ln.startswith(">")
    ]


def _rev_list(repo_path: Path, include: list[str], exclude: list[str], *opts: str) -> str:
    revs = [*_checked(include), *(f"^{sha}" for sha in _checked(exclude))]
    cmd = ["git", "--no-pager", "-C", str(Path(repo_path).absolute()), *_CONFIG,
           "rev-list", *opts, "--stdin"]  # fmt: skip
    try:
        proc = subprocess.run(cmd, input="\n".join(revs) + "\n", capture_output=True,
                              text=True, env=_env(), timeout=120, check=False)  # fmt: skip
    except (FileNotFoundError, subprocess.TimeoutExpired) as err:
        raise GitError(f"git rev-list failed: {type(err).__name__}") from err
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        raise GitError(lines[0] if lines else f"git exited with {proc.returncode}")
    return proc.stdout


def head_commit(path: Path) -> str | None:
    """The commit checked out at ``path``; ``None`` when it has none (unborn) or is no repo."""
    try:
        out = run_git(path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitError:
        return None
    sha = out.strip()
    return sha if SHA_RE.fullmatch(sha) else None


def checked_out_branch(path: Path) -> str | None:
    """The branch checked out at ``path``; ``None`` when its HEAD is detached (or no repo)."""
    try:
        out = run_git(path, "symbolic-ref", "--quiet", "--short", "HEAD")
    except GitError:
        return None
    return out.strip() or None


def is_shallow(path: Path) -> bool:
    """True for a shallow clone: its history stops at grafted commits."""
    try:
        return run_git(path, "rev-parse", "--is-shallow-repository").strip() == "true"
    except GitError:
        return False


class CommitStream:
    """``git log`` of ``include`` minus ``exclude``, newest first, read a slice at a time.

    The order is git's default (commit date, children before parents), deterministic for the same
    revisions, so a walk cut short resumes with ``skip`` = the commits already taken.
    """

    def __init__(
        self, repo_path: Path, include: list[str], exclude: list[str], *, skip: int = 0,
        max_count: int | None = None,
    ) -> None:  # fmt: skip
        self.include = _checked(include)
        self.exclude = _checked(exclude)
        self.taken = skip
        """Commits of the walk handed out so far (the ``skip`` included)."""
        self.finished = not self.include or (max_count is not None and max_count <= 0)
        self._buffer = b""
        self._fields: list[bytes] = []
        self._proc: subprocess.Popen[bytes] | None = None
        self._stderr: IO[bytes] | None = None
        if self.finished:
            return
        args = ["log", "--stdin", "-z", f"--format={_FORMAT}", f"--skip={skip}"]
        if max_count is not None:
            args.append(f"--max-count={max_count}")
        self._stderr = stderr_file()  # lives as long as the stream
        cmd = ["git", "--no-pager", "-C", str(Path(repo_path).absolute()), *_CONFIG, *args]
        try:
            self._proc = subprocess.Popen(
                cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                env=_env(),
            )  # fmt: skip
        except FileNotFoundError as err:
            self.close()
            raise GitError("git is not installed") from err
        assert self._proc.stdin is not None
        revs = [*self.include, *(f"^{sha}" for sha in self.exclude)]
        try:
            self._proc.stdin.write(("\n".join(revs) + "\n").encode("ascii"))
            self._proc.stdin.close()
        except OSError:
            pass  # git exited early (a bad revision): its status says why, in take()

    def take(self, limit: int) -> list[Commit]:
        """Up to ``limit`` more commits; fewer only when the walk is over (``finished``).

        Raises:
            GitError: git failed (its first line of stderr).
        """
        out: list[Commit] = []
        while len(out) < limit and not self.finished:
            while len(self._fields) < _FIELDS and self._read():
                pass
            if len(self._fields) < _FIELDS:
                self._end()
                break
            record, self._fields = self._fields[:_FIELDS], self._fields[_FIELDS:]
            self.taken += 1
            commit = _commit(record)
            if commit is not None:
                out.append(commit)
        return out

    def _read(self) -> bool:
        """Read one piece of the pipe into complete fields; False at the end of the output."""
        assert self._proc is not None
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], STALL_TIMEOUT_S)
        if not ready:  # a hung git (a lock, a dead NFS mount) must not hang the writer
            self.close()
            self.finished = True
            raise GitError(f"git log stalled for {STALL_TIMEOUT_S:g}s")
        data = os.read(fd, READ_BYTES)
        if not data:
            return False
        parts = (self._buffer + data).split(b"\0")
        self._buffer = parts.pop()
        self._fields.extend(parts)
        return True

    def _end(self) -> None:
        self.finished = True
        proc = self._proc
        if proc is None:
            return
        code = proc.wait()
        message = ""
        if self._stderr is not None:
            self._stderr.seek(0)
            message = self._stderr.read(4096).decode("utf-8", "replace").strip()
        self.close()
        if code != 0:
            lines = message.splitlines()
            raise GitError(lines[0] if lines else f"git log exited with {code}")

    def close(self) -> None:
        """Stop git (if still running) and release the pipe. Idempotent."""
        proc, self._proc = self._proc, None
        if proc is not None:
            if proc.poll() is None:
                proc.kill()
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def __enter__(self) -> CommitStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _commit(record: list[bytes]) -> Commit | None:
    sha, subject, body, author, when = (f.decode("utf-8", "replace") for f in record)
    # Records are NUL-terminated with -z, so each sha after the first starts clean; a newline
    # can only lead a field if git changes its separator rules: strip it defensively.
    sha = sha.lstrip("\n")
    committed = _parse_git_time(when)
    if committed is None or not SHA_RE.fullmatch(sha):
        return None
    return Commit(sha, subject, body.rstrip("\n"), author, committed)
