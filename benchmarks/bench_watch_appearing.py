"""How soon a Claude session in a folder made after the project was opened is searchable (24.5).

Run: ``python -m benchmarks.bench_watch_appearing [--rounds 3] [--main /work/main] [--cap 40]``.

Each round runs one trial per tree, interleaved, each in a fresh interpreter whose ``engine`` is
that tree's (``PYTHONPATH``): a project with ``.ade/`` is opened the way the daemon opens it (the
watcher on, the writer thread and real timers running), the Claude home does not exist yet; once
the service watches, the trial makes ``~/.claude/projects/<slug>/`` and writes one line, and
times until a search finds it ("appeared"); then it appends a second session file to that folder
and times that too ("next"). Searches are polled every 10 ms, so figures carry up to 10 ms of
poll; a trial gives up after ``--cap`` seconds (main waits for the 30 s reconcile).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from functools import partial
from pathlib import Path

from benchmarks.results import replace_section
from benchmarks.timing import interleaved

HERE = Path(__file__).resolve().parents[1]

TRIAL = r"""
import json, os, subprocess, sys, time
from pathlib import Path
base, cap = Path(sys.argv[1]), float(sys.argv[2])
os.environ["HOME"] = str(base / "home")
for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "COPILOT_HOME"):
    os.environ.pop(name, None)
root = base / "proj"
root.mkdir(parents=True)
subprocess.run(["git", "init", "-q", str(root)], check=True)
(root / ".ade").mkdir()
from engine.external.roots import claude_slug
from engine.project.locate import open_project
from engine.types import SearchQueryArgs
from engine.wiring import create_project_service

service = create_project_service(open_project(root), watch=True, backfill_delay=0.0)
deadline = time.monotonic() + 30
while service.watcher_state != "watching" or service.index_status().state != "ready":
    assert time.monotonic() < deadline, service.watcher_state
    time.sleep(0.01)
time.sleep(0.5)  # the watch armed and the backfill's reconcile done: a quiet, opened project

def line(text):
    return (json.dumps({"parentUuid": None, "isSidechain": False, "cwd": str(root),
            "sessionId": "s", "type": "user", "message": {"role": "user", "content": text},
            "uuid": "u", "timestamp": "2026-05-28T10:00:00.000Z"}) + "\n").encode()

def until_found(word, start):
    while time.monotonic() - start < cap:
        if service.query(SearchQueryArgs(query=word, limit=5)).items:
            return time.monotonic() - start
        time.sleep(0.01)
    return None

folder = base / "home" / ".claude" / "projects" / claude_slug(root)
start = time.monotonic()
folder.mkdir(parents=True)
(folder / "a1.jsonl").write_bytes(line("the zyzzyva regression"))
appeared = until_found("zyzzyva", start)
start = time.monotonic()
(folder / "a2.jsonl").write_bytes(line("a quagga follows"))
following = until_found("quagga", start) if appeared is not None else None
print(json.dumps({"appeared": appeared, "next": following}))
os._exit(0)  # the worker and watcher threads: nothing to flush
"""


def _trial(tree: Path, cap: float) -> dict[str, float | None]:
    with tempfile.TemporaryDirectory(prefix="ade-bench-watch-") as base:
        env = {**os.environ, "PYTHONPATH": str(tree), "ADE_DAEMON": "off"}
        done = subprocess.run(
            [sys.executable, "-c", TRIAL, base, str(cap)],
            env=env, cwd=base, capture_output=True, text=True, timeout=cap * 2 + 60, check=True,
        )  # fmt: skip
        result: dict[str, float | None] = json.loads(done.stdout.splitlines()[-1])
        return result


def _fmt(values: list[float | None], cap: float) -> str:
    return " / ".join(f"{v:.2f} s" if v is not None else f"> {cap:.0f} s" for v in values)


def _median(values: list[float | None], cap: float) -> float:
    return statistics.median(v if v is not None else cap for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--main", type=Path, default=Path("/work/main"))
    parser.add_argument("--cap", type=float, default=40.0)
    parser.add_argument("--write", action="store_true", help="record in benchmarks/RESULTS.md")
    args = parser.parse_args()
    trees = {"this tree": HERE, "main": args.main}
    runs: dict[str, list[dict[str, float | None]]] = {name: [] for name in trees}
    jobs = {name: partial(lambda n, t: runs[n].append(_trial(t, args.cap)), name, tree)
            for name, tree in trees.items()}  # fmt: skip
    interleaved(jobs, args.rounds, warmup=False)  # the figures are the trials' own clocks
    rows = []
    for name in trees:
        appeared = [r["appeared"] for r in runs[name]]
        following = [r["next"] for r in runs[name]]
        rows.append(f"| {name} | {_median(appeared, args.cap):.2f} s ({_fmt(appeared, args.cap)}) "
                    f"| {_fmt(following, args.cap)} |")  # fmt: skip
    ratio = _median([r["appeared"] for r in runs["main"]], args.cap) / _median(
        [r["appeared"] for r in runs["this tree"]], args.cap
    )
    text = "\n".join([
        "## Watch what appears", "",
        f"`python -m benchmarks.bench_watch_appearing --rounds {args.rounds}` (interleaved "
        "trials, each tree in its own interpreter): a Claude folder made after the project was "
        "opened, one line, time until a search finds it (chat debounce: 0.3 s).", "",
        "| tree | appeared: median (rounds) | next file in that folder |", "|---|---|---|",
        *rows, "",
        f"main / this tree (medians, main capped at {args.cap:.0f} s): **{ratio:.0f}x**", "",
    ])  # fmt: skip
    print(text)
    if args.write:
        replace_section("## Watch what appears", text)


if __name__ == "__main__":
    main()
