"""Discovery cost of the Gemini CLI, OpenCode, Copilot CLI and Aider sources (docs/agents.md).

Run: ``python -m benchmarks.bench_agents [--runs N] [--append]``.

A git project with a linked worktree holds two sessions of each tool; beside them each tool's
store holds 500 sessions of other projects (Gemini: 50 other project folders of 10 sessions;
OpenCode: 500 other sessions of 12 parts in the one database; Copilot: 500 other
``session-state`` folders of 20 events; Aider keeps its history inside each repository, so no
other project's file is ever looked at). Timed per tool, as ``ade search`` lists them on each
call: **cold** (no ``external-heads.json`` yet: every head of ours is read) and **warm** (the
heads cache written by the previous call is loaded from disk, as a new process does), one of
each per round. Medians of ``--runs`` rounds, wall clock, on the shared machine; the OS page cache
is warm in both.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.results import replace_section
from benchmarks.timing import Stopwatch, rounds
from engine.external.heads import HeadCache
from engine.external.registry import agent_format
from engine.project.lanes import list_lanes
from engine.project.locate import open_project
from engine.project.tally import WarningTally
from tests.engine.external import agent_fixtures as fx

Finder = Callable[..., list[Any]]

FOREIGN = 500


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def build(root: Path) -> tuple[Path, dict[str, str]]:
    repo, worktree = root / "proj", root / "proj-wt" / "feature-x"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README").write_text("hi\n")
    _git(repo, "add", "README")
    _git(repo, "-c", "user.email=b@e", "-c", "user.name=b", "commit", "-q", "-m", "first")
    _git(repo, "worktree", "add", "-q", "-b", "feature-x", str(worktree))
    env = {"HOME": str(root / "home"), "GEMINI_CLI_HOME": str(root / "gem"),
           "XDG_DATA_HOME": str(root / "xdg"), "COPILOT_HOME": str(root / "copilot")}  # fmt: skip
    tmp = fx.write_gemini(root / "gem", repo, worktree)
    for project in range(FOREIGN // 10):
        folder = tmp / f"other-{project}"
        (folder / "chats").mkdir(parents=True)
        (folder / ".project_root").write_text(f"/work/other-{project}")
        for n in range(10):
            (folder / "chats" / f"session-2026-06-01T10-{n:02d}-{project:08d}.jsonl").write_bytes(
                fx.gemini_jsonl(f"/work/other-{project}")
            )
    db = fx.write_opencode(root / "xdg", repo, worktree)
    import apsw

    conn = apsw.Connection(str(db))
    with conn:
        for n in range(FOREIGN):
            for sql, params in fx.opencode_rows(f"ses_f{n:04d}", f"/work/other-{n % 50}", "x", "w"):
                conn.execute(sql, params)
    conn.close()
    state = fx.write_copilot(root / "copilot", worktree)
    for n in range(FOREIGN):
        sid = f"00000000-0000-4000-8000-{n:012d}"
        (state / sid).mkdir()
        events = fx.copilot_events(sid, f"/work/other-{n % 50}", torn=False)
        (state / sid / "events.jsonl").write_bytes(events * 2)
    fx.write_aider(repo, worktree)
    return repo, env


def measure(repo: Path, env: dict[str, str], runs: int) -> dict[str, tuple[float, float, int]]:
    project = open_project(repo)
    lanes = list_lanes(project, WarningTally())
    cache_file = project.cache_dir / "bench-heads.json"
    out: dict[str, tuple[float, float, int]] = {}
    for tool in ("gemini", "opencode", "copilot", "aider"):
        finder = agent_format(tool).sessions
        found = [0]

        def cold(finder: Finder = finder, found: list[int] = found) -> float:
            cache_file.unlink(missing_ok=True)
            heads = HeadCache(cache_file)
            with Stopwatch() as watch:
                found[0] = len(finder(lanes, WarningTally(), env, heads))
            heads.save()  # for the warm call of the same round
            return watch.ms

        def warm(finder: Finder = finder) -> float:
            heads = HeadCache(cache_file)  # a new process: the cache is read from disk
            with Stopwatch() as watch:
                finder(lanes, WarningTally(), env, heads)
            return watch.ms

        samples = rounds({"cold": cold, "warm": warm}, runs)
        out[tool] = (
            statistics.median(samples["cold"]),
            statistics.median(samples["warm"]),
            found[0],
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--append", action="store_true", help="write the RESULTS.md section")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, env = build(Path(tmp))
        results = measure(repo, env, args.runs)
    rows = "\n".join(
        f"| {tool} | {found} | {cold:.1f} | {warm:.1f} |"
        for tool, (cold, warm, found) in results.items()
    )
    text = (
        "## Agent sources discovery\n\n"
        f"`python -m benchmarks.bench_agents --runs {args.runs} --append`: "
        f"{FOREIGN} other projects' sessions per tool beside 2 of ours; medians in ms.\n\n"
        "| tool | ours found | cold ms | warm ms |\n|---|---:|---:|---:|\n"
        f"{rows}\n"
    )
    print(text)
    print(json.dumps(results))
    if args.append:
        replace_section("## Agent sources discovery", text)


if __name__ == "__main__":
    main()
