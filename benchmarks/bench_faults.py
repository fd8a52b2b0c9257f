"""Cost of the fault checks on the warm CLI path (issue 13.10): the docs-vs-FTS count check that
every ``ade search`` runs in its catch-up, on an index of ``--docs`` documents.

Run: ``.venv/bin/python -m benchmarks.bench_faults [--docs 100000] [--append]``.

Reported: p50 / p95 of ``count_drift`` over 201 runs on one connection (the CLI runs it once, on
a fresh connection, so the first-run figure is reported too). The whole warm CLI before/after
is measured by an interleaved loop (see the reliability section of RESULTS.md).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.results import replace_section
from engine.index.db import IndexDoc, connect, immediate, open_index, upsert_docs
from engine.index.faults import count_drift

RUNS = 201
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "error",
    "build",
    "deploy",
    "fix",
    "test",
    "merge",
    "lane",
    "chat",
    "retry",
]


def _doc(i: int, rng: random.Random, base: int) -> IndexDoc:
    body = " ".join(rng.choice(WORDS) for _ in range(120))
    return IndexDoc(doc_id=f"chat:s{i // 1000}:{i}", kind="chat", title="", rank_title="",
                    body=body, updated_at=base + i * 1000, session_id=f"s{i // 1000}")  # fmt: skip


def build(path: Path, docs: int) -> None:
    open_index(path)
    conn = connect(path)
    rng = random.Random(13)
    base = 1_700_000_000_000
    try:
        for start in range(0, docs, 1000):
            batch = [_doc(i, rng, base) for i in range(start, min(start + 1000, docs))]
            with immediate(conn):
                upsert_docs(conn, batch)
        conn.pragma("wal_checkpoint", "TRUNCATE")
    finally:
        conn.close()


def measure(path: Path) -> tuple[float, float, float]:
    fresh = connect(path)
    start = time.perf_counter()
    assert count_drift(fresh) is None
    first = (time.perf_counter() - start) * 1000
    fresh.close()
    conn = connect(path)
    samples = []
    for _ in range(RUNS):
        start = time.perf_counter()
        count_drift(conn)
        samples.append((time.perf_counter() - start) * 1000)
    conn.close()
    return first, statistics.median(samples), statistics.quantiles(samples, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--append", action="store_true", help="write the figures to RESULTS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "search-index.db"
        build(path, args.docs)
        first, p50, p95 = measure(path)
    line = (f"count_drift on {args.docs:,} docs: first run {first:.2f} ms, "
            f"then p50 {p50:.3f} ms / p95 {p95:.3f} ms")  # fmt: skip
    print(line)
    if args.append:
        replace_section("## Fault checks (issue 13)", f"## Fault checks (issue 13)\n\n{line}\n")


if __name__ == "__main__":
    main()
