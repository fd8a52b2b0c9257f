"""Create the demo's git repository: history through ``git fast-import``, then worktrees.

fast-import writes every commit in one process (fast) from a stream whose author, committer and
dates we fix, so the commit shas are identical on every build and every machine.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from engine.demo.clock import DEMO_SEED, ago, git_date
from engine.demo.history import ALL_FILES, AUTHORS, RETRY_BRANCH, STEPS, WEBHOOK_BRANCH, Step
from engine.errors import AdeError

ORIGIN_URL = "git@github.com:acme/payments-api.git"
"""The ``origin`` remote (never fetched): deep links derive ``acme/payments-api`` from it."""

WORKTREES: dict[str, str] = {"abc-123-retry": RETRY_BRANCH, "webhooks": WEBHOOK_BRANCH}
"""Linked worktree folder (= lane id) → branch. The main worktree is the ``primary`` lane."""

WORKTREE_DIR = ".worktrees"
"""Linked worktrees live inside the demo folder (and are git-ignored by the demo repo)."""

HISTORY_SPAN = timedelta(days=38)
"""The first commit is this long before ``DEMO_NOW``; the last lands a few hours before it."""

EARLY_STEPS = 24
"""Steps before the lane work starts; their gaps are stretched so the lanes' work is recent."""


@dataclass(frozen=True)
class RepoSummary:
    """What the repository builder made."""

    commit_count: int
    branches: tuple[str, ...]
    lanes: tuple[str, ...]
    head_shas: dict[str, str]
    subjects: dict[str, str]
    """Commit subject → full sha (subjects are unique in the demo history)."""


def git_env() -> dict[str, str]:
    """The environment for every git call: no user or system config, no inherited GIT_* vars.

    A user's ``core.autocrlf``, ``commit.gpgsign`` or colour settings would otherwise change blob
    bytes, shas or the captured ``git log`` output.
    """
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1", LC_ALL="C.UTF-8")
    return env


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    """Run git in ``root`` and return stdout.

    Raises:
        AdeError: git is not installed or the command failed (its first stderr line says why).
    """
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, env=git_env(), input=stdin, capture_output=True, check=True
        )
    except FileNotFoundError as err:
        raise AdeError("the demo needs git on PATH to build its repository") from err
    except subprocess.CalledProcessError as err:
        reason = err.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"]
        raise AdeError(f"git {args[0]} failed while building the demo: {reason[0]}") from err
    return done.stdout.decode("utf-8")


def commit_times() -> list[datetime]:
    """One time per step: seeded random gaps, oldest first, scaled into ``HISTORY_SPAN``."""
    rng = random.Random(DEMO_SEED)
    # Early main history is slower than the last week of lane work (EARLY_STEPS gaps count 3x).
    gaps = [rng.uniform(0.4, 1.6) * (3 if n < EARLY_STEPS else 1) for n in range(len(STEPS))]
    scale = (HISTORY_SPAN - timedelta(hours=3)) / sum(gaps)
    start = ago(days=HISTORY_SPAN.days)
    times, elapsed = [], 0.0
    for gap in gaps:
        times.append((start + scale * elapsed).replace(microsecond=0))
        elapsed += gap
    return times


def _apply(tree: dict[str, str], step: Step) -> dict[str, str]:
    tree = dict(tree)
    for path in step.add:
        tree[path] = ALL_FILES[path]
    for path, old, new in step.edits:
        if old not in tree[path]:
            raise ValueError(f"demo history: {old!r} not in {path} ({step.subject})")
        tree[path] = tree[path].replace(old, new, 1)
    for path, text in step.appends:
        tree[path] = tree[path] + text
    return tree


def _blob_lines(old: dict[str, str], new: dict[str, str]) -> list[bytes]:
    out: list[bytes] = []
    for path in sorted(set(old) - set(new)):
        out.append(f"D {path}\n".encode())
    for path in sorted(new):
        if old.get(path) != new[path]:
            data = new[path].encode("utf-8")
            out.append(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
    return out


def fast_import_stream() -> tuple[bytes, int]:
    """The fast-import stream of the whole history and its commit count."""
    trees: dict[str, dict[str, str]] = {}
    marks: dict[str, int] = {}
    forks: dict[str, dict[str, str]] = {}
    chunks: list[bytes] = []
    for number, (step, when) in enumerate(zip(STEPS, commit_times(), strict=True), start=1):
        parent_branch = step.branch if step.branch in trees else step.base
        parent_tree = trees.get(parent_branch, {})
        forks.setdefault(step.branch, parent_tree)
        if step.merge:
            # Take what the merged branch changed since it forked; keep main's own later changes.
            fork, theirs = forks[step.merge], trees[step.merge]
            changed = {path: text for path, text in theirs.items() if fork.get(path) != text}
            tree = _apply({**parent_tree, **changed}, step)
        else:
            tree = _apply(parent_tree, step)
        name, email = AUTHORS[step.author]
        message = step.subject + (f"\n\n{step.body}" if step.body else "") + "\n"
        data = message.encode("utf-8")
        ident = f"{name} <{email}> {git_date(when)}"
        head = [
            f"commit refs/heads/{step.branch}",
            f"mark :{number}",
            f"author {ident}",
            f"committer {ident}",
            f"data {len(data)}",
        ]
        chunks.append("\n".join(head).encode() + b"\n" + data)
        if parent_branch in marks:
            chunks.append(f"from :{marks[parent_branch]}\n".encode())
        if step.merge:
            chunks.append(f"merge :{marks[step.merge]}\n".encode())
        chunks.extend(_blob_lines(parent_tree, tree))
        chunks.append(b"\n")
        if step.tag:
            chunks.append(f"reset refs/tags/{step.tag}\nfrom :{number}\n\n".encode())
        trees[step.branch], marks[step.branch] = tree, number
    return b"".join(chunks), len(STEPS)


def build_repo(root: Path) -> RepoSummary:
    """Create the repository in ``root`` (which must exist), check out main, add worktrees."""
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    stream, count = fast_import_stream()
    git(root, "fast-import", "--quiet", "--date-format=raw", stdin=stream)
    git(root, "reset", "-q", "--hard", "main")
    git(root, "remote", "add", "origin", ORIGIN_URL)
    for lane, branch in WORKTREES.items():
        git(root, "worktree", "add", "-q", f"{WORKTREE_DIR}/{lane}", branch)
    for tree in (root, *(root / WORKTREE_DIR / lane for lane in WORKTREES)):
        date_work_tree(tree)
    refs = git(root, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads")
    heads = dict(line.split(" ", 1) for line in refs.splitlines())
    log = git(root, "log", "--all", "--format=%H %s")
    subjects = {line[41:]: line[:40] for line in log.splitlines()}
    return RepoSummary(
        commit_count=count,
        branches=tuple(sorted(heads)),
        lanes=("primary", *WORKTREES),
        head_shas=heads,
        subjects=subjects,
    )


def date_work_tree(tree: Path) -> None:
    """Date (``mtime``) each tracked file of the work tree ``tree`` at the last commit of its
    branch that changed it, as the history says, instead of the instant the checkout wrote it.

    A file line hit's recency is its file's mtime (``engine.delegates.file_hits``), and recency
    breaks ties in the ranking: checkout times a millisecond apart, different on every build,
    made two builds of the demo rank the same query differently (a relaxed words step keeps the
    newest tied file lines; benchmarks/journal/2026-12-07-determinism.md).
    """
    dated: dict[str, int] = {}
    when = 0
    for line in git(tree, "-c", "core.quotePath=false", "log", "--format=%x00%ct", "--name-only",
                    "HEAD").splitlines():  # fmt: skip
        if line.startswith("\0"):
            when = int(line[1:])
        elif line:
            dated[line] = max(dated.get(line, 0), when)
    for path in git(tree, "ls-files", "-z").split("\0"):
        if path:
            os.utime(tree / path, (dated[path], dated[path]))
    git(tree, "update-index", "-q", "--refresh")  # the new mtimes are not a change to git
