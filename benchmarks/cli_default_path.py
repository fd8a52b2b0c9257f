"""What a user gets by default: no daemon at first, the first ``ade search`` starts one (14.4).

Run: ``python -m benchmarks.bench_cli --classes --default-path --corpus-dir /work/corpora/c330``.

Two parts, each in its own runtime folder under the run's temporary folder (the first call's
rounds through ``ADE_RUNTIME_DIR``, the default path's through ``TMPDIR``, where a machine without
``XDG_RUNTIME_DIR`` has it: ``$TMPDIR/ade-<uid>``, found as a user's search finds it), so no
daemon of this machine's user is ever used or started:

* **The first call.** Interleaved rounds of today's in-process answer (``ADE_DAEMON=off``, no
  daemon) and the same call with auto-start on (a fresh runtime folder each round: no daemon
  answers, the search answers in process and then spawns one). Only the ``ade`` process is timed;
  the daemon it started is stopped, untimed, before the next round. The difference is what the
  spawn costs the search.
* **The default path.** One runtime folder, no daemon: the first search (answers in process,
  starts the daemon), the second (the daemon opens the project), then per class interleaved
  rounds of ``ade search <query> --json`` (no flag: the default), ``rg`` and ``python -c pass``,
  and the same ``search.query`` sent from this process over a connection (the daemon's work), as
  the ``--daemon`` mode of ``benchmarks.cli_classes`` reports them.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from benchmarks.cli_classes import _run, bench_env, class_queries, scan_term
from benchmarks.timing import Timing, interleaved
from engine.rpc.connection import DaemonConnection

START_WAIT_S = 120.0

SETTLE_WAIT_S = 300.0
"""Longest the bench waits for the daemon's first backfill (``BACKFILL_DELAY_S`` after the
project opens, then the reconcile and the full health check) before timing the warm rounds."""


def wait_settled(connection: DaemonConnection, root: Path) -> float:
    """Wait until the daemon's first backfill of ``root`` is due and done: ``BACKFILL_DELAY_S``
    after it opened the project (the call just before), then no health check running and nothing
    pending. "Warm" is that steady state (the rounds after it are what a user gets once the
    daemon has settled; the settling itself is reported beside them). The backfill's own stamp
    cannot tell: the index keeps an earlier run's, and ``ADE_NOW`` fixes the clock it is written
    with. Returns the seconds."""
    from engine.rpc.connection import CALL_TIMEOUT_S
    from engine.rpc.services import BACKFILL_DELAY_S

    start = time.monotonic()
    time.sleep(BACKFILL_DELAY_S + 1.0)  # the daemon's own timer: nothing here to wait on
    while True:
        status = connection.call("search.indexStatus", {"projectRoot": str(root)}, CALL_TIMEOUT_S)
        if status.get("healthCheckSince") is None and status.get("pendingSources") == 0:
            return time.monotonic() - start
        if time.monotonic() - start > SETTLE_WAIT_S:
            raise SystemExit(f"the daemon did not settle within {SETTLE_WAIT_S:.0f} s")
        time.sleep(0.2)  # the daemon's own timers: nothing here to wait on


def daemons_in(setting: str) -> list[int]:
    """Pids of daemon processes whose environment holds ``setting`` (``NAME=value``: the
    variable that chose their runtime folder; lock losers too)."""
    marker = setting.encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if marker in environ and b"engine.rpc" in cmdline:
            found.append(int(entry))
    return found


def stop_daemons(setting: str) -> None:
    """SIGTERM every daemon started with ``setting`` and wait (bounded) until they are gone."""
    for pid in daemons_in(setting):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while (left := daemons_in(setting)) and time.monotonic() < deadline:
        time.sleep(0.02)  # another process's exit: nothing to wait on
    for pid in left:
        os.kill(pid, signal.SIGKILL)


def wait_listening(sock: Path) -> None:
    deadline = time.monotonic() + START_WAIT_S
    while True:
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(str(sock))
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"no daemon came up on {sock}") from None
            time.sleep(0.02)  # another process binding its socket: nothing to block on
        finally:
            probe.close()


def _timed_run(cmd: list[str], env: Mapping[str, str]) -> float:
    start = time.perf_counter()
    _run(cmd, env)
    return (time.perf_counter() - start) * 1000


def first_call(
    root: Path, env: dict[str, str], folder: Path, runs: int
) -> tuple[list[float], list[float]]:
    """Interleaved: today's in-process call vs the call that also spawns a daemon (ms)."""
    ade = str(Path(sys.executable).with_name("ade"))
    argv = [ade, "search", "timeout", "--json", "--project", str(root)]
    today, spawning = [], []
    for i in range(runs):
        off = {**env, "ADE_DAEMON": "off", "ADE_RUNTIME_DIR": str(folder / "off")}
        runtime = folder / f"cold-{i}"
        on = {**env, "ADE_RUNTIME_DIR": str(runtime)}
        pair = [(today, off), (spawning, on)]
        for samples, run_env in pair if i % 2 == 0 else pair[::-1]:
            samples.append(_timed_run(argv, run_env))
            stop_daemons(f"ADE_RUNTIME_DIR={runtime}")  # untimed: no daemon in the next round
        shutil.rmtree(runtime, ignore_errors=True)
    return today, spawning


def default_path(
    root: Path, queries: dict[str, list[str]], transcripts: list[Path], env: dict[str, str],
    folder: Path, runs: int,
) -> tuple[float, float, float, list[tuple[str, list[str], dict[str, Timing]]]]:  # fmt: skip
    """The first and second call's ms, the settling's s, then per class the interleaved rounds."""
    from engine.rpc.connection import CALL_TIMEOUT_S, open_connection

    ade = str(Path(sys.executable).with_name("ade"))
    temporary = folder / "tmp-default"
    temporary.mkdir()
    env = {**env, "TMPDIR": str(temporary)}
    runtime = temporary / f"ade-{os.getuid()}"
    warm = [ade, "search", "timeout", "--json", "--project", str(root)]
    try:
        first = _timed_run(warm, env)
        wait_listening(runtime / "daemon.sock")
        second = _timed_run(warm, env)
        connection = open_connection(env=env)
        assert connection is not None, "the auto-started daemon does not answer"
        settle = wait_settled(connection, root)
        rows = []
        rg = shutil.which("rg") or "rg"
        for name, picked in queries.items():
            turn = {"ade": 0, "rg": 0, "request": 0}

            def nxt(job: str, picked: list[str] = picked, turn: dict[str, int] = turn) -> str:
                turn[job] += 1
                return picked[(turn[job] - 1) % len(picked)]

            jobs: dict[str, Callable[[], object]] = {
                "python -c pass": lambda: _run([sys.executable, "-c", "pass"], env),
                "ade search (default)": lambda: _run(
                    [ade, "search", *nxt("ade").split(), "--json", "--project", str(root)], env
                ),
                "daemon request (in-process)": lambda: connection.call(
                    "search.query",
                    {"query": nxt("request"), "limit": 20, "projectRoot": str(root)},
                    CALL_TIMEOUT_S,
                ),
                "rg": lambda: _run(
                    [rg, "-L", "-c", "-i", "-F", scan_term(nxt("rg")), *map(str, transcripts)],
                    env,
                ),
            }
            rows.append((name, picked, interleaved(jobs, runs)))
        connection.close()
    finally:
        stop_daemons(f"TMPDIR={temporary}")
    return first, second, settle, rows


def default_path_report(
    root: Path, vocabulary: Path, transcripts: list[Path], folder: Path, runs: int, now: str
) -> list[str]:
    """Both parts as Markdown lines."""
    from statistics import median

    from benchmarks.timing import percentile

    home = folder / "home-default"
    home.mkdir()
    env = bench_env(home, folder / "pycache-default", now)
    env.pop("ADE_DAEMON", None)
    # No ADE_CONFIG_DIR (see ``cli_classes.running_daemon``): this HOME is the run's own.
    ade = str(Path(sys.executable).with_name("ade"))
    for _ in range(2):  # the manifest stored under this HOME, bytecode cached
        _run([ade, "search", "timeout", "--json", "--project", str(root), "--no-daemon"], env)
    queries = class_queries(root, vocabulary)
    load_before = os.getloadavg()[0]
    today, spawning = first_call(root, env, folder, runs)
    first, second, settle, rows = default_path(root, queries, transcripts, env, folder, runs)
    load_after = os.getloadavg()[0]
    t50, s50 = median(today), median(spawning)
    lines = [
        "The first call, no daemon running (`ade search timeout --json`), interleaved rounds:"
        f" today's in-process answer (`ADE_DAEMON=off`) p50 {t50:.0f} / p95"
        f" {percentile(today, 0.95):.0f} ms; with auto-start (answers, then spawns the daemon)"
        f" p50 {s50:.0f} / p95 {percentile(spawning, 0.95):.0f} ms: **{s50 - t50:+.1f} ms**"
        f" ({s50 / t50:.3f}x).",
        "",
        f"The default path: the first search {first:.0f} ms (in process, starts the daemon), the"
        f" second {second:.0f} ms (the daemon opens the project); the daemon settled (backfill,"
        f" health check, nothing pending) {settle:.1f} s later, then per class:",
        "",
        "| class | ade search (default) p50 / p95 ms | daemon request p50 | rg p50 / p95 ms |"
        " ade/rg p50 | ade/rg p95 | process / `python -c pass` |"
        " start-up overhead / `python -c pass` |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, _, t in rows:
        ade_t, request, rg, base = (t["ade search (default)"], t["daemon request (in-process)"],
                                    t["rg"], t["python -c pass"])  # fmt: skip
        overhead = ade_t.median - request.median
        lines.append(
            f"| {name} | {ade_t.median:.0f} / {ade_t.p95:.0f} | {request.median:.0f} |"
            f" {rg.median:.0f} / {rg.p95:.0f} | {ade_t.median / rg.median:.2f}x |"
            f" {ade_t.p95 / rg.p95:.2f}x | {ade_t.median / base.median:.2f}x |"
            f" {overhead:.0f} / {base.median:.0f} = **{overhead / base.median:.2f}x** |"
        )
    lines += [
        "",
        f"- load average {load_before:.1f} before, {load_after:.1f} after ({os.cpu_count()} CPUs,"
        " shared).",
    ]
    return lines
