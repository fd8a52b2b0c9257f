"""Reading git history through the ``git`` command (DESIGN §2, RELIABILITY item 24).

Why subprocess git rather than pygit2: it is the user's own git, so worktrees, ``safe.directory``,
``includeIf`` config and new repository formats behave exactly as on their command line; it adds
no native dependency to the wheel; and each call here is one short process (a few milliseconds,
measured in the project reader report) on a path that never runs per keystroke — lane-git sources
are debounced and re-derived wholesale. pygit2 was not measured: it is not installed here and
would not change that trade-off.

Every call: ``git -C <absolute dir>``, ``LC_ALL=C``, no pager, no prompts, no optional locks,
inherited ``GIT_DIR``-style variables removed, a timeout, NUL-separated ``--format`` output, and
``--end-of-options``/``--`` before anything derived from user input.

A worktree's git directory and the repository's shared one (``git_dir``, ``common_dir``) are
found without running git: a ``.git`` file and a ``commondir`` file each hold one path.
"""

# warm path: a warm `ade search` imports this; keep its imports light (ARCHITECTURE: The warm path)

from __future__ import annotations

import functools
import os
import re
from datetime import datetime
from pathlib import Path
from typing import IO

import msgspec

from engine.basics.caller_env import current_environ
from engine.errors import AdeError
from engine.project.model import Branch, Commit
from engine.project.safe_io import read_regular

GIT_TIMEOUT_S = 10.0
"""Per-call ceiling: a log of 100 commits takes milliseconds; a hung git (NFS, lock) must not hang us."""

_SCRUBBED_ENV = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
)
"""Set by hooks or a parent git; any of them would override ``-C`` and read another repository."""

_CONFIG = (
    "-c",
    "color.ui=never",
    "-c",
    "log.showSignature=false",
    "-c",
    "core.quotePath=false",
    "-c",
    "core.fsmonitor=false",
)
"""User config that would change machine-readable output or start helpers we do not want."""

GIT_POINTER_BYTES = 64 * 1024
"""A ``.git`` file or ``commondir`` holds one path; read no more than this (and never a FIFO)."""


class GitError(AdeError):
    """A git command failed, timed out, or git is not installed."""


class Worktree(msgspec.Struct, frozen=True):
    """One entry of ``git worktree list --porcelain``."""

    path: Path
    head: str | None
    branch: str | None
    is_main: bool
    bare: bool = False
    detached: bool = False
    prunable: bool = False


def _env() -> dict[str, str]:
    # The caller's environment in a daemon (its HOME: its ~/.gitconfig), else the process's.
    env = {k: v for k, v in current_environ().items() if k not in _SCRUBBED_ENV}
    env.update(
        LC_ALL="C",
        LANGUAGE="C",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        GIT_ASKPASS="",
        SSH_ASKPASS="",
    )
    return env


def run_git(repo_path: Path, *args: str, timeout: float = GIT_TIMEOUT_S) -> str:
    """Run ``git -C <repo_path> <args>`` and return stdout (UTF-8, invalid bytes replaced).

    Raises:
        GitError: git is missing, timed out, or exited non-zero (message: one line of stderr).
    """
    import subprocess  # only when git runs: a warm search's git goes through engine.basics.spawn

    cmd = ["git", "--no-pager", "-C", str(Path(repo_path).absolute()), *_CONFIG, *args]
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=_env(),
            timeout=timeout,
            check=False,
        )
    except FileNotFoundError as err:
        raise GitError("git is not installed") from err
    except subprocess.TimeoutExpired as err:
        raise GitError(f"git {args[0] if args else ''} timed out after {timeout:g}s") from err
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise GitError(message[0] if message else f"git exited with {proc.returncode}")
    return proc.stdout.decode("utf-8", errors="replace")


def git_toplevel(path: Path) -> Path | None:
    """The top level of the work tree containing ``path``, or ``None`` outside a work tree."""
    try:
        out = run_git(path, "rev-parse", "--show-toplevel")
    except GitError:
        return None
    top = out.rstrip("\n")
    return Path(top) if top else None


def _has_head(repo_path: Path) -> bool:
    try:
        run_git(repo_path, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    except GitError:
        return False
    return True


_COMMIT_FORMAT = "%H%x00%s%x00%b%x00%an%x00%cI"
_COMMIT_FIELDS = 5


def recent_commits(repo_path: Path, limit: int = 100, rev: str = "HEAD") -> list[Commit]:
    """The ``limit`` most recent commits reachable from ``rev`` (default the checked-out HEAD).

    ``rev`` may come from a user or a file, so it is passed after ``--end-of-options`` and
    followed by ``--``: ``--output=x`` is a revision name here, never an option. A repository
    without commits yields ``[]``.

    Raises:
        GitError: not a repository, an unknown ``rev``, or git failed.
    """
    if limit <= 0:
        return []
    args = ["log", f"--max-count={limit}", f"--format={_COMMIT_FORMAT}", "-z"]
    try:
        out = run_git(repo_path, *args, "--end-of-options", rev, "--")
    except GitError:
        if rev == "HEAD" and git_toplevel(repo_path) is not None and not _has_head(repo_path):
            return []  # an unborn branch: a fresh `git init`
        raise
    return _parse_commits(out)


def _parse_commits(out: str) -> list[Commit]:
    # With -z every field ends in NUL and every record too, so the output is a flat list of
    # fields; bodies may hold newlines but never NUL (git refuses NUL in messages).
    fields = out.split("\0")
    commits: list[Commit] = []
    for i in range(0, len(fields) - _COMMIT_FIELDS + 1, _COMMIT_FIELDS):
        sha, subject, body, author, when = fields[i : i + _COMMIT_FIELDS]
        committed = _parse_git_time(when)
        if committed is None or not sha:
            continue
        commits.append(Commit(sha, subject, body.rstrip("\n"), author, committed))
    return commits


def _parse_git_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None


_BRANCH_FORMAT = "%(refname:lstrip=2)%00%(objectname)%00%(subject)%00%(committerdate:iso-strict)%00"
_BRANCH_FIELDS = 4


def list_branches(repo_path: Path) -> list[Branch]:
    """Local branches (``refs/heads``) with their tip commit, sorted by name.

    Raises:
        GitError: not a repository, or git failed.
    """
    out = run_git(repo_path, "for-each-ref", f"--format={_BRANCH_FORMAT}", "refs/heads/")
    # for-each-ref has no -z: each record is our NUL-ended fields plus a newline, and ref names,
    # shas and dates never hold a newline, so strip it from the first field of each record.
    fields = out.split("\0")
    branches: list[Branch] = []
    for i in range(0, len(fields) - _BRANCH_FIELDS + 1, _BRANCH_FIELDS):
        name, sha, subject, when = fields[i : i + _BRANCH_FIELDS]
        name = name.lstrip("\n")
        updated = _parse_git_time(when)
        if not name or not sha or updated is None:
            continue  # a branch pointing at a non-commit (tag object, tree) has no date
        branches.append(Branch(name, sha, subject, updated))
    return sorted(branches, key=lambda b: b.name)


def worktrees(repo_path: Path) -> list[Worktree]:
    """``git worktree list --porcelain -z``; the first entry is the main worktree.

    Raises:
        GitError: not a repository, or git failed.
    """
    out = run_git(repo_path, "worktree", "list", "--porcelain", "-z")
    result: list[Worktree] = []
    # Each attribute ends in NUL; an empty attribute (two NULs in a row) ends a record.
    for record in out.split("\0\0"):
        attrs = [a for a in record.split("\0") if a]
        if not attrs or not attrs[0].startswith("worktree "):
            continue
        fields = dict(a.partition(" ")[::2] for a in attrs)
        branch = fields.get("branch")
        result.append(
            Worktree(
                path=Path(fields["worktree"]),
                head=fields.get("HEAD") or None,
                branch=branch.removeprefix("refs/heads/") if branch else None,
                is_main=not result,
                bare="bare" in fields,
                detached="detached" in fields,
                prunable="prunable" in fields,
            )
        )
    return result


@functools.cache
def _remote_res() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(URL remote, scp-like remote, slug part), compiled on first use: a warm search reads the
    stored origin and parses no remote (journal: "Regexes compiled lazily")."""
    return (
        re.compile(r"^(?:https?|ssh|git|git\+ssh|ssh\+git)://(?:[^@/]+@)?[^/]+/(.+)$"),
        re.compile(r"^(?:[^@/:]+@)?([^/:]+):(?!//)(.+)$"),
        re.compile(r"[A-Za-z0-9._-]+"),
    )


def parse_remote_slug(url: str) -> str | None:
    """``owner/name`` from a remote URL (``git@host:o/n.git``, ``ssh://…/o/n``, ``https://…/o/n``).

    Local paths and ``file://`` remotes have no slug (``None``); for nested groups
    (``group/sub/name``) the last two components are taken.
    """
    url = url.strip()
    url_re, scp_re, slug_part_re = _remote_res()
    match = url_re.match(url)
    path = match.group(1) if match else None
    if path is None and "://" not in url and not url.startswith(("/", ".")):
        scp = scp_re.match(url)
        path = scp.group(2) if scp else None
    if path is None:
        return None
    parts = [p for p in path.split("/") if p]
    if len(parts) < 2:
        return None
    owner, name = parts[-2], parts[-1].removesuffix(".git")
    if not (slug_part_re.fullmatch(owner) and slug_part_re.fullmatch(name)):
        return None
    if name in {".", ".."} or owner in {".", ".."}:
        return None
    return f"{owner}/{name}"


def origin_slug(repo_path: Path) -> str | None:
    """``owner/name`` of the ``origin`` remote, or ``None`` (no origin, local path, not a repo)."""
    try:
        url = run_git(repo_path, "remote", "get-url", "origin")  # applies url.*.insteadOf
    except GitError:
        return None
    return parse_remote_slug(url)


def stderr_file() -> IO[bytes]:
    """An unnamed file for a long-running git's stderr: a chatty git never blocks on a full
    pipe while its stdout is read, and nothing is left behind. A memory file where the system
    has one (Linux): ``tempfile`` imports ``random`` and ``shutil``, ~2.5 ms of every warm
    search's start-up (the start-up budget)."""
    if hasattr(os, "memfd_create"):
        try:
            return os.fdopen(os.memfd_create("ade-git-stderr", os.MFD_CLOEXEC), "w+b")
        except OSError:
            pass  # a sandbox that refuses the call: a temporary file does the same
    import tempfile

    return tempfile.TemporaryFile()


def git_dir(worktree: Path) -> Path | None:
    """The git directory of a worktree (``.git`` itself, or where a ``.git`` file points)."""
    dot = worktree / ".git"
    if dot.is_dir():
        return dot
    try:
        text = read_regular(dot, GIT_POINTER_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else (worktree / target)


def common_dir(gitdir: Path) -> Path:
    """The repository's shared git directory (a linked worktree's ``commondir``)."""
    try:
        raw = read_regular(gitdir / "commondir", GIT_POINTER_BYTES)
        text = raw.decode("utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return gitdir
    target = Path(text)
    return target if target.is_absolute() else (gitdir / target)
