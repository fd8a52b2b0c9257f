"""Cost of the fault checks on the warm CLI path (lost FTS rows): the docs-vs-FTS count check that
every ``ade search`` runs in its catch-up, on an index of ``--docs`` documents.

Run: ``python -m benchmarks.bench_faults [--docs 100000] [--append]``.

Reported: p50 / p95 of ``count_drift`` over 201 runs on one connection, timed by
``benchmarks.timing`` (the CLI runs it once, on a fresh connection, so the first-run figure is
reported too). The whole warm CLI before/after
is measured by an interleaved loop (see the reliability section of RESULTS.md).
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from benchmarks.results import replace_section
from benchmarks.timing import interleaved, timed
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
    """(first run on a fresh connection, p50, p95) of ``count_drift`` in ms."""
    fresh = connect(path)
    try:
        seconds, drift = timed(lambda: count_drift(fresh))
    finally:
        fresh.close()
    assert drift is None, f"a freshly built index drifts: {drift}"
    conn = connect(path)
    try:
        timing = interleaved({"count_drift": lambda: count_drift(conn)}, RUNS, warmup=False)
    finally:
        conn.close()
    return seconds * 1000, timing["count_drift"].median, timing["count_drift"].p95


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
        replace_section("## Fault checks", f"## Fault checks\n\n{line}\n")


if __name__ == "__main__":
    main()
