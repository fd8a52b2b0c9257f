"""Warm ``ade search --json`` per query class against ``rg``, and the start-up ratio (start-up budget).

Run: ``python -m benchmarks.bench_cli --classes --mb 20 --sessions 924`` (or ``--corpus-dir
/work/corpora/c330`` for a corpus generated elsewhere; ``--append`` records it).

Every process runs with ``HOME`` in a fresh temporary folder (no agent tool folders, and never
this machine's), bytecode cached as an installed package has it, the index built and warmed up
first (so the manifest of the last full reconcile is stored: nothing changed since). Per class
(the class terms of ``benchmarks.bench_index``), one round is one run of each, interleaved:

* ``python -c pass``: the interpreter alone (the start-up baseline);
* ``ade search <term> --json --no-daemon`` as a whole process;
* the same ``main(argv)`` call in this process, imports done (the work a query needs);
* ``rg -L -c -i -F <term>`` over the same raw transcripts (the first word of a two-term query;
  a phrase as its literal text).

Start-up overhead = process - in-process, over ``python -c pass``: goal <= 3x. Whole process
vs ``rg``: goal < 1x in every class.

``--daemon`` adds, in the same rounds, a daemon started on the project (``python -m
engine.rpc``, its own runtime and config folders under the run's temporary folder, warmed with
one query): ``ade search <term> --json`` answered by it as a whole process, and the same
``search.query`` request sent from this process over a connection (the daemon's work); its
start-up overhead is the process minus that request. ``ade --version`` (a minimal run: argument parsing, no
engine) is timed beside ``python -c pass`` once per run as the floor of the command line.

``--before DIR`` (with ``--daemon``) adds, in the same rounds, another checkout's client and
daemon (``DIR`` a tree of the same code base, e.g. ``git archive main``) on a copy of the project
(transcripts hard-linked, the index file copied: an older schema rebuilds only the copy), and this
checkout's client started the same way: the daemon path before and after a change, interleaved.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from statistics import fmean

from benchmarks.timing import Timing, interleaved

CLASSES = (
    "rare term",
    "one-term prefix",
    "two-term prefix",
    "phrase",
    "very common term",
    "2-character prefix",
)
"""The query classes of the shell-answer budget (``benchmarks.bench_index.query_classes`` names)."""

ENV_SCRUB = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME",
             "GEMINI_CLI_HOME", "COPILOT_HOME", "ADE_SESSION_ID", "ADE_CONFIG_DIR",
             "ADE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "PYTHONDONTWRITEBYTECODE")  # fmt: skip


def bench_env(home: Path, pycache: Path, now: str) -> dict[str, str]:
    """The environment of every timed process (and of this one, for the in-process runs)."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_SCRUB}
    env.update(HOME=str(home), PYTHONPYCACHEPREFIX=str(pycache), ADE_NOW=now)
    return env


def class_queries(root: Path, vocabulary: Path) -> dict[str, list[str]]:
    """The queries of each class, picked as ``bench_index`` picks them from this index."""
    from benchmarks.bench_index import query_classes
    from engine.index.db import connect

    vocab = json.loads(vocabulary.read_text())
    conn = connect(root / ".ade" / "cache" / "search-index.db")
    try:
        picked = query_classes(conn, vocab)
    finally:
        conn.close()
    return {name: picked[name] for name in CLASSES if picked.get(name)}


def scan_term(query: str) -> str:
    """What ``rg`` searches for a query: a phrase's text, else the first word."""
    if query.startswith('"'):
        return query.strip('"')
    return query.split()[0]


def _run(cmd: list[str], env: Mapping[str, str], cwd: Path | None = None) -> None:
    # stdout is read, as a caller would (a tool may shortcut output to /dev/null).
    subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                   check=False)  # fmt: skip


def process_cpu_ms(pid: int) -> float:
    """CPU time (user + sys) a running process has used, from ``/proc`` (clock ticks: only a
    sum over many requests is meaningful, hence the mean in the table)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def launcher(tree: Path | None) -> list[str]:
    """The ``ade`` command: the installed script, or a checkout's code run from its folder (the
    same ``main_entry`` the script calls)."""
    if tree is None:
        return [str(Path(sys.executable).with_name("ade"))]
    return [sys.executable, "-c", "from tui.cli import main_entry; main_entry()"]


def project_copy(root: Path, folder: Path) -> Path:
    """``root`` as another project for a second daemon: transcripts and session records
    hard-linked, the git folder and the index copied (each daemon writes only its own)."""
    copy = folder / root.name
    shutil.copytree(root / ".git", copy / ".git")
    for part in ("chats", "terminals", "sessions"):
        shutil.copytree(root / ".ade" / part, copy / ".ade" / part, copy_function=os.link)
    shutil.copytree(root / ".ade" / "cache", copy / ".ade" / "cache")
    return copy


@contextlib.contextmanager
def running_daemon(
    root: Path, env: dict[str, str], folder: Path, tree: Path | None = None
) -> Iterator[int]:
    """A daemon serving ``root`` for the ``with`` block; ``env`` gains its folders. ``tree``:
    run another checkout's daemon (its folder as the working directory). Yields its pid."""
    folder.mkdir(parents=True, exist_ok=True)
    # No ADE_CONFIG_DIR: a user sets none, and how the client finds (or skips) its config folder
    # is part of what is timed; the config lands under the bench's own HOME. No ADE_RUNTIME_DIR
    # either: the socket is found as on a machine without XDG_RUNTIME_DIR, in $TMPDIR/ade-<uid>,
    # with TMPDIR the run's own folder (the client does what a user's does; no daemon is shared).
    (folder / "tmp").mkdir(exist_ok=True)
    env.update(TMPDIR=str(folder / "tmp"))
    log = folder / "daemon.log"
    command = [sys.executable, "-m", "engine.rpc", "--log-file", str(log),
               "--backfill-delay", "3600"]  # fmt: skip
    proc = subprocess.Popen(command, env=env, cwd=tree, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while "listening on" not in (log.read_text() if log.exists() else ""):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the daemon did not start (see {log})")
            time.sleep(0.05)
        _run([*launcher(tree), "search", "timeout", "--json", "--project", str(root)], env, tree)
        yield proc.pid
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def one_shot_listing() -> None:
    """Forget this process's file listings before an in-process run: a one-shot ``ade search``
    has no listing memo (``engine.delegates.listing_memo``) and runs ``git ls-files`` every time,
    so without this the in-process run skipped a git process the whole process pays, and the
    start-up overhead counted it (~2.5 ms CPU, ~6 ms wall on the 330 MB project)."""
    from engine.delegates import listing_memo

    listing_memo.forget()


def time_class(
    root: Path,
    queries: list[str],
    transcripts: list[Path],
    env: Mapping[str, str],
    runs: int,
    daemon: bool = False,
    before: tuple[Path, Path, Mapping[str, str], int, int] | None = None,
    daemon_pid: int | None = None,
) -> dict[str, Timing]:
    """Interleaved rounds of the four jobs (six with ``daemon``, eight with ``before``: the
    other checkout, its project copy, its daemon's environment and both daemons' pids, whose
    CPU per request is kept as ``… daemon CPU``), round ``i`` using query ``i % len(queries)``.
    ``daemon_pid``: the daemon's CPU per daemon-answered process is kept as ``daemon CPU``."""
    from tui.cli import main

    ade = str(Path(sys.executable).with_name("ade"))
    turn = {"ade": 0, "inproc": 0, "rg": 0, "daemon": 0, "request": 0, "before": 0, "after": 0}

    def nxt(job: str) -> str:
        query = queries[turn[job] % len(queries)]
        turn[job] += 1
        return query

    def argv(query: str) -> list[str]:
        return ["search", *query.split(), "--json", "--project", str(root), "--no-daemon"]

    def in_process() -> None:
        one_shot_listing()  # the git work of a one-shot process, not a long-running one's
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(argv(nxt("inproc")))

    rg = shutil.which("rg") or "rg"

    def scan() -> None:
        _run([rg, "-L", "-c", "-i", "-F", scan_term(nxt("rg")), *map(str, transcripts)], env)

    jobs: dict[str, Callable[[], object]] = {
        "python -c pass": lambda: _run([sys.executable, "-c", "pass"], env),
        "ade search (process)": lambda: _run([ade, *argv(nxt("ade"))], env),
        "ade search (in-process)": in_process,
        "rg": scan,
    }
    if daemon:
        from engine.rpc.connection import CALL_TIMEOUT_S, open_connection

        connection = open_connection()
        assert connection is not None, "no daemon answers"

        def request() -> None:
            params = {"query": nxt("request"), "limit": 20, "projectRoot": str(root)}
            connection.call("search.query", params, CALL_TIMEOUT_S)

        answered: list[float] = []

        def by_daemon() -> None:
            query = nxt("daemon")
            start = process_cpu_ms(daemon_pid) if daemon_pid is not None else 0.0
            _run([ade, "search", *query.split(), "--json", "--project", str(root)], env)
            if daemon_pid is not None:
                answered.append(process_cpu_ms(daemon_pid) - start)

        jobs["ade search (daemon, process)"] = by_daemon
        jobs["daemon request (in-process)"] = request
        if before is not None:
            tree, copy, before_env, old_pid, new_pid = before
            served: dict[str, list[float]] = {"before": [], "after": []}

            def old() -> None:
                query = nxt("before")
                start = process_cpu_ms(old_pid)
                _run([*launcher(tree), "search", *query.split(), "--json", "--project", str(copy)],
                     before_env, tree)  # fmt: skip
                served["before"].append(process_cpu_ms(old_pid) - start)

            def new() -> None:
                query = nxt("after")
                start = process_cpu_ms(new_pid)
                _run([*launcher(Path.cwd()), "search", *query.split(), "--json", "--project",
                      str(root)], env, Path.cwd())  # fmt: skip
                served["after"].append(process_cpu_ms(new_pid) - start)

            jobs["before (daemon, process)"] = old
            jobs["after (daemon, process)"] = new
        try:
            timings = interleaved(jobs, runs)
        finally:
            connection.close()
        if answered:
            timings["daemon CPU"] = Timing(tuple(answered), tuple(answered))
        if before is not None:
            for side, samples in served.items():
                timings[f"{side} daemon CPU"] = Timing(tuple(samples), tuple(samples))
        return timings
    return interleaved(jobs, runs)


def time_floor(env: Mapping[str, str], runs: int) -> dict[str, Timing]:
    """``ade --version`` beside ``python -c pass``: the command line's own floor."""
    ade = str(Path(sys.executable).with_name("ade"))
    jobs: dict[str, Callable[[], object]] = {
        "python -c pass": lambda: _run([sys.executable, "-c", "pass"], env),
        "ade --version": lambda: _run([ade, "--version"], env),
    }
    return interleaved(jobs, runs)


def class_report(
    root: Path,
    vocabulary: Path,
    transcripts: list[Path],
    folder: Path,
    runs: int,
    now: str,
    daemon: bool = False,
    before: Path | None = None,
) -> list[str]:
    """The table of every class, the floor line and the load, as Markdown lines."""
    home = folder / "home"
    home.mkdir()
    env = bench_env(home, folder / "pycache", now)
    saved = dict(os.environ)
    try:
        queries = class_queries(root, vocabulary)
        warm = ["search", "timeout", "--json", "--project", str(root), "--no-daemon"]
        for _ in range(2):  # the manifest stored under this HOME, bytecode cached
            _run([str(Path(sys.executable).with_name("ade")), *warm], env)
        with contextlib.ExitStack() as stack:
            other = None
            if daemon:
                new_pid = stack.enter_context(running_daemon(root, env, folder))
            if daemon and before is not None:
                copy = project_copy(root, folder / "before")
                before_env = dict(env)
                old_pid = stack.enter_context(
                    running_daemon(copy, before_env, folder / "before", before)
                )
                other = (before, copy, before_env, old_pid, new_pid)
            os.environ.clear()
            os.environ.update(env)  # the in-process runs see the same HOME as the processes
            load_before = os.getloadavg()[0]
            floor = time_floor(env, runs)
            rows = []
            for name, picked in queries.items():
                t = time_class(root, picked, transcripts, env, runs, daemon, other,
                               daemon_pid=new_pid if daemon else None)  # fmt: skip
                rows.append((name, picked, t))
            load_after = os.getloadavg()[0]
    finally:
        os.environ.clear()
        os.environ.update(saved)
    lines = [
        "| class | queries | ade process p50 / p95 ms | in-process p50 | rg p50 / p95 ms |"
        " ade/rg p50 | ade/rg p95 | start-up overhead / `python -c pass` |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, picked, t in rows:
        ade, inproc, rg, base = (t["ade search (process)"], t["ade search (in-process)"],
                                 t["rg"], t["python -c pass"])  # fmt: skip
        overhead = ade.median - inproc.median
        shown = ", ".join(f"`{q}`" for q in picked[:3]) + (" …" if len(picked) > 3 else "")
        lines.append(
            f"| {name} | {shown} | {ade.median:.0f} / {ade.p95:.0f} | {inproc.median:.0f} |"
            f" {rg.median:.0f} / {rg.p95:.0f} | {ade.median / rg.median:.2f}x |"
            f" {ade.p95 / rg.p95:.2f}x | {overhead:.0f} / {base.median:.0f} ="
            f" **{overhead / base.median:.2f}x** |"
        )
    if daemon:
        lines += ["", *daemon_table(rows)]
    if daemon and before is not None:
        lines += ["", *before_table(rows, before)]
    version, base = floor["ade --version"], floor["python -c pass"]
    lines += [
        "",
        f"- `ade --version` {version.median:.0f} ms vs `python -c pass` {base.median:.0f} ms:"
        f" {version.median / base.median:.2f}x (CPU {version.cpu_median:.0f} vs"
        f" {base.cpu_median:.0f} ms).",
        f"- load average {load_before:.1f} before, {load_after:.1f} after ({os.cpu_count()} CPUs,"
        " shared).",
    ]
    return lines


def daemon_table(rows: list[tuple[str, list[str], dict[str, Timing]]]) -> list[str]:
    """The daemon-answered process of every class (same rounds as the table above)."""
    lines = [
        "With the daemon running (`ade search <query> --json`, no `--no-daemon`), same rounds:",
        "",
        "| class | ade process p50 / p95 ms | daemon request p50 | daemon CPU a request ms |"
        " rg p50 / p95 ms | ade/rg p50 | ade/rg p95 | process / `python -c pass` |"
        " start-up overhead / `python -c pass` |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, _, t in rows:
        ade, request, rg, base = (t["ade search (daemon, process)"],
                                  t["daemon request (in-process)"], t["rg"],
                                  t["python -c pass"])  # fmt: skip
        overhead = ade.median - request.median
        served = t.get("daemon CPU")
        cpu = f"{fmean(served.wall):.1f}" if served is not None else ""
        lines.append(
            f"| {name} | {ade.median:.0f} / {ade.p95:.0f} | {request.median:.0f} | {cpu} |"
            f" {rg.median:.0f} / {rg.p95:.0f} | {ade.median / rg.median:.2f}x |"
            f" {ade.p95 / rg.p95:.2f}x | {ade.median / base.median:.2f}x |"
            f" {overhead:.0f} / {base.median:.0f} = **{overhead / base.median:.2f}x** |"
        )
    return lines


def before_table(rows: list[tuple[str, list[str], dict[str, Timing]]], tree: Path) -> list[str]:
    """Another checkout's client and daemon beside this one's, started alike (same rounds); the
    CPU is the client process's (user + sys), which a loaded machine moves far less than wall."""
    lines = [
        f"Through the daemon, `{tree}` (before) and this checkout (after), each its own daemon"
        " and client started as `python -c 'from tui.cli import main_entry; main_entry()'` from"
        " its folder, same rounds:",
        "",
        "| class | before p50 / p95 ms | after p50 / p95 ms | after/before p50 | after/before p95 |"
        " client CPU before / after ms | daemon CPU a request, before / after ms |"
        " before/rg p50 / p95 | after/rg p50 / p95 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, _, t in rows:
        old, new, rg = t["before (daemon, process)"], t["after (daemon, process)"], t["rg"]
        lines.append(
            f"| {name} | {old.median:.0f} / {old.p95:.0f} | {new.median:.0f} / {new.p95:.0f} |"
            f" {new.median / old.median:.2f}x | {new.p95 / old.p95:.2f}x |"
            f" {old.cpu_median:.0f} / {new.cpu_median:.0f} |"
            f" {fmean(t['before daemon CPU'].wall):.1f} / {fmean(t['after daemon CPU'].wall):.1f} |"
            f" {old.median / rg.median:.2f}x / {old.p95 / rg.p95:.2f}x |"
            f" {new.median / rg.median:.2f}x / {new.p95 / rg.p95:.2f}x |"
        )
    return lines
