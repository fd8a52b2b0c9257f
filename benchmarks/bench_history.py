"""Commit history benchmarks (the whole commit history): the first and a warm pass against ``git log``.

    python -m benchmarks.bench_history [--commits 50000] [--repo PATH ...] [--write]

- a generated repository of ``--commits`` commits (``git fast-import``; subjects and bodies of
  mixed words, a second branch checked out in a linked worktree): the first pass (a fresh index,
  ``catch_up`` in its own process: wall time, CPU, peak RSS) and a warm pass (10 new commits on
  the primary lane, then nothing new), each against ``git log --all --format=%H%x00%B`` as a
  process (all messages, read to the end of the pipe by Python);
- each ``--repo`` (a clone, e.g. of git.git or fzf): the same first pass and the same git command,
  on a copy of its ``.git`` so the clone itself is never written.

With ``--write`` the numbers replace the "Commit history" section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.results import replace_section
from benchmarks.timing import cpu_ms, timed

WORDS = (
    "retry", "backoff", "webhook", "signature", "idempotency", "ledger", "refund", "payout",
    "gateway", "timeout", "parser", "cursor", "index", "chunk", "redact", "token", "lane",
    "branch", "merge", "rebase", "flaky", "test", "fix", "add", "remove", "refactor", "docs",
    "config", "build", "release", "migrate", "schema", "query", "ranking",
)  # fmt: skip

FIRST_PASS = r"""
import json, resource, sys, time
from pathlib import Path
from engine.ingest.timers import ManualTimerFactory
from engine.project.locate import open_project
from engine.wiring import create_project_service

def peak_rss_mb():
    # VmHWM is this process image's own peak; ru_maxrss would include the parent's RSS at the
    # fork (Linux carries the pre-exec peak over), which is the benchmark driver's, not ours.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

root = Path(sys.argv[1])
svc = create_project_service(open_project(root), timer=ManualTimerFactory(), start_worker=False)
t0, c0 = time.perf_counter(), time.process_time()
svc.catch_up()
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
commits = svc.index_status().docs_by_kind.get("commit", 0)
svc.dispose()
print(json.dumps({"wall_s": wall, "cpu_s": cpu + kids.ru_utime + kids.ru_stime,
                  "peak_rss_mb": peak_rss_mb(),
                  "commits": commits}))
"""


def git(root: Path, *args: str, stdin: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(root))
    done = subprocess.run(["git", *args], cwd=root, env=env, input=stdin, check=True,
                          capture_output=True)  # fmt: skip
    return done.stdout.decode()


def fast_import(root: Path, branch: str, count: int, start_tick: int, seed: int,
                parent: str | None = None) -> None:  # fmt: skip
    """``count`` commits on ``branch`` in one fast-import process."""
    rnd = random.Random(seed)
    out: list[bytes] = []
    for i in range(count):
        subject = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 9)))
        body = "\n".join(
            " ".join(rnd.choice(WORDS) for _ in range(12)) for _ in range(rnd.randint(0, 6))
        )
        data = f"{subject} #{start_tick + i}\n\n{body}\n".encode()
        out.append(f"commit refs/heads/{branch}\ncommitter Ada <ada@example.com> "
                   f"{1_600_000_000 + 60 * (start_tick + i)} +0000\ndata {len(data)}\n".encode())  # fmt: skip
        out.append(data)
        if i == 0 and parent is not None:
            out.append(f"from {parent}\n".encode())
        out.append(b"\n")
    git(root, "fast-import", "--quiet", "--date-format=raw", stdin=b"".join(out))


def generate(root: Path, commits: int) -> None:
    """``main`` with ``commits`` commits; ``side`` (100 more, off ``main~500``) in a worktree."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    fast_import(root, "main", commits, 0, seed=1)
    fork = git(root, "rev-parse", "main~500").strip()
    fast_import(root, "side", 100, commits, seed=2, parent=fork)
    git(root, "checkout", "-q", "-f", "main")
    git(root, "worktree", "add", "-q", str(root.parent / "lanes" / "side"), "side")


def git_log_all(root: Path, runs: int = 3) -> dict[str, float]:
    """``git log --all --format=%H%x00%B`` as a process, its output read to the end (best of)."""
    walls: list[float] = []
    cpus: list[float] = []
    size = 0
    for _ in range(runs):
        before = cpu_ms()
        wall, proc = timed(lambda: subprocess.run(
            ["git", "-C", str(root), "log", "--all", "--format=%H%x00%B"],
            capture_output=True, check=True,
        ))  # fmt: skip
        cpus.append((cpu_ms() - before) / 1000)  # git's, and ours reading its pipe
        walls.append(wall)
        size = len(proc.stdout)
    return {"wall_s": min(walls), "cpu_s": min(cpus), "mb": size / 1e6}


def first_pass(root: Path) -> dict[str, Any]:
    """A fresh index of ``root`` in its own process (so peak RSS is the pass's)."""
    shutil.rmtree(root / ".ade" / "cache", ignore_errors=True)
    env = {**os.environ, "HOME": str(root.parent / "home")}  # never this machine's ~/.claude
    out = subprocess.run([sys.executable, "-c", FIRST_PASS, str(root)], capture_output=True,
                         text=True, check=True, env=env)  # fmt: skip
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def warm_pass(root: Path, new: int) -> dict[str, float]:
    """In-process: ``new`` commits added to main, caught up; then a catch-up with nothing new."""
    from engine.ingest.timers import ManualTimerFactory
    from engine.project.locate import open_project
    from engine.wiring import create_project_service

    tip = git(root, "rev-parse", "main").strip()
    fast_import(root, "main", new, 10_000_000 + int(time.time()) % 1000 * 100, seed=3, parent=tip)
    svc = create_project_service(open_project(root), timer=ManualTimerFactory(), start_worker=False)
    try:
        added, _ = timed(svc.catch_up)
        unchanged, _ = timed(svc.catch_up)
    finally:
        svc.dispose()
    git_new, _ = timed(lambda: subprocess.run(
        ["git", "-C", str(root), "log", "--format=%H%x00%B", f"{tip}..main"],
        capture_output=True, check=True,
    ))  # fmt: skip
    return {"new_commits_s": added, "unchanged_s": unchanged, "git_log_new_s": git_new}


def copy_repo(source: Path, dest: Path) -> Path:
    """A working copy of ``source`` whose ``.ade/`` is ours (the clone is never written)."""
    git(dest.parent, "clone", "-q", "--no-checkout", "--shared", str(source), str(dest))
    return dest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--repo", type=Path, action="append", default=[],
                        help="a clone to measure too (repeatable)")  # fmt: skip
    parser.add_argument("--write", action="store_true", help="write RESULTS.md")
    args = parser.parse_args()
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "gen" / "repo"
        generate(root, args.commits)
        first = first_pass(root)
        log = git_log_all(root)
        warm = warm_pass(root, 10)
        print("generated", first, log, warm, flush=True)
        rows.append(_row(f"generated ({args.commits:,} + 100 commits)", first, log))
        for repo in args.repo:
            copy = copy_repo(repo.resolve(), Path(tmp) / repo.name)
            measured = first_pass(copy)
            git_all = git_log_all(copy)
            print(repo.name, measured, git_all, flush=True)
            rows.append(_row(f"{repo.name} clone", measured, git_all))
    if args.write:
        replace_section("## Commit history", _section(args, rows, warm))


def _row(name: str, first: dict[str, Any], log: dict[str, float]) -> str:
    return (f"| {name} | {first['commits']:,} | {first['wall_s']:.1f} | {first['cpu_s']:.1f} | "
            f"{first['peak_rss_mb']:.0f} | {log['wall_s']:.2f} | {log['cpu_s']:.2f} | "
            f"{log['mb']:.1f} | {first['wall_s'] / log['wall_s']:.0f}x | "
            f"{first['cpu_s'] / max(log['cpu_s'], 0.01):.0f}x |")  # fmt: skip


def _section(args: argparse.Namespace, rows: list[str], warm: dict[str, float]) -> str:
    repos = " ".join(f"--repo {r}" for r in args.repo)
    load = os.getloadavg()[0]
    return "\n".join([
        "## Commit history",
        "",
        f"`python -m benchmarks.bench_history --commits {args.commits} {repos} --write` (2 shared",
        f"CPUs, load average {load:.1f} at the end: wall times are inflated, CPU times are not).",
        "The first pass is a fresh index built by `catch_up` in its own process (wall; CPU",
        "including the git processes it waited for; peak RSS = VmHWM). The git columns are",
        "`git log --all --format=%H%x00%B` as a process, its output read to the end (best of 3):",
        "the command a user would pipe to grep instead, which re-reads every message each time.",
        "",
        "| repository | commits indexed | first pass s | CPU s | peak RSS MB | git log s | "
        "git CPU s | messages MB | wall ratio | CPU ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        f"Warm passes on the generated repository: 10 new commits on the primary lane "
        f"{warm['new_commits_s'] * 1000:.0f} ms for the whole catch-up (the same range as "
        f"`git log <old>..main`: {warm['git_log_new_s'] * 1000:.0f} ms); nothing new "
        f"{warm['unchanged_s'] * 1000:.0f} ms (a stat of the refs and one `git worktree list`;",
        "no `git log`).",
        "",
    ])  # fmt: skip


if __name__ == "__main__":
    main()
