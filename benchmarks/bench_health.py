"""The health check against live appends (ingestion first): on the writer thread vs off it.

Run: ``python -m benchmarks.bench_health [--mb 60] [--corpus-dir DIR] [--rounds 3]``.

The generated corpus (``benchmarks.corpus``; ``--corpus-dir`` an existing one, e.g.
/work/corpora/c60) is hard-linked into a project and indexed once. Each round then opens the
service with its writer thread, as the daemon does, once per mode, interleaved:

- ``writer``: the check runs inline on the writer thread (what every release before did);
- ``own thread``: the check runs on its own read connection and thread (``engine.ingest.health``).

In each, a chat session gets 10 events every 100 ms; 0.5 s in, the hourly health check is forced
(the periodic reconcile with its counter at ``HEALTH_EVERY``); appends go on until the check has
ended and 1 s more. A poller reads the session's cursor in the ``sources`` table every 10 ms: a
line is searchable once the cursor passed it (docs and cursor commit together). Figures: chat
lag (append -> searchable) p50/p95/max over the lines appended while the check ran, the check's
own wall and CPU (its thread's), and the WAL's peak size during the check. Last, how long
``dispose`` takes when called 0.3 s into a check (it interrupts the check's connection).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_ingest import _corpus_project
from benchmarks.timing import percentile
from engine.index.db import connect, get_source
from engine.ingest import health
from engine.project.locate import open_project
from engine.wiring import create_project_service

SID = "bench-health"
TICK_S, PER_TICK = 0.1, 10
POLL_S = 0.01
LEAD_S, TAIL_S = 0.5, 1.0
MODES = ("writer", "own thread")


class CheckTimes:
    """Wall and thread CPU of every health check run (wraps ``HealthChecker._check``)."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, float, float, float]] = []
        """(start, end, wall s, cpu s) per check."""
        real = health.HealthChecker._check

        def timed(checker: health.HealthChecker, generation: int) -> Any:
            start, cpu = time.monotonic(), time.thread_time()
            try:
                return real(checker, generation)
            finally:
                end = time.monotonic()
                self.runs.append((start, end, end - start, time.thread_time() - cpu))

        health.HealthChecker._check = timed  # type: ignore[method-assign]


def _session(root: Path) -> Path:
    meta = {"id": SID, "kind": "chat", "title": "health bench", "laneId": None,
            "createdAt": "2026-06-15T11:00:00+00:00", "updatedAt": "2026-06-15T11:00:00+00:00",
            "endedAt": None}  # fmt: skip
    (root / ".ade" / "sessions" / f"{SID}.json").write_text(json.dumps(meta))
    chat = root / ".ade" / "chats" / f"{SID}.jsonl"
    chat.write_bytes(b"")
    return chat


def phase(root: Path, mode: str, times: CheckTimes) -> dict[str, float]:
    """One service, one forced health check under live appends; the module docstring's figures."""
    chat = _session(root)
    service = create_project_service(open_project(root))
    service.drainer.health.background = mode == "own thread"
    writes: list[tuple[float, int]] = []
    polls: list[tuple[float, int]] = []
    wal = Path(f"{service.project.index_path}-wal")
    wal_peak = [0]
    stop = threading.Event()
    runs_before = len(times.runs)

    def append() -> None:
        seq, due = 0, time.monotonic()
        while not stop.is_set():
            lines = []
            for _ in range(PER_TICK):
                seq += 1
                lines.append(json.dumps({"seq": seq, "ts": "2026-06-15T11:30:00+00:00",
                                         "type": "user_message", "id": f"m{seq}",
                                         "status": "accepted", "text": f"live line zq{seq:06d}"}))  # fmt: skip
            with chat.open("a") as out:
                out.write("\n".join(lines) + "\n")
            writes.append((time.monotonic(), chat.stat().st_size))
            service.notify_chat_event(SID)
            due += TICK_S
            stop.wait(max(0.0, due - time.monotonic()))

    def poll() -> None:
        conn = connect(service.project.index_path)
        try:
            while not stop.is_set() or (writes and (not polls or polls[-1][1] < writes[-1][1])):
                row = get_source(conn, f"chat:{SID}")
                cursor = row.cursor if row is not None else 0
                if not polls or polls[-1][1] != cursor:
                    polls.append((time.monotonic(), cursor))
                if len(times.runs) == runs_before:
                    wal_peak[0] = max(wal_peak[0], wal.stat().st_size if wal.exists() else 0)
                time.sleep(POLL_S)
        finally:
            conn.close()

    try:
        service.catch_up()
        threads = [threading.Thread(target=append), threading.Thread(target=poll)]
        for thread in threads:
            thread.start()
        time.sleep(LEAD_S)
        service.drainer._periodic = health.HEALTH_EVERY - 1  # the next periodic reconcile checks
        service.queue.add("reconcile", "periodic", delay=0.0, retry=True)
        while len(times.runs) == runs_before:
            time.sleep(POLL_S)
        time.sleep(TAIL_S)
        stop.set()
        for thread in threads:
            thread.join()
    finally:
        service.dispose()
    start, end, wall, cpu = times.runs[runs_before]
    lags = [next(t for t, c in polls if c >= size and t >= at) - at
            for at, size in writes if start <= at <= end]  # fmt: skip
    return {"check_wall_s": wall, "check_cpu_s": cpu, "wal_peak_mb": wal_peak[0] / 2**20,
            "lag_p50_s": percentile(lags, 0.5), "lag_p95_s": percentile(lags, 0.95),
            "lag_max_s": max(lags), "batches": len(lags)}  # fmt: skip


def dispose_mid_check(root: Path) -> tuple[float, str | None]:
    """Seconds ``dispose`` takes 0.3 s into a check (it interrupts it), and how the check ended."""
    service = create_project_service(open_project(root))
    with service.drainer.lock:
        service.drainer.check_health(service.drainer.connection())
    time.sleep(0.3)
    started = time.monotonic()
    service.dispose()
    return time.monotonic() - started, service.drainer.health.outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=60)
    parser.add_argument("--corpus-dir", type=Path, help="an existing corpus (else generated)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    from benchmarks.corpus import CORPUS_DIR, generate

    corpus = args.corpus_dir or generate(args.mb, CORPUS_DIR / f"mb{args.mb}")
    times = CheckTimes()
    with tempfile.TemporaryDirectory(dir=Path(__file__).with_name(".corpus")) as tmp:
        root = Path(tmp) / "project"
        _corpus_project(corpus, root)
        started = time.monotonic()
        first = create_project_service(open_project(root), start_worker=False)
        first.catch_up()
        first.dispose()
        db_mb = os.stat(root / ".ade" / "cache" / "search-index.db").st_size / 2**20
        print(f"indexed in {time.monotonic() - started:.1f} s: {db_mb:.0f} MB", flush=True)
        results: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
        for number in range(args.rounds):
            for mode in MODES if number % 2 == 0 else MODES[::-1]:
                found = phase(root, mode, times)
                results[mode].append(found)
                print(number, mode, {k: round(v, 3) for k, v in found.items()}, flush=True)
            took, outcome = dispose_mid_check(root)
            print(f"dispose 0.3 s into a check: {took * 1000:.0f} ms ({outcome})", flush=True)
    print(f"load {os.getloadavg()[0]:.2f}; medians over {args.rounds} rounds, index {db_mb:.0f} MB")
    for mode in MODES:
        keys = results[mode][0].keys()
        print(mode, {k: round(statistics.median(r[k] for r in results[mode]), 3) for k in keys})


if __name__ == "__main__":
    main()
