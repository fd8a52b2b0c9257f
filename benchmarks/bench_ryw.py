"""A search right after a write against a settled one, alone: the scale series' "after a write /
settled" column (``benchmarks.bench_scale``) without its first-index and query rounds, and for
several checkouts at once.

Run: ``python -m benchmarks.bench_ryw --sizes 10,100 --runs 11 --work DIR`` (``--paths
in-process`` for one path; ``--checkout base=/tmp/main --checkout new=.`` runs each checkout's
code, its ``engine`` first on ``PYTHONPATH``, in the same rounds).

Per size, each checkout gets a copy of the scale project (``scale_paths.fresh_copy``; its
read-your-writes chat copied, not linked, since it is appended to) indexed by one ``ade search``
of its own code. Per path (in process: ``--no-daemon``; the default path: an auto-started daemon
per checkout, settled) every round runs, for each checkout in turn (the order alternating), a
search for the word appended in the round before (settled: already indexed) and then, after
appending a new word, a search for it (fresh). The figure is the median fresh over the median
settled, and how many fresh answers held the new word (the scale series' rules). The load
average is printed before and after each size.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks.cli_classes import bench_env
from benchmarks.scale_class import auto_daemon
from benchmarks.scale_paths import (
    RYW_SESSION,
    ade_command,
    append_note,
    fresh_copy,
    run_process,
    scale_project,
)
from benchmarks.timing import Stopwatch

REPO = Path(__file__).resolve().parents[1]
NOW = "2026-06-15T12:00:00+00:00"


def project_copy(root: Path, dest: Path) -> Path:
    """``root`` without its index, its read-your-writes chat and session file real copies."""
    fresh_copy(root, dest)
    for rel in (f"chats/{RYW_SESSION}.jsonl", f"sessions/{RYW_SESSION}.json"):
        (dest / ".ade" / rel).unlink()
        shutil.copy2(root / ".ade" / rel, dest / ".ade" / rel)
    return dest


def _search(root: Path, word: str, env: dict[str, str], daemon: bool) -> tuple[float, float, bool]:
    """One whole ``ade search <word> --json`` process: wall and CPU ms (its own and its
    children's, ``os.wait4``), and whether its answer holds ``word``."""
    cmd = [ade_command(), "search", word, "--json", "--project", str(root)]
    if not daemon:
        cmd.append("--no-daemon")
    with Stopwatch() as watch:
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, _, usage = os.wait4(proc.pid, 0)
    return watch.ms, (usage.ru_utime + usage.ru_stime) * 1000, word.encode() in out


def rounds(
    projects: dict[str, Path], envs: dict[str, dict[str, str]], runs: int, daemon: bool
) -> dict[str, str]:
    """Interleaved settled / fresh searches of every checkout; the figure of each (and the
    ratio of the processes' CPU time: the in-process path's work, less moved by the load)."""
    settled: dict[str, list[float]] = {name: [] for name in projects}
    fresh: dict[str, list[float]] = {name: [] for name in projects}
    cpu: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in projects}
    found = dict.fromkeys(projects, 0)
    words = {name: f"zqw{os.getpid() % 1000:03d}{i:02d}x0" for i, name in enumerate(projects)}
    for name, root in projects.items():
        append_note(root, words[name])
        _search(root, words[name], envs[name], daemon)  # indexed before the first round
    for turn in range(runs):
        order = list(projects) if turn % 2 == 0 else list(projects)[::-1]
        for name in order:
            root, env = projects[name], envs[name]
            wall, used, _ = _search(root, words[name], env, daemon)
            settled[name].append(wall)
            cpu[name][0].append(used)
            words[name] = f"{words[name].rpartition('x')[0]}x{turn + 1}"
            append_note(root, words[name])
            wall, used, held = _search(root, words[name], env, daemon)
            fresh[name].append(wall)
            cpu[name][1].append(used)
            found[name] += held
    out = {}
    for name in projects:
        s, f = statistics.median(settled[name]), statistics.median(fresh[name])
        c = statistics.median(cpu[name][1]) / statistics.median(cpu[name][0])
        out[name] = f"{f / s:.2f} ({found[name]}/{runs}; {f:.0f} / {s:.0f} ms; CPU {c:.2f})"
    return out


def measure_size(mb: int, ns: argparse.Namespace, folder: Path) -> list[str]:
    root = scale_project(ns.work, mb)
    home = folder / "home"
    home.mkdir(parents=True, exist_ok=True)
    base = bench_env(home, folder / "pycache", NOW)
    base.pop("ADE_DAEMON", None)
    base["ADE_SEMANTIC"] = "0"
    projects, envs = {}, {}
    for name, code in ns.checkouts.items():
        envs[name] = {**base, "PYTHONPATH": str(code)}
        projects[name] = project_copy(root, folder / f"p-{name or 'this'}")
        run_process([ade_command(), "search", "timeout", "--json", "--project",
                     str(projects[name]), "--no-daemon"], envs[name])  # fmt: skip
    lines = []
    load = os.getloadavg()[0]
    for path in ns.paths:
        if path == "in-process":
            figures = rounds(projects, envs, ns.runs, daemon=False)
        else:
            with contextlib.ExitStack() as stack:
                denvs = {}
                for name, root_copy in projects.items():
                    tmp = folder / f"tmp-{name or 'this'}"
                    _, _, _, denvs[name] = stack.enter_context(
                        auto_daemon(root_copy, envs[name], tmp)
                    )
                figures = rounds(projects, denvs, ns.runs, daemon=True)
        lines += [f"| {mb} MB | {path} | {name or '-'} | {figure} |"
                  for name, figure in figures.items()]  # fmt: skip
    end = os.getloadavg()[0]
    lines.append(f"| {mb} MB | load | {load:.1f} → {end:.1f} | ({os.cpu_count()} CPUs, shared) |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10,100", help="MB of transcripts, comma-separated")
    parser.add_argument("--runs", type=int, default=11, help="interleaved rounds")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "ade-scale")
    parser.add_argument("--paths", default="in-process,default")
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=DIR",
                        help="run this checkout's code (repeatable)")  # fmt: skip
    ns = parser.parse_args(argv)
    ns.paths = ns.paths.split(",")
    named = dict(spec.split("=", 1) for spec in ns.checkout)
    ns.checkouts = {name: Path(d).resolve() for name, d in named.items()} or {"": REPO}
    ns.work.mkdir(parents=True, exist_ok=True)
    lines = ["| size | path | checkout | after a write / settled (found; fresh / settled; CPU) |",
             "|---|---|---|---|"]  # fmt: skip
    with tempfile.TemporaryDirectory(dir=ns.work) as tmp:
        for mb in (int(s) for s in ns.sizes.split(",")):
            lines += measure_size(mb, ns, Path(tmp) / f"s{mb}")
            print("\n".join(lines), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
