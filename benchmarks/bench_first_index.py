"""First index against a raw FTS5 insert of the same sanitized text, wall and CPU, in process and
through the daemon, at more than one corpus size (the first-index budget: >= 0.75x wall, >= 0.6x
CPU).

Run: ``nice -n 5 python -m benchmarks.bench_first_index --mb 10 100 --rounds 3 --work DIR``.

Per size, ``--rounds`` interleaved rounds of three jobs, each on a fresh copy of the project:

* ``raw``: a child process inserts ``benchmarks.bench_index.load_docs``' bodies (the corpus
  sanitized by its stand-in sanitizer) into a plain ``fts5(body)`` table, 1000 a transaction;
  only the inserts are timed (wall, and the child's CPU over all its threads);
* ``in process``: a child process opens the project's search service and runs its first
  ``catch_up`` (reading, sanitizing, redacting, chunking and writing every transcript);
* ``daemon``: ``ade daemon`` in a runtime folder of its own; the first ``search.indexStatus``
  naming the project opens it, which runs the same catch-up in the daemon before answering.
  Wall is that call; CPU is the daemon's (``/proc/<pid>/stat``) over it.

CPU counts the child processes a job waited for, the planning worker above all
(``engine.ingest.planner``: started for a backlog of 24 MB or more while a core is free, so at
100 MB it runs or not with the machine's load): without them a run with the worker looked
cheaper than one without. The last column is that part. ``--no-worker`` turns the worker off in
both paths (``ADE_INGEST_WORKER=0``), so two runs under different loads compare.

A ratio is ``raw`` over the job (higher is better: 1.0 is as fast as the raw insert), medians.

``--checkout NAME=DIR`` (repeatable) runs the two jobs once per checkout, interleaved in the same
rounds, with ``DIR``'s code (``PYTHONPATH``, for the child and the daemon alike): a change and
its baseline measured in one invocation, e.g. ``--checkout base=/tmp/main --checkout new=.``.

``--semantic`` runs each checkout's two jobs twice, interleaved in the same rounds: with the
semantic layer off (``ADE_SEMANTIC=0``, ``lexical``) and on (``semantic``: the vectors handed to
their own thread as documents are written, the model loaded by the first write, in the child and
in the daemon alike), and reports each path's semantic wall and CPU over its lexical ones: the
extra's first-index cost (docs/semantic.md, budget +25%). The wall is the index's (what a
search waits for); the vectors finish after it on their thread.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.bench_size import make_project
from benchmarks.corpus import generate
from benchmarks.timing import percentile

REPO = Path(__file__).resolve().parents[1]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _code_env(code: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that runs ``code``'s checkout (its ``engine`` first on the path), with
    ``extra`` variables (``ADE_SEMANTIC``)."""
    return {**os.environ, "PYTHONPATH": str(code), **(extra or {})}


def _child(
    mode: str, *args: str, code: Path = REPO, extra: dict[str, str] | None = None
) -> dict[str, float]:
    cmd = [sys.executable, "-m", "benchmarks.bench_first_index", mode, *args]
    done = subprocess.run(cmd, cwd=code, check=True, capture_output=True, text=True,
                          env=_code_env(code, extra))  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def _children_cpu() -> float:
    """CPU seconds of this process's child processes that were waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def raw_insert(corpus: Path, db: Path) -> dict[str, float]:
    """Child: the baseline, timed around the inserts only."""
    from benchmarks.bench_index import load_docs
    from engine.index.db import connect, immediate

    docs = load_docs(corpus)
    conn = connect(db)
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(body)")
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(0, len(docs), 1000):
        with immediate(conn):
            rows = [(d.body,) for d in docs[i : i + 1000]]
            conn.executemany("INSERT INTO t(body) VALUES (?)", rows)
    figures = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
    conn.close()
    return figures


def in_process(root: Path) -> dict[str, float]:
    """Child: the project's first ``catch_up``, with the service opened untimed."""
    from engine.project.locate import open_project
    from engine.wiring import create_project_service

    service = create_project_service(open_project(root), start_worker=False)
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    service.catch_up()
    wall = time.perf_counter() - wall
    children = _children_cpu() - children  # the drain's end stopped (and waited for) its worker
    figures = {"wall": wall, "cpu": time.process_time() - cpu + children, "children": children}
    service.dispose()
    return figures


def _proc_cpu(pid: int) -> tuple[float, float]:
    """CPU seconds of ``pid`` itself, and of its child processes it waited for."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return own, (int(fields[13]) + int(fields[14])) / CLOCK_TICKS


def through_daemon(
    root: Path, runtime: Path, home: Path, code: Path = REPO, extra: dict[str, str] | None = None
) -> dict[str, float]:
    """The first request naming the project, answered by a fresh ``ade daemon``."""
    from benchmarks.cli_default_path import wait_listening
    from engine.rpc.connection import open_connection
    from engine.rpc.paths import socket_path

    env = {**_code_env(code, extra), "HOME": str(home), "ADE_RUNTIME_DIR": str(runtime)}
    ade = str(Path(sys.executable).with_name("ade"))
    daemon = subprocess.Popen([ade, "daemon"], env=env, cwd=code, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_listening(socket_path(env))
        connection = open_connection(env=env, timeout=30.0)
        if connection is None:
            raise SystemExit("the daemon did not answer")
        (own, children), wall = _proc_cpu(daemon.pid), time.perf_counter()
        connection.call("search.indexStatus", {"projectRoot": str(root)}, 3600.0)
        wall = time.perf_counter() - wall
        own_after, children_after = _proc_cpu(daemon.pid)
        children = children_after - children
        figures = {"wall": wall, "cpu": own_after - own + children, "children": children}
        connection.close()
        return figures
    finally:
        daemon.terminate()
        daemon.wait(60)


def _fresh(corpus: Path, work: Path, name: str) -> Path:
    root = work / name
    shutil.rmtree(root, ignore_errors=True)
    return make_project(corpus, root)


Checkouts = dict[str, Path]
"""Name → checkout whose code the ingesting jobs run (``{"": REPO}``: this one alone)."""

SEMANTIC_ENV = {"lexical": {"ADE_SEMANTIC": "0"}, "semantic": {"ADE_SEMANTIC": "1"}}
"""``--semantic``: a checkout's jobs with the layer off and on (the name's last word)."""


def _extra(name: str) -> dict[str, str] | None:
    return SEMANTIC_ENV.get(name.rsplit(" ", 1)[-1])


def _jobs_of(checkouts: Checkouts) -> list[str]:
    jobs = ["raw"]
    for name in checkouts:
        jobs += [f"in process{' ' + name if name else ''}", f"daemon{' ' + name if name else ''}"]
    return jobs


def run_size(
    mb: int, work: Path, rounds: int, checkouts: Checkouts
) -> dict[str, dict[str, list[float]]]:
    corpus = generate(mb, work / f"corpus-{mb}")
    samples: dict[str, dict[str, list[float]]] = {
        job: {"wall": [], "cpu": [], "children": []} for job in _jobs_of(checkouts)
    }
    db = work / "raw.db"

    def raw() -> dict[str, float]:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        return _child("raw", str(corpus), str(db))

    def inproc(code: Path, extra: dict[str, str] | None) -> dict[str, float]:
        return _child("inproc", str(_fresh(corpus, work, f"p{mb}")), code=code, extra=extra)

    def daemon(code: Path, extra: dict[str, str] | None) -> dict[str, float]:
        return through_daemon(
            _fresh(corpus, work, f"d{mb}"),
            Path(tempfile.mkdtemp(dir=work, prefix="rt")),
            Path(tempfile.mkdtemp(dir=work, prefix="home")),
            code,
            extra,
        )

    jobs: dict[str, Callable[[], dict[str, float]]] = {"raw": raw}
    for name, code in checkouts.items():
        suffix = f" {name}" if name else ""
        extra = _extra(name)
        jobs[f"in process{suffix}"] = functools.partial(inproc, code, extra)
        jobs[f"daemon{suffix}"] = functools.partial(daemon, code, extra)
    for n in range(rounds):
        order = list(jobs) if n % 2 == 0 else list(jobs)[::-1]
        for job in order:
            figures = jobs[job]()
            for key in ("wall", "cpu", "children"):
                samples[job][key].append(figures.get(key, 0.0))
            print(f"  {mb} MB round {n + 1} {job}: {figures}", file=sys.stderr, flush=True)
    return samples


def report(mb: int, samples: dict[str, dict[str, list[float]]]) -> list[str]:
    raw = {k: percentile(v, 0.5) for k, v in samples["raw"].items()}
    lines = []
    for job in samples:
        if job == "raw":
            continue
        wall = percentile(samples[job]["wall"], 0.5)
        cpu = percentile(samples[job]["cpu"], 0.5)
        children = percentile(samples[job]["children"], 0.5)
        lines.append(
            f"| {mb} MB | {job} | {raw['wall'] / wall:.2f} | {raw['cpu'] / cpu:.2f} |"
            f" {wall:.2f} s / {raw['wall']:.2f} s | {cpu:.2f} s / {raw['cpu']:.2f} s |"
            f" {children:.2f} s |"
        )
    return lines


def _checkouts(specs: list[str], semantic: bool = False) -> Checkouts:
    named = dict(spec.split("=", 1) for spec in specs) if specs else {"": str(REPO)}
    checkouts = {name: Path(path).resolve() for name, path in named.items()}
    if not semantic:
        return checkouts
    return {
        f"{name} {mode}".strip(): code for name, code in checkouts.items() for mode in SEMANTIC_ENV
    }


def semantic_lines(mb: int, samples: dict[str, dict[str, list[float]]]) -> list[str]:
    """``--semantic``: each path's semantic wall and CPU over its lexical ones (medians)."""
    lines = []
    for job in samples:
        if not job.endswith(" semantic"):
            continue
        base = samples[job.removesuffix(" semantic") + " lexical"]
        wall = percentile(samples[job]["wall"], 0.5) / percentile(base["wall"], 0.5)
        cpu = percentile(samples[job]["cpu"], 0.5) / percentile(base["cpu"], 0.5)
        lines.append(f"| {mb} MB | {job.removesuffix(' semantic')} | {wall:.2f}x | {cpu:.2f}x |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="cmd")
    r = sub.add_parser("raw")
    r.add_argument("corpus", type=Path)
    r.add_argument("db", type=Path)
    i = sub.add_parser("inproc")
    i.add_argument("root", type=Path)
    parser.add_argument("--mb", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--checkout", action="append", default=[], metavar="NAME=DIR",
                        help="run the ingesting jobs with this checkout's code (repeatable)")  # fmt: skip
    parser.add_argument("--semantic", action="store_true",
                        help="each job with the semantic layer off and on, interleaved")  # fmt: skip
    parser.add_argument("--no-worker", action="store_true",
                        help="no planning worker process in either path (ADE_INGEST_WORKER=0)")  # fmt: skip
    args = parser.parse_args()
    if args.no_worker:
        os.environ["ADE_INGEST_WORKER"] = "0"  # inherited by every child and daemon
    if args.cmd == "raw":
        print(json.dumps(raw_insert(args.corpus, args.db)))
        return
    if args.cmd == "inproc":
        print(json.dumps(in_process(args.root)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="first-index-"))
    work.mkdir(parents=True, exist_ok=True)
    lines = ["| size | path | wall ratio | CPU ratio | wall ours / raw | CPU ours / raw"
             " | of it, child processes |", "|---|---|---|---|---|---|---|"]  # fmt: skip
    extra = ["| size | path | semantic / lexical wall | semantic / lexical CPU |",
             "|---|---|---|---|"]  # fmt: skip
    for mb in args.mb:
        samples = run_size(mb, work, args.rounds, _checkouts(args.checkout, args.semantic))
        lines += report(mb, samples)
        extra += semantic_lines(mb, samples)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print("\n".join(lines))
    if args.semantic:
        print("\n".join(extra))


if __name__ == "__main__":
    main()
