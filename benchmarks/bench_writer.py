"""The index writer's cost alone (first-index budget): planned passes through ``commit_pass`` vs raw FTS5.

    python -m benchmarks.bench_writer [--mb 16] [--corpus-dir DIR] [--rounds 5] [--profile]
    python -m benchmarks.bench_writer --fill [--mb 16] [--corpus-dir DIR] [--rounds 5]

The corpus (``benchmarks.corpus.generate``) is made an ade project and every transcript is planned
once, up front and untimed, pass by pass exactly as the drain plans it (``tailing.plan_pass``:
read, chunk, sanitize, redact, derive the digest, zlib body and identifier parts), which is what
the planning worker hands the writing process. Each round then writes every plan into a fresh
index as the drain's first index does (``IndexWriter.first_index``, one ``commit_pass`` transaction a
pass), interleaved with the raw baseline: the same docs' bodies into ``fts5(body)`` (apsw, 1000
rows a transaction, WAL, ``synchronous=NORMAL``), as ``bench_ingest --corpus-mb`` does. Wall and
CPU medians; the ratio is raw / ours (goal: the writer close to 1, end to end >= 0.75).

``--fill`` instead times the end of a first index, the ``docs_recent`` fill (CPU), with FTS5's
default ``hashsize`` and with ``recent.FILL_HASHSIZE``, interleaved, the whole write around it.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import apsw

from benchmarks.bench_ingest import _corpus_project
from benchmarks.timing import Stopwatch, Timing, cpu_ms
from engine.index import checks as index_checks
from engine.index import db as index_db
from engine.index import first_index as recent
from engine.index.writer import IndexWriter
from engine.ingest import tailing
from engine.ingest.transcripts import chat_builder, terminal_builder
from engine.project.locate import open_project
from engine.project.sessions import read_session
from engine.project.tally import WarningTally

Plans = list[tuple[str, tailing.Plan]]


def plan_corpus(root: Path) -> Plans:
    """Every pass of every transcript of the project at ``root``, planned in drain order per
    source (each plan starts from the cursor row the previous one commits)."""
    project = open_project(root)
    tally = WarningTally()
    plans: Plans = []
    for kind, folder in (("chat", "chats"), ("terminal", "terminals")):
        for path in sorted((project.ade_dir / folder).iterdir()):
            sid = path.name.split(".")[0]
            meta = read_session(project, sid, tally)
            builder = (
                chat_builder(sid, meta, tally) if kind == "chat" else terminal_builder(sid, meta)
            )
            row = index_db.SourceRow(key=f"{kind}:{sid}")
            while True:
                plan = tailing.plan_pass(path, row, builder)
                plans.append((kind, plan))
                if not plan.more:
                    break
                row = index_db.SourceRow(
                    key=row.key, cursor=plan.cursor, identity=plan.identity, size=plan.size,
                    state=json.dumps(plan.state, separators=(",", ":"), sort_keys=True),
                )  # fmt: skip
    return plans


def fresh_index(index: Path) -> None:
    """An empty index at ``index`` (untimed: creating the schema is once per file, fsyncs)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    index_db.open_index(index)


def write_ours(index: Path, plans: Plans, group: int = 1) -> int:
    """A first index of ``plans`` into the empty index at ``index``, ``group`` passes a
    transaction (as the drain's ``pass_group``); returns the doc count."""
    writer = IndexWriter(index)
    try:
        with writer.first_index():
            for start in range(0, len(plans), group):
                if group > 1:  # as ``engine.ingest.pass_group`` does
                    writer.begin_group()
                for kind, plan in plans[start : start + group]:
                    tailing.commit_pass(writer, plan, kind, 0)
                if group > 1:
                    writer.commit_group()
        return index_checks.doc_count(writer.conn)
    finally:
        writer.close()


def fresh_raw(path: Path) -> None:
    """An empty ``fts5(body)`` table at ``path`` (untimed, like ``fresh_index``)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    conn = apsw.Connection(str(path))
    conn.pragma("journal_mode", "wal")
    conn.execute("CREATE VIRTUAL TABLE raw USING fts5(body)")
    conn.close()


def write_raw(path: Path, bodies: list[str]) -> None:
    """The baseline: the same bodies into a bare ``fts5(body)``, 1000 rows a transaction."""
    conn = apsw.Connection(str(path))
    conn.pragma("synchronous", "NORMAL")
    for i in range(0, len(bodies), 1000):
        with conn:
            conn.executemany(
                "INSERT INTO raw(body) VALUES (?)", ((b,) for b in bodies[i : i + 1000])
            )
    conn.close()


def _interleaved_with_setup(
    jobs: dict[str, tuple[Callable[[], None], Callable[[], None]]], rounds: int
) -> dict[str, Timing]:
    """Like ``timing.interleaved``, with an untimed setup before every timed call."""
    wall: dict[str, list[float]] = {name: [] for name in jobs}
    cpu: dict[str, list[float]] = {name: [] for name in jobs}
    for _ in range(rounds):
        for name, (setup, job) in jobs.items():
            setup()
            before = cpu_ms()
            with Stopwatch() as watch:
                job()
            cpu[name].append(cpu_ms() - before)
            wall[name].append(watch.ms)
            print(f"  {name}: {watch.ms / 1000:.2f} s", file=sys.stderr, flush=True)
    return {name: Timing(tuple(wall[name]), tuple(cpu[name])) for name in jobs}


def bench(
    mb: int, rounds: int, corpus_dir: Path | None, profile: bool, groups: tuple[int, ...] = ()
) -> dict[str, object]:
    """Plan the corpus once, then write it ``rounds`` times each way, interleaved."""
    from benchmarks.corpus import CORPUS_DIR, generate

    corpus = generate(mb, corpus_dir or CORPUS_DIR / f"mb{mb}")
    with tempfile.TemporaryDirectory(dir=corpus.parent) as tmp:
        root = Path(tmp) / "project"
        _corpus_project(corpus, root)
        plans = plan_corpus(root)
        bodies = [d.body for _, p in plans for d in p.prepared]
        index, raw_path = open_project(root).index_path, Path(tmp) / "raw.db"
        count = [0]

        def ours() -> None:
            count[0] = write_ours(index, plans)

        if profile:
            fresh_index(index)
            prof = cProfile.Profile()
            prof.runcall(ours)
            stats = pstats.Stats(prof, stream=sys.stderr)
            stats.sort_stats("tottime").print_stats(20)
        jobs = {
            "raw": (lambda: fresh_raw(raw_path), lambda: write_raw(raw_path, bodies)),
            "ours": (lambda: fresh_index(index), ours),
        }

        def grouped(size: int) -> Callable[[], None]:
            return lambda: count.__setitem__(0, write_ours(index, plans, size))

        for size in groups:
            jobs[f"group{size}"] = (lambda: fresh_index(index), grouped(size))
        timings = _interleaved_with_setup(jobs, rounds)
        index_bytes = index.stat().st_size
    raw, mine = timings["raw"], timings["ours"]
    return {
        "mb": mb, "docs": count[0], "plans": len(plans),
        "sanitized_mb": round(sum(len(b.encode()) for b in bodies) / 1e6, 1),
        "raw_s": round(raw.median / 1000, 3), "raw_cpu_s": round(raw.cpu_median / 1000, 3),
        "ours_s": round(mine.median / 1000, 3), "ours_cpu_s": round(mine.cpu_median / 1000, 3),
        "ratio": round(raw.median / mine.median, 3),
        "ratio_cpu": round(raw.cpu_median / mine.cpu_median, 3),
        "index_mb": round(index_bytes / 1e6, 1),
        **{f"{name}_cpu_s": round(t.cpu_median / 1000, 3) for name, t in timings.items()
           if name.startswith("group")},
        **{f"{name}_s": round(t.median / 1000, 3) for name, t in timings.items()
           if name.startswith("group")},
    }  # fmt: skip


def bench_fill(mb: int, rounds: int, corpus_dir: Path | None) -> dict[str, object]:
    """The ``docs_recent`` fill's CPU with the default and the fill's ``hashsize``, interleaved."""
    from benchmarks.corpus import CORPUS_DIR, generate

    corpus = generate(mb, corpus_dir or CORPUS_DIR / f"mb{mb}")
    sizes = {"default": recent.FTS_HASHSIZE, "fill": recent.FILL_HASHSIZE}
    fill_cpu: dict[str, list[float]] = {name: [] for name in sizes}
    write_cpu: dict[str, list[float]] = {name: [] for name in sizes}
    real_fill = recent.RecentDeferral.fill

    def timed_fill(self: recent.RecentDeferral, conn: apsw.Connection) -> None:
        before = cpu_ms()
        real_fill(self, conn)
        fill_cpu[current[0]].append(cpu_ms() - before)

    current = ["default"]
    with tempfile.TemporaryDirectory(dir=corpus.parent) as tmp:
        root = Path(tmp) / "project"
        _corpus_project(corpus, root)
        plans = plan_corpus(root)
        index = open_project(root).index_path
        recent.RecentDeferral.fill = timed_fill  # type: ignore[method-assign]
        try:
            for _ in range(rounds):
                for name, size in sizes.items():
                    current[0], recent.FILL_HASHSIZE = name, size
                    fresh_index(index)
                    before = cpu_ms()
                    write_ours(index, plans)
                    write_cpu[name].append(cpu_ms() - before)
        finally:
            recent.RecentDeferral.fill = real_fill  # type: ignore[method-assign]
            recent.FILL_HASHSIZE = sizes["fill"]
    return {
        "mb": mb, "rounds": rounds, "fill_hashsize": sizes["fill"],
        **{f"{name}_fill_cpu_s": round(statistics.median(fill_cpu[name]) / 1000, 3) for name in sizes},
        **{f"{name}_write_cpu_s": round(statistics.median(write_cpu[name]) / 1000, 3) for name in sizes},
        **{f"{name}_fill_cpu_each_s": [round(ms / 1000, 3) for ms in fill_cpu[name]] for name in sizes},
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=int, default=16, help="corpus size to generate or read")
    parser.add_argument("--corpus-dir", type=Path, help="where that corpus is (or is written)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--profile", action="store_true", help="cProfile one write first")
    parser.add_argument("--fill", action="store_true", help="time the docs_recent fill instead")
    parser.add_argument("--groups", default="", help="also N passes a transaction, e.g. 4,8,16")
    args = parser.parse_args()
    if args.fill:
        print("fill", bench_fill(args.mb, args.rounds, args.corpus_dir), flush=True)
        return
    groups = tuple(int(n) for n in args.groups.split(",") if n)
    found = bench(args.mb, args.rounds, args.corpus_dir, args.profile, groups)
    print("writer", found, flush=True)


if __name__ == "__main__":
    main()
