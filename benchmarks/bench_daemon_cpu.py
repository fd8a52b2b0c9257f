"""A daemon's CPU a request over its socket, per query class: its threads and the children it
reaped (git), beside the request's wall time, for one or two trees' daemons interleaved request
by request (journal 2026-12-07-request-path.md).

Run: ``python -m benchmarks.bench_daemon_cpu --project P --vocabulary V [--before DIR]
[--requests 100]``, with P a project the scale series made (``<work>/c10-project``) and V its
corpus's ``vocabulary.json``; ``--before DIR``: another checkout of the code base (``git
worktree add --detach DIR main``), whose daemon answers on its own copy of the project.

Each daemon (``python -m engine.rpc`` of its tree, ``PYTHONPATH`` the tree) gets a copy of the
project (a daemon writes to its index: the given one is never opened), a temporary ``HOME`` and
runtime folder, ``ADE_SEMANTIC=0`` and the corpus's clock, and is settled (backfill and health
check done) before timing. A request is ``call_once`` as a daemon-answered ``ade search`` sends
it; the daemon's CPU is read from ``/proc/<pid>/stat`` (utime + stime of every thread, and the
children's once reaped) around each one: clock ticks, so only a mean over many requests means
anything. CPU, not wall, is the figure on a shared machine.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from benchmarks.cli_classes import class_queries
from benchmarks.timing import percentile

NOW = "2026-06-15T12:00:00+00:00"
CLASSES = ("rare term", "one-term prefix", "two-term prefix", "phrase", "very common term")


def daemon_cpu_ms(pid: int) -> tuple[float, float]:
    """(the process's own CPU, its reaped children's) in ms, from ``/proc``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    tick = os.sysconf("SC_CLK_TCK")
    own = (int(fields[11]) + int(fields[12])) * 1000 / tick
    return own, (int(fields[13]) + int(fields[14])) * 1000 / tick


class Daemon:
    """One tree's daemon on its own copy of the project."""

    def __init__(self, name: str, tree: Path, project: Path, folder: Path) -> None:
        self.name = name
        self.root = folder / "project"
        shutil.copytree(project, self.root, symlinks=True)
        self.runtime = folder / "run"
        self.runtime.mkdir(mode=0o700)
        keep = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        # HOME, ADE_SEMANTIC and ADE_NOW are this process's too (``main``): a request carries
        # the caller's context, which the daemon answers only when it is its own.
        self.env = {**keep, "PYTHONPATH": str(tree), "ADE_RUNTIME_DIR": str(self.runtime)}
        log = folder / "daemon.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "engine.rpc", "--backfill-delay", "1", "--log-file", str(log)],
            cwd=tree, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while "listening on" not in (log.read_text() if log.exists() else ""):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the daemon of {tree} did not start (see {log})")
            time.sleep(0.05)  # the daemon's own start: nothing here to wait on

    def request(self, query: str) -> float:
        """One ``search.query`` as ``ade search`` sends it; its wall seconds."""
        from engine.rpc.connection import call_once

        start = time.perf_counter()
        answered = call_once("search.query", {"query": query, "limit": 20,
                                              "projectRoot": str(self.root)}, 60, env=self.env)  # fmt: skip
        if answered is None:
            raise SystemExit(f"the {self.name} daemon does not answer")
        return time.perf_counter() - start

    def settle(self) -> None:
        """Open the project, then wait for the backfill and its health check to end."""
        from engine.rpc.connection import open_connection

        self.request("timeout")
        connection = open_connection(env=self.env)
        assert connection is not None
        time.sleep(2.0)  # the backfill is due one second after the project opened
        try:
            while True:
                status = connection.call("search.indexStatus", {"projectRoot": str(self.root)}, 60)
                if status.get("healthCheckSince") is None and status.get("pendingSources") == 0:
                    return
                time.sleep(0.2)  # the daemon's own timers: nothing here to wait on
        finally:
            connection.close()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


@contextlib.contextmanager
def daemons(trees: dict[str, Path], project: Path) -> Iterator[list[Daemon]]:
    folder = Path(tempfile.mkdtemp(prefix="ade-daemon-cpu-"))
    started: list[Daemon] = []
    (folder / "home").mkdir()
    os.environ.update(HOME=str(folder / "home"), ADE_SEMANTIC="0", ADE_NOW=NOW)
    try:
        for name, tree in trees.items():
            (folder / name).mkdir()
            started.append(Daemon(name, tree, project, folder / name))
        for daemon in started:
            daemon.settle()
        yield started
    finally:
        for daemon in started:
            daemon.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--vocabulary", type=Path, required=True)
    parser.add_argument("--before", type=Path, default=None, help="another checkout's tree")
    parser.add_argument("--requests", type=int, default=100, help="a class, a daemon")
    ns = parser.parse_args()
    trees = {"this": Path.cwd()} if ns.before is None else {"before": ns.before, "this": Path.cwd()}
    load = os.getloadavg()[0]
    print("| class | " + " | ".join(f"{n}: CPU + children ms a request · wall p50 ms"
                                   for n in trees) + " |")  # fmt: skip
    print("|---|" + "---:|" * len(trees))
    with daemons(trees, ns.project) as started:
        queries = class_queries(started[0].root, ns.vocabulary)  # a copy: never the given index
        for name in CLASSES:
            picked = queries[name]
            cells: dict[str, list[float]] = {d.name: [0.0, 0.0] for d in started}
            walls: dict[str, list[float]] = {d.name: [] for d in started}
            for daemon in started:  # the pages each query reads, once
                for query in picked:
                    daemon.request(query)
            for i in range(ns.requests):
                for daemon in started if i % 2 else started[::-1]:
                    own, kids = daemon_cpu_ms(daemon.proc.pid)
                    walls[daemon.name].append(daemon.request(picked[i % len(picked)]))
                    after = daemon_cpu_ms(daemon.proc.pid)
                    cells[daemon.name][0] += after[0] - own
                    cells[daemon.name][1] += after[1] - kids
            shown = [
                f"{cells[d.name][0] / ns.requests:.2f} + {cells[d.name][1] / ns.requests:.2f} ·"
                f" {percentile(walls[d.name], 0.5) * 1000:.2f}"
                for d in started
            ]
            print(f"| {name} | " + " | ".join(shown) + " |", flush=True)
    print(
        f"\nload average {load:.1f} before, {os.getloadavg()[0]:.1f} after ({os.cpu_count()} CPUs)"
    )


if __name__ == "__main__":
    main()
