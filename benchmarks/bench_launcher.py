"""The compiled ``ade`` launcher against the Python client, on a wheel install, each over
``python -c pass`` in the same interleaved rounds (the start-up goal: a daemon-answered search
within 1.5x of ``python -c pass``; journal 2026-12-08-launcher.md).

Run: ``python -m benchmarks.bench_launcher --project DIR --vocabulary FILE --runs 30 --work DIR``
(``DIR`` a scale project, e.g. a copy of ``c10-project``; ``FILE`` its corpus's
``vocabulary.json``). Builds this tree's wheel into a venv under ``--work`` (``--bin`` reuses an
install), runs one daemon in a runtime folder of its own, and times per round: ``python -c
pass``, then ``ade search`` (the launcher) and ``ade-py search`` (the Python client) for a rare
word ``--json``, ``the --json`` and the rare word as text. Prints p50/p95 ms and each over pass.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from benchmarks.cli_classes import _run, bench_env, class_queries
from benchmarks.cli_default_path import stop_daemons, wait_listening
from benchmarks.scale_paths import use_wheel_install
from benchmarks.timing import interleaved

NOW = "2026-06-15T12:00:00+00:00"


def main() -> None:
    args = argparse.ArgumentParser(description=__doc__)
    args.add_argument("--project", type=Path, required=True)
    args.add_argument("--vocabulary", type=Path, required=True)
    args.add_argument("--runs", type=int, default=30)
    args.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bench-launcher")
    args.add_argument("--bin", type=Path, help="an installed venv's bin (default: build a wheel)")
    ns = args.parse_args()
    ns.work.mkdir(parents=True, exist_ok=True)
    tree = Path(__file__).resolve().parents[1]
    bin_dir = ns.bin or use_wheel_install(tree, ns.work / "install")
    (ns.work / "home").mkdir(exist_ok=True)
    runtime = Path(tempfile.mkdtemp(prefix="ade-bl-", dir="/tmp"))  # a socket path fits
    env = bench_env(ns.work / "home", ns.work / "pycache", NOW)
    env.update(ADE_RUNTIME_DIR=str(runtime), ADE_SEMANTIC="0")
    root = str(ns.project.resolve())
    rare = class_queries(ns.project, ns.vocabulary)["rare term"][0]
    ade, python_ade = str(bin_dir / "ade"), str(bin_dir / "ade-py")
    searches = {
        f"{rare} --json": [rare, "--json"],
        "the --json": ["the", "--json"],
        f"{rare} text": [rare],
    }
    try:
        _run([ade, "search", rare, "--json", "--project", root], env)  # starts the daemon
        wait_listening(runtime / "daemon.sock")
        jobs = {"pass": lambda: _run([str(bin_dir / "python"), "-c", "pass"], env)}
        for name, argv in searches.items():
            command = ["search", *argv, "--project", root]
            jobs[f"launcher {name}"] = lambda c=command: _run([ade, *c], env)
            jobs[f"python {name}"] = lambda c=command: _run([python_ade, *c], env)
        timings = interleaved(jobs, ns.runs)
    finally:
        stop_daemons(f"ADE_RUNTIME_DIR={runtime}")
    load = os.getloadavg()
    print(f"runs {ns.runs}, load {load[0]:.2f} {load[1]:.2f}, rare word {rare!r}, bin {bin_dir}")
    base = timings["pass"]
    for name, t in timings.items():
        p50, p95 = t.median, t.p95
        over = f"{p50 / base.median:.2f}x / {p95 / base.p95:.2f}x pass"
        print(f"{name:28s} p50 {p50:6.1f} ms  p95 {p95:6.1f} ms  {over}")


if __name__ == "__main__":
    main()
