"""Snippet re-derivation cost: a page's texts from the transcripts, old code vs new (index-size budget).

Chat messages and terminal chunks store no body; the page being shown re-derives each text from
its transcript (``engine.query.source_text.snippet_texts``). This bench takes an index already
built by the real ingester (``benchmarks.bench_size build``: a project with ``.ade/cache``) and
times ``snippet_texts`` over pages of 50 sourced rows, the old module (``git show REV:…``, loaded
beside the new one in this process) and the new one interleaved round by round, CPU time. Every
page's texts are checked equal between the two. Pages: random rows of each kind (a filter-only
or rare-term page over many sessions), and runs of 50 consecutive rows (a page inside one
session). The index is opened read-only. Stages of the new path are timed apart once.

Run: ``nice -n 5 python -m benchmarks.bench_snippet_source PROJECT --base-rev 6fa6b36``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.timing import interleaved, percentile

REPO = Path(__file__).resolve().parents[1]
PAGE = 50


def _old_module(rev: str) -> types.ModuleType:
    """``engine.query.source_text`` as it was at ``rev``, importable beside today's."""
    source = subprocess.run(
        ["git", "show", f"{rev}:engine/query/source_text.py"],
        cwd=REPO, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    module = types.ModuleType("_old_source_text")
    sys.modules[module.__name__] = module
    exec(compile(source, "old/source_text.py", "exec"), module.__dict__)
    return module


def _pages(conn: Any, rng: random.Random, count: int) -> dict[str, list[list[int]]]:
    out: dict[str, list[list[int]]] = {}
    for kind in ("chat", "terminal"):
        ids = [int(r[0]) for r in conn.execute(
            "SELECT id FROM docs WHERE kind = ? AND src_offset IS NOT NULL ORDER BY id", (kind,))]  # fmt: skip
        out[f"{kind}, random rows"] = [rng.sample(ids, PAGE) for _ in range(count)]
        starts = [rng.randrange(len(ids) - PAGE) for _ in range(count)]
        out[f"{kind}, one session run"] = [ids[s : s + PAGE] for s in starts]
    return out


def _cpu_per_page(fn: Callable[[], object], pages: int) -> Callable[[], float]:
    def run() -> float:
        start = time.process_time()
        fn()
        return (time.process_time() - start) * 1000 / pages

    return run


def _every_page(module: Any, conn: Any, project: Any, bodies: list[Any]) -> Callable[[], object]:
    return lambda: [module.snippet_texts(conn, project, b) for b in bodies]


def _stages(conn: Any, project: Any, pages: list[list[int]]) -> dict[str, float]:
    """CPU ms per page of the new path's parts, and of the redaction it now skips."""
    from engine.index.documents import body_fingerprint, fetch_bodies
    from engine.query import source_text as new
    from engine.redaction import redact_secrets

    bodies = [fetch_bodies(conn, page) for page in pages]
    texts = [new.snippet_texts(conn, project, b) for b in bodies]
    spans: list[tuple[str, list[tuple[int, int] | None]]] = []
    for page in bodies:
        by_key: dict[str, list[tuple[int, int] | None]] = {}
        for stored in page.values():
            by_key.setdefault(stored.source_key or "", []).append(stored.span)
        for key, key_spans in by_key.items():
            kind, _, sid = key.partition(":")
            path = new.plain_transcript(os.fspath(project.ade_dir), kind, sid)
            if path is not None:
                spans.append((path, key_spans))
    all_texts = [t for page in texts for t in page.values()]
    jobs: dict[str, Callable[[], object]] = {
        "fetch_bodies (SQL)": lambda: [fetch_bodies(conn, page) for page in pages],
        "open + pread": lambda: [new.read_spans(path, s) for path, s in spans],
        "fingerprint": lambda: [body_fingerprint(t) for t in all_texts],
        "redaction (skipped now)": lambda: [redact_secrets(t) for t in all_texts],
        "snippet_texts (whole)": lambda: [new.snippet_texts(conn, project, b) for b in bodies],
    }
    out: dict[str, float] = {}
    for name, job in jobs.items():
        samples = [_cpu_per_page(job, len(pages))() for _ in range(5)]
        out[name] = statistics.median(samples)
    return out


def _fresh_first_page(project_dir: Path, side: str, kind: str, rev: str) -> float:
    """CPU ms of the first ``snippet_texts`` page in this fresh process: what a CLI search pays,
    lazy imports (the chunker) and the redaction patterns compiled on first use included."""
    import apsw

    from engine.index.documents import fetch_bodies
    from engine.project.locate import open_project

    if side == "old":
        module = _old_module(rev)
    else:
        from engine.query import source_text as module
    project = open_project(project_dir)
    conn = apsw.Connection(str(project.index_path), flags=apsw.SQLITE_OPEN_READONLY)
    page = _pages(conn, random.Random(14), 1)[f"{kind}, random rows"][0]
    bodies = fetch_bodies(conn, page)
    start = time.process_time()
    module.snippet_texts(conn, project, bodies)
    return (time.process_time() - start) * 1000


def _fresh_rounds(project_dir: Path, rev: str, rounds: int) -> None:
    print("\nFirst page in a fresh process (CPU ms, median / p95 of the rounds, interleaved):")
    for kind in ("chat", "terminal"):
        samples: dict[str, list[float]] = {"old": [], "new": []}
        for _ in range(rounds):
            for side in samples:
                cmd = [sys.executable, "-m", "benchmarks.bench_snippet_source", str(project_dir),
                       "--base-rev", rev, "--fresh", f"{side}:{kind}"]  # fmt: skip
                done = subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True)
                samples[side].append(float(done.stdout.split()[-1]))
        o, n = samples["old"], samples["new"]
        print(f"- {kind}: old {statistics.median(o):.1f} / {percentile(o, 0.95):.1f},"
              f" new {statistics.median(n):.1f} / {percentile(n, 0.95):.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("project", type=Path, help="a project whose .ade/cache holds an index")
    parser.add_argument("--base-rev", default="6fa6b36", help="git revision of the old module")
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--fresh", help=argparse.SUPPRESS)  # SIDE:KIND, one child's measurement
    args = parser.parse_args()
    if args.fresh:
        side, kind = args.fresh.split(":")
        print(f"{_fresh_first_page(args.project, side, kind, args.base_rev):.3f}")
        return

    import apsw

    from engine.index.documents import fetch_bodies
    from engine.project.locate import open_project
    from engine.query import source_text as new

    old = _old_module(args.base_rev)
    project = open_project(args.project)
    conn = apsw.Connection(str(project.index_path), flags=apsw.SQLITE_OPEN_READONLY)
    pages = _pages(conn, random.Random(14), args.pages)
    sides: dict[str, Any] = {"old": old, "new": new}
    print("| page | old ms/page | new ms/page | new/old | old p95 | new p95 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, rows in pages.items():
        bodies = [fetch_bodies(conn, page) for page in rows]
        for b in bodies:
            texts = new.snippet_texts(conn, project, b)
            if texts != old.snippet_texts(conn, project, b) or not all(texts.values()):
                raise SystemExit(f"{name}: the new texts differ from the old ones")
        timings = interleaved(
            {side: _every_page(module, conn, project, bodies) for side, module in sides.items()},
            args.rounds,
        )
        o, n = (timings[side].cpu for side in ("old", "new"))
        per = len(rows)
        print(f"| {name} | {statistics.median(o) / per:.2f} | {statistics.median(n) / per:.2f} |"
              f" {statistics.median(n) / statistics.median(o):.2f}x |"
              f" {percentile(o, 0.95) / per:.2f} | {percentile(n, 0.95) / per:.2f} |")  # fmt: skip
    print("\nStages of the new path, CPU ms per page (median of 5):")
    for kind in ("chat", "terminal"):
        for stage, ms in _stages(conn, project, pages[f"{kind}, random rows"]).items():
            print(f"- {kind}: {stage}: {ms:.2f}")
    _fresh_rounds(args.project, args.base_rev, args.rounds)


if __name__ == "__main__":
    main()
