"""Daemon under load: how far ingestion falls behind while clients query flat out.

Run: ``python -m benchmarks.bench_daemon_load [--seconds 20] [--clients 50] [--rounds 2]``.

Each phase builds a fresh demo project, starts a real daemon on it (``python -m engine.rpc``),
waits for its backfill, then for ``--seconds`` appends chat events (20 every 100 ms) and
terminal output (5 lines every 100 ms) to two sessions while ``--clients`` connections query as
fast as they can, and keeps the clients going until every appended line is searchable (or 15 s
after the writer stopped). Phases with 0 clients (the baseline) and with ``--clients`` alternate
in the same run, so the shared machine's load hits both alike.

"Searchable" is read from the index itself: a line is in the index once its source's cursor in
the ``sources`` table has passed its last byte (the docs of a pass and its cursor commit in one
transaction). A poller in this process reads the cursors every 10 ms through its own read
connection; the clients run in a child process so their GIL is not this process's and the
append and poll times stay exact. The last appended message is also searched through the daemon
at the end (a unique token), as a check that the cursor tells the truth.

Figures per phase: lines appended, lines searchable when the writer stopped and 1/5/15 s later,
lag (append → searchable) p50/p95/max, query throughput and latency p50/p99.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.results import replace_section
from benchmarks.timing import percentile
from engine.demo import build_demo
from engine.index.db import connect, get_source
from engine.ingest.queue import DEBOUNCE_S
from engine.rpc.client import DaemonClient, connect_daemon
from engine.types import SearchQueryArgs

ADE_NOW = "2026-06-15T12:00:00+00:00"
QUERIES = ["retry", "webhook", "kind:chat signature", "flaky test", "deploy", "kind:commit fix"]
CORPUS_QUERIES = [
    "timeout",
    "error",
    "the error",
    "kind:chat the",
    "failed",
    "kind:terminal timeout",
]
CHAT_SID, TERM_SID = "bench-load", "bench-term"
TICK_S = 0.1
CHAT_PER_TICK, TERM_PER_TICK = 20, 5
TAIL_S = 15.0
POLL_S = 0.01
HEADING = "## Daemon under load"
GOAL_MARGIN_S = 1.0
"""The goal: every line searchable within its kind's debounce plus this margin."""


@dataclass
class Stream:
    """One appended transcript: (append time, end offset, lines so far) per write."""

    key: str
    writes: list[tuple[float, int, int]] = field(default_factory=list)
    polls: list[tuple[float, int]] = field(default_factory=list)
    """(time, cursor) whenever the cursor moved."""

    def searchable_at(self, moment: float) -> int:
        cursor = max((c for t, c in self.polls if t <= moment), default=0)
        return max((n for _, end, n in self.writes if end <= cursor), default=0)

    def batch_lags(self) -> list[float]:
        """Seconds from append to searchable, one per write."""
        return [next((t for t, c in self.polls if c >= end and t >= appended), float("inf"))
                - appended for appended, end, _ in self.writes]  # fmt: skip

    def lags(self) -> list[float]:
        """Seconds from append to searchable, one per line (inf: never within the tail)."""
        out: list[float] = []
        previous = 0
        for appended, end, lines in self.writes:
            seen = next((t for t, c in self.polls if c >= end and t >= appended), None)
            lag = float("inf") if seen is None else seen - appended
            out.extend([lag] * (lines - previous))
            previous = lines
        return out


def _start_daemon(
    base: Path, extra: tuple[str, ...], src: Path | None
) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """The daemon of this checkout, or of the source tree ``src`` (an exported older commit)."""
    env = {**os.environ, "ADE_RUNTIME_DIR": str(base / "run"), "ADE_CONFIG_DIR": str(base / "cfg"),
           "ADE_NOW": ADE_NOW, "HOME": str(base / "home")}  # fmt: skip
    env.pop("ADE_SESSION_ID", None)
    (base / "home").mkdir()
    log = base / "daemon.log"
    cmd = [sys.executable, "-m", "engine.rpc", "--log-file", str(log), "--max-connections", "80",
           "--backfill-delay", "0", *extra]  # fmt: skip
    daemon_env = env if src is None else {**env, "PYTHONPATH": str(src)}
    proc = subprocess.Popen(cmd, env=daemon_env, stderr=subprocess.DEVNULL, cwd=src)
    while not (log.exists() and "listening on" in log.read_text()):
        if proc.poll() is not None:
            raise SystemExit("the daemon did not start")
        time.sleep(0.02)
    return proc, env


def _write_sessions(ade: Path) -> tuple[Path, Path]:
    for sid, kind, title in ((CHAT_SID, "chat", "load test"), (TERM_SID, "terminal", "load sh")):
        meta = {"id": sid, "kind": kind, "title": title, "laneId": None, "tool": "shell",
                "createdAt": "2026-06-15T11:00:00+00:00",
                "updatedAt": "2026-06-15T11:00:00+00:00", "endedAt": None}  # fmt: skip
        (ade / "sessions" / f"{sid}.json").write_text(json.dumps(meta))
    chat, term = ade / "chats" / f"{CHAT_SID}.jsonl", ade / "terminals" / f"{TERM_SID}.log"
    term.parent.mkdir(exist_ok=True)
    chat.write_bytes(b"")
    term.write_bytes(b"")
    return chat, term


def _settle(client: DaemonClient, pid: int) -> None:
    """Backfill marked, nothing pending, the daemon's CPU quiet (<5 % over 0.5 s): the open's
    catch-up sets the mark and a running entry is not pending, so its backfill ran in the phase."""
    deadline, cpu, quiet = time.monotonic() + 120, -1e9, 0.05 * 0.5 * os.sysconf("SC_CLK_TCK")
    while time.monotonic() < deadline:
        status, was = client.index_status(), cpu
        cpu = sum(map(int, Path(f"/proc/{pid}/stat").read_text().rsplit(")")[1].split()[11:13]))
        if status.backfill_completed_at and not status.pending_sources and cpu - was < quiet:
            return
        time.sleep(0.5)
    raise SystemExit("the daemon did not settle")


def _writer(chat: Path, term: Path, streams: tuple[Stream, Stream], stop: threading.Event) -> None:
    seq = lines = 0
    chat_stream, term_stream = streams
    next_tick = time.monotonic()
    while not stop.is_set():
        batch = []
        for _ in range(CHAT_PER_TICK):
            seq += 1
            event = {"seq": seq, "ts": "2026-06-15T11:30:00+00:00", "type": "user_message",
                     "id": f"m{seq}", "status": "accepted",
                     "text": f"retry webhook load message zq{seq:06d}"}  # fmt: skip
            batch.append(json.dumps(event) + "\n")
        output = "".join(
            f"\x1b[32mstep {lines + i}\x1b[0m compiled module_{lines + i} ok\r\n"
            for i in range(TERM_PER_TICK)
        )
        lines += TERM_PER_TICK
        with chat.open("a") as out:
            out.write("".join(batch))
        chat_stream.writes.append((time.monotonic(), chat.stat().st_size, seq))
        with term.open("ab") as raw:
            raw.write(output.encode())
        term_stream.writes.append((time.monotonic(), term.stat().st_size, lines))
        next_tick += TICK_S
        stop.wait(max(0.0, next_tick - time.monotonic()))


def _poller(index: Path, streams: tuple[Stream, ...], stop: threading.Event) -> None:
    conn = connect(index)
    try:
        while not stop.is_set():
            now = time.monotonic()
            for stream in streams:
                row = get_source(conn, stream.key)
                cursor = row.cursor if row is not None else 0
                if not stream.polls or stream.polls[-1][1] != cursor:
                    stream.polls.append((now, cursor))
            stop.wait(POLL_S)
    finally:
        conn.close()


def _all_in(streams: tuple[Stream, ...]) -> bool:
    return all(s.writes and s.polls and s.polls[-1][1] >= s.writes[-1][1] for s in streams)


def phase(
    clients: int,
    seconds: float,
    template: Path | None = None,
    spy: Path | None = None,
    daemon_args: tuple[str, ...] = (),
    src: Path | None = None,
) -> dict[str, Any]:
    """One phase on a fresh project and daemon; the figures of the module docstring.

    ``template``: an indexed project copied for the phase (default: a new demo project);
    ``spy``: record the daemon with py-spy into this file while the clients run.
    """
    base = Path(tempfile.mkdtemp(prefix="ade-bl-", dir="/tmp"))
    proc: subprocess.Popen[bytes] | None = None
    workers: subprocess.Popen[str] | None = None
    spying: subprocess.Popen[bytes] | None = None
    try:
        root = base / "demo"
        if template is None:
            build_demo(root)
        else:
            shutil.copytree(template, root, symlinks=True)
        root = root.resolve()
        chat, term = _write_sessions(root / ".ade")
        proc, env = _start_daemon(base, daemon_args, src)
        probe = connect_daemon(root, env=env, timeout=5.0)
        assert probe is not None
        _settle(probe, proc.pid)
        streams = (Stream(f"chat:{CHAT_SID}"), Stream(f"terminal:{TERM_SID}"))
        if clients:
            cmd = [sys.executable, "-m", "benchmarks.bench_daemon_load", "--client-worker",
                   "--clients", str(clients), "--root", str(root),
                   *(["--corpus-mb", "1"] if template is not None else [])]  # fmt: skip
            workers = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True)  # fmt: skip
            assert workers.stdin is not None
            assert workers.stdout is not None
            if workers.stdout.readline().strip() != "ready":
                raise SystemExit("the client process did not connect")
            workers.stdin.write("go\n")
            workers.stdin.flush()
        stop_writer, stop_poller = threading.Event(), threading.Event()
        threads = [
            threading.Thread(target=_writer, args=(chat, term, streams, stop_writer)),
            threading.Thread(
                target=_poller, args=(root / ".ade/cache/search-index.db", streams, stop_poller)
            ),
        ]
        for thread in threads:
            thread.start()
        if spy is not None:
            spying = subprocess.Popen([str(Path(sys.executable).with_name("py-spy")), "record", "--pid", str(proc.pid), "--threads",
                                       "--idle", "--format", "raw", "--rate", "200",
                                       "--output", str(spy)],
                                      stdout=subprocess.DEVNULL)  # fmt: skip
        time.sleep(seconds)  # the measurement window itself
        stop_writer.set()
        threads[0].join()
        ended = time.monotonic()
        while not _all_in(streams) and time.monotonic() < ended + TAIL_S:
            time.sleep(0.05)
        stop_poller.set()
        threads[1].join()
        if spying is not None:
            spying.send_signal(signal.SIGINT)
            spying.wait(timeout=60)
        load: dict[str, Any] = dict.fromkeys(("requests", "throughput", "p50", "p99", "errors"), 0)
        if workers is not None:
            assert workers.stdin is not None
            assert workers.stdout is not None
            workers.stdin.write("stop\n")
            workers.stdin.flush()
            load = json.loads(workers.stdout.readline())
            workers.wait(timeout=30)
        last = streams[0].writes[-1][2]
        check = probe.query(SearchQueryArgs(query=f"zq{last:06d}", kinds=("chat",), limit=1))
        # The probe the first daemon-load bench counted with: a bounded ``total``, not a count (it reads
        # 5,001 of 5,900 when every line is in the index).
        old = probe.query(SearchQueryArgs(query=f'"load message" session:{CHAT_SID}', limit=1))
        probe.close()
        out: dict[str, Any] = {"clients": clients, "found_last": check.total, "old_probe": old.total, **load}  # fmt: skip
        for stream in streams:
            name = stream.key.split(":")[0]
            lags = stream.lags()
            out[f"{name}_appended"] = stream.writes[-1][2]
            for label, delay in (("end", 0.0), ("1s", 1.0), ("5s", 5.0), ("15s", TAIL_S)):
                out[f"{name}_{label}"] = stream.searchable_at(ended + delay)
            out[f"{name}_lag_p50"] = percentile(lags, 0.5)
            out[f"{name}_lag_p95"] = percentile(lags, 0.95)
            out[f"{name}_lag_max"] = max(lags)
            goal = DEBOUNCE_S[name] + GOAL_MARGIN_S
            out[f"{name}_within"] = 100 * sum(lag <= goal for lag in lags) / len(lags)
            start = stream.writes[0][0]
            slow = [(t - start, lag) for (t, _, _), lag in zip(stream.writes, stream.batch_lags(), strict=True)
                    if lag > 1.0]  # fmt: skip
            out[f"{name}_slow_at"] = [f"{t:.1f}s:{lag:.2f}" for t, lag in slow]
        return out
    finally:
        if workers is not None and workers.poll() is None:
            workers.kill()
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                print("the daemon ignored SIGTERM for 30 s: killed", file=sys.stderr)
                proc.kill()
                proc.wait()
        shutil.rmtree(base, ignore_errors=True)


def client_worker(clients: int, root: Path, queries: list[str]) -> None:
    """The child process: ``clients`` connections querying flat out between "go" and "stop"."""
    connections = [connect_daemon(root, timeout=5.0) for _ in range(clients)]
    if any(c is None for c in connections):
        raise SystemExit("could not connect")
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients
    kinds: dict[str, int] = {}
    stop = threading.Event()

    def work(index: int) -> None:
        client, mine, i = connections[index], latencies[index], index
        assert client is not None
        while not stop.is_set():
            started = time.perf_counter()
            try:
                client.query(SearchQueryArgs(query=queries[i % len(queries)], limit=20))
            except Exception as err:
                errors[index] += 1
                kinds.setdefault(f"{type(err).__name__}: {err}"[:120], 0)
                kinds[f"{type(err).__name__}: {err}"[:120]] += 1
            mine.append((time.perf_counter() - started) * 1000)
            i += 1

    print("ready", flush=True)
    sys.stdin.readline()
    threads = [threading.Thread(target=work, args=(n,)) for n in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    sys.stdin.readline()
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    flat = [v for per in latencies for v in per]
    print(json.dumps({"requests": len(flat), "throughput": len(flat) / elapsed,
                      "p50": percentile(flat, 0.5), "p99": percentile(flat, 0.99),
                      "errors": sum(errors), "error_kinds": kinds}), flush=True)  # fmt: skip


def _fmt_lag(value: float) -> str:
    return "never (>15 s)" if value == float("inf") else f"{value:.2f} s"


@dataclass(frozen=True)
class Variant:
    label: str
    clients: int
    src: Path | None = None
    daemon_args: tuple[str, ...] = ()


def _export(ref: str) -> Path:
    """This repository's tree at ``ref``, in a temporary folder (the daemon "before")."""
    out = Path(tempfile.mkdtemp(prefix="ade-blref-", dir="/tmp"))
    archive = subprocess.run(["git", "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(out)], input=archive, check=True)
    return out


def report(args: argparse.Namespace) -> str:
    variants = [Variant("0 clients", 0), Variant(f"{args.clients} clients", args.clients)]
    if args.compare_ref:
        label = f"{args.clients} clients, before ({args.compare_ref})"
        variants.append(Variant(label, args.clients, _export(args.compare_ref)))
    for spec in args.variant:
        label, _, options = spec.partition("=")
        variants.append(Variant(label, args.clients, daemon_args=tuple(options.split())))
    runs: dict[str, list[dict[str, Any]]] = {v.label: [] for v in variants}
    loads: list[str] = []
    template: Path | None = None
    if args.corpus_mb:
        from benchmarks.bench_cli import corpus_project, index_once

        # Transcripts copied, not linked: a link out of the project is refused (RELIABILITY).
        template = Path(tempfile.mkdtemp(prefix="ade-blt-", dir="/tmp")) / "corpus"
        shutil.copytree(corpus_project(args.corpus_mb), template, symlinks=False,
                        ignore=shutil.ignore_patterns("cache"))  # fmt: skip
        index_once(template)
        # The daemon runs its own backfill (health check included) before the phases start:
        # without this mark removed, settling would not wait for it and it would run in them.
        conn = connect(template / ".ade/cache/search-index.db")
        conn.execute("DELETE FROM meta WHERE key = 'backfill_completed_at'")
        conn.close()
    try:
        for round_ in range(args.rounds):
            for variant in variants if round_ % 2 == 0 else variants[::-1]:
                loads.append(Path("/proc/loadavg").read_text().split()[0])
                spy = None
                if args.py_spy and not round_:
                    spy = args.py_spy.with_suffix(f".{variants.index(variant)}.txt")
                result = phase(variant.clients, args.seconds, template, spy,
                               (*args.daemon_arg, *variant.daemon_args), variant.src)  # fmt: skip
                result["variant"] = variant.label
                print(json.dumps(result), file=sys.stderr, flush=True)
                runs[variant.label].append(result)
    finally:
        for folder in [template.parent if template else None, *(v.src for v in variants)]:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)

    def med(label: str, key: str) -> float:
        return statistics.median(r[key] for r in runs[label])

    def row(name: str, key: str, fmt: str = "{:.0f}") -> str:
        cells = []
        for label in runs:
            values = [r[key] for r in runs[label]]
            cells.append(
                f"{fmt.format(med(label, key))} ({', '.join(fmt.format(v) for v in values)})"
            )
        return f"| {name} | {' | '.join(cells)} |"

    def lag_row(name: str, key: str) -> str:
        cells = [
            f"{_fmt_lag(med(c, key))} ({', '.join(_fmt_lag(r[key]) for r in runs[c])})"
            for c in runs
        ]
        return f"| {name} | {' | '.join(cells)} |"

    lines = [
        f"`python -m benchmarks.bench_daemon_load {shlex.join(a for a in sys.argv[1:] if a != '--append')}`"
        f", Python {sys.version.split()[0]}, 2 shared CPUs, "
        f"1-min load average before each phase: {', '.join(loads)}.",
        "",
        f"Median over {args.rounds} rounds (each round's value in brackets); writer: "
        f"{CHAT_PER_TICK} chat events and {TERM_PER_TICK} terminal lines every "
        f"{TICK_S * 1000:.0f} ms for {args.seconds:g} s.",
        "",
        f"| measurement | {' | '.join(runs)} |",
        "|---|" + "---|" * len(runs),
        row("chat events appended", "chat_appended"),
        row("… searchable when the writer stopped", "chat_end"),
        row("… +1 s", "chat_1s"),
        row("… +5 s", "chat_5s"),
        row("… +15 s", "chat_15s"),
        lag_row("chat lag p50", "chat_lag_p50"),
        lag_row("chat lag p95", "chat_lag_p95"),
        lag_row("chat lag max", "chat_lag_max"),
        row(
            f"chat lines searchable within {DEBOUNCE_S['chat'] + GOAL_MARGIN_S:g} s (%)",
            "chat_within",
            "{:.1f}",
        ),
        row("terminal lines appended", "terminal_appended"),
        row("… searchable +1 s", "terminal_1s"),
        lag_row("terminal lag p50", "terminal_lag_p50"),
        lag_row("terminal lag p95", "terminal_lag_p95"),
        row(
            f"terminal lines searchable within {DEBOUNCE_S['terminal'] + GOAL_MARGIN_S:g} s (%)",
            "terminal_within",
            "{:.1f}",
        ),
        row("query throughput (req/s)", "throughput"),
        row("query latency p50 (ms)", "p50", "{:.1f}"),
        row("query latency p99 (ms)", "p99", "{:.1f}"),
        row("query errors", "errors"),
        row("last message found through the daemon", "found_last"),
        row("first probe's `total` (bounded, not a count)", "old_probe"),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--corpus-mb", type=int, default=0,
                        help="query the generated corpus of this size instead of the demo")  # fmt: skip
    parser.add_argument("--daemon-arg", action="append", default=[],
                        help="pass this option to the daemon (repeatable: --daemon-arg=--workers=2)")  # fmt: skip
    parser.add_argument("--variant", action="append", default=[],
                        help='another loaded phase: "LABEL=DAEMON OPTIONS" (repeatable)')  # fmt: skip
    parser.add_argument("--compare-ref", help="also run the loaded phase on this commit's daemon")
    parser.add_argument("--py-spy", type=Path, help="py-spy the first loaded phase into this file")
    parser.add_argument("--append", action="store_true", help="write into benchmarks/RESULTS.md")
    parser.add_argument("--client-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client_worker:
        client_worker(args.clients, args.root, CORPUS_QUERIES if args.corpus_mb else QUERIES)
        return
    text = report(args)
    print(text)
    if args.append:
        replace_section(HEADING, f"{HEADING}\n\n{text}")


if __name__ == "__main__":
    main()
