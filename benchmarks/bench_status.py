"""``ade search --status`` on a project of 10,000 small sessions (budget: under 0.5 s).

Builds the project once (terminal sessions with a short log each, a git repo), indexes it with
the tree under test, then times warm ``--status`` runs of a baseline tree (``--before``: a
checkout of an earlier commit, e.g. ``git worktree add /tmp/before <commit>``) and of this tree
interleaved in the same rounds, each in its own process (``--no-daemon``)::

    python -m benchmarks.bench_status --before /tmp/before --runs 7
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.timing import interleaved, ratios

ROOT = Path(__file__).resolve().parents[1]


def build_project(root: Path, sessions: int) -> None:
    """``sessions`` terminal sessions of one short log each, in a git repo of one commit."""
    sess, terms = root / ".ade" / "sessions", root / ".ade" / "terminals"
    sess.mkdir(parents=True)
    terms.mkdir(parents=True)
    for i in range(sessions):
        sid = f"term-{i:05d}"
        (terms / f"{sid}.log").write_text(f"$ make build-{i}\nbuilt target {i} ok\n")
        minute = i % 60
        record = {
            "id": sid, "kind": "terminal", "title": f"build shell {i}", "laneId": None,
            "createdAt": f"2026-06-15T10:{minute:02d}:00Z",
            "updatedAt": f"2026-06-15T11:{minute:02d}:00Z",
            "endedAt": f"2026-06-15T11:{minute:02d}:00Z",
            "archived": False, "tool": "shell", "command": "make",
        }  # fmt: skip
        (sess / f"{sid}.json").write_text(json.dumps(record))
    (root / "README.md").write_text("bench\n")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "A",
           "GIT_AUTHOR_EMAIL": "a@x", "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@x"}  # fmt: skip
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-qm", "init"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)


def status_argv(project: Path) -> list[str]:
    """``ade search --status`` of the tree on ``PYTHONPATH`` and the working folder (``-c``
    puts the working folder first, ahead of the venv's editable install)."""
    code = "from tui.cli import main_entry; main_entry()"
    return [sys.executable, "-c", code, "search", "--project", str(project), "--no-daemon",
            "--status"]  # fmt: skip


def run_status(tree: Path, project: Path, home: Path) -> None:
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(tree)}
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env.pop(name, None)
    done = subprocess.run(status_argv(project), env=env, cwd=tree,
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"--status failed in {tree}: {done.stderr.strip()[-500:]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--before", type=Path, help="baseline tree (a checkout of an older commit)")
    ap.add_argument("--sessions", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=7)
    ns = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-status-") as tmp:
        project, home = Path(tmp) / "proj", Path(tmp) / "home"
        home.mkdir()
        build_project(project, ns.sessions)
        for _ in range(2):  # the first index, then the pass that stores the warm manifest
            run_status(ROOT, project, home)
        jobs = {"after": lambda: run_status(ROOT, project, home)}
        if ns.before is not None:
            jobs = {"before": lambda: run_status(ns.before, project, home), **jobs}
        timings = interleaved(jobs, ns.runs)
        for name, t in timings.items():
            print(
                f"{name:7s} median {t.median:7.1f} ms  p95 {t.p95:7.1f} ms  cpu {t.cpu_median:7.1f} ms"
            )
        if ns.before is not None:
            print(f"after/before: {ratios(timings, 'before')['after']:.2f}")


if __name__ == "__main__":
    main()
